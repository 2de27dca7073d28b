import FoundationEssentials
import Glibc
import NIOHTTP1
import PodqBase
import PodqHTTP

/// Nextcloud's Login Flow v2: podq asks the server for a login page, the user opens it in a browser
/// and grants access, and podq, polling, receives the user name and a new app password (never
/// printed). Every wait has its deadline: the poll gives up after `timeout`.
public struct NextcloudLoginFlow: Sendable {
    public let base: URL
    private let transport: any HTTPTransport

    public init(base: URL, transport: any HTTPTransport) {
        self.base = base
        self.transport = transport
    }

    /// What the server answered to the start: the page to open, and where and with what to poll.
    public struct Started: Sendable {
        public var loginPage: String
        var endpoint: URL
        var token: String
    }

    private struct Answer: Decodable {
        struct Poll: Decodable {
            var token: String
            var endpoint: String
        }
        var poll: Poll
        var login: String
    }

    private struct Granted: Decodable {
        var server: String?
        var loginName: String
        var appPassword: String
    }

    private func post(_ url: URL, form: String?) async throws(SyncError) -> (Int, [UInt8]) {
        var headers = HTTPHeaders()
        headers.add(name: "Accept", value: "application/json")
        headers.add(name: "User-Agent", value: "podq")
        if form != nil { headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded") }
        var request = TransportRequest(url: url, headers: headers, decompress: true)
        request.method = .POST
        request.body = form.map { Array($0.utf8) } ?? []
        do {
            let response = try await transport.send(request)
            var bytes: [UInt8] = []
            for try await chunk in response.body {
                bytes += chunk.readableBytesView
                if bytes.count > 1 << 20 { break }
            }
            return (response.status, bytes)
        } catch let error as DownloadError {
            throw .network(ErrorText.describe(error))
        } catch {
            throw .network(String(describing: error))
        }
    }

    /// Asks for a login page.
    public func start() async throws(SyncError) -> Started {
        guard let url = URL(string: base.absoluteString + "/index.php/login/v2") else { throw .badInput("no URL") }
        let (status, bytes) = try await post(url, form: nil)
        guard status == 200, let answer = try? JSONDecoder().decode(Answer.self, from: Data(bytes)), let endpoint = URL(string: answer.poll.endpoint)
        else {
            throw .notASyncServer(url: SyncConnection.origin(of: base), detail: "Login Flow v2 answered \(status)")
        }
        // The token goes to the server's own origin only.
        guard SyncConnection.sameOrigin(endpoint, base) else {
            throw .redirectedElsewhere(from: SyncConnection.origin(of: base), to: SyncConnection.origin(of: endpoint))
        }
        return Started(loginPage: SafeText.clean(answer.login), endpoint: endpoint, token: answer.poll.token)
    }

    /// Polls every `interval` until access is granted (the user name and app password), or `timeout` passes.
    public func wait(for started: Started, every interval: Duration = .seconds(2), timeout: Duration = .seconds(600)) async throws(SyncError) -> (
        user: String, password: String
    ) {
        let deadline = ContinuousClock.now + timeout
        let form = "token=" + PercentEncoding.encode(started.token, allowing: .alphanumerics)
        while ContinuousClock.now < deadline {
            let (status, bytes) = try await post(started.endpoint, form: form)
            if status == 200, let granted = try? JSONDecoder().decode(Granted.self, from: Data(bytes)) {
                return (granted.loginName, granted.appPassword)
            }
            guard status == 404 else { throw .status(status, call: "the login poll", detail: "") }
            do {
                try await Task.sleep(for: interval)
            } catch {
                throw .badInput("the login was stopped")
            }
        }
        throw .badInput("nobody granted access in the browser within \(timeout.components.seconds / 60) minutes; run podq sync login again")
    }
}
