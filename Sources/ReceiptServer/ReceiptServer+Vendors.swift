import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ReceiptKit

/// `/v1/vendors`: the shops the caller's receipts remember (issue 57) — its own book's, its groups'
/// (a backend's end user: that end user's). Another's shop is 404; a group's viewer may list its
/// shops but not change them (403).
extension ReceiptServer {
    /// `GET /v1/vendors`: a page of the shops the caller may see, by name; `next` is the id to pass
    /// as `after`.
    func vendors(_ request: Request, _ context: ReceiptRequestContext) async throws -> Response {
        let query = try QueryParameters(request, allowed: ["limit", "after"])
        let limit = try query.integer("limit", in: 1...500) ?? 100
        let after = try query.id("after")
        let found: [RememberedVendor]
        do {
            found = try await scoped(context).records.vendors(after: after, limit: limit + 1)
        } catch let error as ReceiptError where error.code == .notFound {
            throw Problem(.notFound, error.message)
        }
        let page = Array(found.prefix(limit))
        let next = found.count > limit ? page.last.map { JSONValue.string($0.id.uuidString.lowercased()) } ?? .null : .null
        return Self.json(JSONValue.object([("vendors", .array(page.map(\.json))), ("next", next)]))
    }

    /// The shop with this id if the caller may change it: 404 when it may not see it, 403 when it may
    /// only look (a group's viewer).
    private func changeableVendor(_ id: UUID, _ context: ReceiptRequestContext) async throws -> RememberedVendor {
        let principal = try context.who()
        guard let vendor = try await scoped(context).records.vendor(id: id) else { throw Self.unknown(id, "vendor") }
        guard principal.mayChange(vendor.book) else {
            throw Problem(.forbidden, "vendor \(id.uuidString.lowercased()): you may view the shops of \(vendor.book), not change them")
        }
        return vendor
    }

    /// The JSON object of a request's body (400 when it is not one).
    private func bodyObject(_ request: Request, _ context: ReceiptRequestContext, what: String) async throws -> [(String, JSONValue)] {
        let body = try await BoundedBody.collect(request, context: context, limit: 16 * 1024, reported: 16 * 1024, what: what, setting: "")
        guard let json = try? JSONValue.parse([UInt8](buffer: body)), let pairs = json.objectValue else {
            throw Problem(.badRequest, "the body must be a JSON object (\(what))")
        }
        return pairs
    }

    /// `PATCH /v1/vendors/{id}`: `{"name": "Gardenia", "category": "Other", "applyToPast": true}`.
    /// The name and category hold for the receipts to come; with `applyToPast`, the expenses of the
    /// receipts that taught the shop are corrected to them too (each a correction in its history).
    func changeVendor(_ request: Request, _ context: ReceiptRequestContext, _ id: UUID) async throws -> Response {
        _ = try QueryParameters(request, allowed: [])
        let pairs = try await bodyObject(request, context, what: "the fields to change: name, category, applyToPast")
        var change = VendorChange()
        var applyToPast = false
        for (name, value) in pairs {
            switch name {
            case "name":
                guard let text = value.stringValue, text.contains(where: { !$0.isWhitespace }),
                      text.unicodeScalars.count <= ExpenseCorrection.maximumDescriptionLength else {
                    throw Problem(.badRequest, "name must be a non-blank string of at most \(ExpenseCorrection.maximumDescriptionLength) characters")
                }
                change.name = text
            case "category":
                if value.isNull { change.category = .some(nil); continue }
                guard let text = value.stringValue, let known = taxonomy.category(named: text) else {
                    throw Problem(.badRequest, "category must be one of \(taxonomy.names.joined(separator: ", ")), or null (got \(value.serialized()))")
                }
                change.category = known.name
            case "applyToPast":
                guard let flag = value.boolValue else { throw Problem(.badRequest, "applyToPast must be true or false") }
                applyToPast = flag
            default:
                throw Problem(.badRequest, "'\(name)' cannot be changed (only name, category, applyToPast)")
            }
        }
        guard !pairs.isEmpty else { throw Problem(.badRequest, "give a name or a category to change, or applyToPast") }
        let current = try await changeableVendor(id, context)
        let mine = try scoped(context)
        if change == VendorChange() {
            // applyToPast alone: the shop stays as it is, and with true its name (and its category,
            // when one is set) go to the expenses of the receipts that taught it.
            let corrected = applyToPast
                ? try await VendorHistory.apply(current, VendorChange(name: current.name, category: current.category.map { .some($0) }),
                                                through: mine.records, taxonomy: taxonomy) : 0
            return Self.json(JSONValue.object([("vendor", current.json), ("expensesCorrected", .int(corrected))]))
        }
        let vendor: RememberedVendor
        do {
            vendor = try await mine.records.changeVendor(id: id, change)
        } catch let error as ReceiptError where error.code == .invalidState {
            throw Problem(.conflict, error.message)
        }
        var corrected = 0
        if applyToPast { corrected = try await VendorHistory.apply(vendor, change, through: mine.records, taxonomy: taxonomy) }
        return Self.json(JSONValue.object([("vendor", vendor.json), ("expensesCorrected", .int(corrected))]))
    }

    /// `POST /v1/vendors/{id}/merge` `{"into": "<id>"}`: what the shop was taught goes to the other
    /// shop of the same book, and it is forgotten.
    func mergeVendor(_ request: Request, _ context: ReceiptRequestContext, _ id: UUID) async throws -> Response {
        _ = try QueryParameters(request, allowed: [])
        let pairs = try await bodyObject(request, context, what: "{\"into\": \"<the id of the shop to merge it into>\"}")
        guard pairs.count == 1, pairs[0].0 == "into", let text = pairs[0].1.stringValue else {
            throw Problem(.badRequest, "the body must be {\"into\": \"<the id of the shop to merge it into>\"}")
        }
        guard let target = UUID(uuidString: text) else { throw Problem(.notFound, "no vendor with id '\(text)'") }
        _ = try await changeableVendor(id, context)
        guard try await scoped(context).records.vendor(id: target) != nil else { throw Self.unknown(target, "vendor") }
        do {
            let merged = try await scoped(context).records.mergeVendor(id: id, into: target)
            return Self.json(JSONValue.object([("vendor", merged.json)]))
        } catch let error as ReceiptError where error.code == .invalidInput {
            throw Problem(.badRequest, error.message)
        }
    }

    /// `DELETE /v1/vendors/{id}`: the shop and what it was taught are forgotten (its receipts and
    /// expenses stay as they are).
    func forgetVendor(_ context: ReceiptRequestContext, _ id: UUID) async throws -> Response {
        _ = try await changeableVendor(id, context)
        try await scoped(context).records.forgetVendor(id: id)
        return Response(status: .noContent)
    }
}
