import FoundationEssentials
import Glibc
import PodqBase
import PodqHTTP

#if canImport(Glibc)
    import Glibc
#endif

/// Problems in the config file, naming the line and the key.
public enum ConfigError: Error, LocalizedError, Sendable, Equatable {
    case unknownKey(path: String, line: Int, key: String)
    case badValue(path: String, line: Int, key: String, expected: String)
    case syntax(path: String, line: Int)
    case cannotWrite(path: String, reason: String)
    /// The file exists but cannot be read (a folder, no permission, an I/O error).
    case unreadable(path: String, reason: String)
    /// A line is not UTF-8.
    case notUTF8(path: String, line: Int)
    case unknownAction(path: String, line: Int, key: String)
    case keyConflict(path: String, line: Int, key: String, character: String, other: String)

    public var errorDescription: String? {
        switch self {
        case .unknownKey(let path, let line, let key):
            // The command line's option for a key (`download-dir`) gets the key; a typo gets the key it
            // was meant to be; anything else, where the keys are listed.
            if let option = Settings.keys.first(where: { $0.meaning.contains("`--\(key.lowercased())` overrides") }) {
                "\(path):\(line): unknown key '\(key)': --\(key.lowercased()) is the command line's name; in the config it is '\(option.name)'."
            } else if let near = Suggestion.nearest(to: key, in: Settings.keys.map(\.name) + KeyBindings.Action.allCases.map { "key-" + $0.rawValue }) {
                "\(path):\(line): unknown key '\(key)'. Did you mean '\(near)'?"
            } else {
                "\(path):\(line): unknown key '\(key)'. `podq help config` lists every key."
            }
        case .badValue(let path, let line, let key, let expected):
            "\(path):\(line): '\(key)' must be \(expected)."
        case .syntax(let path, let line):
            "\(path):\(line): expected `key = value` (a # starts a comment)."
        case .unknownAction(let path, let line, let key):
            if let near = Suggestion.nearest(to: key, in: KeyBindings.Action.allCases.map { "key-" + $0.rawValue }) {
                "\(path):\(line): '\(key)' names no action. Did you mean '\(near)'?"
            } else {
                "\(path):\(line): '\(key)' names no action. Actions: \(KeyBindings.Action.allCases.map(\.rawValue).joined(separator: ", "))."
            }
        case .keyConflict(let path, let line, let key, let character, let other):
            "\(path):\(line): '\(key)' gives \(character) to two actions: it is already the key of \(other); give that one another key (key-\(other) = …)."
        case .cannotWrite(let path, let reason):
            "Cannot write the config file \(path): \(reason). It was left as it was."
        case .unreadable(let path, let reason):
            "Cannot read the config file \(path): \(reason). Fix it or move it away (podq then uses the defaults); podq will not start on a config it cannot read."
        case .notUTF8(let path, let line):
            "\(path):\(line): this line is not UTF-8 text. Save the file as UTF-8 (or retype the line)."
        }
    }
}

/// The config file: `key = value` lines, `#` comments, strings in double quotes; LF or CRLF line ends.
///
/// Reading is strict: a file that exists but cannot be read, or is not UTF-8, is an error naming the
/// file (never silently the defaults, which a later edit would then write over the user's settings).
/// ``set(_:to:)`` changes the bytes of one key's line and keeps every other byte as it was (comments,
/// blank lines, line ends, the file's mode, a symbolic link to it), through a temporary file and a
/// rename; it refuses to touch a file it cannot read.
public struct ConfigFile: Sendable {
    public let path: String

    public init(path: String) { self.path = path }

