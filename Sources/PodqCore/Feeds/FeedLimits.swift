/// The caps a feed must stay under (docs/FEEDS.md). Past any of them the feed is refused with a
/// ``FeedError`` that names the cap: a feed that big is either hostile or broken, and a partial read
/// would pass for the whole.
public struct FeedLimits: Sendable, Equatable {
    /// The file's size in bytes (`feed-size-limit` in the config).
    public var fileSize: Int64
    /// Text beyond the file's own size that entity expansion may add, in bytes. Without entities a
    /// feed's text is never longer than the file; a few declared entities add little. One large
    /// entity referenced many times (quadratic expansion) stops here, long before memory runs out.
    public var expansion: Int64
    /// The text of one element (a title, a description), in bytes.
    public var fieldBytes: Int
    /// Items in one feed.
    public var items: Int

    public init(fileSize: Int64 = 50_000_000, expansion: Int64 = 16 << 20, fieldBytes: Int = 4 << 20, items: Int = 100_000) {
        self.fileSize = fileSize
        self.expansion = expansion
        self.fieldBytes = fieldBytes
        self.items = items
    }

    /// The defaults.
    public static let standard = FeedLimits()
}
