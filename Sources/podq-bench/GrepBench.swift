import Foundation
import PodqCore
import PodqServer
import PodqTestSupport

/// `podq-bench grep [--episodes N] [--transcripts N] [--words N]` (issue 46): `podq grep` at scale. A
/// home of `episodes` episodes (50 podcasts), `transcripts` of them with a generated VTT transcript of
/// about `words` words (a vocabulary of 30,000 words drawn by Zipf's law, as speech is, in cues of about
/// 12 words), indexed through the store as `podq reindex` does. Then: how long the index took, what it
/// costs on disk against the transcripts' VTT text, and `podq grep` through the binary (spawn to exit,
/// median of 7) for a rare phrase, a middling word, a common word, the commonest, and phrases that hold it.
enum GrepBench {
    static func run(_ arguments: [String]) throws {
        func value(_ name: String) -> Int? {
            arguments.firstIndex(of: name).flatMap { arguments.indices.contains($0 + 1) ? Int(arguments[$0 + 1]) : nil }
        }
        let episodes = value("--episodes") ?? 100_000
        let transcripts = value("--transcripts") ?? 5_000
        let words = value("--words") ?? 12_000
        let podcasts = 50
        let dir = TemporaryDirectory("podq-bench-grep")
        let keep = ProcessInfo.processInfo.environment["PODQ_BENCH_KEEP"] != nil
        defer { if keep { print("grep: kept \(dir.path)") } else { dir.remove() } }
        let home = dir.file("home")
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        var store: QueueStore! = try QueueStore(path: PodqPaths(home: home, downloadDir: nil).database)

        // The library: podcasts of episodes, newest first, stored through the store's own merge.
        var ids: [Int64] = []
        let perPodcast = max(1, episodes / podcasts)
        for p in 0..<podcasts {
            let feed = Feed(
                title: "Show \(p)",
                episodes: (0..<perPodcast).map { i in
                    FeedEpisode(
                        guid: "s\(p)-e\(i)", title: "Episode \(i) of show \(p)",
                        published: Date(timeIntervalSince1970: 1_790_000_000 - Double(i * 86_400 + p * 600)),
                        enclosures: [Enclosure(url: "https://bench.example/\(p)/\(i).mp3")])
                })
            ids += try store.library.addPodcast(url: "https://bench.example/\(p).xml", feed: feed, etag: nil, lastModified: nil, autoQueue: false).episodes.map(
                \.id)
        }
        let before = fileSize(home + "/queue.sqlite")

        // The transcripts: Zipf-distributed words, a known rare phrase in 1 transcript of 500.
        var random = SeededGenerator(seed: 46)
        let vocabulary = (0..<30_000).map { word($0) }
        var cumulative: [Double] = []
        var total = 0.0
        for rank in 1...vocabulary.count {
            total += 1 / Double(rank)
            cumulative.append(total)
        }
        func draw() -> String {
            let x = Double.random(in: 0..<total, using: &random)
            var low = 0, high = cumulative.count - 1
            while low < high {
                let mid = (low + high) / 2
                if cumulative[mid] < x { low = mid + 1 } else { high = mid }
            }
            return vocabulary[low]
        }
        var vttBytes = 0
        var textBytes = 0
        var wordCount = 0
        let started = Date()
        let step = max(1, ids.count / transcripts)
        for n in 0..<transcripts {
            let episode = ids[(n * step) % ids.count]
            var vtt = "WEBVTT\n\n"
            var at = 0.0
            var said = 0
            while said < words {
                var cue = (0..<12).map { _ in draw() }
                if n % 500 == 7 && said == words / 24 * 12 { cue[3...5] = ["quantum", "gardening", "tips"] }
                let end = at + 4.2
                vtt += "\(CueTime.text(at)).000 --> \(CueTime.text(end)).200\n" + cue.joined(separator: " ") + "\n\n"
                at = end
                said += cue.count
            }
            vttBytes += vtt.utf8.count
            wordCount += said
            let document = try TranscriptReader.read(Array(vtt.utf8), format: .vtt)
            textBytes += document.cues.reduce(0) { $0 + $1.text.utf8.count + 1 }
            try store.library.saveTranscript(episodeId: episode, source: "/bench/\(episode).vtt", document: document, body: nil)
        }
        let indexing = Date().timeIntervalSince(started)
        // The store closed (its last connection folds the WAL into the file), then the file's size.
        store = nil
        let after = fileSize(home + "/queue.sqlite") + fileSize(home + "/queue.sqlite-wal")
        let indexBytes = after - before
        print(
            String(
                format:
                    "grep: %d episodes, %d transcripts, %.1f M words, %.1f MB of VTT (%.1f MB of words); indexed in %.1f s; the index %.1f MB = %.2fx the VTT (goal ≤ 1.5x)",
                ids.count, transcripts, Double(wordCount) / 1e6, Double(vttBytes) / 1e6, Double(textBytes) / 1e6, indexing, Double(indexBytes) / 1e6,
                Double(indexBytes) / Double(vttBytes)))

        for (name, query) in [
            ("a rare phrase", ["quantum", "gardening", "tips"]), ("a middling word", [vocabulary[2_000]]),
            ("a common word", [vocabulary[100]]), ("the commonest word", [vocabulary[0]]),
            // A phrase holding the commonest word ("the climate") reads that word's list too.
            ("a phrase with the commonest word", [vocabulary[0], vocabulary[2_000]]),
            ("the two commonest words as a phrase", [vocabulary[0], vocabulary[1]]),
        ] {
            var times: [Double] = []
            var hits = 0
            for _ in 0..<7 {
                let t0 = Date()
                let child = try ChildProcess(
                    executable: ChildProcess.podqExecutable, arguments: ["grep", "--home", home, "--json"] + query, environment: [:], directory: dir.path)
                let exit = child.wait(timeout: 120)
                times.append(Date().timeIntervalSince(t0) * 1000)
                hits = (try? JSONSerialization.jsonObject(with: Data(child.standardOutput.utf8)) as? [Any])?.count ?? -1
                if exit.code != 0 && exit.code != 1 { throw BenchError.mismatch("grep: exit \(exit.code ?? -1): \(child.standardError)") }
            }
            times.sort()
            print(
                String(
                    format: "grep: target %@ (%@) ≤ 100 ms: median %.0f ms (min %.0f), %d hits shown, %@", name, query.joined(separator: " "), times[3],
                    times[0], hits,
                    times[3] <= 100 ? "met" : "NOT MET"))
        }
    }

    /// The `n`th word of the vocabulary: letters only, 3 to 9 of them.
    static func word(_ n: Int) -> String {
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        var value = n + 700
        var out = ""
        while value > 0 {
            out.append(letters[value % 26])
            value /= 26
        }
        return out + (n % 3 == 0 ? "ing" : n % 3 == 1 ? "er" : "")
    }

    static func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }
}
