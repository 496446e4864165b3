// swift-tools-version: 6.1
import PackageDescription

// Layers, each depending only on the ones below it (the compiler enforces the architecture):
//
//   receipts (CLI) ─ opens --store (SQLite or PostgreSQL), adds its flags to the libraries' errors
//     ├─ ReceiptServer ─ `receipts serve`: the pipeline over HTTP(S) (Hummingbird, NIOSSL), /metrics (swift-prometheus),
//     │    │              the review page, the OpenAPI document (openapi.yaml: ReceiptsClient is generated from it)
//     │    └─ ReceiptServerStore ─ what the server keeps beside the receipts: API tokens, idempotency keys
//     ├─ ReceiptPostgres ─ opt-in: the store in PostgreSQL (PostgresNIO, NIOSSL) for several worker
//     │                    hosts, with the server's queries and `store migrate`  → Storage, ServerStore
//     ├─ ReceiptRemoteAnalyzers ─ opt-in: Gemini and OpenAI-compatible servers (URLSession)  → Analyzers
//     ├─ ReceiptEvaluation ─ scoring against labelled receipts, the candidates for training  → Analyzers
//     ├─ ReceiptMail ─ e-mail: IMAP(S) through libcurl by UID watermark, MIME through GMime, HTML e-receipts
//     │                through libxml2; messages kept whole and filed through the pipeline  → Kit (`serve` uses it too)
//     └─ ReceiptKit ─ queue, pipeline, watched-folder intake: the facade a backend imports
//          ├─ ReceiptStorage ─ the store protocol, SQLite, store locations and drivers, the image store
//          ├─ ReceiptAnalyzers ─ the heuristic analyzer and its learned models, the fallback analyzer
//          ├─ ReceiptOCR ─ Tesseract and Leptonica (libheif for HEIC/AVIF, poppler for PDF), and the neural
//          │               reader (PP-OCR models through OpenVINO, dlopened): images in, OCR sessions and results out
//          └─ ReceiptModel ─ Receipt, Expense, Money, CalendarDate, Taxonomy, OCR results,
//                            the one error type and its advice, the page-reading protocol analyzers use
//
//   ReceiptsClient ─ apart from all of the above: a Swift client of `receipts serve` for iOS and
//                    server apps, generated from Sources/ReceiptServer/openapi.yaml (swift-openapi-
//                    generator, `make openapi`; the code is committed) with a thin layer written here.
//                    It depends only on swift-openapi-runtime and swift-openapi-urlsession.
//
// ReceiptAnalyzers and ReceiptStorage do not depend on ReceiptOCR: a backend that only wants the
// parser links neither Tesseract nor GRDB. ReceiptKit links neither PostgresNIO and NIOSSL nor an
// HTTP client: a backend adds ReceiptPostgres (and passes `PostgresStoreDriver()`) or
// ReceiptRemoteAnalyzers when it wants them.
let package = Package(
    name: "receipts",
    // iOS for ReceiptsClient (the rest of the package is for servers).
    platforms: [.macOS(.v15), .iOS(.v17)],
    products: [
        .library(name: "ReceiptKit", targets: ["ReceiptKit"]),
        .library(name: "ReceiptModel", targets: ["ReceiptModel"]),
        .library(name: "ReceiptAnalyzers", targets: ["ReceiptAnalyzers"]),
        .library(name: "ReceiptRemoteAnalyzers", targets: ["ReceiptRemoteAnalyzers"]),
        .library(name: "ReceiptEvaluation", targets: ["ReceiptEvaluation"]),
        .library(name: "ReceiptOCR", targets: ["ReceiptOCR"]),
        .library(name: "ReceiptStorage", targets: ["ReceiptStorage"]),
        .library(name: "ReceiptPostgres", targets: ["ReceiptPostgres"]),
        .library(name: "ReceiptServerStore", targets: ["ReceiptServerStore"]),
        .library(name: "ReceiptServer", targets: ["ReceiptServer"]),
        .library(name: "ReceiptMail", targets: ["ReceiptMail"]),
        .library(name: "ReceiptsClient", targets: ["ReceiptsClient"]),
        .executable(name: "receipts", targets: ["receipts"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession", from: "1.4.0"),
    ],
    targets: [
        .target(
            name: "ReceiptModel",
            dependencies: []
        ),
        .systemLibrary(
            name: "CTesseract",
            pkgConfig: "tesseract",
            providers: [.apt(["libtesseract-dev", "libleptonica-dev", "tesseract-ocr-eng"])]
        ),
        // HEIC/HEIF (iPhone photos) and AVIF.
        .systemLibrary(
            name: "CHeif",
            pkgConfig: "libheif",
            providers: [.apt(["libheif-dev"])]
        ),
        // PDF: text layers and rendering (poppler's GLib API, cairo).
        .systemLibrary(
            name: "CPoppler",
            pkgConfig: "poppler-glib",
            providers: [.apt(["libpoppler-glib-dev"])]
        ),
        // Tesseract speed and memory fixes in C (see its .c files).
        .target(
            name: "COCRTuning",
            dependencies: ["CTesseract"],
            linkerSettings: [.linkedLibrary("dl")]
        ),
        // OpenVINO's C API for the neural reader, loaded with dlopen at run time (not linked): the
        // package builds, and Tesseract reads, on a machine without it (`make neural` installs it).
        .target(
            name: "COpenVINO",
            linkerSettings: [.linkedLibrary("dl")]
        ),
        .target(
            name: "ReceiptOCR",
            dependencies: [
                "ReceiptModel",
                "CTesseract",
                "CHeif",
                "CPoppler",
                "COCRTuning",
                "COpenVINO",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(
            name: "ReceiptAnalyzers",
            dependencies: [
                "ReceiptModel",
                .product(name: "Logging", package: "swift-log"),
            ],
            // The learned model's parameters, written by `make train`.
            resources: [.copy("Learned/learned-model.json")]
        ),
        // Gemini and OpenAI-compatible analyzers: the only library target that links an HTTP client
        // (URLSession, FoundationNetworking).
        .target(
            name: "ReceiptRemoteAnalyzers",
            dependencies: [
                "ReceiptModel",
                "ReceiptAnalyzers",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Scoring against labelled receipts and loading labelled folders (`receipts eval`, the
        // accuracy gate), and the candidate dump `make train` learns from.
        .target(
            name: "ReceiptEvaluation",
            dependencies: ["ReceiptModel", "ReceiptAnalyzers"]
        ),
        .target(
            name: "ReceiptStorage",
            dependencies: [
                "ReceiptModel",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // What `receipts serve` keeps beside the receipts (API tokens, idempotency keys): the
        // protocol and its SQLite queries. Below the server and the PostgreSQL store, so that
        // PostgreSQL implements it beside its other queries without linking Hummingbird.
        .target(
            name: "ReceiptServerStore",
            dependencies: [
                "ReceiptModel",
                "ReceiptStorage",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The shared store for several hosts: PostgreSQL (postgres-nio, no libpq). Opt-in: a
        // program that wants it depends on this product and passes `PostgresStoreDriver()`.
        .target(
            name: "ReceiptPostgres",
            dependencies: [
                "ReceiptModel",
                "ReceiptStorage",
                "ReceiptServerStore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "ReceiptKit",
            dependencies: [
                "ReceiptModel",
                "ReceiptOCR",
                "ReceiptAnalyzers",
                "ReceiptStorage",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // E-mail (`receipts mail`, `POST /v1/inbound-email`): GMime for MIME (its type-check macros
        // through a shim), libcurl for IMAP(S) (its variadic setopt through a shim), libxml2's HTML
        // parser for e-receipts without an attachment.
        .systemLibrary(
            name: "CGMime",
            pkgConfig: "gmime-3.0",
            providers: [.apt(["libgmime-3.0-dev"])]
        ),
        .systemLibrary(
            name: "CLibCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]
        ),
        // libxml2's HTML parser behind an opaque C API (its headers clash with Foundation's ICU).
        .target(
            name: "CHTMLParser",
            dependencies: ["CLibXML2"]
        ),
        // Receipts that arrive by e-mail: a mailbox polled over IMAP by UID watermark, messages kept
        // whole (store first), their attachments and HTML bodies filed as receipts.
        .target(
            name: "ReceiptMail",
            dependencies: [
                "ReceiptKit",
                "CGMime",
                "CLibCurl",
                "CHTMLParser",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // Signing people in (`receipts user invite|password`, the review page's passkeys): libsodium
        // for Argon2id password hashes, libqrencode for the invitation link's QR code.
        .systemLibrary(
            name: "CSodium",
            pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"])]
        ),
        .systemLibrary(
            name: "CQREncode",
            pkgConfig: "libqrencode",
            providers: [.apt(["libqrencode-dev"])]
        ),
        // `receipts serve`: the pipeline over HTTP (Hummingbird), for backends in any language.
        .target(
            name: "ReceiptServer",
            dependencies: [
                "ReceiptKit",
                "ReceiptMail",
                "ReceiptServerStore",
                "CSodium",
                "CQREncode",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Crypto", package: "swift-crypto"),
                // RSA public keys of passkeys (RS256).
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            // The OpenAPI document (GET /openapi.yaml), compiled in: see OpenAPIDocument.swift.
            resources: [.embedInCode("openapi.yaml")]
        ),
        // A process that ends when another does (RECEIPTS_EXIT_WITH_PROCESS=<pid>, read at start by
        // the executables): what a test or script sets, so that nothing it starts outlives it.
        .target(name: "CLifeline"),
        .executableTarget(
            name: "receipts",
            dependencies: [
                "CLifeline",
                "ReceiptKit",
                "ReceiptMail",
                "ReceiptRemoteAnalyzers",
                "ReceiptPostgres",
                "ReceiptServerStore",
                "ReceiptEvaluation",
                "ReceiptServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // A client of `receipts serve` for apps: Generated/ is swift-openapi-generator's output
        // (`make openapi`), ReceiptsAPI.swift the few calls an app makes most. No server target.
        .target(
            name: "ReceiptsClient",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
            ]
        ),
        // Test and benchmark helper: the queue with a stand-in processor, so tests can SIGKILL it
        // mid-batch or run several on one PostgreSQL store, and scripts/bench-store can time the queue.
        .executableTarget(
            name: "receipts-queue-helper",
            dependencies: [
                "CLifeline",
                "ReceiptKit",
                "ReceiptPostgres",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ]
        ),
        // Tests, one target per layer, each linking only the layers it tests: the analyzer tests
        // build and run without Tesseract, GRDB or PostgreSQL (`make test-analyzers`). Helpers are
        // two plain targets used only by tests: TestHelpers (temporary folders, the real binary,
        // scripted pages: Foundation and the model only) and TestSupport (test doubles and
        // harnesses of the pipeline, the intake, PostgreSQL and remote servers).
        // Test helper: runs a server the tests start (PostgreSQL, Dovecot) in a process group of its
        // own that is killed when the test process ends, SIGKILL included (see its main.c).
        .executableTarget(
            name: "receipts-test-launcher",
            dependencies: ["CLifeline"]
        ),
        // Before main, the test process starts to watch the process that started it (`swift test`)
        // and names itself in RECEIPTS_EXIT_WITH_PROCESS for what it starts (test_lifeline.c).
        .target(
            name: "CTestLifeline",
            dependencies: ["CLifeline"],
            path: "Tests/TestLifeline"
        ),
        .target(
            name: "TestHelpers",
            dependencies: [
                "CTestLifeline",
                "ReceiptModel",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/TestHelpers"
        ),
        .target(
            name: "TestSupport",
            dependencies: [
                "CTestLifeline",
                "ReceiptKit",
                "ReceiptMail",
                "ReceiptRemoteAnalyzers",
                "TestHelpers",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Tests/TestSupport"
        ),
        .testTarget(
            name: "ReceiptModelTests",
            dependencies: ["ReceiptModel"]
        ),
        .testTarget(
            name: "ReceiptAnalyzersTests",
            dependencies: ["ReceiptModel", "ReceiptAnalyzers", "TestHelpers"]
        ),
        .testTarget(
            name: "ReceiptEvaluationTests",
            dependencies: ["ReceiptModel", "ReceiptAnalyzers", "ReceiptEvaluation", "TestHelpers"]
        ),
        .testTarget(
            name: "ReceiptOCRTests",
            dependencies: [
                "ReceiptOCR",
                "ReceiptKit",
                "ReceiptEvaluation",
                "CTesseract",
                "COCRTuning",
                "TestHelpers",
                "TestSupport", "receipts-test-launcher",
                "receipts",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "ReceiptStorageTests",
            dependencies: [
                "ReceiptModel",
                "ReceiptStorage",
                "TestHelpers",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "ReceiptPostgresTests",
            dependencies: ["ReceiptKit", "ReceiptPostgres", "ReceiptServerStore", "TestHelpers", "TestSupport", "receipts-test-launcher"]
        ),
        .testTarget(
            name: "ReceiptRemoteAnalyzersTests",
            dependencies: ["ReceiptKit", "ReceiptRemoteAnalyzers", "TestHelpers", "TestSupport", "receipts-test-launcher", "receipts"]
        ),
        .testTarget(
            name: "ReceiptKitTests",
            dependencies: [
                "ReceiptKit",
                "TestHelpers",
                "TestSupport", "receipts-test-launcher",
                "receipts-queue-helper",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // MIME, HTML e-receipts, the mail store and the IMAP client against a real Dovecot.
        .testTarget(
            name: "ReceiptMailTests",
            dependencies: [
                "ReceiptKit",
                "ReceiptMail",
                "ReceiptPostgres",
                "TestHelpers",
                "TestSupport", "receipts-test-launcher",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The HTTP routes in process (HummingbirdTesting).
        .testTarget(
            name: "ReceiptServerTests",
            dependencies: [
                "ReceiptKit",
                "ReceiptServer",
                "ReceiptServerStore",
                "TestHelpers",
                "TestSupport", "receipts-test-launcher",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // End to end: the real `receipts` binary (CLI, watch, serve) in child processes.
        .testTarget(
            name: "ReceiptsCLITests",
            dependencies: [
                "ReceiptKit",
                "ReceiptRemoteAnalyzers",
                "ReceiptPostgres",
                "ReceiptServerStore",
                "ReceiptEvaluation",
                "ReceiptServer",
                "ReceiptMail",
                "CTesseract",
                "TestHelpers",
                "TestSupport", "receipts-test-launcher",
                "receipts",
                "receipts-queue-helper",
                "ReceiptsClient",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// The debug build (the one the tests run) compiles the reading and the analysis optimized: their
// loops over pixels, boxes and candidates are what `receipts eval` spends its time in, and unoptimized
// they made the accuracy gate several times slower. RECEIPTS_DEBUG_ONONE=1 builds them as the rest
// (-Onone), for a debugger that steps through them.
if Context.environment["RECEIPTS_DEBUG_ONONE"] != "1" {
    let optimized: Set<String> = ["ReceiptOCR", "ReceiptAnalyzers"]
    for target in package.targets where optimized.contains(target.name) {
        target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-O"], .when(configuration: .debug))]
    }
}

// `make test-analyzers`: the analyzer tests on their own. On Linux `swift test` links every test
// target into one binary, so this package is cut down to the analyzers' layers (the model, the
// analyzers, swift-log) and their tests: they build and run without Tesseract, GRDB or PostgreSQL.
if Context.environment["RECEIPTS_TEST_LAYER"] == "analyzers" {
    let kept: Set<String> = ["ReceiptModel", "ReceiptAnalyzers", "TestHelpers", "CTestLifeline", "CLifeline", "ReceiptAnalyzersTests"]
    package.targets.removeAll { !kept.contains($0.name) }
    package.products.removeAll { !kept.contains($0.name) }
}

// `make fuzz`: the fuzz targets (fuzz/receipts-fuzz, one libFuzzer executable, the target chosen by
// FUZZ_TARGET) in a build of their own (.build/fuzz). Only with RECEIPTS_FUZZ=1, so that a plain
// `swift build` neither sees the executable nor its flags: the package's own modules are built with
// AddressSanitizer and libFuzzer's coverage (their dependencies as usual), and the executable is
// linked with libFuzzer by lld (gold fails on the sanitizers' symbols).
if Context.environment["RECEIPTS_FUZZ"] == "1" {
    let sanitized = ["-sanitize=fuzzer,address"]
    let instrumented: Set<String> = ["ReceiptModel", "ReceiptAnalyzers", "ReceiptOCR", "ReceiptRemoteAnalyzers", "ReceiptServer"]
    for target in package.targets where instrumented.contains(target.name) {
        target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(sanitized)]
    }
    package.targets.append(.executableTarget(
        name: "receipts-fuzz",
        dependencies: [
            "ReceiptModel", "ReceiptAnalyzers", "ReceiptOCR", "ReceiptRemoteAnalyzers", "ReceiptServer",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Crypto", package: "swift-crypto"),
        ],
        path: "fuzz/receipts-fuzz",
        swiftSettings: [.unsafeFlags(sanitized)],
        linkerSettings: [.unsafeFlags(sanitized + ["-use-ld=lld"])]
    ))
    package.products.append(.executable(name: "receipts-fuzz", targets: ["receipts-fuzz"]))
}
