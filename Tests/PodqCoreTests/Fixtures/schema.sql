-- The schema of a new queue.sqlite (sqlite_master in order), as GRDB's podq made it at migration v20:
-- QueueStoreSchemaTests compares a new store's with it. A new migration adds its lines at the end.
-- table grdb_migrations on grdb_migrations
CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
-- index sqlite_autoindex_grdb_migrations_1 on grdb_migrations
-- (made by SQLite);
-- table download on download
CREATE TABLE "download" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "position" INTEGER NOT NULL, "url" TEXT NOT NULL, "title" TEXT NOT NULL, "podcast" TEXT, "destination" TEXT NOT NULL, "state" TEXT NOT NULL, "bytesReceived" INTEGER NOT NULL DEFAULT 0, "bytesExpected" INTEGER, "etag" TEXT, "lastModified" TEXT, "totalLength" INTEGER, "finalURL" TEXT, "attempts" INTEGER NOT NULL DEFAULT 0, "lastError" TEXT, "retryAt" DOUBLE, "createdAt" DOUBLE NOT NULL, "updatedAt" DOUBLE NOT NULL, "completedAt" DOUBLE, "episodeId" INTEGER, "folder" TEXT, "commitPath" TEXT, "commitDevice" INTEGER, "commitInode" INTEGER, "commitSize" INTEGER, "commitModified" INTEGER, "segments" TEXT, "publishedDigests" TEXT, "serverDigests" TEXT, "checksum" TEXT, "sha256" TEXT, "verifiedBy" TEXT, "integrityProblem" TEXT, "replaces" INTEGER, "commitBorn" INTEGER);
-- table sqlite_sequence on sqlite_sequence
CREATE TABLE sqlite_sequence(name,seq);
-- index download_position on download
CREATE INDEX "download_position" ON "download"("position");
-- table podcast on podcast
CREATE TABLE "podcast" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "title" TEXT NOT NULL, "url" TEXT NOT NULL UNIQUE, "link" TEXT, "description" TEXT, "author" TEXT, "imageURL" TEXT, "etag" TEXT, "lastModified" TEXT, "lastRefresh" DOUBLE, "error" TEXT, "autoQueue" BOOLEAN NOT NULL DEFAULT 0, "createdAt" DOUBLE NOT NULL, "repairs" TEXT, "loginUser" TEXT, "loginPassword" TEXT, "passwordCommand" TEXT, "userAgent" TEXT, "settings" TEXT, "loginOrigin" TEXT, "syncURL" TEXT);
-- index sqlite_autoindex_podcast_1 on podcast
-- (made by SQLite);
-- table episode on episode
CREATE TABLE "episode" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "podcastId" INTEGER NOT NULL REFERENCES "podcast"("id") ON DELETE CASCADE, "guid" TEXT, "enclosureKey" TEXT NOT NULL, "title" TEXT NOT NULL, "link" TEXT, "description" TEXT, "published" DOUBLE, "duration" INTEGER, "url" TEXT NOT NULL, "type" TEXT, "length" INTEGER, "season" INTEGER, "episodeNumber" INTEGER, "firstSeenAt" DOUBLE NOT NULL, "downloadId" INTEGER REFERENCES "download"("id") ON DELETE SET NULL, "enclosures" TEXT, "playedAt" DOUBLE, "digests" TEXT, "upstreamChange" TEXT, "transcripts" TEXT, "chaptersURL" TEXT, "imageURL" TEXT, "position" INTEGER, "positionAt" DOUBLE);
-- index episode_guid on episode
CREATE INDEX "episode_guid" ON "episode"("podcastId", "guid");
-- index episode_key on episode
CREATE INDEX "episode_key" ON "episode"("podcastId", "enclosureKey");
-- table episode_notes on episode_notes
CREATE VIRTUAL TABLE episode_notes USING fts5(notes, tokenize = 'unicode61 remove_diacritics 2', detail = none);
-- table episode_notes_data on episode_notes_data
CREATE TABLE 'episode_notes_data'(id INTEGER PRIMARY KEY, block BLOB);
-- table episode_notes_idx on episode_notes_idx
CREATE TABLE 'episode_notes_idx'(segid, term, pgno, PRIMARY KEY(segid, term)) WITHOUT ROWID;
-- table episode_notes_content on episode_notes_content
CREATE TABLE 'episode_notes_content'(id INTEGER PRIMARY KEY, c0);
-- table episode_notes_docsize on episode_notes_docsize
CREATE TABLE 'episode_notes_docsize'(id INTEGER PRIMARY KEY, sz BLOB);
-- table episode_notes_config on episode_notes_config
CREATE TABLE 'episode_notes_config'(k PRIMARY KEY, v) WITHOUT ROWID;
-- trigger episode_notes_delete on episode
CREATE TRIGGER episode_notes_delete AFTER DELETE ON episode BEGIN
    DELETE FROM episode_notes WHERE rowid = old.id;
