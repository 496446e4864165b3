import Foundation
import Testing
@testable import ReceiptKit
import ReceiptPostgres
import ReceiptServerStore
@testable import TestHelpers
@testable import TestSupport

/// What signing people in keeps, in both stores (SQLite always, PostgreSQL when installed):
/// sessions by the hash of their secret (ending with their token), invitations used once, passkeys
/// whose counter moves only from the value read, challenges taken once, passwords, the public URL,
/// and all of a user's going with the user.
@Suite struct SignInStoreTests {
    private func carol(_ kind: StoreKind) async throws -> any ServerStore {
        let store = try await TestStore.make(kind).store
        _ = try await store.addUser(name: "carol", isAdmin: false, defaultGroup: nil, now: Date())
        return store
    }

    private func session(_ id: String, token: String? = nil, created: Date = Date(), expires: TimeInterval = 3600) -> WebSession {
        WebSession(id: id, user: "carol", method: token == nil ? "passkey" : "token", tokenName: token, createdAt: created, lastUsedAt: created,
                   expiresAt: created.addingTimeInterval(expires), device: "iPhone Safari", address: "192.0.2.1")
    }

    /// Issue 56: whether anyone can sign in (which ends the open mode): each way in counts while it
    /// lasts, and none does once it is gone: a used, expired or revoked invitation, an expired
    /// session, a revoked token, a removed password or passkey.
    @Test(arguments: StoreKind.available)
    func anyoneCanSignInWhileAnyWayInLasts(kind: StoreKind) async throws {
        let store = try await carol(kind)
        let now = Date()
        #expect(try await !store.canAnyoneSignIn(now: now), "a new store: nobody")
        let invitation = Invitation(id: "i1", user: "carol", createdBy: "cli", createdAt: now, expiresAt: now.addingTimeInterval(3600))
        try await store.addInvitation(invitation, secretHash: "inv-hash")
        #expect(try await store.canAnyoneSignIn(now: now), "an open invitation")
        #expect(try await !store.canAnyoneSignIn(now: now.addingTimeInterval(3601)), "an expired invitation")
        _ = try await store.revokeInvitation(id: "i1", now: now)
        #expect(try await !store.canAnyoneSignIn(now: now), "a revoked invitation")

        // Made at `now`, not at the clock's time when it is added: on a loaded machine that came
        // seconds later, and the session outlived now + 3601 s.
        try await store.addSession(session("s1", created: now), secretHash: "h1")
        #expect(try await store.canAnyoneSignIn(now: now), "a person's live session")
        #expect(try await !store.canAnyoneSignIn(now: now.addingTimeInterval(3601)), "an expired session")
        _ = try await store.endSessions(user: "carol")

        try await store.setPasswordHash(user: "carol", hash: "$argon2id$v=19$m=8,t=1,p=1$c2FsdA$aGFzaA", now: now)
        #expect(try await store.canAnyoneSignIn(now: now), "a password")
        try await store.setPasswordHash(user: "carol", hash: nil, now: now)
        #expect(try await !store.canAnyoneSignIn(now: now))

        try await store.addPasskey(Passkey(id: "k1", user: "carol", userHandle: "u", name: "Phone", publicKey: [1], algorithm: -7, signCount: 0,
                                           createdAt: now))
        #expect(try await store.canAnyoneSignIn(now: now), "a passkey")
        try await store.removePasskey(id: "k1", user: "carol")
        #expect(try await !store.canAnyoneSignIn(now: now))

        _ = try await store.createToken(name: "app", user: "carol", scopes: [.read], expiresAt: now.addingTimeInterval(-1), rateLimit: nil,
                                        now: now.addingTimeInterval(-60))
        #expect(try await store.canAnyoneSignIn(now: now), "a token, even expired (as hasActiveTokens)")
        _ = try await store.revokeToken(name: "app", now: now)
        #expect(try await !store.canAnyoneSignIn(now: now), "every way in gone")
    }

