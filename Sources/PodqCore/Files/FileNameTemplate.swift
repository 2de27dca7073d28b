import FoundationEssentials
import Glibc
import PodqBase

/// Where a feed episode's file goes inside the download folder (`file-name-template`):
/// `{podcast}/{date:%Y-%m-%d} {title}.{ext}` by default.
///
/// The template is checked once, when the config is read, so a mistake is reported before anything
/// is queued. Its own `/` make folders; a value never does: every value is made safe on its own
/// (``FileNamer/safeName(_:maxBytes:)``: a title "AC/DC" stays one name), then every component of the
/// result again, so nothing a feed says can reach outside the folder, start a hidden file, or make a
/// name longer than the file system allows.
///
/// Fields: `{podcast}`, `{title}`, `{ext}`, `{guid}`, `{id}` (podq's episode number), `{season}` and
/// `{episode}` (with a width: `{episode:03}` is `007`), `{date}` or `{date:FORMAT}` with `%Y`, `%y`,
/// `%m`, `%d`, `%H`, `%M`, `%S`, `%j` and `%%` (the publication time in UTC).
public struct FileNameTemplate: Sendable, Equatable, CustomStringConvertible {
    /// The default: the podcast's folder, then the day and the title.
    public static let standard = try! FileNameTemplate("{podcast}/{date:%Y-%m-%d} {title}.{ext}")

    /// The template as written.
    public let description: String
    /// The path's components, each a run of literal text and fields.
    let components: [[Piece]]

    enum Piece: Equatable {
        case text(String)
        case field(Field)
    }

    enum Field: Equatable {
        case podcast, title, ext, guid, id
        case season(width: Int), episode(width: Int)
        case date(format: String)
    }

    /// What a template is filled with.
    public struct Values: Sendable {
        public var podcast: String
        public var title: String
        public var ext: String
        public var guid: String?
        public var id: Int64?
        public var season: Int?
        public var episode: Int?
        /// Seconds since 1970.
        public var published: Double?

        public init(
            podcast: String, title: String, ext: String, guid: String? = nil, id: Int64? = nil,
            season: Int? = nil, episode: Int? = nil, published: Double? = nil
        ) {
            self.podcast = podcast
            self.title = title
            self.ext = ext
            self.guid = guid
            self.id = id
            self.season = season
            self.episode = episode
            self.published = published
        }
    }

    /// Why a template was refused, in words that end "…" after "file-name-template must be".
    public struct Invalid: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    static let fieldNames = "podcast, title, date, ext, season, episode, guid, id"

