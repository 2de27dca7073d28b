import FoundationEssentials
import Glibc
import Synchronization

/// The ``SegmentMap`` of a segmented download while it runs, shared by its connections: which
/// segment each connection works on, and how far each may write. Every change is one short locked
/// step; nothing here touches the disk or the network.
///
/// A connection *reserves* the bytes of a chunk before it writes them and *counts* them after, so a
/// free connection that cuts a segment in two (``takeBySplitting(minimum:)``) always cuts past what
/// the segment's own connection may still be writing: no byte is written by two connections.
final class SegmentTable: Sendable {
    /// A segment and the connection on it, by a number that stays the same when others are cut.
    private struct Slot {
        var segment: SegmentMap.Segment
        var active = false
        /// The first byte after the chunk its connection is writing now.
        var reserved: Int64
    }

    private struct State {
        var slots: [Slot]
        var connections = 0
    }

    let total: Int64
    private let state: Mutex<State>

    init(_ map: SegmentMap) {
        total = map.total
        state = Mutex(State(slots: map.segments.map { Slot(segment: $0, reserved: $0.position) }))
    }

    /// The map as it stands, sorted.
    var snapshot: SegmentMap {
        state.withLock { SegmentMap(segments: $0.slots.map(\.segment), total: total) }
    }

    /// Bytes written over all segments.
    var downloaded: Int64 { state.withLock { $0.slots.reduce(0) { $0 + $1.segment.done } } }

    /// Connections working now.
    var connections: Int { state.withLock { $0.connections } }

    /// A connection starts (true) or stops (false) working; returns how many others still work.
    @discardableResult
    func connection(_ starts: Bool) -> Int {
        state.withLock { state in
            state.connections += starts ? 1 : -1
            return state.connections - (starts ? 1 : 0)
        }
    }

    /// The first segment nobody works on that has bytes left, marked taken; nil when there is none.
    func take() -> Int? {
        state.withLock { state in
            guard let slot = state.slots.indices.first(where: { !state.slots[$0].active && !state.slots[$0].segment.isComplete }) else {
                return nil
            }
            state.slots[slot].active = true
            return slot
        }
    }

    /// Cuts the taken segment with the most bytes left in two and takes its far half; nil when no
    /// half would be at least `minimum` bytes.
    func takeBySplitting(minimum: Int64) -> Int? {
        state.withLock { state in
            var best: (slot: Int, at: Int64, left: Int64)?
            for (i, slot) in state.slots.enumerated() where slot.active {
                guard let at = slot.segment.cutPoint(minimum: minimum, beyond: slot.reserved) else { continue }
                let left = slot.segment.end - at
                if best == nil || left > best!.left { best = (i, at, left) }
            }
            guard let best else { return nil }
            let end = state.slots[best.slot].segment.end
            state.slots[best.slot].segment.end = best.at
            state.slots.append(Slot(segment: SegmentMap.Segment(start: best.at, end: end), active: true, reserved: best.at))
            return state.slots.count - 1
        }
    }

    /// True when every byte of `range` is written (counted by the segment it lies in).
    func isWritten(_ range: Range<Int64>) -> Bool {
        state.withLock { state in
            var next = range.lowerBound
            for segment in state.slots.map(\.segment).sorted(by: { $0.start < $1.start }) where segment.end > next {
                guard segment.start <= next else { return false }
                guard segment.position > next else { return false }
                next = segment.position
                if next >= range.upperBound { return true }
            }
            return next >= range.upperBound
        }
    }

    /// The segment of `slot` as it stands.
    func segment(_ slot: Int) -> SegmentMap.Segment { state.withLock { $0.slots[slot].segment } }

    /// Reserves up to `count` bytes at the segment's next position: returns that offset and how many
    /// of the bytes belong to the segment (0 once it is complete, or was cut short).
    func reserve(_ slot: Int, count: Int) -> (offset: Int64, allowed: Int) {
        state.withLock { state in
            let segment = state.slots[slot].segment
            let allowed = Int(max(0, min(Int64(count), segment.end - segment.position)))
            state.slots[slot].reserved = segment.position + Int64(allowed)
            return (segment.position, allowed)
        }
    }

    /// Counts `count` reserved bytes as written; returns true when the segment is complete.
    func wrote(_ slot: Int, count: Int) -> Bool {
        state.withLock { state in
            state.slots[slot].segment.done += Int64(count)
            return state.slots[slot].segment.isComplete
        }
    }

    /// The connection on `slot` stops working on it (complete or not).
    func release(_ slot: Int) {
        state.withLock { state in
            state.slots[slot].active = false
            state.slots[slot].reserved = state.slots[slot].segment.position
        }
    }
}
