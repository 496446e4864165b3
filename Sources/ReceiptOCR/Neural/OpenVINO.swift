import COpenVINO
import Foundation
import ReceiptModel

/// The OpenVINO runtime of this process, loaded with dlopen from a folder (see `COpenVINO`).
package enum OpenVINO {
    /// Loads `libopenvino_c.so.*` from `libraryDirectory` once a process; later calls do nothing.
    /// - Throws: `ReceiptError(.neuralReaderNotInstalled)` naming the folder and the reason.
    package static func load(from libraryDirectory: String) throws {
        var error = [CChar](repeating: 0, count: 1024)
        guard receipts_ov_load(libraryDirectory, &error, error.count) == 0 else {
            let reason = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw ReceiptError(.neuralReaderNotInstalled, "neural reader not installed: run `make neural` (\(reason))")
        }
    }

    /// The runtime's version, "" before `load`.
    package static var version: String { String(cString: receipts_ov_version()) }

    /// What the calling thread's last failing OpenVINO call said.
    static var lastError: String { String(cString: receipts_ov_last_error()) }
}

/// Owns one OpenVINO core (`ov_core_t`), freed in `deinit`. Used only while models are compiled.
final class OpenVINOCore {
    fileprivate let raw: OpaquePointer

    init() throws {
        var raw: OpaquePointer?
        guard receipts_ov_core_create(&raw) == 0, let raw else {
            throw ReceiptError(.engineInitFailed, "cannot start OpenVINO: \(OpenVINO.lastError)")
        }
        self.raw = raw
    }

    deinit { receipts_ov_core_free(raw) }

    /// Reads an ONNX model from its bytes and compiles it for the CPU: `streams` inferences can run
    /// at once, with `threads` threads between them.
    func compile(model bytes: Data, file: String, threads: Int, streams: Int) throws -> CompiledNetwork {
        var model: OpaquePointer?
        let read = bytes.withUnsafeBytes { receipts_ov_read_model(raw, $0.baseAddress, $0.count, &model) }
        guard read == 0, let model else {
            throw ReceiptError(.neuralModelCorrupt, file: file, "not a model OpenVINO can read: \(OpenVINO.lastError)")
        }
        defer { receipts_ov_model_free(model) }
        var compiled: OpaquePointer?
        guard receipts_ov_compile(raw, model, Int32(threads), Int32(streams), &compiled) == 0, let compiled else {
            throw ReceiptError(.engineInitFailed, file: file, "cannot compile the model: \(OpenVINO.lastError)")
        }
        return CompiledNetwork(raw: compiled, core: self)
    }
}

@available(*, unavailable) extension OpenVINOCore: Sendable {}

/// Owns one compiled model (`ov_compiled_model_t`), freed in `deinit`; shared by every OCR thread.
///
/// `@unchecked Sendable`: its only operation, making an inference request, is thread-safe in
/// OpenVINO (a compiled model serves requests from any thread), the pointer never changes, and the
/// core it was compiled by is kept (never used again) until it is freed.
final class CompiledNetwork: @unchecked Sendable {
    private let raw: OpaquePointer
    private let core: OpenVINOCore

    fileprivate init(raw: OpaquePointer, core: OpenVINOCore) {
        self.raw = raw
        self.core = core
    }

    deinit { receipts_ov_compiled_model_free(raw) }

    /// A new inference request: one per thread that runs the model.
    func makeRequest() throws -> InferRequest {
        var request: OpaquePointer?
        guard receipts_ov_create_request(raw, &request) == 0, let request else {
            throw ReceiptError(.engineInitFailed, "cannot make an inference request: \(OpenVINO.lastError)")
        }
        return InferRequest(raw: request, network: self)
    }
}

/// Owns one inference request (`ov_infer_request_t`), freed in `deinit`. Not thread-safe: one OCR
/// thread owns it.
final class InferRequest {
    private let raw: OpaquePointer
    /// Kept alive as long as its requests.
    private let network: CompiledNetwork

    fileprivate init(raw: OpaquePointer, network: CompiledNetwork) {
        self.raw = raw
        self.network = network
    }

    deinit { receipts_ov_request_free(raw) }

    /// Runs the model on a float32 input of `shape` (`input.count` must be its product).
    func infer(_ input: [Float], shape: [Int]) throws -> InferenceOutput {
        precondition(input.count == shape.reduce(1, *), "input size does not match its shape")
        let dims = shape.map(Int64.init)
        var output: OpaquePointer?
        let status = input.withUnsafeBufferPointer { buffer in
            receipts_ov_infer_f32(raw, buffer.baseAddress, dims, Int32(dims.count), &output)
        }
        guard status == 0, let output else {
            throw ReceiptError(.ocrFailed, "neural inference failed: \(OpenVINO.lastError)")
        }
        return try InferenceOutput(taking: output)
    }
}

@available(*, unavailable) extension InferRequest: Sendable {}

/// Owns one output tensor (`ov_tensor_t`), freed in `deinit`: a request's float32 output. Read it
/// before the request's next inference.
final class InferenceOutput {
    private let raw: OpaquePointer
    let shape: [Int]
    let values: UnsafeBufferPointer<Float>

    fileprivate init(taking raw: OpaquePointer) throws {
        var data: UnsafePointer<Float>?
        var dims = [Int64](repeating: 0, count: 8)
        var rank: Int32 = 0
        guard receipts_ov_tensor_f32(raw, &data, &dims, 8, &rank) == 0, let data, (1...8).contains(rank) else {
            let why = OpenVINO.lastError
            receipts_ov_tensor_free(raw)                // self never existed: deinit won't run
            throw ReceiptError(.ocrFailed, "unexpected neural model output: \(why)")
        }
        self.raw = raw
        self.shape = dims.prefix(Int(rank)).map(Int.init)
        self.values = UnsafeBufferPointer(start: data, count: shape.reduce(1, *))
    }

    deinit { receipts_ov_tensor_free(raw) }
}

@available(*, unavailable) extension InferenceOutput: Sendable {}

extension ReceiptError.Code {
    /// The neural reader's runtime or models are not installed (`make neural`).
    public static let neuralReaderNotInstalled = Self("neuralReaderNotInstalled")
    /// A neural model file is damaged or not the one expected (SHA-256 mismatch).
    public static let neuralModelCorrupt = Self("neuralModelCorrupt")
}
