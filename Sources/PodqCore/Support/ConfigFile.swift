import Foundation

/// Problems in the config file, naming the line and the key.
public enum ConfigError: Error, LocalizedError, Sendable, Equatable {
    case unknownKey(path: String, line: Int, key: String)
    case badValue(path: String, line: Int, key: String, expected: String)
    case syntax(path: String, line: Int)
    case cannotWrite(path: String, reason: String)
    case unknownAction(path: String, line: Int, key: String)
    case keyConflict(path: String, line: Int, key: String, character: String, other: String)

    public var errorDescription: String? {
        switch self {
        case .unknownKey(let path, let line, let key):
            "\(path):\(line): unknown key '\(key)'. Known keys: \(Settings.keys.map(\.key).joined(separator: ", "))."
        case .badValue(let path, let line, let key, let expected):
            "\(path):\(line): '\(key)' must be \(expected)."
        case .syntax(let path, let line):
            "\(path):\(line): expected `key = value` (a # starts a comment)."
        case .unknownAction(let path, let line, let key):
            "\(path):\(line): '\(key)' names no action. Actions: \(KeyBindings.Action.allCases.map(\.rawValue).joined(separator: ", "))."
        case .keyConflict(let path, let line, let key, let character, let other):
            "\(path):\(line): '\(key)' gives \(character) to two actions: it is already the key of \(other); give that one another key (key-\(other) = …)."
        case .cannotWrite(let path, let reason):
            "Cannot write the config file \(path): \(reason)."
        }
    }
}

/// The config file: `key = value` lines, `#` comments, strings in double quotes.
///
/// ``set(_:to:)`` rewrites one key's line and keeps every other line (and comment) as it was,
/// through a temporary file and a rename.
public struct ConfigFile: Sendable {
    public let path: String

    public init(path: String) { self.path = path }

