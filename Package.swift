// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "receipts",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "ReceiptKit", targets: ["ReceiptKit"]),
        .executable(name: "receipts", targets: ["receipts"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CTesseract",
            pkgConfig: "tesseract",
            providers: [.apt(["libtesseract-dev", "libleptonica-dev", "tesseract-ocr-eng"])]
        ),
        // Tesseract speed and memory fixes in C (see its .c files).
        .target(
            name: "COCRTuning",
            dependencies: ["CTesseract"],
            linkerSettings: [.linkedLibrary("dl")]
        ),
        .target(
            name: "ReceiptKit",
            dependencies: [
                "CTesseract",
                "COCRTuning",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "receipts",
            dependencies: [
                "ReceiptKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // Test helper: runs a queue batch with a slow fake processor so a test can SIGKILL it mid-batch.
        .executableTarget(
            name: "receipts-queue-crash-helper",
            dependencies: [
                "ReceiptKit",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "ReceiptKitTests",
            dependencies: [
                "ReceiptKit",
                "CTesseract",
                "COCRTuning",
                "receipts",
                "receipts-queue-crash-helper",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
