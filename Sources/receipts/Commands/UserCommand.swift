import ArgumentParser
import Foundation
import ReceiptKit
import ReceiptServerStore

/// `receipts user add|list|remove`: the people (and backends' services) the store keeps receipts for.
struct UserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user",
        abstract: "Add, list and remove the users receipts belong to.",
        discussion: """
            Every receipt has one owner. A user's API tokens (`receipts token create --user NAME`) see \
            and change only that user's receipts and those of their groups (`receipts group`); an \
            administrator (--admin) sees and changes every receipt. Someone else's receipt is answered \
            404 by the API, as if it did not exist. A store made before users existed has one \
            administrator, admin, who owns everything stored before.

            Examples:
              receipts user add alice
              receipts user add bob --group home        (his uploads are shared with the group home)
              receipts user add backend --admin
              receipts user remove carol --reassign-to alice
              receipts user invite carol              (a one-time link and its QR code: carol signs in, adds a passkey)
              receipts user password carol            (a password for browsers without passkeys)
              receipts user sessions carol --all      (sign carol out everywhere)
            """,
        subcommands: [Add.self, List.self, Remove.self, Invite.self, Invitations.self, Password.self, Sessions.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a user.")
        @Argument(help: "The user's name (1 to 64 characters; no slashes, colons or commas).")
        var name: String
        @Flag(help: "An administrator: sees and changes every receipt.")
        var admin = false
        @Option(help: ArgumentHelp("Share the user's uploads with this group by default (it must exist; the user becomes its editor).",
                                   valueName: "GROUP"))
        var group: String?
        @OptionGroup var storeOptions: StoreOptions

        func validate() throws {
            do { try Ownership.checkName(name, "user") } catch let error as ReceiptError { throw ValidationError(error.message + ".") }
        }

        func run() async throws {
            let store = try await storeOptions.openStore()
            try await exitingOnReceiptError {
                let user = try await store.addUser(name: name, isAdmin: admin, defaultGroup: group, now: Date())
                let role = user.isAdmin ? "an administrator" : "a user"
                let group = user.defaultGroup.map { ", uploads shared with \($0)" } ?? ""
                FileHandle.standardError.write(Data("'\(user.name)' added as \(role)\(group); make a token with `receipts token create --name NAME --user \(Ownership.shellQuoted(user.name))`\n".utf8))
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List users, one per line, tab-separated.",
            discussion: "Columns: name, role (admin or user), default group (or -), groups (NAME:ROLE, comma-separated, or -), receipts owned, tokens active.")
        @OptionGroup var storeOptions: StoreOptions

        func run() async throws {
            let store = try await storeOptions.openStore()
            try await exitingOnReceiptError {
                let groups = try await store.groups()
                let tokens = try await store.tokens().filter { $0.revokedAt == nil }
                if isatty(STDOUT_FILENO) == 1 { print(["name", "role", "default group", "groups", "receipts", "tokens"].joined(separator: "\t")) }
                for user in try await store.users() {
                    let memberOf = groups.compactMap { group in group.members[user.name].map { "\(group.name):\($0.rawValue)" } }
                    let owned = try await store.statusCounts(in: .owner(user.name)).values.reduce(0, +)
                    print([user.name, user.isAdmin ? "admin" : "user", user.defaultGroup ?? "-",
                           memberOf.isEmpty ? "-" : memberOf.joined(separator: ","), String(owned),
                           String(tokens.filter { $0.user == user.name }.count)].joined(separator: "\t"))
                }
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a user, their tokens and their webhooks.",
            discussion: """
                Refused while they own receipts, unless --reassign-to names who gets them; the last                 administrator cannot be removed. A user who signs in as a person (passkeys, a password)                 or is signed in on a browser is removed only with --force: their passkeys, password and                 sessions go too.
                """)
        @Argument(help: "The user's name.")
        var name: String
        @Option(name: .customLong("reassign-to"), help: ArgumentHelp("Give the user's receipts to this user.", valueName: "NAME"))
        var reassignTo: String?
        @Flag(help: "Remove them even though they sign in with passkeys or a password, or are signed in.")
        var force = false
        @OptionGroup var storeOptions: StoreOptions

        func run() async throws {
            let store = try await storeOptions.openStore()
            try await exitingOnReceiptError {
                let ways = try await store.waysToSignIn(user: name)
                let signedIn = try await store.sessions(user: name, now: Date()).count
                if !force, ways.passkeys > 0 || ways.password || signedIn > 0 {
                    let text = try await store.waysToSignInText(user: name)
                    throw ReceiptError(.invalidState, "\(name) signs in with \(text) and is signed in on "
                                       + "\(signedIn) browser\(signedIn == 1 ? "" : "s"); add --force to remove them all the same")
                }
                let moved = try await store.removeUser(name: name, reassignTo: reassignTo)
                let given = moved > 0 ? "; \(moved) receipt\(moved == 1 ? "" : "s") now \(reassignTo ?? "")'s" : ""
                FileHandle.standardError.write(Data("'\(name)' removed with their tokens\(given)\n".utf8))
            }
        }
    }
}

/// `receipts group add|list|remove`: households and teams who share receipts.
struct GroupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "group",
        abstract: "Add, list and remove groups: households or teams who share receipts.",
        discussion: """
            A receipt has at most one group; the group's members see it with their role: a viewer \
            reads it (receipt, image, expense, exports), an editor also corrects, confirms and retries \
            it. Only its owner or an administrator deletes it. A receipt goes to a group when it is \
            uploaded with ?group=NAME, or by its owner's default group (`receipts user add NAME --group G`).

            Examples:
              receipts group add home --member alice --member carol:viewer
              receipts group member home dave:editor      (add dave, or change his role)
              receipts group member home dave --remove
              receipts group list
            """,
        subcommands: [Add.self, List.self, Member.self, Remove.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a group with its members.")
        @Argument(help: "The group's name.")
        var name: String
        @Option(name: .customLong("member"), help: ArgumentHelp("A member: NAME (an editor) or NAME:viewer / NAME:editor; repeat for each.",
                                                                 valueName: "NAME[:ROLE]"))
        var members: [String] = []
        @OptionGroup var storeOptions: StoreOptions

        func validate() throws {
            do { try Ownership.checkName(name, "group") } catch let error as ReceiptError { throw ValidationError(error.message + ".") }
            for member in members {
                do { _ = try GroupRole.member(member) } catch let error as ReceiptError { throw ValidationError("--member \(error.message).") }
            }
        }

        func run() async throws {
            let store = try await storeOptions.openStore()
            try await exitingOnReceiptError {
                var roles: [String: GroupRole] = [:]
                for member in members {
                    let (user, role) = try GroupRole.member(member)
                    roles[user] = role
                }
                let group = try await store.addGroup(name: name, members: roles, now: Date())
                FileHandle.standardError.write(Data("group '\(group.name)' added\(roles.isEmpty ? "" : ": " + group.memberText)\n".utf8))
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List groups, one per line, tab-separated: name, members (NAME:ROLE, comma-separated, or -), receipts.")
        @OptionGroup var storeOptions: StoreOptions

        func run() async throws {
            let store = try await storeOptions.openStore()
            try await exitingOnReceiptError {
                let held = try await store.groupReceiptCounts()
                if isatty(STDOUT_FILENO) == 1 { print(["name", "members", "receipts"].joined(separator: "\t")) }
                for group in try await store.groups() {
                    let members = group.members.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value.rawValue)" }
                    print([group.name, members.isEmpty ? "-" : members.joined(separator: ","), String(held[group.name] ?? 0)]
                        .joined(separator: "\t"))
                }
            }
        }
    }

    struct Member: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a member to a group, change their role, or remove them (--remove).")
        @Argument(help: "The group's name.")
        var group: String
        @Argument(help: ArgumentHelp("The member: NAME (an editor) or NAME:viewer / NAME:editor.", valueName: "NAME[:ROLE]"))
        var member: String
        @Flag(help: "Remove the member from the group.")
        var remove = false
        @OptionGroup var storeOptions: StoreOptions

        func validate() throws {
            do { _ = try GroupRole.member(member) } catch let error as ReceiptError { throw ValidationError("\(error.message).") }
        }

        func run() async throws {
            let store = try await storeOptions.openStore()
            try await exitingOnReceiptError {
                let (user, role) = try GroupRole.member(member)
                try await store.setMember(group: group, user: user, role: remove ? nil : role)
                let what = remove ? "removed from" : "is now \(role == .editor ? "an editor" : "a viewer") of"
                FileHandle.standardError.write(Data("'\(user)' \(what) '\(group)'\n".utf8))
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a group: its receipts stay their owners' and are no longer shared.")
        @Argument(help: "The group's name.")
        var name: String
        @OptionGroup var storeOptions: StoreOptions

        func run() async throws {
            let store = try await storeOptions.openStore()
            try await exitingOnReceiptError {
                let held = try await store.removeGroup(name: name)
                FileHandle.standardError.write(Data("group '\(name)' removed; \(held) receipt\(held == 1 ? "" : "s") no longer shared\n".utf8))
            }
        }
    }
}
