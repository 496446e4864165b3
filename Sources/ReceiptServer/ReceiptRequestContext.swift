import Hummingbird
import NIOCore

/// The request context of `receipts serve`: Hummingbird's core context and the connection the
/// request came on (a refused upload closes it; see `BoundedBody`).
struct ReceiptRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}
