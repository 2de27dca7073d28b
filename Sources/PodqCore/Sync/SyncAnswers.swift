import FoundationEssentials
import Glibc
import PodqBase

/// What a server's list of episode actions held that podq did not apply: action kinds it does not use
/// (`flattr` is valid on gpodder.net) and actions that are not what the API says. Each is skipped and
/// counted; the rest of the answer applies.
public struct SkippedActions: Sendable, Equatable {
    /// Kinds podq does not use, by name (cleaned, lower case), with how many came.
    public var kinds: [String: Int] = [:]
    /// Actions that could not be read.
    public var malformed = 0
    /// Why, for the first few of them.
    public var reasons: [String] = []

    public init() {}

    public var isEmpty: Bool { kinds.isEmpty && malformed == 0 }

    mutating func add(_ problem: ActionProblem) {
        switch problem {
        case .unknownKind(let name): kinds[name, default: 0] += 1
        case .malformed(let reason):
            malformed += 1
            if reasons.count < 3 { reasons.append(reason) }
        }
    }

    /// "skipped 2 actions of kinds podq does not use (flattr) and 1 it cannot read (no episode URL)".
    public var line: String {
        var parts: [String] = []
        let unknown = kinds.values.reduce(0, +)
        if unknown > 0 {
            parts.append("\(unknown) action\(unknown == 1 ? "" : "s") of kinds podq does not use (\(kinds.keys.sorted().prefix(5).joined(separator: ", ")))")
        }
        if malformed > 0 { parts.append("\(malformed) it cannot read (\(reasons.joined(separator: "; ")))") }
        return "skipped " + parts.joined(separator: " and ")
    }
}

/// Why one action of an answer was skipped.
enum ActionProblem: Error, Equatable {
    case unknownKind(String)
    case malformed(String)
}

/// The episode actions of a server's answer, read one by one: a bad one is skipped, never the answer.
public struct ActionsAnswer: Sendable, Equatable, Decodable {
    public var actions: [EpisodeAction]
    /// The server's time to ask from next; nil when it gave none.
    public var timestamp: Int64?
    public var skipped = SkippedActions()

    public init(actions: [EpisodeAction], timestamp: Int64?, skipped: SkippedActions = SkippedActions()) {
        self.actions = actions
        self.timestamp = timestamp
        self.skipped = skipped
    }

    private enum CodingKeys: String, CodingKey { case actions, timestamp }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        timestamp = SyncNumber.seconds(c, .timestamp)
        actions = []
        for one in try c.decodeIfPresent([DecodedAction].self, forKey: .actions) ?? [] {
            switch one.result {
            case .success(let action): actions.append(action)
            case .failure(let problem): skipped.add(problem)
            }
        }
    }

    /// A decoding error in a few words: the field, and what was wrong with it.
    static func describe(_ error: any Error) -> String {
        switch error as? DecodingError {
        case .keyNotFound(let key, _): "no \(key.stringValue)"
        case .typeMismatch(_, let context), .dataCorrupted(let context):
            "\(context.codingPath.last?.stringValue ?? "an action") is not what the API says"
        case .valueNotFound(_, let context): "\(context.codingPath.last?.stringValue ?? "a field") is null"
        default: "not an action"
        }
    }
}

/// One action of an answer, read, or why not.
struct DecodedAction: Decodable {
    var result: Result<EpisodeAction, ActionProblem>
    init(from decoder: any Decoder) {
        do {
            result = .success(try EpisodeAction(from: decoder))
        } catch let problem as ActionProblem {
            result = .failure(problem)
        } catch {
            result = .failure(.malformed(ActionsAnswer.describe(error)))
        }
    }
}

extension SyncConnection {
    /// The episode actions at `path`, read as the answer arrives (``ActionStream``): each action
    /// decoded alone, the plays handed to `plays` in batches of at most `batch`, so an answer of any
    /// size (120,000 actions, 32 MB and more) is read in bounded memory. Returns the server's
    /// timestamp and what was skipped; the returned answer's `actions` is empty.
    public func actions(_ path: String, call: String, batch: Int = 2000, plays: ([EpisodeAction]) async throws -> Void) async throws -> ActionsAnswer {
        var reader = ActionStream()
        var answer = ActionsAnswer(actions: [], timestamp: nil)
        var waiting: [EpisodeAction] = []
        var sawText = false
        let decoder = JSONDecoder()
        try await stream(path, call: call) { chunk in
            if !sawText { sawText = chunk.contains { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) } }
            reader.feed(chunk) { element in
                let one = (try? decoder.decode(DecodedAction.self, from: Data(element)))?.result ?? .failure(.malformed("not an action"))
                switch one {
                case .success(let action) where action.action == .play: waiting.append(action)
                case .success: break
                case .failure(let problem): answer.skipped.add(problem)
                }
            }
            if waiting.count >= batch {
                try await plays(waiting)
                waiting = []
            }
        }
        // An empty answer has no actions; any other text must have been the answer's whole object.
        guard !sawText || reader.finished else {
            throw SyncError.badAnswer(call: call, detail: "the answer ends before its object does")
        }
        if !waiting.isEmpty { try await plays(waiting) }
        for _ in 0..<reader.oversized { answer.skipped.add(.malformed("an action over 1 MB")) }
        answer.timestamp = reader.timestampText.flatMap(SyncNumber.seconds(text:))
        return answer
    }
}

