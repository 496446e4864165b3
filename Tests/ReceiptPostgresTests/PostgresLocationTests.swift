import Foundation
import Testing
import ReceiptKit

/// How `--store` values are read, and that a PostgreSQL password is never shown.
@Suite struct PostgresLocationTests {
    @Test func aURLGivesUserPasswordHostPortDatabaseAndTLS() throws {
        let location = try PostgresLocation(url: "postgres://rc:p%40ss%3Aw@db.internal:6543/books?sslmode=require", environment: [:])
        #expect(location.username == "rc")
        #expect(location.password == "p@ss:w")
        #expect(location.host == "db.internal")
        #expect(location.port == 6543)
        #expect(location.database == "books")
        #expect(location.tls == .require)
        #expect(location.description == "postgres://rc:***@db.internal:6543/books?sslmode=require")
    }

    @Test func thePasswordAndUserMayComeFromTheEnvironmentAndDefaultsAreLibpqs() throws {
        let location = try PostgresLocation(url: "postgresql://db/receipts", environment: ["PGPASSWORD": "from-env", "PGUSER": "svc"])
        #expect(location.username == "svc")
        #expect(location.password == "from-env")
        #expect(location.port == 5432)
        #expect(location.tls == .prefer)
        #expect(location.description == "postgres://svc:***@db:5432/receipts")
        let noPassword = try PostgresLocation(url: "postgres://ann@db/receipts?sslmode=disable", environment: [:])
        #expect(noPassword.password == nil)
        #expect(noPassword.description == "postgres://ann@db:5432/receipts?sslmode=disable")
    }

    @Test(arguments: [
        ("postgres://rc:s3cret@/receipts", "no host"),
        ("postgres://rc:s3cret@db:5432", "no database name"),
        ("postgres://rc:s3cret@db/receipts?sslmode=sometimes", "sslmode must be disable, prefer or require"),
        ("postgres://rc:s3cret@db/receipts?pool=4", "unknown parameter 'pool'"),
        ("postgres://rc:s3cret@db/receipts?connect_timeout=soon", "connect_timeout must be a whole number of seconds"),
    ])
    func aBadURLSaysWhatIsWrongWithoutThePassword(url: String, reason: String) throws {
        let error = try #require(throws: ReceiptError.self) { try StoreLocation(url, environment: [:]) }
        #expect(error.description.contains(reason), "\(error)")
        #expect(error.description.contains("rc:***@"), "\(error)")
        #expect(!error.description.contains("s3cret"), "\(error)")
    }

    /// A slow network (or a loaded server) is given longer as libpq would be told: connect_timeout.
    @Test func connectTimeoutIsReadInWholeSecondsAsLibpqReadsIt() throws {
        let slow = try PostgresLocation(url: "postgres://rc@db/receipts?sslmode=disable&connect_timeout=45", environment: [:])
        #expect(slow.connectTimeout == .seconds(45))
        #expect(slow.description == "postgres://rc@db:5432/receipts?sslmode=disable&connect_timeout=45")
        #expect(try PostgresLocation(url: "postgres://rc@db/receipts?connect_timeout=1", environment: [:]).connectTimeout == .seconds(2))
        #expect(try PostgresLocation(url: "postgres://rc@db/receipts?connect_timeout=0", environment: [:]).connectTimeout == nil)
        #expect(try PostgresLocation(url: "postgres://rc@db/receipts", environment: [:]).connectTimeout == nil)
    }

    @Test func pathsAndSqliteURLsStaySQLite() throws {
        #expect(try StoreLocation("/srv/r.sqlite") == .sqlite(path: "/srv/r.sqlite"))
        #expect(try StoreLocation("sqlite:data/r.sqlite") == .sqlite(path: "data/r.sqlite"))
        #expect(try StoreLocation("sqlite:///srv/r.sqlite") == .sqlite(path: "/srv/r.sqlite"))
        #expect(try StoreLocation("postgres-backups/r.sqlite") == .sqlite(path: "postgres-backups/r.sqlite"))
    }

    @Test func maskHidesOnlyThePassword() {
        #expect(PostgresLocation.mask("postgres://u:pa:ss@h/db") == "postgres://u:***@h/db")
        #expect(PostgresLocation.mask("postgres://u@h/db") == "postgres://u@h/db")
        #expect(PostgresLocation.mask("/var/lib/receipts.sqlite") == "/var/lib/receipts.sqlite")
    }
}
