/// The three views of the TUI, in Tab order.
public enum TUIView: Int, CaseIterable, Sendable, Hashable {
    case downloads, episodes, podcasts

    /// The tab's label.
    public var title: String {
        switch self {
        case .downloads: "Downloads"
        case .episodes: "Episodes"
        case .podcasts: "Podcasts"
        }
    }

    /// The next view (Tab).
    public var next: TUIView { TUIView(rawValue: (rawValue + 1) % TUIView.allCases.count)! }
}
