// swift-tools-version: 6.1
import PackageDescription

// `make openapi`: swift-openapi-generator's command-line tool, in a package of its own so that the
// receipts package (and every app that depends on its ReceiptsClient product) neither resolves nor
// builds the generator, OpenAPIKit or Yams. It writes Sources/ReceiptsClient/Generated from
// Sources/ReceiptServer/openapi.yaml; the generated code is committed.
let package = Package(
    name: "openapi-generator",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-generator", exact: "1.14.3"),
    ]
)
