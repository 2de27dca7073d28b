@_spi(_Unicode) import Swift

/// Text as search and sorting compare it: case and accents ignored, as Foundation's
/// `folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)` did, on the standard
/// library's own Unicode tables (its canonical decomposition, `_nfd`, and case mappings) instead of
/// ICU's: FoundationEssentials has no folding (docs/DECISIONS.md, "FoundationEssentials only").
///
/// The text is decomposed (NFD), its accents dropped ("Été" → "Ete", "İ" → "I"; ``isDiacritic(_:on:)``
/// says which marks are accents), case folded
/// (lower-cased, with the full foldings lower-casing misses: ß and ẞ → ss, final ς → σ, long ſ → s,
/// the Latin ligatures ﬀ…ﬆ spelled out), then composed again (NFC).
public enum TextFold {
    public static func fold(_ text: some StringProtocol) -> String {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text.lowercased() }
        var out = String.UnicodeScalarView()
        var base: Unicode.Scalar?
        for scalar in String(text)._nfd {
            switch scalar.properties.generalCategory {
            case .nonspacingMark, .enclosingMark:
                // A mark that begins the text stands for its base, as in Foundation.
                guard let base else {
                    base = scalar
                    out.append(scalar)
                    continue
                }
                if isDiacritic(scalar, on: base) { continue }
                out.append(scalar)
                continue
            default: base = scalar
            }
            switch scalar.value {
            case 0xDF, 0x1E9E: out.append(contentsOf: "ss".unicodeScalars)
            case 0x3C2: out.append("\u{3C3}")
            case 0x17F: out.append("s")
            case 0xFB00: out.append(contentsOf: "ff".unicodeScalars)
            case 0xFB01: out.append(contentsOf: "fi".unicodeScalars)
            case 0xFB02: out.append(contentsOf: "fl".unicodeScalars)
            case 0xFB03: out.append(contentsOf: "ffi".unicodeScalars)
            case 0xFB04: out.append(contentsOf: "ffl".unicodeScalars)
            case 0xFB05, 0xFB06: out.append(contentsOf: "st".unicodeScalars)
            default:
                if scalar.properties.changesWhenLowercased {
                    out.append(contentsOf: scalar.properties.lowercaseMapping.unicodeScalars)
                } else {
                    out.append(scalar)
                }
            }
        }
        // Composed again (NFC): what is left of "한" or "が" compares as the user typed it.
        return String(String.UnicodeScalarView(String(out)._nfc))
    }

    /// Whether `mark` on `base` is an accent to ignore, as Foundation's folding decides: the combining
    /// diacritical marks (U+0300 to U+036F) on any letter, and every mark on the Latin, Greek and
    /// Cyrillic letters (below U+0530, and U+1E00 to U+1FFF). The marks of other scripts are part of
    /// their letters there (Devanagari's virama, the kana's voicing marks, Hebrew's points) and stay.
    static func isDiacritic(_ mark: Unicode.Scalar, on base: Unicode.Scalar) -> Bool {
        (0x300...0x36F).contains(mark.value) || base.value < 0x530 || (0x1E00...0x1FFF).contains(base.value)
    }
}

/// The order of titles in a list as a person reads one (what `localizedStandardCompare` gave):
/// case and accents ignored first (`TextFold`), runs of digits compared as numbers ("Episode 9"
/// before "Episode 10"), spaces and punctuation before digits before letters, æ as ae and the other
/// letters ICU's root order reads as others (``primaryLetters(_:)``); texts equal so far
/// are ordered by their accents, then their case, then their scalars, so the order is total.
public enum TextOrder {
    /// True when `a` goes before `b`.
    public static func precedes(_ a: some StringProtocol, _ b: some StringProtocol) -> Bool {
        compare(a, b) < 0
    }

    /// Negative, zero or positive as `a` goes before, with or after `b`.
    public static func compare(_ a: some StringProtocol, _ b: some StringProtocol) -> Int {
        Key(a).compare(Key(b))
    }

    /// What a text is sorted by, worked out once: sorting a list makes each text's key once instead of
    /// at every comparison (a title is compared about log₂(n) times).
    public struct Key: Comparable, Sendable {
        let letters: [Unicode.Scalar]
        let lowered: [Unicode.Scalar]
        let scalars: [Unicode.Scalar]

        public init(_ text: some StringProtocol) {
            letters = primaryLetters(text)
            lowered = Array(String(text).lowercased().unicodeScalars)
            scalars = Array(text.unicodeScalars)
        }

