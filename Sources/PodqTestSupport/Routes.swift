import Crypto
import Foundation
import NIOCore
import PodqServer

/// The route table of ``TestServer``.
enum Routes {
    static func answer(_ request: ServerRequest, state: TestServer.State) -> ServerResponse {
        let parts = request.path.split(separator: "/").map(String.init)
        let query = request.query
        switch parts.first {
        case "data":
            let size = Int64(query["size"] ?? "") ?? 1024
            var seed = UInt64(query["seed"] ?? "") ?? 1
            if query["vary"] == "1" { seed += UInt64(state.count("vary " + request.uri)) }
            let etag: String? =
                switch query["etag"] {
                case "none": nil
                case "weak": "W/\"\(seed)-\(size)\""
                // The same strong ETag whatever bytes `vary=1` sends: a host that inserts ads per request.
                case "fixed": "\"\(query["seed"] ?? "1")-\(size)\""
                default: "\"\(seed)-\(size)\""
                }
            let lastModified = query["lastmod"] == "none" ? nil : httpDate(seconds: 1_700_000_000 + Int(seed))
            // `slots=N`: N runs of 16 bytes filled anew per request (a host inserting ads of one length).
            let source: any ServerBodySource =
                if let slots = query["slots"].flatMap(Int.init) {
                    SlottedSource(seed: seed, length: size, slots: slots, fill: UInt8(truncatingIfNeeded: state.count("slots " + request.uri)))
                } else {
                    PatternSource(seed: seed, length: size)
                }
            var response = ranged(
                request, source: source, etag: etag,
                lastModified: lastModified, ignoreRanges: query["ranges"] == "ignore" || query["ranges"] == "lie",
                type: query["type"] ?? "audio/mpeg")
            addDigests(query, of: source, to: &response)
            if response.status == 206, let lie = query["segmentLie"] { lieInRange(lie, &response) }
            if query["ranges"] == "lie" {
                // Says it takes ranges, and answers every one with the whole file.
                response.headers = response.headers.map { $0.name == "Accept-Ranges" ? ("Accept-Ranges", "bytes") : $0 }
            }
            apply(query, to: &response, request: request, state: state)
            return response
        case "prefix":
            // An analytics prefix, as pdst.fm or OP3: `/prefix/e/<host>/<path>` → `http://<host>/<path>`.
            let rest = parts.dropFirst(2).joined(separator: "/")
            let q = request.uri.firstIndex(of: "?").map { String(request.uri[$0...]) } ?? ""
            return redirect(to: "http://" + rest + q)
        case "private":
            // `/private/<route…>`: HTTP Basic for the login set with ``TestServer/requireLogin(user:password:)``, then the route inside.
            let (user, password) = state.login
            guard request.header("Authorization") == "Basic " + Data("\(user):\(password)".utf8).base64EncodedString() else {
                return .text(401, "login required\n", headers: [("WWW-Authenticate", "Basic realm=\"podq test\"")])
            }
            var inner = request
            inner.uri = "/" + parts.dropFirst().joined(separator: "/") + (request.uri.firstIndex(of: "?").map { String(request.uri[$0...]) } ?? "")
            return answer(inner, state: state)
        case "waf":
            // A web firewall that refuses podq's own User-Agent (Cloudflare's signature) and lets a browser's through.
            guard request.header("User-Agent")?.hasPrefix("Mozilla/5.0") == true, query["block"] != "all" else {
                return .text(
                    403, "<html><body>Attention Required! | Cloudflare</body></html>\n",
                    headers: [("Server", "cloudflare"), ("CF-RAY", "8a1b2c3d4e5f-AMS"), ("Content-Type", "text/html")])
            }
            let size = Int64(query["size"] ?? "") ?? 1024
            return ranged(
                request, source: PatternSource(seed: 9, length: size), etag: "\"waf-\(size)\"", lastModified: nil,
                ignoreRanges: false, type: "audio/mpeg")
        case "status":
            let code = Int(parts.dropFirst().first ?? "") ?? 500
            var headers: [(name: String, value: String)] = []
            if let wait = query["retryAfter"] { headers.append(("Retry-After", wait)) }
            return .text(code, "status \(code)\n", headers: headers)
        case "redirect":
            let hops = Int(parts.dropFirst().first ?? "") ?? 1
            let target = query["to"] ?? "/data/file.bin?size=1024"
            // `hopDelay=S`: each hop's head comes after S seconds (a slow tracking chain).
            let delay = query["hopDelay"].flatMap(Double.init)
            func slow(_ response: ServerResponse) -> ServerResponse {
                var response = response
                response.headDelay = delay
                return response
            }
            if hops <= 1 { return slow(redirect(to: target)) }
            var next = "/redirect/\(hops - 1)?to=\(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? target)"
            if let delay { next += "&hopDelay=\(delay)" }
            // Alternate relative and absolute Locations, as real tracking chains do.
            let host = request.header("Host") ?? "127.0.0.1"
            return slow(redirect(to: hops % 2 == 0 ? "http://\(host)\(next)" : next))
        case "moved":
            // A permanent redirect: /moved/<path> → /<path>.
            return ServerResponse(status: 301, headers: [("Location", "/" + parts.dropFirst().joined(separator: "/"))])
        case "loop":
            return redirect(to: parts.last == "a" ? "/loop/b" : "/loop/a")
        case "redirect-scheme":
            return redirect(to: "ftp://127.0.0.1/episode.mp3")
        case "changing":
            let name = parts.dropFirst().first ?? "x"
            let version = state.version(name)
            // `grow=1`: each version is 1,000 bytes longer than the one before (a re-upload).
            let size = (Int64(query["size"] ?? "") ?? 4096) + (query["grow"] == "1" ? Int64(version - 1) * 1000 : 0)
            let source = PatternSource(seed: seed(name: name, version: version), length: size)
            var response = ranged(
                request, source: source, etag: "\"\(name)-v\(version)\"",
                lastModified: httpDate(seconds: 1_700_000_000 + version * 3600),
                ignoreRanges: false, type: "audio/mpeg")
            addDigests(query, of: source, to: &response)
            apply(query, to: &response, request: request, state: state)
            return response
        case "static":
            guard let file = state.staticFile(parts.dropFirst().joined(separator: "/")) else { return .text(404, "no such file\n") }
            let etag = "\"s-\(file.bytes.count)-\(file.bytes.reduce(UInt64(5381)) { ($0 << 5) &+ $0 &+ UInt64($1) })\""
            if request.header("If-None-Match") == etag { return ServerResponse(status: 304, headers: [("ETag", etag)]) }
            var response = ServerResponse(status: 200, headers: [("Content-Type", file.type), ("ETag", etag)] + file.headers, body: .bytes(file.bytes))
            apply(query, to: &response, request: request, state: state)
            return response
        default:
            return .text(404, "no route for \(request.path)\n")
        }
    }

