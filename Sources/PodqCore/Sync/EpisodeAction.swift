import FoundationEssentials
import Glibc
import PodqBase

/// One episode action as the gpodder.net API v2 and Nextcloud's GPodder Sync app carry it: a `play`
/// with its position, or a `download` or `delete`.
///
/// Written as the strictest server reads it: the action in lower case, the timestamp as
/// `YYYY-MM-DDTHH:MM:SS` in UTC (a number makes some servers refuse the whole batch), and `started`,
/// `position` and `total` only on a play. Read as any server writes it: the action in either case, the
/// timestamp as that text (with or without a zone or fraction) or as seconds (with a fraction), the GUID
/// as text or a number, `-1` or a fraction in a count.
public struct EpisodeAction: Sendable, Equatable, Codable {
    /// What happened.
    public enum Kind: String, Sendable, Codable, CaseIterable {
        case play, download, delete, new
    }

    /// The feed's URL.
    public var podcast: String
    /// The episode's media URL.
    public var episode: String
    public var guid: String?
    public var action: Kind
    /// When it happened, seconds since 1970 (whole seconds: the wire has no fraction).
    public var timestamp: Int64
    /// Where the listening began, where it stopped, and the episode's length, in seconds (plays only).
    public var started: Int?
    public var position: Int?
    public var total: Int?
    /// The device it came from, when the server says.
    public var device: String?

    public init(
        podcast: String, episode: String, guid: String? = nil, action: Kind, timestamp: Int64,
        started: Int? = nil, position: Int? = nil, total: Int? = nil, device: String? = nil
    ) {
        self.podcast = podcast
        self.episode = episode
        self.guid = guid
        self.action = action
        self.timestamp = timestamp
        self.started = started
        self.position = position
        self.total = total
        self.device = device
    }

    /// A play that says the episode was heard to the end: `started = position = total = duration`,
    /// the form AntennaPod and gPodder send and act on.
    public static func played(podcast: String, episode: String, guid: String?, duration: Int, at timestamp: Int64) -> EpisodeAction {
        let length = max(1, duration)
        return EpisodeAction(
            podcast: podcast, episode: episode, guid: guid, action: .play, timestamp: timestamp, started: length, position: length, total: length)
    }

    /// True for a play whose position is at the end (within the last 2 % or 15 s): the episode was heard.
    public var reachesTheEnd: Bool { reachesTheEnd(of: nil) }

    /// ``reachesTheEnd`` judged against `duration`, the episode's own length here, when known (as
    /// AntennaPod does: another device's `total` may be another length), else the play's `total`.
    public func reachesTheEnd(of duration: Int?) -> Bool {
        guard action == .play, let position, let length = length(duration) else { return false }
        return position >= length - max(15, length / 50)
    }

    /// True for a play that stops before the end of a length known (`duration`, else `total`): not
    /// heard to the end. False when neither length is known: nothing can be said.
    public func endsBeforeTheEnd(of duration: Int?) -> Bool {
        guard action == .play, position != nil, length(duration) != nil else { return false }
        return !reachesTheEnd(of: duration)
    }

    private func length(_ duration: Int?) -> Int? {
        duration.flatMap { $0 > 0 ? $0 : nil } ?? total.flatMap { $0 > 0 ? $0 : nil }
    }

    private enum CodingKeys: String, CodingKey {
        case podcast, episode, guid, action, timestamp, started, position, total, device
    }

    /// Reads one action as any server writes it; throws ``ActionProblem`` for a kind podq does not
    /// use or an action it cannot read (``ActionsAnswer`` skips it and reads on).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        guard let podcast = try? c.decode(String.self, forKey: .podcast), !podcast.isEmpty else { throw ActionProblem.malformed("no podcast URL") }
        guard let episode = try? c.decode(String.self, forKey: .episode), !episode.isEmpty else { throw ActionProblem.malformed("no episode URL") }
        guard let name = try? c.decode(String.self, forKey: .action) else { throw ActionProblem.malformed("no action") }
        guard let kind = Kind(rawValue: name.lowercased()) else {
            throw ActionProblem.unknownKind(String(SafeText.clean(name.lowercased()).prefix(20)))
        }
        self.podcast = podcast
        self.episode = episode
        action = kind
        guid = SyncNumber.text(c, .guid).flatMap { $0.isEmpty ? nil : $0 }
        if c.contains(.timestamp), (try? c.decodeNil(forKey: .timestamp)) != true {
            guard let seconds = SyncNumber.seconds(c, .timestamp) else { throw ActionProblem.malformed("a timestamp that is not a time") }
            timestamp = seconds
        } else {
            timestamp = 0  // none given: counted as heard when it arrives (SyncStore.applyPlays)
        }
        // Nextcloud's app writes -1 for "none"; a fraction is rounded down.
        started = SyncNumber.count(c, .started)
        position = SyncNumber.count(c, .position)
        total = SyncNumber.count(c, .total)
        device = try? c.decodeIfPresent(String.self, forKey: .device)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(podcast, forKey: .podcast)
        try c.encode(episode, forKey: .episode)
        try c.encodeIfPresent(guid, forKey: .guid)
        try c.encode(action.rawValue, forKey: .action)
        try c.encode(Self.text(timestamp), forKey: .timestamp)
        if action == .play {
            try c.encodeIfPresent(started, forKey: .started)
            try c.encodeIfPresent(position, forKey: .position)
            try c.encodeIfPresent(total, forKey: .total)
        }
        try c.encodeIfPresent(device, forKey: .device)
    }

    /// `seconds` as the wire writes it: `2026-11-26T10:00:00` (UTC, no zone).
    public static func text(_ seconds: Int64) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
    }

    /// A wire timestamp read: `2026-11-26T10:00:00`, with `Z`, an offset or a fraction; nil otherwise.
    public static func seconds(_ text: String) -> Int64? {
        let trimmed = text.trimmingSpaces
        let bytes = Array(trimmed.utf8)
        guard bytes.count >= 19, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: " "),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":")
        else { return nil }
        func number(_ range: Range<Int>) -> Int32? {
            var n: Int32 = 0
            for b in bytes[range] {
                guard b >= 48 && b <= 57 else { return nil }
                n = n * 10 + Int32(b - 48)
            }
            return n
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
            let minute = number(14..<16), let second = number(17..<19), (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60,
            second < 61
        else { return nil }
        var parts = tm()
        parts.tm_year = year - 1900
        parts.tm_mon = month - 1
        parts.tm_mday = day
        parts.tm_hour = hour
        parts.tm_min = minute
        parts.tm_sec = second
        var seconds = Int64(timegm(&parts))
        // A zone after the seconds (and any fraction): Z, +hh:mm, -hhmm.
        var rest = bytes[19...].drop { $0 == UInt8(ascii: ".") || ($0 >= 48 && $0 <= 57) }
        if let sign = rest.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
            rest = rest.dropFirst()
            let digits = rest.filter { $0 >= 48 && $0 <= 57 }
            if digits.count >= 4 {
                let hours = Int64(digits[digits.startIndex] - 48) * 10 + Int64(digits[digits.startIndex + 1] - 48)
                let minutes = Int64(digits[digits.startIndex + 2] - 48) * 10 + Int64(digits[digits.startIndex + 3] - 48)
                let offset = hours * 3600 + minutes * 60
                seconds += sign == UInt8(ascii: "+") ? -offset : offset
            }
        }
        return seconds
    }
}
