/// What the detail pane (`i`) shows of the selected row: its full title, its facts, and the show notes
/// as plain text. Built by the session off the render path (the notes come from the store); until then
/// the pane shows the title with ``isLoading``.
public struct Detail: Sendable, Equatable {
    /// One line of facts: "Podcast", "Tech Talk". A field without a name goes on under the one before
    /// (a list: the chapters).
    public struct Field: Sendable, Equatable {
        public var name: String
        public var value: String
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The view and the id of the row it describes.
    public var view: TUIView
    public var id: Int64
    public var title: String
    public var fields: [Field]
    /// Paragraphs, already plain text (``PodqCore/ShowNotes``).
    public var notes: [String]
    public var isLoading: Bool

    public init(view: TUIView, id: Int64, title: String, fields: [Field] = [], notes: [String] = [], isLoading: Bool = false) {
        self.view = view
        self.id = id
        self.title = title
        self.fields = fields
        self.notes = notes
        self.isLoading = isLoading
    }

    /// The pane's lines at `width` cells: the title, the facts, then the notes, each wrapped.
    public func lines(width: Int) -> [(text: String, style: CellStyle)] {
        var out: [(String, CellStyle)] = DisplayWidth.wrap(title, to: width).map { ($0, .bold) }
        out.append(("", .normal))
        let nameWidth = min(14, (fields.map { DisplayWidth.of($0.name) }.max() ?? 0) + 1)
        for field in fields where !field.value.isEmpty {
            let wrapped = DisplayWidth.wrap(field.value, to: max(1, width - nameWidth - 1))
            for (i, part) in wrapped.enumerated() {
                out.append(
                    (
                        (i == 0 && !field.name.isEmpty ? DisplayWidth.pad(field.name + ":", to: nameWidth) : String(repeating: " ", count: nameWidth))
                            + " " + part,
                        i == 0 ? .normal : .normal
                    ))
            }
        }
        if isLoading {
            out.append(("", .normal))
            out.append(("loading…", .dim))
        } else if !notes.isEmpty {
            for paragraph in notes {
                out.append(("", .normal))
                out += DisplayWidth.wrap(paragraph, to: width).map { ($0, .normal) }
            }
        }
        return out
    }
}
