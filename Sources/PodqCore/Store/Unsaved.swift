import PodqSQLite

/// A record being added: every column but its id, which SQLite gives as it stores it. The records read
/// from the store (``DownloadRecord``, ``PodcastRecord``, ``EpisodeRecord``) have non-optional ids; this
/// is the one way a new one goes in.
struct Unsaved<Record: EncodableRecord & TableRecord>: PersistableRecord {
    static var databaseTableName: String { Record.databaseTableName }
    let record: Record

    init(_ record: Record) { self.record = record }

    func encode(to container: inout PersistenceContainer) throws {
        try record.encode(to: &container)
        container["id"] = nil
    }

    /// Stores the record; returns the id SQLite gave it.
    func add(to db: Database) throws -> Int64 {
        try insert(db)
        return db.lastInsertedRowID
    }
}