END;
-- table notes_index on notes_index
CREATE TABLE notes_index (nextId INTEGER NOT NULL);
-- table ledger on ledger
CREATE TABLE ledger (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    enclosureKey TEXT NOT NULL,
    guid TEXT NOT NULL DEFAULT '',
    feedURL TEXT NOT NULL DEFAULT '',
    title TEXT NOT NULL DEFAULT '',
    how TEXT NOT NULL,
    recordedAt REAL NOT NULL,
    UNIQUE (enclosureKey, guid, feedURL)
);
-- index sqlite_autoindex_ledger_1 on ledger
-- (made by SQLite);
-- index ledger_guid on ledger
CREATE INDEX ledger_guid ON ledger (guid, feedURL);
-- trigger ledger_on_completed on download
CREATE TRIGGER ledger_on_completed AFTER UPDATE OF state ON download
WHEN NEW.state = 'completed' AND OLD.state IS NOT 'completed' AND NEW.episodeId IS NOT NULL
BEGIN
    INSERT OR IGNORE INTO ledger (enclosureKey, guid, feedURL, title, how, recordedAt)
    SELECT episode.enclosureKey, IFNULL(episode.guid, ''), podcast.url, episode.title, 'downloaded',
           IFNULL(NEW.completedAt, strftime('%s', 'now'))
    FROM episode JOIN podcast ON podcast.id = episode.podcastId WHERE episode.id = NEW.episodeId;
END;
-- index episode_download on episode
CREATE INDEX "episode_download" ON "episode"("downloadId");
-- table sync_account on sync_account
CREATE TABLE "sync_account" ("id" INTEGER PRIMARY KEY CHECK ("id" = 1), "server" TEXT NOT NULL, "flavour" TEXT NOT NULL, "user" TEXT NOT NULL, "device" TEXT, "passwordCommand" TEXT, "keyring" BOOLEAN NOT NULL DEFAULT 0, "subscriptionsSince" INTEGER NOT NULL DEFAULT 0, "actionsSince" INTEGER NOT NULL DEFAULT 0, "lastPush" DOUBLE, "lastPull" DOUBLE, "lastError" TEXT);
-- table sync_change on sync_change
CREATE TABLE "sync_change" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "kind" TEXT NOT NULL, "url" TEXT NOT NULL, "episode" TEXT, "guid" TEXT, "action" TEXT, "timestamp" INTEGER NOT NULL, "started" INTEGER, "position" INTEGER, "total" INTEGER, "parked" TEXT);
-- trigger sync_on_completed on download
CREATE TRIGGER sync_on_completed AFTER UPDATE OF state ON download
WHEN NEW.state = 'completed' AND OLD.state IS NOT 'completed' AND NEW.episodeId IS NOT NULL
     AND EXISTS (SELECT 1 FROM sync_account WHERE flavour = 'gpodder')
BEGIN
    INSERT INTO sync_change (kind, url, episode, guid, action, timestamp)
    SELECT 'action', IFNULL(podcast.syncURL, podcast.url), episode.url, episode.guid, 'download',
           CAST(IFNULL(NEW.completedAt, strftime('%s', 'now')) AS INTEGER)
    FROM episode JOIN podcast ON podcast.id = episode.podcastId WHERE episode.id = NEW.episodeId;
END;
-- table sync_future on sync_future
CREATE TABLE "sync_future" ("action" TEXT PRIMARY KEY NOT NULL, "receivedAt" DOUBLE NOT NULL);
-- index sqlite_autoindex_sync_future_1 on sync_future
-- (made by SQLite);
-- table transcript on transcript
CREATE TABLE transcript (
    episodeId INTEGER PRIMARY KEY NOT NULL REFERENCES episode(id) ON DELETE CASCADE,
    source TEXT NOT NULL, format TEXT NOT NULL, body BLOB, cues INTEGER NOT NULL, indexedAt DOUBLE NOT NULL);
-- table transcript_cue on transcript_cue
CREATE VIRTUAL TABLE transcript_cue USING fts5(text, start UNINDEXED, tokenize = 'unicode61 remove_diacritics 2', columnsize = 0);
-- table transcript_cue_data on transcript_cue_data
CREATE TABLE 'transcript_cue_data'(id INTEGER PRIMARY KEY, block BLOB);
-- table transcript_cue_idx on transcript_cue_idx
CREATE TABLE 'transcript_cue_idx'(segid, term, pgno, PRIMARY KEY(segid, term)) WITHOUT ROWID;
-- table transcript_cue_content on transcript_cue_content
CREATE TABLE 'transcript_cue_content'(id INTEGER PRIMARY KEY, c0, c1);
-- table transcript_cue_config on transcript_cue_config
CREATE TABLE 'transcript_cue_config'(k PRIMARY KEY, v) WITHOUT ROWID;
-- trigger transcript_cue_delete on episode
CREATE TRIGGER transcript_cue_delete AFTER DELETE ON episode BEGIN
    DELETE FROM transcript_cue WHERE rowid BETWEEN old.id << 20 AND (old.id << 20) | 1048575;
END;