    /// The file's bytes; nil when it does not exist.
    func bytes() throws(ConfigError) -> [UInt8]? {
        // Never blocking: a FIFO in its place would hang every command on a plain open (issue 43).
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw .unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
        guard (info.st_mode & S_IFMT) != S_IFDIR else { throw .unreadable(path: path, reason: "it is a folder, not a file") }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw .unreadable(path: path, reason: "it is \(OwnFile.describe(info.st_mode)), not a regular file") }
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0 { _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
        guard info.st_size <= 1 << 20 else { throw .unreadable(path: path, reason: "it is larger than 1 MB") }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
            if n == 0 { break }
            out += buffer[..<n]
        }
        return out
    }

    /// The file's lines as text, each without its line end (LF or CRLF).
    func lines(of bytes: [UInt8]) throws(ConfigError) -> [String] {
        var lines: [String] = []
        for (index, raw) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            let content = raw.last == UInt8(ascii: "\r") ? raw.dropLast() : raw[...]
            guard let line = String(validating: content, as: UTF8.self) else { throw .notUTF8(path: path, line: index + 1) }
            lines.append(line)
        }
        return lines
    }

    /// The settings in the file (defaults for missing keys); defaults when the file does not exist.
    /// - Throws: ``ConfigError`` for a file that cannot be read or is not UTF-8, an unknown key, a bad
    ///   value or a line that is not `key = value`.
    public func load() throws(ConfigError) -> Settings {
        var settings = Settings()
        guard let bytes = try bytes() else { return settings }
        var bindingLines: [KeyBindings.Action: Int] = [:]
        for (index, raw) in try lines(of: bytes).enumerated() {
            let line = index + 1
            guard let (key, value) = try Self.parse(Substring(raw), path: path, line: line) else { continue }
            try apply(key: key, value: value, to: &settings, line: line)
            if let action = KeyBindings.Action(rawValue: String(key.dropFirst(4))), key.hasPrefix("key-") { bindingLines[action] = line }
        }
        if let (first, second, character) = settings.keys.conflict() {
            // Name the binding the user wrote (the later one when both were written).
            let (named, other) = (bindingLines[second] ?? 0) >= (bindingLines[first] ?? 0) ? (second, first) : (first, second)
            throw .keyConflict(
                path: path, line: bindingLines[named] ?? 0, key: "key-" + named.rawValue,
                character: String(character), other: other.rawValue)
        }
        return settings
    }

    /// Sets `key` to `value` in the file, creating it when needed: the last line that sets `key` is
    /// replaced (with the file's own line end), or a line is added; every other byte stays.
    /// - Throws: ``ConfigError``: the value is invalid, or the file cannot be read or written (then it
    ///   is left as it was).
    public func set(_ key: String, to value: String) throws(ConfigError) {
        var probe = Settings()
        try apply(key: key, value: value, to: &probe, line: 0)
        let existing = try bytes()
        var bytes = existing ?? Array((Self.header + "\n").utf8)
        let lines = try lines(of: bytes)
        let rendered = Array(
            (["download-folder", "file-name-template", "on-complete", "player", "user-agent", "password-command", "proxy"].contains(key)
                ? "\(key) = \"\(value)\"" : "\(key) = \(value)").utf8)
        // Where each line starts in `bytes`.
        var starts: [Int] = [0]
        for (i, b) in bytes.enumerated() where b == UInt8(ascii: "\n") { starts.append(i + 1) }
        let index = lines.lastIndex { line in
            guard let parsed = (try? Self.parse(Substring(line), path: path, line: 0)) ?? nil else { return false }
            return parsed.0 == key
        }
        if let index {
            let start = starts[index]
            let end = start + lines[index].utf8.count
            bytes.replaceSubrange(start..<end, with: rendered)
        } else {
            let crlf = bytes.count >= 2 && bytes.firstIndex(of: UInt8(ascii: "\n")).map { $0 > 0 && bytes[$0 - 1] == UInt8(ascii: "\r") } == true
            let lineEnd: [UInt8] = crlf ? [0x0D, 0x0A] : [0x0A]
            // A last line without its line end gets one (a lone CR at the end only needs its LF: FuzzConfig).
            if let last = bytes.last, last != UInt8(ascii: "\n") { bytes += crlf && last == 0x0D ? [0x0A] : lineEnd }
            bytes += rendered + lineEnd
        }
        try write(bytes, replacing: existing != nil)
    }

    /// Writes `bytes` over the file through a temporary file in the same folder and a rename; the
    /// target of a symbolic link is written, with the old file's mode.
    private func write(_ bytes: [UInt8], replacing: Bool) throws(ConfigError) {
        let target =
            replacing
            ? (realpath(path, nil).map { p in
                defer { free(p) }; return String(cString: p)
            } ?? path) : path
        let folder = LexicalPath.parent(of: target)
        let temp = LexicalPath.join(folder, ".config.tmp-\(getpid())")
        var mode: mode_t = 0o644
        var info = stat()
        if stat(target, &info) == 0 { mode = info.st_mode & 0o7777 }
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw .cannotWrite(path: path, reason: String(describing: error))
        }
        let fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode)
        guard fd >= 0 else { throw .cannotWrite(path: path, reason: String(cString: strerror(errno))) }
        let written = bytes.withUnsafeBytes { raw -> Bool in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return false }
                offset += n
            }
            return fsync(fd) == 0
        }
        let reason = String(cString: strerror(errno))
        close(fd)
        guard written, rename(temp, target) == 0 else {
            let why = written ? String(cString: strerror(errno)) : reason
            unlink(temp)
            throw .cannotWrite(path: path, reason: why)
        }
    }

    static let header = """
        # podq configuration. Every key, with its default, is in docs/CONFIG.md.
        """

    /// `(key, value)` of a line, nil for a blank or comment line.
    static func parse(_ raw: Substring, path: String, line: Int) throws(ConfigError) -> (String, String)? {
        let text = raw.trimmingWhitespace
        if text.isEmpty || text.hasPrefix("#") { return nil }
        guard let eq = text.firstIndex(of: "=") else { throw .syntax(path: path, line: line) }
        let key = text[..<eq].trimmingSpaces
        var value = text[text.index(after: eq)...].trimmingSpaces
        guard !key.isEmpty else { throw .syntax(path: path, line: line) }
        if value.hasPrefix("\"") {
            guard let close = value.dropFirst().firstIndex(of: "\"") else { throw .syntax(path: path, line: line) }
            value = String(value[value.index(after: value.startIndex)..<close])
        } else if let hash = value.firstIndex(of: "#") {
            value = value[..<hash].trimmingSpaces
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
        case "connections-per-download": settings.connectionsPerDownload = try int(1...16)
        case "polite-hosts":
            let hosts = value.split(separator: ",").map { $0.trimmingSpaces }.filter { !$0.isEmpty }
            guard hosts.allSatisfy({ $0.utf8.allSatisfy { b in b > 0x20 && b < 0x7F && b != UInt8(ascii: "/") } }) else {
                throw .badValue(path: path, line: line, key: key, expected: "host names separated by commas, such as \"cdn.example.com, example.org\"")
            }
            settings.politeHosts = hosts
        case "max-attempts": settings.maxAttempts = try int(1...100)
        case "retry-delay": settings.retryDelay = try seconds()
        case "retry-max-delay": settings.retryMaxDelay = try seconds()
        case "stall-timeout": settings.stallTimeout = try seconds()
        case "response-timeout": settings.responseTimeout = try seconds()
        case "fetch-timeout": settings.fetchTimeout = try seconds()
        case "auto-queue":
            guard value == "true" || value == "false" else { throw .badValue(path: path, line: line, key: key, expected: "true or false") }
            settings.autoQueue = value == "true"
        case "sidecars":
            guard value == "true" || value == "false" else { throw .badValue(path: path, line: line, key: key, expected: "true or false") }
            settings.sidecars = value == "true"
        case "transcript-types":
            let types = value.split(separator: ",").map { String($0).trimmingASCIIWhitespace.lowercased() }.filter { !$0.isEmpty }
            guard !types.isEmpty, types.allSatisfy({ $0.contains("/") }) else {
                throw .badValue(path: path, line: line, key: key, expected: "media types separated by commas, such as \"text/vtt, text/html\"")
            }
            settings.transcriptTypes = types
        case "playlist":
            guard value == "true" || value == "false" else { throw .badValue(path: path, line: line, key: key, expected: "true or false") }
            settings.playlist = value == "true"
        case "sync":
            switch value.lowercased() {
            case "auto": settings.syncAuto = true
            case "off": settings.syncAuto = false
            default: throw .badValue(path: path, line: line, key: key, expected: "auto or off")
            }
        case "sync-interval": settings.syncInterval = Double(try int(0...1440)) * 60
        case "mouse":
            guard value == "true" || value == "false" else { throw .badValue(path: path, line: line, key: key, expected: "true or false") }
            settings.mouse = value == "true"
        case "feed-size-limit": settings.feedSizeLimit = Int64(try int(1...2000)) * 1_000_000
        case "cleanup-days":
            let days = try int(0...36_500)
            settings.cleanup.olderThanDays = days == 0 ? nil : days
        case "cleanup-unplayed":
            guard value == "true" || value == "false" else { throw .badValue(path: path, line: line, key: key, expected: "true or false") }
            settings.cleanup.unplayedToo = value == "true"
        case "keep-episodes":
            let count = try int(0...100_000)
            settings.cleanup.keepNewest = count == 0 ? nil : count
        case "log-size": settings.logSize = Int64(try int(0...100)) * 1_000_000
        case "player":
            guard !value.trimmingSpaces.isEmpty else {
                throw .badValue(path: path, line: line, key: key, expected: "a command, such as mpv or \"vlc --play-and-exit\"")
            }
            settings.player = value
        case "user-agent":
            // Sent in a header: printable ASCII only (a control character would end the header).
            guard !value.isEmpty, value.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else {
                throw .badValue(path: path, line: line, key: key, expected: "printable ASCII text, such as \"MyPlayer/1.0\"")
            }
            settings.userAgent = value
        case "proxy":
            do {
                _ = try ProxySettings.parse(value, source: key)
            } catch {
                throw .badValue(path: path, line: line, key: key, expected: "a proxy such as http://proxy.example:3128 or socks5://127.0.0.1:1080")
            }
            settings.proxy = value
        case "on-complete":
            guard !value.trimmingSpaces.isEmpty else {
                throw .badValue(path: path, line: line, key: key, expected: "a command, such as \"beet import -q %f\"")
            }
            settings.onComplete = value
        case "hook-timeout": settings.hookTimeout = try seconds()
        case "checksum":
            switch value.lowercased() {
            case "xxh3": settings.checksum = .xxh3
            case "sha256", "sha-256": settings.checksum = .sha256
            default: throw .badValue(path: path, line: line, key: key, expected: "xxh3 or sha256")
            }
        case "password-command":
            guard !value.trimmingSpaces.isEmpty else {
                throw .badValue(path: path, line: line, key: key, expected: "a command that prints the password, such as \"pass show podcasts/%h\"")
            }
            settings.passwordCommand = value
        case "file-name-template":
            do {
                settings.fileNameTemplate = try FileNameTemplate(value)
            } catch {
                // Say what was read: an unquoted # starts a comment, which cuts a template short.
                throw .badValue(
                    path: path, line: line, key: key,
                    expected: error.description + " (read as \"\(value)\"; put the template in quotes when it has a #)")
            }
        case "download-folder":
            guard !value.isEmpty else { throw .badValue(path: path, line: line, key: key, expected: "a folder path") }
            settings.downloadFolder = LexicalPath.expandingTilde(value)
        case "windows-safe-names":
            switch value.lowercased() {
            case "auto": settings.windowsSafeNames = nil
            case "true": settings.windowsSafeNames = true
            case "false": settings.windowsSafeNames = false
            default: throw .badValue(path: path, line: line, key: key, expected: "auto, true or false")
            }
        case "search-providers":
            var chosen: [Directory] = []
            for word in value.split(whereSeparator: { $0 == " " || $0 == "," }) {
                guard let directory = Directory(rawValue: word.lowercased()) else {
                    throw .badValue(path: path, line: line, key: key, expected: "directories separated by spaces: itunes, gpodder, podcastindex")
                }
                if !chosen.contains(directory) { chosen.append(directory) }
            }
            guard !chosen.isEmpty else {
                throw .badValue(path: path, line: line, key: key, expected: "directories separated by spaces: itunes, gpodder, podcastindex")
            }
            settings.searchProviders = chosen
        case "search-itunes-url", "search-gpodder-url", "search-podcastindex-url":
            guard let url = URL(string: value), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil else {
                throw .badValue(path: path, line: line, key: key, expected: "an http(s) URL, such as \(Directory.itunes.defaultEndpoint)")
            }
            let name = key.dropFirst("search-".count).dropLast("-url".count)
            settings.searchEndpoints[Directory(rawValue: String(name))!] = value
        case "podcastindex-key", "podcastindex-secret":
            // Sent in headers: printable ASCII only.
            guard !value.isEmpty, value.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                throw .badValue(path: path, line: line, key: key, expected: "the text api.podcastindex.org gave (letters, digits and signs)")
            }
            if key == "podcastindex-key" { settings.podcastIndexKey = value } else { settings.podcastIndexSecret = value }
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