    /// The settings in the file (defaults for missing keys); defaults when the file does not exist.
    /// - Throws: ``ConfigError`` for an unknown key, a bad value or a line that is not `key = value`.
    public func load() throws(ConfigError) -> Settings {
        var settings = Settings()
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return settings }
        var bindingLines: [KeyBindings.Action: Int] = [:]
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = index + 1
            guard let (key, value) = try Self.parse(raw, path: path, line: line) else { continue }
            try apply(key: key, value: value, to: &settings, line: line)
            if let action = KeyBindings.Action(rawValue: String(key.dropFirst(4))), key.hasPrefix("key-") { bindingLines[action] = line }
        }
        if let (first, second, character) = settings.keys.conflict() {
            // Name the binding the user wrote (the later one when both were written).
            let (named, other) = (bindingLines[second] ?? 0) >= (bindingLines[first] ?? 0) ? (second, first) : (first, second)
            throw .keyConflict(path: path, line: bindingLines[named] ?? 0, key: "key-" + named.rawValue,
                               character: String(character), other: other.rawValue)
        }
        return settings
    }

    /// Sets `key` to `value` in the file, creating it when needed.
    public func set(_ key: String, to value: String) throws(ConfigError) {
        var probe = Settings()
        try apply(key: key, value: value, to: &probe, line: 0)
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? Self.header
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        let rendered = key == "download-folder" || key == "player" ? "\(key) = \"\(value)\"" : "\(key) = \(value)"
        if let i = lines.firstIndex(where: { (try? Self.parse(Substring($0), path: path, line: 0))??.0 == key }) {
            lines[i] = rendered
        } else {
            lines.append(rendered)
        }
        let folder = (path as NSString).deletingLastPathComponent
        let temp = (folder as NSString).appendingPathComponent(".config.tmp-\(getpid())")
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try (lines.joined(separator: "\n") + "\n").write(toFile: temp, atomically: false, encoding: .utf8)
            guard rename(temp, path) == 0 else { throw CocoaError(.fileWriteUnknown) }
        } catch {
            unlink(temp)
            throw .cannotWrite(path: path, reason: String(describing: error))
        }
    }

    static let header = """
        # podq configuration. Every key, with its default, is in docs/CONFIG.md.
        """

    /// `(key, value)` of a line, nil for a blank or comment line.
    static func parse(_ raw: Substring, path: String, line: Int) throws(ConfigError) -> (String, String)? {
        let text = raw.trimmingCharacters(in: .whitespaces)
        if text.isEmpty || text.hasPrefix("#") { return nil }
        guard let eq = text.firstIndex(of: "=") else { throw .syntax(path: path, line: line) }
        let key = text[..<eq].trimmingCharacters(in: .whitespaces)
        var value = text[text.index(after: eq)...].trimmingCharacters(in: .whitespaces)
        guard !key.isEmpty else { throw .syntax(path: path, line: line) }
        if value.hasPrefix("\"") {
            guard let close = value.dropFirst().firstIndex(of: "\"") else { throw .syntax(path: path, line: line) }
            value = String(value[value.index(after: value.startIndex)..<close])
        } else if let hash = value.firstIndex(of: "#") {
            value = value[..<hash].trimmingCharacters(in: .whitespaces)
        }
        return (key, value)
    }

    private func apply(key: String, value: String, to settings: inout Settings, line: Int) throws(ConfigError) {
        func int(_ range: ClosedRange<Int>) throws(ConfigError) -> Int {
            guard let n = Int(value), range.contains(n) else {
                throw .badValue(path: path, line: line, key: key, expected: "a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            return n
        }
        func seconds() throws(ConfigError) -> Double {
            guard let n = Double(value), n > 0, n.isFinite else {
                throw .badValue(path: path, line: line, key: key, expected: "a number of seconds above 0")
            }
            return n
        }
        switch key {
        case "simultaneous-downloads": settings.simultaneousDownloads = try int(1...64)
        case "rate-limit":
            let (valid, rate) = RateLimiter.parse(value)
            guard valid else { throw .badValue(path: path, line: line, key: key, expected: "a rate of at least 10K, such as 500K or 2M, or 0 for none") }
            settings.rateLimit = rate
        case "per-host-downloads": settings.perHostDownloads = try int(1...64)
        case "max-attempts": settings.maxAttempts = try int(1...100)
        case "retry-delay": settings.retryDelay = try seconds()
        case "retry-max-delay": settings.retryMaxDelay = try seconds()
        case "stall-timeout": settings.stallTimeout = try seconds()
        case "auto-queue":
            guard value == "true" || value == "false" else { throw .badValue(path: path, line: line, key: key, expected: "true or false") }
            settings.autoQueue = value == "true"
        case "feed-size-limit": settings.feedSizeLimit = Int64(try int(1...2000)) * 1_000_000
        case "cleanup-days":
            let days = try int(0...36_500)
            settings.cleanup.olderThanDays = days == 0 ? nil : days
        case "keep-episodes":
            let count = try int(0...100_000)
            settings.cleanup.keepNewest = count == 0 ? nil : count
        case "log-size": settings.logSize = Int64(try int(0...100)) * 1_000_000
        case "player":
            guard !value.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw .badValue(path: path, line: line, key: key, expected: "a command, such as mpv or \"vlc --play-and-exit\"")
            }
            settings.player = value
        case "download-folder":
            guard !value.isEmpty else { throw .badValue(path: path, line: line, key: key, expected: "a folder path") }
            settings.downloadFolder = (value as NSString).expandingTildeInPath
        case _ where key.hasPrefix("key-"):
            guard let action = KeyBindings.Action(rawValue: String(key.dropFirst(4))) else {
                throw .unknownAction(path: path, line: line, key: key)
            }
            guard KeyBindings.isBindable(value) else {
                throw .badValue(path: path, line: line, key: key, expected: "one visible character, such as C or !")
            }
            settings.keys.bind(action, to: Character(value))
        default:
            throw .unknownKey(path: path, line: line, key: key)
        }
    }
}
