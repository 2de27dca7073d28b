import FoundationEssentials
import Glibc
import PodqBase
import PodqCore
import PodqHTTP

/// The one place a search of the podcast directories is assembled from the config, for `podq search`
/// and the TUI's `a`: the directories `search-providers` names at their `search-*-url`, Podcast Index's
/// key, and a deadline of at most 8 s for each (less when `fetch-timeout` is shorter).
package enum DirectoryLookup {
    /// The longest one directory may take.
    package static let deadline: Double = 8

    /// Asks the configured directories for `words`.
    package static func search(_ words: String, settings: Settings, transport: any HTTPTransport, limit: Int = 20) async -> DirectorySearch.Answer {
        let seconds = min(deadline, settings.fetchTimeout)
        let search = DirectorySearch(
            sources: settings.directorySources, key: settings.podcastIndex, deadline: .milliseconds(Int(seconds * 1000)), limit: limit,
            transport: transport)
        return await search.run(words)
    }

    /// Words a person typed where a feed goes: not a URL, not a path, not a file that exists. Nil when
    /// `text` is an address or a file; else the words, for "did you mean `podq search …`".
    package static func words(in text: String) -> String? {
        let trimmed = text.trimmingWhitespace
        guard !trimmed.isEmpty, !trimmed.contains("/"), !trimmed.contains("\\"), !trimmed.hasPrefix("~"), !trimmed.hasPrefix("."),
            !FileManager.default.fileExists(atPath: LexicalPath.expandingTilde(trimmed))
        else { return nil }
        // `example.org`, `feeds.example.org:8080`: a host name, not words.
        if !trimmed.contains(" "), trimmed.contains("."), FeedSource.schemelessURL(trimmed) != nil { return nil }
        if trimmed.lowercased().hasSuffix(".xml") || trimmed.lowercased().hasSuffix(".rss") || trimmed.lowercased().hasSuffix(".opml") { return nil }
        return trimmed
    }

    /// The line for directories that gave nothing: "iTunes did not answer within 8 s".
    package static func failureLine(_ failures: [DirectoryError]) -> String {
        failures.map { failure in
            var text = SafeText.clean(ErrorText.describe(failure)).trimmingSpaces
            while text.hasSuffix(".") { text.removeLast() }
            return text
        }.joined(separator: "; ")
    }

    /// `words` as a shell would need them after `podq search`: quoted when they hold anything but
    /// letters, digits and spaces.
    package static func shellWords(_ words: String) -> String {
        let plain = words.allSatisfy { $0.isLetter || $0.isNumber || $0 == " " || $0 == "-" }
        return plain ? words : "'" + words.replacingEvery("'", with: "'\\''") + "'"
    }
}
