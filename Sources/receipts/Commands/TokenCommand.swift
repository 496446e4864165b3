import ArgumentParser
import Foundation
import ReceiptKit
import ReceiptServerStore

/// `receipts token create|list|revoke`: API tokens for `receipts serve`.
struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Create, list and revoke the API tokens `receipts serve` asks for.",
        discussion: """
            A token is printed once, when it is created; the store keeps only its SHA-256. Once any \
            token is active, every /v1 route needs `Authorization: Bearer <token>`, and the server may \
            listen on addresses other than loopback.
            """,
        subcommands: [Create.self, List.self, Revoke.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a token and print it (once).")
        @Option(help: "A name for the token (who or what uses it).")
        var name: String
        @OptionGroup var storeOptions: StoreOptions

        func validate() throws {
            guard !name.trimmingCharacters(in: .whitespaces).isEmpty else { throw ValidationError("--name must not be empty.") }
        }

        func run() async throws {
            let store = try await TokenCommand.open(storeOptions)
            do {
                let secret = try await store.createToken(name: name, now: Date())
                print(secret)
                FileHandle.standardError.write(Data("token '\(name)' created; it is shown only now: keep it\n".utf8))
            } catch let error as ReceiptError {
                printError(error.message)
                throw ExitCode(1)
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List tokens: name, created, revoked (never the token).")
        @OptionGroup var storeOptions: StoreOptions

        func run() async throws {
            let store = try await TokenCommand.open(storeOptions)
            let formatter = ISO8601DateFormatter()
            for token in try await store.tokens() {
                print([token.name, formatter.string(from: token.createdAt),
                       token.revokedAt.map { "revoked " + formatter.string(from: $0) } ?? "active"].joined(separator: "\t"))
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a token: requests carrying it are refused from now on.")
        @Argument(help: "The token's name.")
        var name: String
        @OptionGroup var storeOptions: StoreOptions

        func run() async throws {
            let store = try await TokenCommand.open(storeOptions)
            do {
                _ = try await store.revokeToken(name: name, now: Date())
                FileHandle.standardError.write(Data("token '\(name)' revoked\n".utf8))
            } catch let error as ReceiptError {
                printError(error.message)
                throw ExitCode(1)
            }
        }
    }

    static func open(_ options: StoreOptions) async throws -> any ServerStore {
        try await options.openStore()
    }
}