    /// A 206 that is not of the file the first answer was: `etag` (another ETag), `noetag` (none),
    /// `total` (another length in Content-Range), `start` (a Content-Range that starts elsewhere).
    static func lieInRange(_ lie: String, _ response: inout ServerResponse) {
        func edit(_ name: String, _ change: (String) -> String?) {
            response.headers = response.headers.compactMap { header in
                header.name == name ? change(header.value).map { (name, $0) } : header
            }
        }
        switch lie {
        case "etag": edit("ETag") { _ in "\"another-version\"" }
        case "noetag": edit("ETag") { _ in nil }
        case "total":
            edit("Content-Range") { value in
                guard let slash = value.lastIndex(of: "/"), let total = Int64(value[value.index(after: slash)...]) else { return value }
                return value[...slash] + String(total + 1)
            }
        case "start":
            edit("Content-Range") { value in
                let parts = value.dropFirst(6).split(separator: "-", maxSplits: 1)
                guard parts.count == 2, let start = Int64(parts[0]) else { return value }
                return "bytes \(start + 1000)-" + parts[1]
            }
        default: break
        }
    }

    static func seed(name: String, version: Int) -> UInt64 {
        UInt64(truncatingIfNeeded: name.utf8.reduce(UInt64(5381)) { ($0 << 5) &+ $0 &+ UInt64($1) }) &+ UInt64(version) &* 7919
    }

