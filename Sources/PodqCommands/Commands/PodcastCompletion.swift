import ArgumentParser
import FoundationEssentials
import Glibc
import PodqBase
import PodqCore
import PodqSession

/// Shell completion of what the shell cannot know: the podcasts' titles (for `set`, `refresh`,
/// `episodes`, `remove`, `login`…), read from the store of the home the command line names (`--home`,
/// else `PODQ_HOME`, else the default), without creating one. Files and folders are the shell's own.
enum PodcastCompletion {
    /// The completion of a `<podcast>` argument.
    static let podcasts = CompletionKind.custom { words, _, prefix in titles(words: words, prefix: prefix) }

    /// The titles that start with `prefix` (case ignored; none typed: all), each once, sorted.
    static func titles(words: [String], prefix: String) -> [String] {
        var home: String?
        for (i, word) in words.enumerated() {
            if word == "--home", i + 1 < words.count { home = words[i + 1] }
            if word.hasPrefix("--home=") { home = String(word.dropFirst("--home=".count)) }
        }
        let paths = PodqPaths(home: home, downloadDir: nil)
        guard FileManager.default.fileExists(atPath: paths.database), let store = try? QueueStore(path: paths.database),
            let podcasts = try? store.library.podcasts()
        else { return [] }
        let typed = unquoted(prefix).lowercased()
        let titles = podcasts.map { SafeText.clean($0.title) }.filter { !$0.isEmpty && $0.lowercased().hasPrefix(typed) }
        return Array(Set(titles)).sorted()
    }

    /// The word as the shell hands it over, as typed: `Tech\ W` (a space escaped) or `"Tech W` (an
    /// open quote) both mean `Tech W`. Without this, a title stopped completing at its first space.
    static func unquoted(_ word: String) -> String {
        var text = Substring(word)
        if let first = text.first, first == "'" || first == "\"" { text = text.dropFirst() }
        var out = ""
        var escaped = false
        for character in text {
            if !escaped && character == "\\" {
                escaped = true
                continue
            }
            escaped = false
            out.append(character)
        }
        return out
    }
}
