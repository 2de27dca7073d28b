import FoundationEssentials
import Glibc

/// Which API a sync server speaks.
public enum SyncFlavour: String, Sendable, CaseIterable, Codable {
    /// The gpodder.net API v2 (gpodder.net, mygpo, opodsync, gpodder2go, gpodder-fastapi-router):
    /// devices, per-device subscriptions, sync groups.
    case gpodder
    /// Nextcloud's GPodder Sync app (`/index.php/apps/gpoddersync/…`): no devices, Basic auth on every request.
    case nextcloud
}

/// Subscription changes as the server gives them since a time: feed URLs added and removed, and the
/// server's time to ask from next.
public struct SubscriptionDelta: Sendable, Equatable {
    public var add: [String]
    public var remove: [String]
    public var timestamp: Int64

    public init(add: [String], remove: [String], timestamp: Int64) {
        self.add = add
        self.remove = remove
        self.timestamp = timestamp
    }
}

/// An upload's answer: the server's time, and URLs it rewrote (`[old, new]`), which podq applies.
public struct UploadResult: Sendable, Equatable {
    public var timestamp: Int64
    public var updateURLs: [(String, String)]

    public init(timestamp: Int64, updateURLs: [(String, String)] = []) {
        self.timestamp = timestamp
        self.updateURLs = updateURLs
    }

    public static func == (a: UploadResult, b: UploadResult) -> Bool {
        a.timestamp == b.timestamp && a.updateURLs.map { [$0.0, $0.1] } == b.updateURLs.map { [$0.0, $0.1] }
    }
}

/// Another device of a gpodder.net account.
public struct SyncDevice: Sendable, Equatable {
    public var id: String
    public var caption: String
    public var type: String
    public var subscriptions: Int

    public init(id: String, caption: String, type: String, subscriptions: Int) {
        self.id = id
        self.caption = caption
        self.type = type
        self.subscriptions = subscriptions
    }
}

/// One sync server, whichever API it speaks: what `podq sync` asks of it.
public protocol SyncServer: Sendable {
    var flavour: SyncFlavour { get }
    /// Checks the login (and, on gpodder, registers this device under `caption`).
    func login(caption: String) async throws(SyncError)
    /// The subscription changes since `since` (0: all of them).
    func subscriptions(since: Int64) async throws(SyncError) -> SubscriptionDelta
    /// Every subscription of every device of the account (a first sync adopts them), in whichever
    /// shape the server writes it; nil where the API has no such call.
    func allSubscriptions() async throws(SyncError) -> FeedList?
    /// Sends subscription changes; returns only when the server said it took them, as for actions.
    func upload(add: [String], remove: [String]) async throws(SyncError) -> UploadResult
    /// Episode actions of every device since `since`, read as the answer arrives: the plays are handed
    /// to `plays` in batches (an answer of any size in bounded memory); those podq cannot use are
    /// skipped and counted in the answer returned (whose `actions` is empty).
    func actions(since: Int64, plays: ([EpisodeAction]) async throws -> Void) async throws -> ActionsAnswer
    /// Sends episode actions (at most a batch). Returns only when the server said it took them (its
    /// answer carries the `timestamp` the API promises); an empty or foreign `200` throws.
    func upload(actions: [EpisodeAction]) async throws(SyncError) -> UploadResult
}

extension SyncServer {
    /// Asks for the actions since `since` and keeps none: a probe that the call works (login).
    public func checkActions(since: Int64) async throws(SyncError) {
        do {
            _ = try await actions(since: since) { _ in }
        } catch let error as SyncError {
            throw error
        } catch {
            throw .network(String(describing: error))
        }
    }
}