        /// Negative, zero or positive as `self` goes before, with or after `other`.
        public func compare(_ other: Key) -> Int {
            let primary = compareFolded(letters, other.letters)
            if primary != 0 { return primary }
            // Accents, then case, then the scalars themselves.
            if lowered != other.lowered { return lowered.lexicographicallyPrecedes(other.lowered, by: { $0.value < $1.value }) ? -1 : 1 }
            if scalars == other.scalars { return 0 }
            // Lower case before upper case, as ICU's tertiary strength orders them.
            return scalars.lexicographicallyPrecedes(other.scalars, by: { $0.value > $1.value }) ? -1 : 1
        }

        public static func < (a: Key, b: Key) -> Bool { a.compare(b) < 0 }
        public static func == (a: Key, b: Key) -> Bool { a.scalars == b.scalars }
    }

    /// `items` in the order of their texts, stable: items of the same text keep their order.
    public static func sorted<T>(_ items: [T], by text: (T) -> String) -> [T] {
        let keys = items.map { Key(text($0)) }
        return items.indices.sorted { (i, j) in
            let order = keys[i].compare(keys[j])
            return order == 0 ? i < j : order < 0
        }.map { items[$0] }
    }

    /// The folded text with the letters that collation reads as others (as ICU's root order does):
    /// æ as ae, œ as oe, ǆ as dz, ĳ as ij, and the letters with a stroke (ø, ł, đ, ħ)
    /// as their base letter.
    static func primaryLetters(_ text: some StringProtocol) -> [Unicode.Scalar] {
        var out: [Unicode.Scalar] = []
        for scalar in TextFold.fold(text).unicodeScalars {
            switch scalar {
            case "æ": out += ["a", "e"]
            case "œ": out += ["o", "e"]
            case "ǆ", "ǅ": out += ["d", "z"]
            case "ǉ", "ǈ": out += ["l", "j"]
            case "ǌ", "ǋ": out += ["n", "j"]
            case "ĳ": out += ["i", "j"]
            case "ø": out.append("o")
            case "ł": out.append("l")
            case "đ": out.append("d")
            case "ħ": out.append("h")
            default: out.append(scalar)
            }
        }
        return out
    }

    static func compareFolded(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        var i = 0
        var j = 0
        while i < a.count && j < b.count {
            if isDigit(a[i]) && isDigit(b[j]) {
                let startA = i
                let startB = j
                while i < a.count && isDigit(a[i]) { i += 1 }
                while j < b.count && isDigit(b[j]) { j += 1 }
                let digitsA = a[startA..<i].drop(while: { $0 == "0" })
                let digitsB = b[startB..<j].drop(while: { $0 == "0" })
                if digitsA.count != digitsB.count { return digitsA.count < digitsB.count ? -1 : 1 }
                for (x, y) in zip(digitsA, digitsB) where x != y { return x.value < y.value ? -1 : 1 }
                continue
            }
            let x = a[i]
            let y = b[j]
            if x != y {
                let (classX, classY) = (rank(x), rank(y))
                if classX != classY { return classX < classY ? -1 : 1 }
                let (placeX, placeY) = (punctuationPlace(x), punctuationPlace(y))
                if placeX != placeY { return placeX < placeY ? -1 : 1 }
                return letterWeight(x) < letterWeight(y) ? -1 : 1
            }
            i += 1
            j += 1
        }
        if i < a.count { return 1 }
        if j < b.count { return -1 }
        return 0
    }

    /// ASCII punctuation and symbols in ICU's root order (`_` before `-` before `,` … before `$`);
    /// others after them, by code point.
    static func punctuationPlace(_ s: Unicode.Scalar) -> Int {
        punctuationOrder.firstIndex(of: s) ?? punctuationOrder.count
    }

    static let punctuationOrder = Array("_-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$".unicodeScalars)

    /// Where a letter goes: by code point, but the dotless ı right after i (before j), as ICU's root.
    static func letterWeight(_ s: Unicode.Scalar) -> Double {
        s == "ı" ? 0x69 + 0.5 : Double(s.value)
    }

    static func isDigit(_ s: Unicode.Scalar) -> Bool { s.value >= 0x30 && s.value <= 0x39 }

    /// Spaces, then punctuation and symbols, then digits, then letters and the rest.
    static func rank(_ s: Unicode.Scalar) -> Int {
        if isDigit(s) { return 2 }
        switch s.properties.generalCategory {
        case .spaceSeparator, .lineSeparator, .paragraphSeparator, .control: return 0
        case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation, .initialPunctuation,
            .finalPunctuation, .otherPunctuation, .mathSymbol, .currencySymbol, .modifierSymbol, .otherSymbol:
            return 1
        case .decimalNumber, .letterNumber, .otherNumber: return 2
        default: return 3
        }
    }
}
