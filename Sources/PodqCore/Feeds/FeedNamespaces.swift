/// The namespaces the feed parser understands.
enum FeedNamespace {
    static let itunes = "http://www.itunes.com/dtds/podcast-1.0.dtd"
    static let media = "http://search.yahoo.com/mrss/"
    static let content = "http://purl.org/rss/1.0/modules/content/"
    static let atom = "http://www.w3.org/2005/Atom"
    static let rss1 = "http://purl.org/rss/1.0/"
    static let rdf = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
    static let dublinCore = "http://purl.org/dc/elements/1.1/"
    /// The `xml:` prefix's namespace (`xml:base`).
    static let xml = "http://www.w3.org/XML/1998/namespace"
    static let googlePlay = "http://www.google.com/schemas/play-podcasts/1.0"
    /// Podcasting 2.0 (`podcast:`), and the address its first drafts used.
    static let podcast = "https://podcastindex.org/namespace/1.0"
    static let podcastDraft = "https://github.com/Podcastindex-org/podcast-namespace/blob/main/docs/1.0.md"
}
