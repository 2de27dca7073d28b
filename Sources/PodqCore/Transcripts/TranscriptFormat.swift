import FoundationEssentials
import PodqBase

/// The formats `podcast:transcript` links to (Podcasting 2.0's list), and how one is told.
public enum TranscriptFormat: String, Sendable, Equatable, Codable, CaseIterable {
    case vtt
    case srt
    /// Podcasting 2.0's JSON: `{"version": …, "segments": [{"speaker", "startTime", "endTime", "body"}]}`.
    case json
    case html
    case text

    /// The format of a MIME type as feeds write it (`text/vtt`, `application/x-subrip`, …); nil for
    /// one podq does not read.
    public init?(mimeType: String) {
        let type = mimeType.split(separator: ";").first.map { String($0).trimmingSpaces.lowercased() } ?? ""
        switch type {
        case "text/vtt", "text/webvtt": self = .vtt
        case "application/x-subrip", "application/srt", "text/srt", "application/x-srt", "text/x-srt": self = .srt
        case "application/json", "text/json": self = .json
        case "text/html", "application/xhtml+xml": self = .html
        case "text/plain": self = .text
        default: return nil
        }
    }

    /// The format a file's name says (the sidecars' names: `.vtt`, `.srt`, `.transcript.json`, `.html`, `.txt`).
    public init?(fileName: String) {
        switch LexicalPath.pathExtension(of: fileName).lowercased() {
        case "vtt": self = .vtt
        case "srt": self = .srt
        case "json": self = .json
        case "html", "htm": self = .html
        case "txt": self = .text
        default: return nil
        }
    }

    /// The format the first bytes show, for a server that sends a transcript with a wrong type
    /// (`text/plain` for a VTT is common): nil when they show none.
    public init?(sniffing bytes: [UInt8]) {
        var start = bytes.startIndex
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { start += 3 }
        while start < bytes.endIndex, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[start]) { start += 1 }
        let head = bytes[start..<min(bytes.endIndex, start + 512)]
        let text = String(decoding: head, as: UTF8.self)
        if text.hasPrefix("WEBVTT") {
            self = .vtt
        } else if text.hasPrefix("{") || text.hasPrefix("[") {
            self = .json
        } else if text.hasPrefix("<") {
            self = .html
        } else if let first = text.split(separator: "\n", maxSplits: 2).dropFirst().first, first.contains("-->") {
            self = .srt
        } else {
            return nil
        }
    }
}
