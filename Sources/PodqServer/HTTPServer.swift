import FoundationEssentials
import Glibc
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import PodqBase
import Synchronization

/// A small HTTP/1.1 server on 127.0.0.1 (port 0 by default), answering every request with a route
/// closure and injecting the faults the response asks for (throttling, stalls, drops, lying lengths).
///
/// Bodies are written with the channel's backpressure, so a slow client never makes the server
/// buffer: a 4 GiB body costs no more memory than a small one.
public final class HTTPServer: Sendable {
    /// Answers one request.
    public typealias Route = @Sendable (ServerRequest) async -> ServerResponse

    /// The port the server listens on.
    public let port: Int
    /// The address it listens on.
    public let host: String
    /// `https` when the server speaks TLS, else `http`.
    public let scheme: String
    /// What the server saw.
    public let log: ServerLog
    private let channel: any Channel
    private let connections: ConnectionSet
    private let serving: Task<Void, Never>

    private init(host: String, port: Int, scheme: String, log: ServerLog, channel: any Channel, connections: ConnectionSet, serving: Task<Void, Never>) {
        self.host = host
        self.port = port
        self.scheme = scheme
        self.log = log
        self.channel = channel
        self.connections = connections
        self.serving = serving
    }

    /// `http://<host>:<port>` (or `https`) followed by `path`.
    public func url(_ path: String) -> URL {
        URL(string: "\(scheme)://\(host):\(port)\(path.hasPrefix("/") ? "" : "/")\(path)")!
    }

    /// Starts a server; it runs until ``stop()``. With `tls`, it speaks HTTPS. With `segmenting`, every
    /// response leaves in pieces cut at random byte boundaries (``Segmenting``).
    public static func start(
        host: String = "127.0.0.1", port: Int = 0, tls: NIOSSLContext? = nil, segmenting: Segmenting? = nil,
        route: @escaping Route
    ) async throws -> HTTPServer {
        let log = ServerLog()
        let connections = ConnectionSet()
        let accepted = Atomic<Int>(0)
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelOption(.backlog, value: 256)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .bind(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls)) }
                    // After TLS: each piece is a record of its own, so the client's HTTP layer sees the cuts.
                    var backlog: SegmentingBacklog?
                    if let segmenting {
                        let number = accepted.wrappingAdd(1, ordering: .relaxed).newValue
                        let handler = SegmentingHandler(segmenting, connection: number)
                        backlog = handler.backlog
                        try channel.pipeline.syncOperations.addHandler(handler)
                    }
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    // Half closure: a response with `Connection: close` ends with the output shut after its
                    // last byte (Connection.After.close).
                    let async = try NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>(
                        wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
                    return (async, backlog)
                }
            }
        let boundPort = server.channel.localAddress?.port ?? port
        let serverChannel = server.channel
        let serving = Task<Void, Never> {
            _ = try? await withThrowingDiscardingTaskGroup { group in
                try await server.executeThenClose { inbound in
                    for try await (connection, backlog) in inbound {
                        let id = connections.insert(connection.channel)
                        group.addTask {
                            await Connection(id: id, channel: connection, log: log, route: route, segmenting: segmenting, backlog: backlog).serve()
                            connections.remove(id)
                        }
                    }
                }
            }
        }
        return HTTPServer(
            host: host, port: boundPort, scheme: tls == nil ? "http" : "https", log: log, channel: serverChannel, connections: connections, serving: serving)
    }

    /// Stops listening and closes every open connection: at most `limit`, then it returns and leaves
    /// what is still running to the process.
    public func stop(within limit: Duration = stopLimit) async {
        try? await channel.close()
        serving.cancel()  // also ends stalls and throttling sleeps
        // A connection accepted before the listener closed can be registered after a first look, and
        // a connection's task can sit in an await that cancelling does not end: close what is open
        // again each round, until serving ends or the deadline passes.
        let serving = self.serving
        let clock = ContinuousClock()
        let deadline = clock.now + limit
        repeat {
            for connection in connections.all { try? await connection.close() }
            if await BoundedWait.run(within: .milliseconds(250), { await serving.value }) { return }
        } while clock.now < deadline
    }

    /// The longest ``stop()`` waits for the connections to end.
    public static let stopLimit = Duration.seconds(10)
}

/// The open connections, so ``HTTPServer/stop()`` can close them.
final class ConnectionSet: Sendable {
    private let channels = Mutex<(open: [Int: any Channel], next: Int)>(([:], 0))

    func insert(_ channel: any Channel) -> Int {
        channels.withLock {
            $0.next += 1
            $0.open[$0.next] = channel
            return $0.next
        }
    }

    func remove(_ id: Int) { channels.withLock { _ = $0.open.removeValue(forKey: id) } }
    var all: [any Channel] { channels.withLock { Array($0.open.values) } }
}
