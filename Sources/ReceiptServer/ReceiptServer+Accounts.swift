import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ReceiptKit
import ReceiptServerStore

/// `/v1/me` (who the token acts for) and `/v1/webhooks` (a user's own webhooks).
extension ReceiptServer {
    /// `GET /v1/me`: the token's user, whether they administer, their groups and roles, the end
    /// user named (`Receipts-External-User`) and the token's name and scopes.
    func me(_ context: ReceiptRequestContext) throws -> Response {
        let principal = try context.who()
        let groups = principal.memberships.sorted { $0.key < $1.key }.map { name, role in
            JSONValue.object([("name", .string(name)), ("role", .string(role.rawValue))])
        }
        return Self.json(JSONValue.object([
            ("user", .string(principal.user)),
            ("admin", .bool(principal.isAdmin)),
            ("defaultGroup", .optionalString(principal.defaultGroup)),
            ("groups", .array(groups)),
            ("externalUser", .optionalString(principal.externalUser)),
            ("token", .optionalString(context.token?.name)),
            ("scopes", .array(Self.scopes(context).map { .string($0.rawValue) })),
        ]))
    }

    /// What the caller may do: its token's scopes; a person's session, everything but `act-as`
    /// (naming an end user is a service's); the open mode, everything.
    static func scopes(_ context: ReceiptRequestContext) -> [TokenPermission] {
        if let token = context.token { return token.scopes.sorted() }
        return TokenPermission.allCases.filter { context.openMode || $0 != .actAs }
    }

    /// `GET /v1/webhooks`: the caller's own webhooks (for the end user named, theirs only).
    func listWebhooks(_ context: ReceiptRequestContext) async throws -> Response {
        let principal = try context.who()
        let mine = try await store.webhookSubscriptions(user: principal.user)
            .filter { principal.externalUser == nil || $0.externalUser == principal.externalUser }
        return Self.json(JSONValue.object([("webhooks", .array(mine.map(\.json)))]))
    }

    /// `POST /v1/webhooks` `{"url": "https://…", "secret": "…"}`: from now on, each receipt the
    /// caller may see (for the end user named: that end user's) that finishes is POSTed to `url`,
    /// signed with `secret` (made here and returned once when not given). 201 with `Location`.
    func addWebhook(_ request: Request, _ context: ReceiptRequestContext) async throws -> Response {
        let principal = try context.who()
        _ = try QueryParameters(request, allowed: [])
        let body = try await BoundedBody.collect(request, context: context, limit: 16 * 1024, reported: 16 * 1024, what: "the webhook", setting: "")
        guard let json = try? JSONValue.parse([UInt8](buffer: body)), let fields = json.objectValue else {
            throw Problem(.badRequest, "the body is not a JSON object: send {\"url\": \"https://…\"}")
        }
        for (name, value) in fields {
            guard ["url", "secret"].contains(name) else { throw Problem(.badRequest, "unknown field '\(name)' (the body takes url and secret)") }
            guard value.stringValue != nil else { throw Problem(.badRequest, "\(name) must be a string") }
        }
        guard let text = json["url"]?.stringValue, let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
              url.host?.isEmpty == false, text.count <= 2048 else {
            throw Problem(.badRequest, "url must be an http(s) URL of at most 2048 characters")
        }
        let given = json["secret"]?.stringValue
        if let given, !(16...256).contains(given.count) { throw Problem(.badRequest, "secret must be 16 to 256 characters") }
        let secret = given ?? APIToken.newSecret().replacingOccurrences(of: "rcp_", with: "whsec_")
        let subscription = WebhookSubscription(user: principal.user, externalUser: principal.externalUser, url: url, secret: secret,
                                               createdAt: Date())
        try await store.addWebhookSubscription(subscription)
        var pairs = subscription.json.objectValue ?? []
        if given == nil { pairs.append(("secret", .string(secret))) }
        var response = Self.json(.object(pairs), status: .created)
        response.headers[.location] = "/v1/webhooks/\(subscription.id.uuidString.lowercased())"
        return response
    }

    /// `DELETE /v1/webhooks/{id}`: 204; 404 for a webhook that is not the caller's.
    func removeWebhook(_ id: UUID, _ context: ReceiptRequestContext) async throws -> Response {
        let principal = try context.who()
        let mine = try await store.webhookSubscriptions(user: principal.user)
        guard let found = mine.first(where: { $0.id == id }), principal.externalUser == nil || found.externalUser == principal.externalUser else {
            throw Self.unknown(id, "webhook")
        }
        try await store.removeWebhookSubscription(id: id, user: principal.user)
        return Response(status: .noContent)
    }
}
