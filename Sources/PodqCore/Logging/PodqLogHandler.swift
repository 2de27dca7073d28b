import FoundationEssentials
import Glibc
import Logging
import PodqBase

/// podq's swift-log handler: one line per event in the ``LogFile``, and a copy on standard error
/// when `--verbose` asked for it.
///
/// A line reads `2026-11-21T10:04:05.123+0100 ERROR [1234] download failed id=3 url=… reason="…"`:
/// local time with its offset, the level, the process, the message, then the metadata sorted by key.
/// Messages and values come from feeds and servers, so they pass through ``SafeText/clean(_:)``: no
/// escape sequence reaches a terminal that shows the log (`tail -f`, `less -R`), and through
/// ``SafeText/redactingCredentials(_:)``: no password in a URL reaches the log.
public struct PodqLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    let file: LogFile?
    let echo: (@Sendable (String) -> Void)?

    /// - Parameters:
    ///   - file: where lines go; nil for no file.
    ///   - level: the lowest level written.
    ///   - echo: also receives every line (standard error for `--verbose`).
    public init(file: LogFile?, level: Logger.Level, echo: (@Sendable (String) -> Void)? = nil) {
        self.file = file
        self.logLevel = level
        self.echo = echo
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var all = metadata
        if let extra = event.metadata { all.merge(extra) { _, new in new } }
        let line = Self.format(level: event.level, message: event.message.description, metadata: all, date: Date())
        file?.append(line)
        echo?(line)
    }

    /// One log line, without its newline.
    static func format(level: Logger.Level, message: String, metadata: Logger.Metadata, date: Date) -> String {
        var line = timestamp(date) + " " + level.rawValue.uppercased() + " [\(getpid())] " + SafeText.clean(SafeText.redactingCredentials(message))
        for key in metadata.keys.sorted() {
            line += " " + SafeText.clean(key) + "=" + quoted(SafeText.clean(SafeText.redactingCredentials("\(metadata[key]!)")))
        }
        return line
    }

    static func quoted(_ value: String) -> String {
        guard value.isEmpty || value.contains(where: { $0 == " " || $0 == "\"" || $0 == "=" }) else { return value }
        return "\"" + value.replacingEvery("\\", with: "\\\\").replacingEvery("\"", with: "\\\"") + "\""
    }

    static func timestamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        let millis = Int((date.timeIntervalSince1970 - Double(seconds)) * 1000)
        var parts = tm()
        localtime_r(&seconds, &parts)
        var buffer = [CChar](repeating: 0, count: 40)
        let count = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S", &parts)
        var zone = [CChar](repeating: 0, count: 8)
        let zoneCount = strftime(&zone, zone.count, "%z", &parts)
        func text(_ chars: [CChar], _ count: Int) -> String {
            String(decoding: chars.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return text(buffer, count) + String(printf: ".%03ld", millis) + text(zone, zoneCount)
    }
}