    /// A 200, 206 or 416 for `source` (``ServerResponse/ranged(_:source:etag:lastModified:ignoreRanges:type:)``).
    /// `digest=repr,repr512,content,gcs`: the digests of the bytes `source` serves (or of the pattern
    /// `digestOf`), as `Repr-Digest` (sha-256, sha-512), `Content-Digest`, `x-goog-hash`.
    static func addDigests(_ query: [String: String], of source: any ServerBodySource, to response: inout ServerResponse) {
        let size = source.length
        if let kinds = query["digest"] {
            // Of the bytes this answer serves (slots included), or of `digestOf`'s pattern.
            let of: any ServerBodySource = query["digestOf"].flatMap(UInt64.init).map { PatternSource(seed: $0, length: size) } ?? source
            func b64(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }
            for kind in kinds.split(separator: ",") {
                switch kind {
                case "repr": response.headers.append(("Repr-Digest", "sha-256=:\(b64(digest(of, SHA256.self))):"))
                case "repr512": response.headers.append(("Repr-Digest", "sha-512=:\(b64(digest(of, SHA512.self))):"))
                case "content": response.headers.append(("Content-Digest", "sha-256=:\(b64(digest(of, SHA256.self))):"))
                case "gcs": response.headers.append(("x-goog-hash", "crc32c=n03x6A==,md5=\(b64(digest(of, Insecure.MD5.self)))"))
                default: break
                }
            }
        }
    }

    /// The digest of all of `source` by `hash`.
    static func digest<H: HashFunction>(_ source: any ServerBodySource, _ hash: H.Type) -> [UInt8] {
        if let pattern = source as? PatternSource { return pattern.digest(using: hash) }
        var hasher = H()
        var offset: Int64 = 0
        while offset < source.length {
            let count = Int(min(1 << 20, source.length - offset))
            var buffer = ByteBuffer()
            source.write(into: &buffer, offset: offset, count: count)
            buffer.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
            offset += Int64(count)
        }
        return Array(hasher.finalize())
    }

    static func ranged(
        _ request: ServerRequest, source: any ServerBodySource, etag: String?, lastModified: String?,
        ignoreRanges: Bool, type: String
    ) -> ServerResponse {
        ServerResponse.ranged(request, source: source, etag: etag, lastModified: lastModified, ignoreRanges: ignoreRanges, type: type)
    }

    /// Applies the fault options of the query to `response`.
    static func apply(_ query: [String: String], to response: inout ServerResponse, request: ServerRequest, state: TestServer.State) {
        if query["thenPage"] == "1", !state.first("thenPage " + request.path) {
            // After the first request: a login page, sent with 200.
            response = .text(200, "<!DOCTYPE html><html><body>Please sign in</body></html>\n", headers: [("Content-Type", "text/html")])
            return
        }
        if query["chunked"] == "1" { response.chunked = true }
        if let encoding = query["encoding"] { response.headers.append(("Content-Encoding", encoding)) }
        if let rate = query["rate"].flatMap(Int.init), query["rateFirst"] != "1" || state.first("rateFirst " + request.uri) {
            response.bytesPerSecond = rate
        }
        if let drop = query["drop"].flatMap(Int64.init) { response.dropAfter = drop }
        if let drop = query["dropFirst"].flatMap(Int64.init), state.first("dropFirst " + request.uri) {
            response.dropAfter = drop
        }
        if let lie = query["lie"].flatMap(Int64.init) { response.announcedLength = lie }
        if let delay = query["headDelay"].flatMap(Double.init) { response.headDelay = delay }
        let stallFirst = query["stallFirst"].flatMap { state.first("stallFirst " + request.uri) ? $0 : nil }
        if let stall = query["stall"] ?? stallFirst {
            let p = stall.split(separator: ":")
            if p.count == 2, let after = Int64(p[0]), let seconds = Double(p[1]) {
                response.stall = .init(afterBytes: after, seconds: seconds)
            }
        }
    }

    static func redirect(to location: String) -> ServerResponse {
        .text(302, "moved\n", headers: [("Location", location)])
    }

    static func httpDate(seconds: Int) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }
}
