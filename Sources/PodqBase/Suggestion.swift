/// "Did you mean …?": the nearest of a list of words, by edit distance.
public enum Suggestion {
    /// The candidate nearest to `word` (case-insensitive), when it is close enough to be a typo:
    /// at most a third of the word's length in edits (at least one; two for words of six letters or
    /// more). Ties go to the earlier candidate.
    public static func nearest(to word: String, in candidates: [String]) -> String? {
        let lowered = Array(word.lowercased())
        let allowed = max(1, min(lowered.count / 3, 3))
        var best: (String, Int)?
        for candidate in candidates {
            let distance = editDistance(lowered, Array(candidate.lowercased()))
            if distance <= allowed, distance < (best?.1 ?? .max) { best = (candidate, distance) }
        }
        return best?.0
    }

    /// Levenshtein distance with adjacent transpositions counted as one edit (`dowload`, `jbos`).
    public static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { current[j] = min(current[j], previous2[j - 2] + 1) }
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }
}
