import FoundationEssentials
import Glibc
import PodqBase

/// What can go wrong with a sync server, each said with what to do. Nothing here carries a password:
/// a server's answer is cleaned and cut short before it is shown.
public enum SyncError: Error, LocalizedError, Sendable, Equatable {
    /// No account: `podq sync login` first.
    case notLoggedIn
    /// The server refused the user and password (401 or 403).
    case refusedLogin(server: String, user: String)
    /// The URL answers, but neither the gpodder.net API nor Nextcloud's GPodder Sync app.
    case notASyncServer(url: String, detail: String)
    /// A redirect to another origin: the login is not sent there.
    case redirectedElsewhere(from: String, to: String)
    /// An HTTP status the call cannot go on with.
    case status(Int, call: String, detail: String)
    /// An answer that is not what the API says it is.
    case badAnswer(call: String, detail: String)
    /// A `2xx` to an upload without the receipt the API promises (an empty page, a proxy's): the
    /// server may not have stored anything, so the changes stay queued.
    case notTaken(call: String, detail: String)
    /// The connection failed (its reason in words).
    case network(String)
    /// The user asked for something the account does not have (a device that is not there).
    case badInput(String)

    public var errorDescription: String? {
        switch self {
        case .notLoggedIn:
            "no sync account: not logged in to a sync server. Log in with: podq sync login <server-url> --user NAME (\(PodqDocs.cite("SYNC.md")))."
        case .refusedLogin(let server, let user):
            "\(server) refused the password of '\(user)'. Check the user name and password (for Nextcloud, an app password from "
                + "Settings → Security), then: podq sync login \(server) --user \(user)."
        case .notASyncServer(let url, let detail):
            "\(url) answers neither the gpodder.net API nor Nextcloud's GPodder Sync app (\(detail)). Give the server's base URL "
                + "(https://gpodder.net, https://cloud.example.org), or say which with --flavour gpodder|nextcloud."
        case .redirectedElsewhere(let from, let to):
            "\(from) redirected to \(to), another host: podq does not send your login there. If that is your server, log in to it: "
                + "podq sync login \(to)."
        case .status(let code, let call, let detail):
            "the sync server answered \(code) to \(call)\(detail.isEmpty ? "." : ": " + Self.sentence(detail)) Nothing was lost: the changes are sent next time."
        case .badAnswer(let call, let detail):
            "the sync server's answer to \(call) is not what its API says (\(detail)). Nothing was lost: the changes are sent next time."
        case .notTaken(let call, let detail):
            "the sync server did not say it took \(call) (\(detail)): the changes stay queued and are sent again next time."
        case .network(let reason):
            "cannot reach the sync server: \(Self.sentence(reason)) Nothing was lost: the changes are sent next time (podq sync)."
        case .badInput(let text):
            text
        }
    }

    /// `text` ended by one full stop, whatever it ended with ("address." stays "address.", never "address..").
    static func sentence(_ text: String) -> String {
        var text = text.trimmingWhitespace
        while text.hasSuffix(".") { text.removeLast() }
        return text + "."
    }

    /// True for a mistake in what was asked (no account, a device that is not there), not the server's.
    public var isBadInput: Bool {
        switch self {
        case .notLoggedIn, .badInput: true
        default: false
        }
    }
}
