/// An element's namespace and local name as two small enums, made once per name a parse meets
/// (``FeedXMLReader`` keys them by libxml2's interned pointers), so that ``FeedBuilder`` matches an
/// element by comparing integers, not namespace URIs of 40 bytes.
struct FeedTag: Equatable, Sendable {
    /// The namespaces ``FeedBuilder`` tells apart; every other one is `.other`.
    enum Namespace: UInt8, Sendable {
        case none, rss1, atom, itunes, googlePlay, media, content, dublinCore, rdf, xml, other
        /// Podcasting 2.0 (`podcast:`), under its address and its first drafts' alike.
        case podcast

        init(_ uri: String) {
            switch uri {
            case "": self = .none
            case FeedNamespace.rss1: self = .rss1
            case FeedNamespace.atom: self = .atom
            case FeedNamespace.itunes: self = .itunes
            case FeedNamespace.googlePlay: self = .googlePlay
            case FeedNamespace.media: self = .media
            case FeedNamespace.content: self = .content
            case FeedNamespace.dublinCore: self = .dublinCore
            case FeedNamespace.rdf: self = .rdf
            case FeedNamespace.xml: self = .xml
            case FeedNamespace.podcast, FeedNamespace.podcastDraft: self = .podcast
            default: self = .other
            }
        }
    }

    /// The local names ``FeedBuilder`` reads (case-sensitive, as XML is); every other one is `.other`.
    enum Name: String, Sendable {
        case rss, channel, item, entry, feed, RDF, image, textinput, textInput, source, author, enclosure, link
        case content, hash, alternateEnclosure, transcript, chapters, integrity, title, guid, id, pubDate, date
        case published, updated, description, summary, encoded, duration, episode, season, creator, name
        case managingEditor, subtitle, logo, icon
        case newFeedURL = "new-feed-url"
        case other = ""

        init(_ local: String) { self = Name(rawValue: local) ?? .other }
    }

    var ns: Namespace
    var name: Name

    /// RSS 2.0 (no namespace) or RSS 1.0.
    var isRSS: Bool { ns == .none || ns == .rss1 }
    var isAtom: Bool { ns == .atom }
}
