import FoundationEssentials
import Glibc
import NIOHTTP1

/// Nextcloud's GPodder Sync app (`/index.php/apps/gpoddersync/…`): one list of subscriptions and of
/// episode actions per user, no devices, the login (an app password) on every request.
public struct NextcloudServer: SyncServer {
    public let connection: SyncConnection
    public var flavour: SyncFlavour { .nextcloud }

    public init(connection: SyncConnection) {
        self.connection = connection
    }

    private static let app = "/index.php/apps/gpoddersync"

    private struct Changes: Codable {
        var add: [String]?
        var remove: [String]?
        var timestamp: Int64?
    }

    public func login(caption: String) async throws(SyncError) {
        _ = try await subscriptions(since: Int64(Date().timeIntervalSince1970))
    }

    public func subscriptions(since: Int64) async throws(SyncError) -> SubscriptionDelta {
        let changes = try await connection.json(.GET, "\(Self.app)/subscriptions?since=\(since)", as: Changes.self, call: "the subscription changes")
        return SubscriptionDelta(add: changes.add ?? [], remove: changes.remove ?? [], timestamp: changes.timestamp ?? since)
    }

    public func allSubscriptions() async throws(SyncError) -> FeedList? { nil }

    public func upload(add: [String], remove: [String]) async throws(SyncError) -> UploadResult {
        try await connection.upload(.POST, "\(Self.app)/subscription_change/create", body: Changes(add: add, remove: remove), call: "the subscription upload")
    }

    public func actions(since: Int64, plays: ([EpisodeAction]) async throws -> Void) async throws -> ActionsAnswer {
        try await connection.actions("\(Self.app)/episode_action?since=\(since)", call: "the episode actions", plays: plays)
    }

    public func upload(actions: [EpisodeAction]) async throws(SyncError) -> UploadResult {
        // The app keeps play actions only (one row per episode): a download or a delete is not sent.
        let plays = actions.filter { $0.action == .play }
        guard !plays.isEmpty else { return UploadResult(timestamp: 0) }
        return try await connection.upload(.POST, "\(Self.app)/episode_action/create", body: plays, call: "the episode action upload")
    }
}
