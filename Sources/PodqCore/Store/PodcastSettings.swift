import FoundationEssentials
import Glibc
import PodqBase

/// One podcast's own rules (issue 18, point 5), set with `podq set <podcast> key=value` and stored as
/// JSON in the podcast's `settings` column. Each is nil when the podcast follows the config. A value
/// is checked when it is set: a mistake is an error naming the key and what to write, never stored.
public struct PodcastSettings: Sendable, Equatable, Codable {
    /// Queue new episodes on refresh (`auto-queue`): overrides both `podq add --auto` and the config.
    public var autoQueue: Bool?
    /// Auto-queue only episodes whose title matches (`include`), and none whose title matches
    /// (`exclude`): regular expressions, case ignored.
    public var include: String?
    public var exclude: String?
    /// Auto-queue no episode shorter than this many seconds (`min-duration`); one whose duration the
    /// feed does not give is queued.
    public var minDuration: Int?
    /// Cleanup keeps the newest N completed episodes (`keep`), instead of the config's `keep-episodes`.
    public var keep: Int?
    /// Cleanup deletes the oldest completed episodes until the podcast's files fit (`size-budget`).
    public var sizeBudget: Int64?
    /// Serial mode (`serial`): refresh keeps the oldest N episodes not yet played on the queue or
    /// downloaded, in order, instead of the newest; cleanup deletes the files of played ones.
    public var serial: Int?
    /// Where its new episodes' files go (`download-folder`) and how they are named (`file-name-template`).
    public var downloadFolder: String?
    public var fileNameTemplate: String?
    /// The command run for each of its finished downloads (`on-complete`), instead of the config's.
    public var onComplete: String?
    /// Its episodes' transcript, chapters, image and metadata beside each file (`sidecars`).
    public var sidecars: Bool?
    /// Cleanup may delete its episodes not yet played too (`cleanup-unplayed`), instead of the config's.
    public var cleanupUnplayed: Bool?

    public init() {}

    /// The keys `podq set` takes, with what each means. `user-agent` is the podcast's own column.
    public static let keys: [(key: String, help: String)] = [
        ("auto-queue", "on or off: queue new episodes on refresh (overrides add --auto and the config)"),
        ("include", "a regular expression: auto-queue only episodes whose title matches (case ignored)"),
        ("exclude", "a regular expression: never auto-queue episodes whose title matches (case ignored)"),
        ("min-duration", "never auto-queue episodes shorter than this: 600, 10m, 1h30m"),
        ("keep", "cleanup keeps the newest N completed episodes, deleting older played ones (instead of the config's keep-episodes)"),
        ("size-budget", "cleanup deletes the oldest played episodes until the podcast's files fit: 500M, 2G"),
        ("cleanup-unplayed", "on or off: cleanup may delete episodes not yet played too (overrides the config's cleanup-unplayed; off by default)"),
        ("serial", "N: keep the oldest N episodes not yet played downloaded, in order (an audiobook, a serial); played ones are cleaned up"),
        ("download-folder", "where its new episodes go, a path"),
        ("file-name-template", "how its new episodes are named (as the config's file-name-template)"),
        ("on-complete", "the command run for each of its finished downloads (as the config's on-complete)"),
        ("sidecars", "on or off: its episodes' transcript, chapters, image and metadata .json beside each file (overrides the config's sidecars)"),
        ("user-agent", "the User-Agent for its feed and episodes"),
    ]

    /// A value `podq set` refuses: the key and what to write.
    public struct BadValue: Error, Equatable, CustomStringConvertible {
        public var key: String
        public var expected: String
        public var description: String {
            key.isEmpty ? expected : "'\(key)' takes \(expected); `podq set <podcast> \(key)=` puts it back to the config's"
        }
    }