    @Test(arguments: StoreKind.available)
    func sessionsAreFoundByTheirHashAndEndWithTheirTokenOrTheirTime(kind: StoreKind) async throws {
        let store = try await carol(kind)
        let now = Date()
        try await store.addSession(session("s1"), secretHash: "h1")
        try await store.addSession(session("old", created: now.addingTimeInterval(-7200)), secretHash: "h-old")
        _ = try await store.createToken(name: "carol-app", user: "carol", scopes: [.read], expiresAt: nil, rateLimit: nil, now: now.addingTimeInterval(-1))
        try await store.addSession(session("s2", token: "carol-app", created: now), secretHash: "h2")
        #expect(try await store.session(secretHash: "h1", now: now)?.device == "iPhone Safari")
        #expect(try await store.session(secretHash: "h-old", now: now) == nil, "expired")
        #expect(try await store.session(secretHash: "nope", now: now) == nil)
        #expect(try await store.sessions(user: "carol", now: now).map(\.id).sorted() == ["s1", "s2"])

        let later = now.addingTimeInterval(600)
        try await store.touchSession(id: "s1", at: later, expiresAt: later.addingTimeInterval(3600))
        let touched = try #require(try await store.session(secretHash: "h1", now: now.addingTimeInterval(4000)))
        #expect(abs(touched.lastUsedAt.timeIntervalSince(later)) < 0.01)

        // Revoked, then made again under its name: the token's session does not come back.
        _ = try await store.revokeToken(name: "carol-app", now: now)
        #expect(try await store.session(secretHash: "h2", now: now) == nil)
        _ = try await store.createToken(name: "carol-app", user: "carol", scopes: [.read], expiresAt: nil, rateLimit: nil, now: now.addingTimeInterval(1))
        #expect(try await store.session(secretHash: "h2", now: now.addingTimeInterval(2)) == nil)

        #expect(try await store.endSession(id: "s1", user: "bob") == false, "not bob's")
        #expect(try await store.endSession(id: "s1", user: "carol"))
        #expect(try await store.session(secretHash: "h1", now: now) == nil)
        try await store.addSession(session("s3"), secretHash: "h3")
        #expect(try await store.endSessions(user: "carol") >= 1)
        #expect(try await store.sessions(user: nil, now: now).isEmpty)
    }

