/// The schema's migrations, run in order, each once: the names of those run are kept in the table
/// `grdb_migrations` (the name GRDB gave it, under which podq's databases have them since their first
/// version).
public struct DatabaseMigrator: Sendable {
    private var migrations: [(identifier: String, migrate: @Sendable (Database) throws -> Void)] = []

    public init() {}

    /// Adds the migration `identifier`, after those registered before it.
    public mutating func registerMigration(_ identifier: String, migrate: @escaping @Sendable (Database) throws -> Void) {
        precondition(!migrations.contains { $0.identifier == identifier }, "migration \(identifier) registered twice")
        migrations.append((identifier, migrate))
    }

    /// Runs every migration not run yet.
    public func migrate(_ writer: some DatabaseWriter) throws {
        guard let last = migrations.last else { return }
        try migrate(writer, upTo: last.identifier)
    }

    /// Runs the migrations not run yet, up to `target` included. Each runs in a transaction of its own,
    /// with foreign keys checked at its end: SQLite's way to alter a table
    /// (https://www.sqlite.org/lang_altertable.html#otheralter).
    public func migrate(_ writer: some DatabaseWriter, upTo target: String) throws {
        guard let end = migrations.firstIndex(where: { $0.identifier == target }) else {
            preconditionFailure("no migration \(target)")
        }
        try writer.writeWithoutTransaction { db in
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
            let applied = try appliedIdentifiers(db)
            let known = Set(migrations.map(\.identifier))
            if let unknown = applied.first(where: { !known.contains($0) }) {
                throw DatabaseError(resultCode: .SQLITE_ERROR, message: "the database was migrated by a newer version (\(unknown))")
            }
            for migration in migrations[...end] where !applied.contains(migration.identifier) {
                let foreignKeys = try Bool.fetchOne(db, sql: "PRAGMA foreign_keys") ?? false
                if foreignKeys { try db.execute(sql: "PRAGMA foreign_keys = OFF") }
                defer { if foreignKeys { try? db.execute(sql: "PRAGMA foreign_keys = ON") } }
                try db.inTransaction(.immediate) {
                    try migration.migrate(db)
                    try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES (?)", arguments: [migration.identifier])
                    if foreignKeys, let broken = try Row.fetchOne(db, sql: "PRAGMA foreign_key_check") {
                        let table: String? = broken["table"]
                        throw DatabaseError(
                            resultCode: .SQLITE_CONSTRAINT, message: "migration \(migration.identifier) broke a foreign key of \(table ?? "a table")")
                    }
                }
            }
        }
    }

    /// The migrations run on `db`, known to this migrator or not.
    public func appliedIdentifiers(_ db: Database) throws -> Set<String> {
        let exists = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'grdb_migrations')") ?? false
        guard exists else { return [] }
        return try String.fetchSet(db, sql: "SELECT identifier FROM grdb_migrations")
    }

    /// Whether every migration of this migrator has run on `db`.
    public func hasCompletedMigrations(_ db: Database) throws -> Bool {
        let applied = try appliedIdentifiers(db)
        return migrations.allSatisfy { applied.contains($0.identifier) }
    }

    /// Whether `db` has run a migration this migrator does not know: a newer program's.
    public func hasBeenSuperseded(_ db: Database) throws -> Bool {
        let known = Set(migrations.map(\.identifier))
        return try appliedIdentifiers(db).contains { !known.contains($0) }
    }
}