/// Every device's subscriptions as servers write them: strings (gpodder-fastapi-router), objects with
/// `url` (gpodder.net, mygpo) or objects with `feed` (opodsync). Anything else is skipped and counted.
public struct FeedList: Sendable, Equatable, Decodable {
    public var urls: [String] = []
    public var skipped = 0

    public init(urls: [String], skipped: Int = 0) {
        self.urls = urls
        self.skipped = skipped
    }

    private struct Entry: Decodable {
        var url: String?
        private enum CodingKeys: String, CodingKey { case url, feed }
        init(from decoder: any Decoder) {
            if let text = try? decoder.singleValueContainer().decode(String.self) {
                url = text
            } else if let c = try? decoder.container(keyedBy: CodingKeys.self) {
                url = (try? c.decodeIfPresent(String.self, forKey: .url)) ?? (try? c.decodeIfPresent(String.self, forKey: .feed)) ?? nil
            }
        }
    }

    public init(from decoder: any Decoder) throws {
        for entry in try decoder.singleValueContainer().decode([Entry].self) {
            if let url = entry.url, !url.isEmpty { urls.append(url) } else { skipped += 1 }
        }
    }
}

/// Numbers as servers write them: whole or with a fraction, or text; `-1` for none (Nextcloud's app).
/// A number out of range (`1e300`) is none, never a trap.
enum SyncNumber {
    /// A count of seconds in an action (position, total): whole, fraction rounded down; nil for none or out of range.
    static func count<K: CodingKey>(_ c: KeyedDecodingContainer<K>, _ key: K) -> Int? {
        guard let value = number(c, key), value >= 0, value < 1e12 else { return nil }
        return Int(value.rounded(.down))
    }

    /// A time in seconds since 1970: a number (with a fraction) or ISO 8601 text; nil for none or one out of range.
    static func seconds<K: CodingKey>(_ c: KeyedDecodingContainer<K>, _ key: K) -> Int64? {
        if let text = try? c.decodeIfPresent(String.self, forKey: key) {
            if let seconds = EpisodeAction.seconds(text) { return seconds }
            guard let value = Double(text.trimmingSpaces) else { return nil }
            return inRange(value)
        }
        return number(c, key).flatMap(inRange)
    }

    /// A time from its JSON text: a number, or a quoted ISO 8601 time or number.
    static func seconds(text: String) -> Int64? {
        var text = text
        if text.hasPrefix("\""), text.hasSuffix("\""), text.count >= 2 { text = String(text.dropFirst().dropLast()) }
        if let seconds = EpisodeAction.seconds(text) { return seconds }
        return Double(text.trimmingSpaces).flatMap(inRange)
    }

    private static func inRange(_ value: Double) -> Int64? {
        // 1970 to the year 9999 (253,402,300,799 s): anything else is not a time.
        guard value.isFinite, value >= 0, value < 253_402_300_800 else { return nil }
        return Int64(value.rounded(.down))
    }

    private static func number<K: CodingKey>(_ c: KeyedDecodingContainer<K>, _ key: K) -> Double? {
        if let whole = try? c.decodeIfPresent(Int64.self, forKey: key) { return Double(whole) }
        if let value = try? c.decodeIfPresent(Double.self, forKey: key) { return value.isFinite ? value : nil }
        return nil
    }

    /// A GUID as text, whether the server wrote a string or a number.
    static func text<K: CodingKey>(_ c: KeyedDecodingContainer<K>, _ key: K) -> String? {
        if let text = try? c.decodeIfPresent(String.self, forKey: key) { return text }
        if let whole = try? c.decodeIfPresent(Int64.self, forKey: key) { return String(whole) }
        if let value = try? c.decodeIfPresent(Double.self, forKey: key), value.isFinite { return "\(value)" }
        return nil
    }
}
