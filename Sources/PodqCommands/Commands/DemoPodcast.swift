import FoundationEssentials
import Glibc
import NIOCore
import PodqBase
import PodqResources
import PodqServer

/// The bundled demo podcast (`Resources/demo/podcast.json`): its episodes are tones generated as WAV
/// files, served with a feed from an in-process server on 127.0.0.1.
struct DemoPodcast: Decodable, Sendable {
    struct Episode: Decodable, Sendable {
        var file: String
        var title: String
        var published: String
        var seconds: Int
        var hertz: Double
    }

    var title: String
    var description: String
    var bytesPerSecond: Int
    var episodes: [Episode]

    /// Loads the bundled description.
    static func load() throws -> DemoPodcast {
        guard let folder = PodqResources.demoFolder else {
            throw DemoError.missingResources
        }
        let data = try Data(contentsOf: folder.appendingPathComponent("podcast.json"))
        return try JSONDecoder().decode(DemoPodcast.self, from: data)
    }

    /// Starts a server for the feed (`/feed.xml`) and the episodes (`/episodes/<file>`), throttled to
    /// ``bytesPerSecond`` per download so the bars have something to show.
    func serve() async throws -> HTTPServer {
        let media = Dictionary(uniqueKeysWithValues: episodes.map { ($0.file, WAVTone(seconds: $0.seconds, hertz: $0.hertz)) })
        let podcast = self
        return try await HTTPServer.start { request in
            if request.path == "/feed.xml" {
                let base = "http://\(request.header("Host") ?? "127.0.0.1")"
                return .text(200, podcast.feedXML(base: base), headers: [("Content-Type", "application/rss+xml")])
            }
            let name = String(request.path.dropFirst("/episodes/".count))
            guard request.path.hasPrefix("/episodes/"), let tone = media[name] else {
                return .text(404, "not found\n")
            }
            // Ranges honoured, so a paused or interrupted episode resumes where it stopped.
            var response = ServerResponse.ranged(request, source: tone, etag: "\"\(name)\"", lastModified: nil, type: "audio/wav")
            response.bytesPerSecond = podcast.bytesPerSecond
            return response
        }
    }

    /// An RSS 2.0 feed of the episodes.
    func feedXML(base: String) -> String {
        let items = episodes.map { e in
            """
                <item><title>\(escape(e.title))</title><guid>\(e.file)</guid><pubDate>\(e.published)</pubDate>\
            <itunes:duration>\(e.seconds)</itunes:duration>\
            <enclosure url="\(base)/episodes/\(e.file)" type="audio/wav" length="\(44 + e.seconds * WAVTone.sampleRate * 2)"/></item>
            """
        }.joined(separator: "\n")
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel><title>\(escape(title))</title><description>\(escape(description))</description>
            \(items)
            </channel></rss>
            """
    }

    private func escape(_ s: String) -> String {
        s.replacingEvery("&", with: "&amp;").replacingEvery("<", with: "&lt;")
    }
}

enum DemoError: Error, LocalizedError {
    case missingResources
    var errorDescription: String? {
        "The demo's files are missing: podq looks for them in share/podq/demo beside its bin folder; reinstall podq (make install)."
    }
}

/// A sine tone as a 16 kHz, 16-bit mono WAV file, generated once in memory (a demo episode is ~2 MB).
struct WAVTone: ServerBodySource {
    static let sampleRate = 16_000
    let bytes: [UInt8]

    init(seconds: Int, hertz: Double) {
        let samples = seconds * Self.sampleRate
        var out: [UInt8] = []
        out.reserveCapacity(44 + samples * 2)
        func u32(_ v: Int) { out += withUnsafeBytes(of: UInt32(v).littleEndian, Array.init) }
        func u16(_ v: Int) { out += withUnsafeBytes(of: UInt16(v).littleEndian, Array.init) }
        out += Array("RIFF".utf8); u32(36 + samples * 2); out += Array("WAVE".utf8)
        out += Array("fmt ".utf8); u32(16); u16(1); u16(1); u32(Self.sampleRate); u32(Self.sampleRate * 2); u16(2); u16(16)
        out += Array("data".utf8); u32(samples * 2)
        for i in 0..<samples {
            let t = Double(i) / Double(Self.sampleRate)
            let fade = max(0, min(1, t * 4, (Double(seconds) - t) * 4))
            let bits = UInt16(bitPattern: Int16(sin(2 * .pi * hertz * t) * 9000 * fade))
            out.append(UInt8(bits & 0xFF))
            out.append(UInt8(bits >> 8))
        }
        bytes = out
    }

    var length: Int64 { Int64(bytes.count) }

    func write(into buffer: inout ByteBuffer, offset: Int64, count: Int) {
        buffer.writeBytes(bytes[Int(offset)..<Int(offset) + count])
    }
}
