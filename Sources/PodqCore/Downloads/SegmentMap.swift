import FoundationEssentials
import Glibc

/// The parts of one file fetched over several connections, and how much of each is on disk: what a
/// segmented download saves (after `fdatasync`, so a saved count never exceeds what the disk holds)
/// and resumes from. A value with pure transitions; ``SegmentTable`` shares one between connections.
///
/// The segments are sorted, do not overlap and cover `0..<total` exactly; ``init(text:total:)`` refuses
/// a stored map that does not, so a damaged row can never make a hole count as downloaded.
public struct SegmentMap: Sendable, Equatable {
    /// One part: bytes `start..<end` of the file, of which the first `done` are written.
    public struct Segment: Sendable, Equatable {
        public var start: Int64
        public var end: Int64
        public var done: Int64

        public init(start: Int64, end: Int64, done: Int64 = 0) {
            self.start = start
            self.end = end
            self.done = done
        }

        /// The next byte to fetch.
        public var position: Int64 { start + done }
        /// Bytes still to fetch.
        public var remaining: Int64 { end - position }
        public var isComplete: Bool { position >= end }

        /// Where to cut this segment so the two halves of what it has left are equal, when each would
        /// be at least `minimum` bytes; `beyond` is the first byte its connection may still be writing.
        /// A free connection takes over the far half of a slow part.
        public func cutPoint(minimum: Int64, beyond: Int64) -> Int64? {
            let from = max(position, beyond)
            let left = end - from
            guard left >= 2 * max(1, minimum) else { return nil }
            return from + left / 2
        }
    }

    public private(set) var segments: [Segment]
    /// The file's length.
    public let total: Int64

    /// The segments, sorted by their start.
    public init(segments: [Segment], total: Int64) {
        self.segments = segments.sorted { $0.start < $1.start }
        self.total = total
    }

    /// Bytes written over all segments.
    public var downloaded: Int64 { segments.reduce(0) { $0 + $1.done } }
    /// True when every byte is written.
    public var isComplete: Bool { segments.allSatisfy(\.isComplete) }

    /// Counts `count` more bytes written at the end of segment `index` (never past its end).
    public mutating func advance(_ index: Int, by count: Int64) {
        segments[index].done = min(segments[index].end - segments[index].start, segments[index].done + count)
    }

    // MARK: - Stored form

    /// The stored form: `start-end:done` for each segment, separated by commas.
    public var text: String {
        segments.map { "\($0.start)-\($0.end):\($0.done)" }.joined(separator: ",")
    }

    /// Reads the stored form for a file of `total` bytes; nil unless the segments are sorted, do not
    /// overlap, cover `0..<total` and count no more than their own length.
    public init?(text: String, total: Int64) {
        var segments: [Segment] = []
        for part in text.split(separator: ",") {
            let fields = part.split(separator: ":")
            guard fields.count == 2, let done = Int64(fields[1]) else { return nil }
            let bounds = fields[0].split(separator: "-")
            guard bounds.count == 2, let start = Int64(bounds[0]), let end = Int64(bounds[1]) else { return nil }
            segments.append(Segment(start: start, end: end, done: done))
        }
        var expected: Int64 = 0
        for segment in segments {
            guard segment.start == expected, segment.end > segment.start, segment.done >= 0,
                segment.done <= segment.end - segment.start
            else { return nil }
            expected = segment.end
        }
        guard !segments.isEmpty, expected == total else { return nil }
        self.init(segments: segments, total: total)
    }

    /// The written spans as fractions of the file, in order (what a progress bar draws).
    public var spans: [ClosedRange<Double>] {
        guard total > 0 else { return [] }
        return segments.filter { $0.done > 0 }.map {
            Double($0.start) / Double(total)...Double($0.position) / Double(total)
        }
    }
}