    /// Sets `key` to `value` (an empty value clears it). `user-agent` is not here (``PodcastRecord``).
    public mutating func set(_ key: String, _ value: String) throws(BadValue) {
        let v = value.trimmingASCIIWhitespace
        let clear = v.isEmpty
        switch key {
        case "auto-queue":
            autoQueue = try Self.onOff(v, key: key)
        case "include", "exclude":
            if !clear {
                let pattern: TitlePattern
                do {
                    pattern = try TitlePattern(v)
                } catch {
                    throw BadValue(
                        key: key,
                        expected:
                            "a regular expression, such as \"interview|q&a\" (this one does not compile: \(error.reason) at its character \(error.offset + 1))")
                }
                if let title = pattern.costlyTitle() {
                    throw BadValue(
                        key: key,
                        expected:
                            "a regular expression podq can match in bounded time; this one makes the matcher give up on a title such as \"\(title.prefix(12))…\" "
                            + "(a repeat inside a repeat, as in (a+)+ or (\\w+\\s?)*: write it with one repeat, such as a+)")
                }
            }
            if key == "include" { include = clear ? nil : v } else { exclude = clear ? nil : v }
        case "min-duration":
            guard clear || Self.seconds(v) != nil else { throw BadValue(key: key, expected: "a duration: 600 (seconds), 10m, 1h30m") }
            minDuration = clear ? nil : Self.seconds(v)
        case "keep", "serial":
            guard clear || (Int(v).map { (1...100_000).contains($0) } ?? false) else { throw BadValue(key: key, expected: "a number of episodes, 1 or more") }
            if key == "keep" { keep = clear ? nil : Int(v) } else { serial = clear ? nil : Int(v) }
        case "size-budget":
            guard clear || Self.size(v) != nil else { throw BadValue(key: key, expected: "a size: 500M, 2G, 1.5G (bytes, K, M, G or T)") }
            sizeBudget = clear ? nil : Self.size(v)
        case "download-folder":
            guard clear || v.hasPrefix("/") || v.hasPrefix("~") else { throw BadValue(key: key, expected: "an absolute path, such as ~/Audiobooks") }
            downloadFolder = clear ? nil : LexicalPath.expandingTilde(v)
        case "file-name-template":
            if !clear {
                do { _ = try FileNameTemplate(v) } catch { throw BadValue(key: key, expected: "a template: \(error)") }
            }
            fileNameTemplate = clear ? nil : v
        case "on-complete":
            onComplete = clear ? nil : v
        case "sidecars":
            sidecars = try Self.onOff(v, key: key)
        case "cleanup-unplayed":
            cleanupUnplayed = try Self.onOff(v, key: key)
        default:
            // A typo gets the key it was meant to be; otherwise the podcast's keys (a dozen).
            if let near = Suggestion.nearest(to: key, in: Self.keys.map(\.key)) {
                throw BadValue(key: "", expected: "there is no setting '\(key)'. Did you mean '\(near)'?")
            }
            throw BadValue(key: "", expected: "there is no setting '\(key)'; the keys: " + Self.keys.map(\.key).joined(separator: ", "))
        }
    }

    /// The rules set, as `key=value` pairs in ``keys`` order (what `podq set <podcast>` lists).
    public var pairs: [(key: String, value: String)] {
        var out: [(String, String)] = []
        if let autoQueue { out.append(("auto-queue", autoQueue ? "on" : "off")) }
        if let include { out.append(("include", include)) }
        if let exclude { out.append(("exclude", exclude)) }
        if let minDuration { out.append(("min-duration", "\(minDuration)s")) }
        if let keep { out.append(("keep", String(keep))) }
        if let sizeBudget { out.append(("size-budget", Self.sizeText(sizeBudget))) }
        if let serial { out.append(("serial", String(serial))) }
        if let downloadFolder { out.append(("download-folder", downloadFolder)) }
        if let fileNameTemplate { out.append(("file-name-template", fileNameTemplate)) }
        if let onComplete { out.append(("on-complete", onComplete)) }
        if let sidecars { out.append(("sidecars", sidecars ? "on" : "off")) }
        if let cleanupUnplayed { out.append(("cleanup-unplayed", cleanupUnplayed ? "on" : "off")) }
        return out
    }

    public var isEmpty: Bool { self == PodcastSettings() }

    /// True when auto-queue may take an episode with this title and duration (include, exclude,
    /// min-duration). Compiles the patterns each time: for many titles, make one ``TitleFilter``.
    public func admits(title: String, duration: Int?) -> Bool {
        TitleFilter(self).check(title: title, duration: duration) == .admitted
    }

    /// `on` / `off` (or true, yes, 1 / false, no, 0); nil for an empty value (the config's).
    static func onOff(_ value: String, key: String) throws(BadValue) -> Bool? {
        switch value.lowercased() {
        case "": nil
        case "on", "true", "yes", "1": true
        case "off", "false", "no", "0": false
        default: throw BadValue(key: key, expected: "on or off")
        }
    }

