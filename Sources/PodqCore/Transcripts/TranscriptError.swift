import FoundationEssentials

/// Why a transcript or a chapter list could not be read at all (what is wrong with a part of one is
/// a note of ``TranscriptDocument``, not an error).
public enum TranscriptError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Larger than ``TranscriptLimits/bytes``.
    case tooLarge(bytes: Int, limit: Int)
    /// JSON that is not JSON, or not a transcript's or chapters' shape.
    case notJSON(String)
    /// Nothing in it podq could read as what was said.
    case empty(TranscriptFormat)

    public var description: String {
        switch self {
        case .tooLarge(let bytes, let limit):
            "the transcript is \(bytes) bytes, more than podq reads (\(limit)); it was left out"
        case .notJSON(let why):
            "it is not the JSON of Podcasting 2.0 (\(why)); a transcript's is {\"segments\": [...]}, chapters' {\"chapters\": [...]}"
        case .empty(let format):
            "no cue could be read from the \(format.rawValue.uppercased()) transcript (is it a transcript?)"
        }
    }
}
