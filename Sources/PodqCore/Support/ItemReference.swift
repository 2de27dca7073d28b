/// What a number podq prints names: a podcast (`p3`), an episode (`e12`) or a download (`d7`). Three
/// tables number their rows apart, so a bare `13` could be any of them; podq prints every id with its
/// letter, and every command that takes one reads the letter (and, without one, the kind its help
/// names: the one it always took).
public enum ItemKind: String, Sendable, CaseIterable {
    case podcast = "p"
    case episode = "e"
    case download = "d"

    /// "podcast", "episode", "download".
    public var noun: String {
        switch self {
        case .podcast: "podcast"
        case .episode: "episode"
        case .download: "download"
        }
    }

    /// The id as podq prints it: `e12`.
    public func label(_ id: Int64) -> String { rawValue + String(id) }
}

/// An id as a person typed it: `e12`, `d7`, `p3` (also `#e12`, `E12`), or a bare `12` whose kind the
/// command decides.
public struct ItemReference: Hashable, Sendable, CustomStringConvertible {
    /// nil for a bare number.
    public var kind: ItemKind?
    public var id: Int64

    public init(_ kind: ItemKind?, _ id: Int64) {
        self.kind = kind
        self.id = id
    }

    /// Reads `text` as an id; nil when it is not one (a title, a URL).
    public init?(_ text: String) {
        var rest = Substring(text)
        if rest.first == "#" { rest = rest.dropFirst() }
        var kind: ItemKind?
        if let first = rest.first, let found = ItemKind(rawValue: first.lowercased()) {
            kind = found
            rest = rest.dropFirst()
        }
        // Digits only (no sign, no space): "e-1" and "1e3" are not ids.
        guard !rest.isEmpty, rest.count <= 18, rest.allSatisfy({ $0.isASCII && $0.isNumber }), let id = Int64(rest) else { return nil }
        self.kind = kind
        self.id = id
    }

    /// The kind, or `bare` for a bare number.
    public func kind(or bare: ItemKind) -> ItemKind { kind ?? bare }

    /// As podq prints it (`e12`), or the bare number.
    public var description: String { kind.map { $0.label(id) } ?? String(id) }
}