    /// `600`, `45s`, `10m`, `1h30m`, `2h`: seconds; nil when unreadable.
    static func seconds(_ text: String) -> Int? {
        if let plain = Int(text), plain >= 0 { return plain }
        var total = 0, number = "", sawUnit = false
        for c in text.lowercased() {
            if c.isASCII && c.isNumber { number.append(c); continue }
            guard let n = Int(number) else { return nil }
            switch c {
            case "h": total += n * 3600
            case "m": total += n * 60
            case "s": total += n
            default: return nil
            }
            number = ""
            sawUnit = true
        }
        return sawUnit && number.isEmpty ? total : nil
    }

    /// `500M`, `2G`, `1.5G`, `123456`: bytes (K, M, G, T are 1024-based); nil when unreadable.
    static func size(_ text: String) -> Int64? {
        let t = text.uppercased().replacingEvery("B", with: "").replacingEvery("I", with: "")
        var digits = Substring(t)
        var unit: Double = 1
        if let last = digits.last, let power = ["K": 1.0, "M": 2, "G": 3, "T": 4][String(last)] {
            unit = pow(1024, power)
            digits = digits.dropLast()
        }
        guard let n = Double(digits), n > 0, n.isFinite, n * unit < 1e18 else { return nil }
        return Int64(n * unit)
    }

    static func sizeText(_ bytes: Int64) -> String {
        for (suffix, power) in [("T", 4.0), ("G", 3), ("M", 2), ("K", 1)] where bytes >= Int64(pow(1024, power)) {
            let value = Double(bytes) / pow(1024, power)
            return (value == value.rounded() ? String(Int(value)) : String(printf: "%.1f", value)) + suffix
        }
        return String(bytes)
    }
}

/// A podcast's `include`, `exclude` and `min-duration`, its patterns compiled once for the titles of
/// one refresh. A title a pattern cannot be matched on (the matcher gave up: ``TitlePattern/Outcome/tooCostly``;
/// or a pattern stored before that no longer compiles) is left out, never queued on a guess, and counted
/// so that the refresh says so.
public final class TitleFilter {
    /// What the rules say of one episode.
    public enum Verdict: Sendable, Equatable {
        case admitted
        case leftOut
        /// The `include` or `exclude` pattern (`key`) could not be matched on the title.
        case patternFailed(key: String)
    }

    private let include: Result<TitlePattern, TitlePattern.Invalid>?
    private let exclude: Result<TitlePattern, TitlePattern.Invalid>?
    private let minDuration: Int?
    /// Titles each pattern could not be matched on, by key.
    public private(set) var failures: [String: Int] = [:]
    /// The matcher's time for the whole refresh of this podcast: each title's is bounded by
    /// ``TitlePattern/stepLimit``, and all of them together by ``budget``. A pattern that costs
    /// milliseconds on each of 100,000 titles (6 minutes) stops there; the titles left are left out
    /// and counted, as a title the matcher gave up on.
    public static let budget: Duration = .seconds(3)
    /// After this many titles the matcher gave up on, the pattern is not tried on the rest.
    public static let givingUpLimit = 20
    private var spent: Duration = .zero
    private var gaveUp = 0
    /// Titles a pattern was run on (not those left out once the budget was spent).
    public private(set) var tried = 0

    public init(_ rules: PodcastSettings) {
        include = rules.include.map { text in Result { () throws(TitlePattern.Invalid) in try TitlePattern(text) } }
        exclude = rules.exclude.map { text in Result { () throws(TitlePattern.Invalid) in try TitlePattern(text) } }
        minDuration = rules.minDuration
    }

    public func check(title: String, duration: Int?) -> Verdict {
        if let include {
            switch match(include, title) {
            case .match: break
            case .noMatch: return .leftOut
            case .tooCostly, nil: return failed("include")
            }
        }
        if let exclude {
            switch match(exclude, title) {
            case .noMatch: break
            case .match: return .leftOut
            case .tooCostly, nil: return failed("exclude")
            }
        }
        if let minDuration, let duration, duration < minDuration { return .leftOut }
        return .admitted
    }

    /// One match within the refresh's budget: nil once the budget is spent or the matcher gave up too
    /// often (the title is then left out and counted).
    private func match(_ pattern: Result<TitlePattern, TitlePattern.Invalid>, _ title: String) -> TitlePattern.Outcome? {
        guard let compiled = try? pattern.get(), spent < Self.budget, gaveUp < Self.givingUpLimit else { return nil }
        let clock = ContinuousClock()
        let started = clock.now
        let outcome = compiled.match(title)
        tried += 1
        spent += clock.now - started
        if outcome == .tooCostly { gaveUp += 1 }
        return outcome
    }

    private func failed(_ key: String) -> Verdict {
        failures[key, default: 0] += 1
        return .patternFailed(key: key)
    }
}
