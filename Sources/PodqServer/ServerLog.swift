import FoundationEssentials
import Glibc
import Synchronization

/// What the server saw: every request, how many were in flight at once, and how each response ended.
public final class ServerLog: Sendable {
    /// How one response ended.
    public struct Outcome: Sendable, Equatable {
        /// The request's sequence number.
        public var sequence: Int
        /// Body bytes written.
        public var bytesSent: Int64
        /// True when every byte was sent.
        public var completed: Bool
    }

    private struct Record {
        var requests: [ServerRequest] = []
        var outcomes: [Int: Outcome] = [:]
        var inFlight = 0
        var maxInFlight = 0
        var sequence = 0
    }

    private let record = Mutex(Record())

    public init() {}

    /// Every request so far, in arrival order.
    public var requests: [ServerRequest] { record.withLock { $0.requests } }
    /// The most requests that were being answered at the same moment.
    public var maxInFlight: Int { record.withLock { $0.maxInFlight } }
    /// Requests being answered now.
    public var currentInFlight: Int { record.withLock { $0.inFlight } }
    /// How each finished response ended, by sequence number.
    public var outcomes: [Int: Outcome] { record.withLock { $0.outcomes } }

    /// Body bytes sent over all responses.
    public var totalBytesSent: Int64 { record.withLock { $0.outcomes.values.reduce(0) { $0 + $1.bytesSent } } }

    /// Forgets everything recorded (between phases of a test).
    public func reset() {
        record.withLock {
            $0.requests = []
            $0.outcomes = [:]
            $0.maxInFlight = $0.inFlight
        }
    }

    func begin(_ make: (Int) -> ServerRequest) -> ServerRequest {
        record.withLock {
            $0.sequence += 1
            let request = make($0.sequence)
            $0.requests.append(request)
            $0.inFlight += 1
            $0.maxInFlight = max($0.maxInFlight, $0.inFlight)
            return request
        }
    }

    func end(sequence: Int, bytesSent: Int64, completed: Bool) {
        record.withLock {
            $0.inFlight -= 1
            $0.outcomes[sequence] = Outcome(sequence: sequence, bytesSent: bytesSent, completed: completed)
        }
    }
}
