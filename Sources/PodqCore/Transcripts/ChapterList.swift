import FoundationEssentials
import PodqBase

/// A chapter of an episode (Podcasting 2.0's JSON chapters): where it starts, its title, and its
/// link and image when it has them. `toc` false: a chapter the publisher keeps out of the table
/// of contents (an image change, an ad marker): not listed, not given to the player.
public struct Chapter: Sendable, Equatable, Codable {
    public var start: Double
    public var end: Double?
    public var title: String
    public var url: String?
    public var image: String?
    public var toc: Bool

    public init(start: Double, end: Double? = nil, title: String, url: String? = nil, image: String? = nil, toc: Bool = true) {
        self.start = start
        self.end = end
        self.title = title
        self.url = url
        self.image = image
        self.toc = toc
    }
}

/// `podcast:chapters`' JSON: `{"version": "1.2.0", "chapters": [{"startTime": 0, "title": "Intro",
/// "img": …, "url": …, "toc": false, "endTime": …}]}`. Chapters without a start time are left out
/// with a note; the rest sorted by time; titles and links cleaned (``SafeText``; links only http(s)).
public enum ChapterList {
    public struct Read: Sendable, Equatable {
        public var chapters: [Chapter]
        public var notes: [String]

        /// The chapters of the table of contents (`toc` not false).
        public var listed: [Chapter] { chapters.filter(\.toc) }
    }

    private struct File: Decodable {
        var chapters: [Entry]
    }

    private struct Entry: Decodable {
        var start: Double?
        var end: Double?
        var title: String?
        var url: String?
        var img: String?
        var toc: Bool?

        enum Keys: String, CodingKey { case startTime, endTime, title, url, img, toc }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: Keys.self)
            start = TranscriptJSON.time(c, .startTime)
            end = TranscriptJSON.time(c, .endTime)
            title = try? c.decode(String.self, forKey: .title)
            url = try? c.decode(String.self, forKey: .url)
            img = try? c.decode(String.self, forKey: .img)
            toc = (try? c.decode(Bool.self, forKey: .toc)) ?? (try? c.decode(String.self, forKey: .toc)).map { $0.lowercased() != "false" }
        }
    }

    /// The most chapters read (a real list has tens).
    public static let limit = 5_000

    public static func read(_ bytes: [UInt8]) throws(TranscriptError) -> Read {
        guard bytes.count <= TranscriptLimits.standard.bytes else { throw .tooLarge(bytes: bytes.count, limit: TranscriptLimits.standard.bytes) }
        let file = try TranscriptJSON.decode(File.self, from: bytes, list: "chapters")
        var notes: [String] = []
        var chapters: [Chapter] = []
        var untimed = 0
        for entry in file.chapters.prefix(limit) {
            guard let start = entry.start, start.isFinite, start >= 0 else {
                untimed += 1
                continue
            }
            func link(_ text: String?) -> String? {
                guard let text = text?.trimmingWhitespace, text.hasPrefix("http://") || text.hasPrefix("https://"),
                    !text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F })
                else { return nil }
                return text
            }
            let title = SafeText.clean(CueText.plain(entry.title ?? "", limit: 500).text)
            chapters.append(
                Chapter(
                    start: start, end: entry.end.flatMap { $0 >= start && $0.isFinite ? $0 : nil }, title: title, url: link(entry.url), image: link(entry.img),
                    toc: entry.toc ?? true))
        }
        if untimed > 0 { notes.append("\(untimed) chapter\(untimed == 1 ? "" : "s") without a start time left out") }
        if file.chapters.count > limit { notes.append("only the first \(limit) chapters read") }
        let sorted = chapters.indices.sorted { chapters[$0].start != chapters[$1].start ? chapters[$0].start < chapters[$1].start : $0 < $1 }
        if sorted != Array(chapters.indices) { notes.append("the chapters were out of time order: sorted by time") }
        return Read(chapters: sorted.map { chapters[$0] }, notes: notes)
    }
}
