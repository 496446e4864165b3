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
    ],
    targets: [
        .systemLibrary(
            name: "CTesseract",
            pkgConfig: "tesseract",
            providers: [.apt(["libtesseract-dev", "libleptonica-dev", "tesseract-ocr-eng"])]
        ),
        .target(
            name: "ReceiptKit",
            dependencies: [
                "CTesseract",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "receipts",
            dependencies: [
                "ReceiptKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "ReceiptKitTests",
            dependencies: [
                "ReceiptKit",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
