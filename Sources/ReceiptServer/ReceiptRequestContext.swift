import Hummingbird
import NIOCore
import ReceiptKit
import ReceiptServerStore

/// The request context of `receipts serve`: Hummingbird's core context, the connection the
/// request came on (a refused upload closes it; see `BoundedBody`), and who the request acts for
/// (set by `BearerTokenMiddleware` on every `/v1` route).
struct ReceiptRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel
    var principal: Principal?
    /// The API token the request came with (nil: a person's session, or the open mode).
    var token: APIToken?
    /// Answered in the open mode (`OpenMode`): as the administrator, with every scope.
    var openMode = false

    /// Who the request acts for; every `/v1` route has one (the middleware refused it otherwise).
    func who() throws -> Principal {
        guard let principal else { throw Problem(.unauthorized, "an API token is needed: Authorization: Bearer <token>") }
        return principal
    }

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}
