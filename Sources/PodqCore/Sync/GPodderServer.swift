import FoundationEssentials
import Glibc
import NIOHTTP1
import PodqBase

/// A server of the gpodder.net API v2 (gpodder.net, mygpo, opodsync, gpodder2go,
/// gpodder-fastapi-router): this device's subscriptions, every device's episode actions.
public struct GPodderServer: SyncServer {
    public let connection: SyncConnection
    /// This device's id on the account.
    public let device: String
    public var flavour: SyncFlavour { .gpodder }

    public init(connection: SyncConnection, device: String) {
        self.connection = connection
        self.device = device
    }

    private var user: String { Self.escape(connection.user) }
    private var deviceID: String { Self.escape(device) }

    /// A path segment: the characters the API allows in user names and device ids, the rest escaped.
    static func escape(_ text: String) -> String {
        PercentEncoding.encode(text, allowing: PercentEncoding.Allowed.alphanumerics.adding("-_."))
    }

    private struct Empty: Codable {}
    private struct DeviceUpdate: Encodable {
        var caption: String
        var type: String
    }
    private struct DeviceRow: Decodable {
        var id: String
        var caption: String?
        var type: String?
        var subscriptions: Int?
    }
    private struct Changes: Codable {
        var add: [String]
        var remove: [String]
        var timestamp: Int64?
    }
    private struct Synchronize: Encodable {
        var synchronize: [[String]]
    }

    public func login(caption: String) async throws(SyncError) {
        let (status, bytes) = try await connection.send(.POST, "/api/2/auth/\(user)/login.json", call: "the login")
        try connection.check(status, bytes, call: "the login")
        _ = try await connection.json(
            .POST, "/api/2/devices/\(user)/\(deviceID).json", body: DeviceUpdate(caption: caption, type: "desktop"), as: Empty.self,
            call: "registering this device")
    }

    /// The account's devices.
    public func devices() async throws(SyncError) -> [SyncDevice] {
        let rows = try await connection.json(.GET, "/api/2/devices/\(user).json", as: [DeviceRow].self, call: "the list of devices")
        return rows.map { SyncDevice(id: $0.id, caption: $0.caption ?? "", type: $0.type ?? "", subscriptions: $0.subscriptions ?? 0) }
    }

    /// The account's sync groups as the server keeps them (`GET /api/2/sync-devices`).
    public func groups() async throws(SyncError) -> SyncGroups {
        let (status, bytes) = try await connection.send(.GET, "/api/2/sync-devices/\(user).json", call: "the sync groups")
        try connection.check(status, bytes, call: "the sync groups")
        return try SyncGroups.read(bytes, call: "the sync groups", excerpt: connection.excerpt)
    }

    /// Asks the server to keep `devices` in one sync group (their subscriptions the same), and returns
    /// the groups it answers with: the caller checks that it did.
    public func link(_ devices: [String]) async throws(SyncError) -> SyncGroups {
        let body = try SyncConnection.encoded(Synchronize(synchronize: [devices]), call: "the sync group")
        let (status, bytes) = try await connection.send(.POST, "/api/2/sync-devices/\(user).json", json: body, call: "linking the devices")
        try connection.check(status, bytes, call: "linking the devices")
        return try SyncGroups.read(bytes, call: "linking the devices", excerpt: connection.excerpt)
    }

    public func subscriptions(since: Int64) async throws(SyncError) -> SubscriptionDelta {
        let changes = try await connection.json(
            .GET, "/api/2/subscriptions/\(user)/\(deviceID).json?since=\(since)", as: Changes.self, call: "the subscription changes")
        return SubscriptionDelta(add: changes.add, remove: changes.remove, timestamp: changes.timestamp ?? since)
    }

    public func allSubscriptions() async throws(SyncError) -> FeedList? {
        try await connection.json(.GET, "/subscriptions/\(user).json", as: FeedList.self, call: "every device's subscriptions")
    }

    public func upload(add: [String], remove: [String]) async throws(SyncError) -> UploadResult {
        try await connection.upload(
            .POST, "/api/2/subscriptions/\(user)/\(deviceID).json", body: Changes(add: add, remove: remove), call: "the subscription upload")
    }

    public func actions(since: Int64, plays: ([EpisodeAction]) async throws -> Void) async throws -> ActionsAnswer {
        try await connection.actions("/api/2/episodes/\(user).json?since=\(since)", call: "the episode actions", plays: plays)
    }

    public func upload(actions: [EpisodeAction]) async throws(SyncError) -> UploadResult {
        var sent = actions
        for i in sent.indices { sent[i].device = device }
        return try await connection.upload(.POST, "/api/2/episodes/\(user).json", body: sent, call: "the episode action upload")
    }
}

/// A gpodder.net account's sync groups: devices whose subscriptions the server keeps the same, and
/// the devices in none.
public struct SyncGroups: Sendable, Equatable {
    public var synchronized: [[String]]
    public var notSynchronized: [String]

    public init(synchronized: [[String]], notSynchronized: [String]) {
        self.synchronized = synchronized
        self.notSynchronized = notSynchronized
    }

    /// The group `device` is in (nil: none).
    public func group(of device: String) -> [String]? { synchronized.first { $0.contains(device) } }

    /// Read from a server's answer: `{"synchronized": [[…]], "not-synchronized": […]}`. An answer
    /// without `synchronized` (an empty `200`: opodsync keeps no groups) is not one.
    static func read(_ bytes: [UInt8], call: String, excerpt: ([UInt8]) -> String) throws(SyncError) -> SyncGroups {
        guard let object = JSONTree.any(bytes) as? [String: Any], let groups = object["synchronized"] as? [Any] else {
            throw .badAnswer(call: call, detail: bytes.isEmpty ? "an empty answer" : excerpt(bytes))
        }
        let synchronized = groups.compactMap { ($0 as? [Any])?.compactMap { $0 as? String } }
        return SyncGroups(synchronized: synchronized, notSynchronized: (object["not-synchronized"] as? [Any])?.compactMap { $0 as? String } ?? [])
    }
}
