import ArgumentParser
import Foundation
import PodqCore
#if canImport(FoundationXML)
import FoundationXML
#endif

/// `podq import <file.opml>`: subscribe to every feed of an OPML file (nested outlines included).
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "import", abstract: "Subscribe to the feeds of an OPML file.",
        discussion: "A feed that cannot be fetched is still subscribed (with the error shown by `podq feeds`), so nothing is lost.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "An OPML file.") var file: String

    func run() async throws {
        let context = try QueueContext.open(global)
        let outlines: [OPML.Outline]
        do { outlines = try OPML.read(file: file) } catch { throw CommandError(error) }
        let added = try await HTTPSession.with { transport in
            let refresher = FeedRefresh(context: context, transport: transport)
            var added = 0
            for outline in outlines {
                if (try? context.store.podcast(matching: outline.url)) != nil {
                    Console.out("already subscribed: \(outline.url)")
                    continue
                }
                let outcome = try await refresher.subscribe(outline.url, autoQueue: false, fallbackTitle: outline.title, keepOnFailure: true)
                if outcome.failed { Console.error(outcome.line) } else { Console.out(outcome.line) }
                added += 1
            }
            return added
        }
        Console.out("\(added) of \(outlines.count) feeds imported")
    }
}

/// `podq export`: the subscriptions as OPML 2.0 on standard output.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "export", abstract: "Print the subscriptions as OPML 2.0.")
    @OptionGroup var global: GlobalOptions

    func run() throws {
        let context = try QueueContext.open(global)
        do { Console.out(OPML.write(try context.store.podcasts())) } catch { throw CommandError(error) }
    }
}

/// OPML 2.0 subscription lists.
enum OPML {
    struct Outline: Equatable {
        var title: String
        var url: String
    }

    /// Every outline with an `xmlUrl`, at any depth, in document order.
    static func read(file: String) throws -> [Outline] {
        guard let stream = InputStream(fileAtPath: file) else { throw FeedError.unreadable(path: file, reason: "cannot open") }
        let parser = XMLParser(stream: stream)
        let delegate = Reader()
        parser.delegate = delegate
        if !parser.parse() || parser.parserError != nil {
            throw FeedError.malformed(line: parser.lineNumber, column: parser.columnNumber, reason: "not a valid OPML file")
        }
        return delegate.outlines
    }

    static func write(_ podcasts: [PodcastRecord]) -> String {
        func esc(_ s: String) -> String {
            s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
        }
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<opml version=\"2.0\">\n  <head><title>podq subscriptions</title></head>\n  <body>\n"
        for p in podcasts {
            out += "    <outline type=\"rss\" text=\"\(esc(p.title))\" title=\"\(esc(p.title))\" xmlUrl=\"\(esc(p.url))\""
            if let link = p.link { out += " htmlUrl=\"\(esc(link))\"" }
            out += "/>\n"
        }
        return out + "  </body>\n</opml>"
    }

    private final class Reader: NSObject, XMLParserDelegate {
        var outlines: [Outline] = []
        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            guard name == "outline", let url = attributes["xmlUrl"] ?? attributes["xmlurl"], !url.isEmpty else { return }
            outlines.append(Outline(title: SafeText.clean(attributes["title"] ?? attributes["text"] ?? ""), url: url.trimmingASCIIWhitespace))
        }
    }
}