    /// Checks and reads `text`.
    /// - Throws: ``Invalid`` naming what is wrong.
    public init(_ text: String) throws(Invalid) {
        description = text
        guard !text.trimmingSpaces.isEmpty else {
            throw Invalid(description: "a template such as \"{podcast}/{title}.{ext}\", not empty")
        }
        guard !text.hasPrefix("/") else { throw Invalid(description: "a path inside the download folder: it starts with /") }
        guard !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw Invalid(description: "printable text: it has a control character")
        }
        var components: [[Piece]] = []
        for raw in try Self.folders(text) {
            let literal = raw.trimmingSpaces
            if literal == ".." || literal == "." { throw Invalid(description: "a path inside the download folder: it has a '\(literal)' folder") }
            if literal.isEmpty { throw Invalid(description: "a path without empty folders (//, or a / at the end)") }
            components.append(try Self.pieces(String(raw)))
        }
        guard let last = components.last, last.contains(where: { if case .field(let field) = $0 { return field.distinguishes } else { return false } }) else {
            throw Invalid(description: "a template whose file name has {title}, {guid}, {id}, {episode} or {date}, so that episodes get names of their own")
        }
        self.components = components
    }

    /// `text` split at its `/`, none of which may be inside a field.
    private static func folders(_ text: String) throws(Invalid) -> [Substring] {
        var parts: [Substring] = []
        var start = text.startIndex
        var inField = false
        for index in text.indices {
            switch text[index] {
            case "{": inField = true
            case "}": inField = false
            case "/" where inField:
                throw Invalid(description: "a template without / inside a field: write {date:%Y}/{date:%m} for folders by date")
            case "/":
                parts.append(text[start..<index])
                start = text.index(after: index)
            default: break
            }
        }
        parts.append(text[start...])
        return parts
    }

    private static func pieces(_ component: String) throws(Invalid) -> [Piece] {
        var pieces: [Piece] = []
        var literal = ""
        var rest = Substring(component)
        while let first = rest.first {
            if first == "}" { throw Invalid(description: "a template whose braces pair up: a } has no {") }
            guard first == "{" else {
                literal.append(first)
                rest = rest.dropFirst()
                continue
            }
            guard let close = rest.firstIndex(of: "}") else { throw Invalid(description: "a template whose braces pair up: a { is not closed") }
            let inside = rest[rest.index(after: rest.startIndex)..<close]
            if inside.contains("{") { throw Invalid(description: "a template whose braces pair up: a { inside a field") }
            if !literal.isEmpty { pieces.append(.text(literal)); literal = "" }
            pieces.append(.field(try field(inside)))
            rest = rest[rest.index(after: close)...]
        }
        if !literal.isEmpty { pieces.append(.text(literal)) }
        return pieces
    }

    private static func field(_ text: Substring) throws(Invalid) -> Field {
        let name = text.prefix { $0 != ":" }
        let option = text.count > name.count ? String(text.dropFirst(name.count + 1)) : nil
        func width() throws(Invalid) -> Int {
            guard let option else { return 0 }
            guard let n = Int(option), (0...9).contains(n), option.allSatisfy(\.isNumber) else {
                throw Invalid(description: "a template whose {\(name):…} gives a width from 0 to 9, such as {\(name):02}")
            }
            return n
        }
        switch name {
        case "podcast", "title", "ext", "guid", "id":
            if option != nil { throw Invalid(description: "a template whose {\(name)} takes no option") }
            return ["podcast": .podcast, "title": .title, "ext": .ext, "guid": .guid, "id": .id][String(name)]!
        case "season": return .season(width: try width())
        case "episode": return .episode(width: try width())
        case "date":
            let format = option ?? "%Y-%m-%d"
            var chars = format.makeIterator()
            while let c = chars.next() {
                guard c == "%" else { continue }
                guard let directive = chars.next(), "YymdHMSj%".contains(directive) else {
                    throw Invalid(description: "a template whose date format uses only %Y %y %m %d %H %M %S %j and %%")
                }
            }
            return .date(format: format)
        default:
            throw Invalid(description: "a template of known fields: {\(name)} is not one (fields: \(fieldNames))")
        }
    }

    /// The file's path relative to the download folder, every component safe and short enough to take
    /// `.part` and a ` (2)`; never empty, never leaving the folder.
    public func path(for values: Values, rules: FileNamer.Rules = .posix) -> String {
        var parts: [String] = []
        for (index, component) in components.enumerated() {
            let isFile = index == components.count - 1
            var name = ""
            for piece in component {
                switch piece {
                case .text(let text): name += text
                case .field(let field):
                    let value = FileNamer.safeName(Self.value(field, values), maxBytes: FileNamer.maxNameBytes, rules: rules)
                    name += value.isEmpty && field == .podcast ? "Podcast" : value
                }
            }
            if isFile {
                // A name that would be only its extension (an empty or all-dots title) gets a stem.
                let trimmed = name.trimmingSpaces
                if trimmed.isEmpty || trimmed.hasPrefix(".") { name = "episode" + trimmed }
                parts.append(FileNamer.safeName(name, rules: rules))
            } else {
                let folder = FileNamer.safeName(name, maxBytes: Self.folderBytes, rules: rules)
                if !folder.isEmpty { parts.append(folder) }
            }
        }
        return parts.joined(separator: "/")
    }

    /// The longest folder name a template makes, in UTF-8 bytes.
    static let folderBytes = 120

    private static func value(_ field: Field, _ values: Values) -> String {
        switch field {
        case .podcast: values.podcast
        case .title: values.title
        case .ext: values.ext
        case .guid: values.guid ?? ""
        case .id: values.id.map(String.init) ?? ""
        case .season(let width): values.season.map { padded($0, width) } ?? ""
        case .episode(let width): values.episode.map { padded($0, width) } ?? ""
        case .date(let format): values.published.map { date($0, format) } ?? ""
        }
    }

    private static func padded(_ n: Int, _ width: Int) -> String {
        let digits = String(n.magnitude)
        return (n < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// `format` with the time `seconds` in UTC.
    static func date(_ seconds: Double, _ format: String) -> String {
        // Held within years -9999…9999: a date from outside never traps.
        let seconds = seconds.isFinite ? min(max(seconds, -377_705_116_800), 253_402_300_799) : 0
        let days = Int.clamped(seconds / 86_400, .down)
        let (year, month, day) = FeedDate.civil(days)
        let secondOfDay = Int.clamped(seconds, .down) - days * 86_400
        let dayOfYear = days - FeedDate.days(year: year, month: 1, day: 1) + 1
        var out = ""
        var chars = format.makeIterator()
        while let c = chars.next() {
            guard c == "%", let directive = chars.next() else { out.append(c); continue }
            switch directive {
            case "Y": out += padded(year, 4)
            case "y": out += padded(year % 100, 2)
            case "m": out += padded(month, 2)
            case "d": out += padded(day, 2)
            case "H": out += padded(secondOfDay / 3600, 2)
            case "M": out += padded(secondOfDay / 60 % 60, 2)
            case "S": out += padded(secondOfDay % 60, 2)
            case "j": out += padded(dayOfYear, 3)
            default: out.append(directive)
            }
        }
        return out
    }
}

extension FileNameTemplate.Field {
    /// True for a field that tells one episode from another.
    var distinguishes: Bool {
        switch self {
        case .title, .guid, .id, .episode, .date: true
        case .podcast, .ext, .season: false
        }
    }
}
