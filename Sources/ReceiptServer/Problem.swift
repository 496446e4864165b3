import Foundation
import Hummingbird
import Logging
import NIOCore
import ReceiptKit

/// An HTTP error as an RFC 9457 problem document: `type`, `title`, `status`, `detail`.
struct Problem: Error, Sendable {
    var status: HTTPResponse.Status
    var detail: String

    init(_ status: HTTPResponse.Status, _ detail: String) {
        self.status = status
        self.detail = detail.oneLine
    }

    var response: Response {
        let body = JSONValue.object([
            ("type", .string("about:blank")),
            ("title", .string(status.reasonPhrase)),
            ("status", .number(String(status.code))),
            ("detail", .string(detail)),
        ])
        var headers: HTTPFields = [.contentType: "application/problem+json"]
        if status == .tooManyRequests { headers[.retryAfter] = "5" }
        if status == .unauthorized { headers[.wwwAuthenticate] = "Bearer" }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body.serialized() + "\n")))
    }
}

/// Turns every error a route throws into a problem document: ours as they are, Hummingbird's
/// (unknown route, body too large) with their status, anything else as a 500 whose detail says
/// only that it failed (the cause goes to the log, never to the client).
struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let problem as Problem {
            return problem.response
        } catch let error as HTTPError {
            let detail = error.status == .notFound ? "no such route: \(request.method) \(request.uri.path)" : error.status.reasonPhrase
            return Problem(error.status, detail).response
        } catch let error as any HTTPResponseError {
            return Problem(error.status, error.status.reasonPhrase).response
        } catch {
            logger.error("Request failed", metadata: ["http.route": "\(request.method) \(request.uri.path)",
                                                      "error": "\(String(describing: error).oneLine)"])
            return Problem(.internalServerError, "the request failed; the server's log has the cause").response
        }
    }
}

/// The `file` part of a `multipart/form-data` body (RFC 7578), or the first part with a filename.
enum Multipart {
    struct Part {
        var name: String?
        var filename: String?
        var data: Data
    }

    static func file(in body: Data, contentType: String) throws -> Part {
        guard let boundary = contentType.split(separator: ";").lazy
            .map({ $0.trimmingCharacters(in: .whitespaces) })
            .first(where: { $0.lowercased().hasPrefix("boundary=") })
            .map({ String($0.dropFirst("boundary=".count)).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }),
            !boundary.isEmpty else {
            throw Problem(.badRequest, "multipart/form-data without a boundary")
        }
        let parts = try self.parts(body, boundary: Data(("--" + boundary).utf8))
        guard let part = parts.first(where: { $0.name == "file" }) ?? parts.first(where: { $0.filename != nil }) else {
            throw Problem(.badRequest, "the multipart body has no 'file' part")
        }
        return part
    }

    private static func parts(_ body: Data, boundary: Data) throws -> [Part] {
        var parts: [Part] = []
        guard var cursor = body.range(of: boundary)?.upperBound else {
            throw Problem(.badRequest, "the multipart body does not start with its boundary")
        }
        let crlf = Data("\r\n".utf8), headerEnd = Data("\r\n\r\n".utf8), closing = Data("--".utf8)
        while true {
            if body[cursor...].starts(with: closing) { return parts }                // the final boundary
            guard body[cursor...].starts(with: crlf) else { break }
            cursor += crlf.count
            guard let headersEnd = body.range(of: headerEnd, in: cursor..<body.endIndex) else { break }
            let headers = String(decoding: body[cursor..<headersEnd.lowerBound], as: UTF8.self)
            let contentStart = headersEnd.upperBound
            guard let next = body.range(of: crlf + boundary, in: contentStart..<body.endIndex) else { break }
            parts.append(Part(name: parameter("name", in: headers), filename: parameter("filename", in: headers),
                              data: body[contentStart..<next.lowerBound]))
            cursor = next.upperBound
        }
        throw Problem(.badRequest, "the multipart body is truncated or malformed")
    }

    private static func parameter(_ key: String, in headers: String) -> String? {
        for line in headers.split(separator: "\r\n") where line.lowercased().hasPrefix("content-disposition:") {
            for item in line.split(separator: ";").map({ $0.trimmingCharacters(in: .whitespaces) }) where item.hasPrefix(key + "=") {
                return String(item.dropFirst(key.count + 1)).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            }
        }
        return nil
    }
}

/// Every `/v1` route needs `Authorization: Bearer <token>` once any API token is active.
struct BearerTokenMiddleware<Context: RequestContext>: RouterMiddleware {
    let store: any ServerStore

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if try await store.hasActiveTokens() {
            guard let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") else {
                throw Problem(.unauthorized, "an API token is needed: Authorization: Bearer <token>")
            }
            let secret = String(header.dropFirst("bearer ".count)).trimmingCharacters(in: .whitespaces)
            guard try await store.activeToken(secret: secret) != nil else {
                throw Problem(.unauthorized, "the API token is unknown or revoked")
            }
        }
        return try await next(request, context)
    }
}
