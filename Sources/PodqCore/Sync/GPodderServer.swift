import Foundation
import NIOHTTP1

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
        text.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_."))
            ?? text
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
    private struct SyncDevices: Decodable {
        var synchronized: [[String]]?
        var notSynchronized: [String]?
        enum CodingKeys: String, CodingKey {
            case synchronized
            case notSynchronized = "not-synchronized"
        }
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

    /// Puts this device in one sync group with `other`: the server then keeps their subscriptions the same.
    public func link(with other: String) async throws(SyncError) {
        _ = try await connection.json(
            .POST, "/api/2/sync-devices/\(user).json", body: Synchronize(synchronize: [[device, other]]), as: SyncDevicesAnswer.self,
            call: "linking the devices")
    }

    private struct SyncDevicesAnswer: Decodable {}

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

    public func actions(since: Int64) async throws(SyncError) -> ActionsAnswer {
        try await connection.json(.GET, "/api/2/episodes/\(user).json?since=\(since)", as: ActionsAnswer.self, call: "the episode actions")
    }

    public func upload(actions: [EpisodeAction]) async throws(SyncError) -> UploadResult {
        var sent = actions
        for i in sent.indices { sent[i].device = device }
        return try await connection.upload(.POST, "/api/2/episodes/\(user).json", body: sent, call: "the episode action upload")
    }
}
