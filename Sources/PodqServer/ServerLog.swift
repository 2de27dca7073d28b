import Foundation

/// What the server saw: every request, how many were in flight at once, and how each response ended.
public final class ServerLog: @unchecked Sendable {
    /// How one response ended.
    public struct Outcome: Sendable, Equatable {
        /// The request's sequence number.
        public var sequence: Int
        /// Body bytes written.
        public var bytesSent: Int64
        /// True when every byte was sent.
        public var completed: Bool
    }

    private let lock = NSLock()
    private var _requests: [ServerRequest] = []
    private var _outcomes: [Int: Outcome] = [:]
    private var inFlight = 0
    private var _maxInFlight = 0
    private var sequence = 0

    public init() {}

    /// Every request so far, in arrival order.
    public var requests: [ServerRequest] { lock.withLock { _requests } }
    /// The most requests that were being answered at the same moment.
    public var maxInFlight: Int { lock.withLock { _maxInFlight } }
    /// Requests being answered now.
    public var currentInFlight: Int { lock.withLock { inFlight } }
    /// How each finished response ended, by sequence number.
    public var outcomes: [Int: Outcome] { lock.withLock { _outcomes } }

    /// Body bytes sent over all responses.
    public var totalBytesSent: Int64 { lock.withLock { _outcomes.values.reduce(0) { $0 + $1.bytesSent } } }

    /// Forgets everything recorded (between phases of a test).
    public func reset() {
        lock.withLock {
            _requests = []
            _outcomes = [:]
            _maxInFlight = inFlight
        }
    }

    func begin(_ make: (Int) -> ServerRequest) -> ServerRequest {
        lock.withLock {
            sequence += 1
            let request = make(sequence)
            _requests.append(request)
            inFlight += 1
            _maxInFlight = max(_maxInFlight, inFlight)
            return request
        }
    }

    func end(sequence: Int, bytesSent: Int64, completed: Bool) {
        lock.withLock {
            inFlight -= 1
            _outcomes[sequence] = Outcome(sequence: sequence, bytesSent: bytesSent, completed: completed)
        }
    }
}
