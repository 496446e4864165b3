import Foundation
import Hummingbird
import Logging
import NIOCore
import ReceiptKit
import ReceiptServerStore

/// An HTTP error as an RFC 9457 problem document: `type`, `title`, `status`, `detail`.
struct Problem: Error, Sendable {
    var status: HTTPResponse.Status
    var detail: String
    /// Headers the answer needs beside the content type (`Allow`, `Retry-After`, `Connection`).
    var headers: HTTPFields

    init(_ status: HTTPResponse.Status, _ detail: String, headers: HTTPFields = [:]) {
        self.status = status
        self.detail = APIToken.redacted(detail.oneLine)
        self.headers = headers
    }

    /// Seconds a client is told to wait (`Retry-After`) after a 429 or a 503.
    static let retryAfterSeconds = 5

    /// The document: `{"type", "title", "status", "detail"}` and a newline.
    var document: String {
        JSONValue.object([
            ("type", .string("about:blank")),
            ("title", .string(status.reasonPhrase)),
            ("status", .number(String(status.code))),
            ("detail", .string(detail)),
        ]).serialized() + "\n"
    }

    /// The answer's headers: the document's type and what the status calls for.
    var fields: HTTPFields {
        var fields: HTTPFields = [.contentType: "application/problem+json"]
        if status == .tooManyRequests || status == .serviceUnavailable { fields[.retryAfter] = String(Self.retryAfterSeconds) }
        if status == .unauthorized { fields[.wwwAuthenticate] = "Bearer" }
        for field in headers { fields[field.name] = field.value }
        return fields
    }

    var response: Response {
        Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(string: document)))
    }

    /// A `ReceiptError` from the layers below, as the status that says what it means: a value
    /// given that is not valid (400), an unknown record (404), a state that forbids it (409), a
    /// changed record (412), a store that cannot answer now (503); nil for anything else (a 500
    /// whose cause goes to the log).
    init?(_ error: ReceiptError) {
        switch error.code {
        case .invalidInput: self.init(.badRequest, error.message)
        case .notFound: self.init(.notFound, error.message)
        case .invalidState: self.init(.conflict, error.message)
        case .preconditionFailed: self.init(.preconditionFailed, error.message)
        case .locked:
            self.init(.serviceUnavailable, "the store is busy; try again shortly")
        default:
            guard error.isTransient else { return nil }
            // The store's location masks any password; the cause is one line from the driver.
            self.init(.serviceUnavailable, "the store cannot be reached: \(error.description)")
        }
    }
}

/// Turns every error a route throws into a problem document: ours as they are, the layers' by
/// their meaning (`Problem(_: ReceiptError)`), Hummingbird's (unknown route) with their status, a
/// method a path does not serve as 405 with `Allow`, anything else as a 500 whose detail says only
/// that it failed (the cause goes to the log, never to the client).
struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let problem as Problem {
            return problem.response
        } catch let error as ReceiptError {
            if let problem = Problem(error) { return problem.response }
            return failed(request, error)
        } catch let error as HTTPError where error.status == .notFound {
            if let allowed = ReceiptServer.methods(forPath: request.uri.path) {
                let allow = (allowed + ["OPTIONS"]).joined(separator: ", ")
                if request.method == .options {
                    return Response(status: .noContent, headers: [.allow: allow])
                }
                if request.method == .head {
                    // An answer to HEAD has no body.
                    return Response(status: .methodNotAllowed, headers: [.allow: allow])
                }
                return Problem(.methodNotAllowed, "\(request.method) is not served at \(request.uri.path) (it serves \(allowed.joined(separator: ", ")))",
                               headers: [.allow: allow]).response
            }
            return Problem(.notFound, "no such route: \(request.method) \(request.uri.path)").response
        } catch let error as HTTPError {
            return Problem(error.status, error.status.reasonPhrase).response
        } catch let error as any HTTPResponseError {
            return Problem(error.status, error.status.reasonPhrase).response
        } catch {
            return failed(request, error)
        }
    }

    private func failed(_ request: Request, _ error: any Error) -> Response {
        logger.error("Request failed", metadata: ["http.route": "\(request.method) \(APIToken.redacted(request.uri.path))",
                                                  "error.message": "\(APIToken.redacted(String(describing: error).oneLine))"])
        return Problem(.internalServerError, "the request failed; the server's log has the cause").response
    }
}