    @Test(arguments: StoreKind.available)
    func anInvitationIsTakenOnceEvenByTwoAtOnce(kind: StoreKind) async throws {
        let store = try await carol(kind)
        let now = Date()
        await #expect(throws: ReceiptError.self) {
            try await store.addInvitation(Invitation(id: "x", user: "nobody", createdBy: "t", createdAt: now, expiresAt: now.addingTimeInterval(60)),
                                          secretHash: "x")
        }
        try await store.addInvitation(Invitation(id: "i1", user: "carol", createdBy: "t", createdAt: now, expiresAt: now.addingTimeInterval(60)),
                                      secretHash: "open")
        try await store.addInvitation(Invitation(id: "i2", user: "carol", createdBy: "t", createdAt: now.addingTimeInterval(-120),
                                                 expiresAt: now.addingTimeInterval(-60)), secretHash: "expired")
        async let first = store.useInvitation(secretHash: "open", now: now)
        async let second = store.useInvitation(secretHash: "open", now: now)
        let taken = [try await first, try await second].compactMap { $0 }.filter(\.taken)
        #expect(taken.count == 1 && taken[0].invitation.user == "carol")
        let again = try #require(try await store.useInvitation(secretHash: "open", now: now))
        #expect(!again.taken && again.invitation.state(at: now) == .used)
        let expired = try #require(try await store.useInvitation(secretHash: "expired", now: now))
        #expect(!expired.taken && expired.invitation.state(at: now) == .expired)
        #expect(try await store.useInvitation(secretHash: "unknown", now: now) == nil)
        #expect(try await store.revokeInvitation(id: "i2", now: now).revokedAt != nil)
        await #expect(throws: ReceiptError.self) { try await store.revokeInvitation(id: "none", now: now) }
        #expect(try await store.invitations(user: "carol").map(\.id) == ["i1", "i2"])
    }

    @Test(arguments: StoreKind.available)
    func aPasskeysCounterMovesOnlyFromTheValueRead(kind: StoreKind) async throws {
        let store = try await carol(kind)
        _ = try await store.addUser(name: "bob", isAdmin: false, defaultGroup: nil, now: Date())
        let key = Passkey(id: "cred-1", user: "carol", userHandle: "handle", name: "phone", publicKey: [1, 2, 3], algorithm: -7, signCount: 5,
                          createdAt: Date())
        try await store.addPasskey(key)
        await #expect(throws: ReceiptError.self) { try await store.addPasskey(key) }
        let found = try #require(try await store.passkey(id: "cred-1"))
        #expect(found.publicKey == key.publicKey && found.userHandle == "handle" && found.signCount == 5 && found.algorithm == -7 && found.user == "carol")
        #expect(try await store.recordPasskeyUse(id: "cred-1", previous: 5, signCount: 6, at: Date()))
        #expect(try await store.recordPasskeyUse(id: "cred-1", previous: 5, signCount: 7, at: Date()) == false, "another sign-in moved it first")
        #expect(try await store.passkey(id: "cred-1")?.signCount == 6)
        await #expect(throws: ReceiptError.self) { try await store.renamePasskey(id: "cred-1", user: "bob", name: "mine") }
        await #expect(throws: ReceiptError.self) { try await store.removePasskey(id: "cred-1", user: "bob") }
        try await store.renamePasskey(id: "cred-1", user: "carol", name: "Carol's phone")
        #expect(try await store.passkeys(user: "carol").map(\.name) == ["Carol's phone"])

        // Challenges: taken once, for their purpose and user, before they expire.
        let now = Date()
        try await store.addChallenge(hash: "c1", purpose: "sign-in", user: nil, expiresAt: now.addingTimeInterval(60))
        try await store.addChallenge(hash: "c2", purpose: "register:h", user: "carol", expiresAt: now.addingTimeInterval(60))
        try await store.addChallenge(hash: "c3", purpose: "sign-in", user: nil, expiresAt: now.addingTimeInterval(-1))
        #expect(try await store.takeChallenge(hash: "c1", purpose: "sign-in", user: nil, now: now))
        #expect(try await store.takeChallenge(hash: "c1", purpose: "sign-in", user: nil, now: now) == false)
        #expect(try await store.takeChallenge(hash: "c2", purpose: "register:h", user: "bob", now: now) == false)
        #expect(try await store.takeChallenge(hash: "c2", purpose: "register:h", user: "carol", now: now) == false, "gone after a wrong try")
        #expect(try await store.takeChallenge(hash: "c3", purpose: "sign-in", user: nil, now: now) == false)

        // Passwords and the public URL.
        try await store.setPasswordHash(user: "carol", hash: "$argon2id$x", now: Date())
        #expect(try await store.passwordHash(user: "carol") == "$argon2id$x")
        await #expect(throws: ReceiptError.self) { try await store.setPasswordHash(user: "nobody", hash: "x", now: Date()) }
        #expect(try await store.publicURL() == nil)
        try await store.setPublicURL("https://receipts.example.com")
        #expect(try await store.publicURL() == "https://receipts.example.com")

        // A user's sign-in rows go with the user.
        try await store.addSession(session("s1"), secretHash: "h1")
        try await store.addInvitation(Invitation(id: "i1", user: "carol", createdBy: "t", createdAt: now, expiresAt: now.addingTimeInterval(60)),
                                      secretHash: "inv")
        _ = try await store.removeUser(name: "carol", reassignTo: nil)
        let (gone, hash) = (try await store.passkey(id: "cred-1"), try await store.passwordHash(user: "carol"))
        let (sessions, invitations) = (try await store.sessions(user: nil, now: now), try await store.invitations(user: nil))
        #expect(gone == nil && hash == nil && sessions.isEmpty && invitations.isEmpty)
    }
}
