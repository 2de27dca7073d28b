import ArgumentParser
import FoundationEssentials
import Glibc
import PodqBase
import PodqCore
import PodqHTTP
import PodqSession

/// `podq import <file.opml>`: subscribe to every feed of an OPML file (nested outlines included).
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import", abstract: "Subscribe to the feeds of an OPML file (a path or an http(s) URL).",
        discussion: "A feed that cannot be fetched is still subscribed (with the error shown by `podq feeds`), so nothing is lost.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "An OPML file, or its http(s) URL.", completion: .file(extensions: ["opml", "xml"])) var file: String

    /// The most an OPML file fetched from a URL may weigh.
    static let urlLimit: Int64 = 20_000_000

    func run() async throws {
        let context = try QueueContext.open(global)
        let contents: OPML.Contents
        if case .url(let address) = try? FeedSource.resolve(file), !FileManager.default.fileExists(atPath: file) {
            contents = try await Self.fetch(address, context: context)
        } else {
            do { contents = try OPML.read(file: file) } catch { throw CommandError(error) }
        }
        let outlines = contents.outlines
        if !contents.repairs.isEmpty { Console.error("read \(file) with repairs: \(contents.repairs.summary)") }
        if contents.skipped > 0 { Console.error("skipped \(contents.skipped) outlines whose xmlUrl is not an http(s) URL") }
        // The feeds subscribed to, read once: each outline is then one look-up, not a read of every
        // podcast (10,000 outlines took 256 s that way, and grew as the square).
        var known: Set<String>
        do { known = await Set(try context.store.library.podcastURLs()) } catch { throw CommandError(error) }
        let added = try await HTTPSession.with(settings: context.settings, logger: context.log) { transport in
            let refresher = FeedRefresh(context: context, transport: transport)
            var added = 0
            for outline in outlines {
                guard known.insert(outline.url).inserted else {
                    Console.out("already subscribed: \(SafeText.clean(outline.url))")
                    continue
                }
                do {
                    let outcome = try await refresher.subscribe(outline.url, autoQueue: false, fallbackTitle: outline.title, keepOnFailure: true)
                    if outcome.failed { Console.error(outcome.line) } else { Console.out(outcome.line) }
                    added += 1
                } catch let error as CommandError {
                    // One outline that cannot be added (its feed, reached through a redirect, is one
                    // already subscribed to) does not stop the others.
                    Console.error("\(SafeText.clean(outline.url)): \(error.message)")
                }
            }
            return added
        }
        Console.out("\(added) of \(Counted.of(outlines.count, "feed")) imported")
    }
}

extension ImportCommand {
    /// The OPML at `address`, fetched (20 MB at most) into a temporary file in `$TMPDIR` and read.
    static func fetch(_ address: String, context: QueueContext) async throws -> OPML.Contents {
        guard let url = URL(string: address) else { throw CommandError("'\(SafeText.clean(address))' is not a URL.", code: ExitCodes.usage) }
        let bytes = try await HTTPSession.with(settings: context.settings, logger: context.log) { transport in
            do {
                return try await SmallFetch.get(url, transport: transport, limit: urlLimit).bytes
            } catch let error as SmallFetch.TooLarge {
                throw CommandError("\(SafeText.clean(address)): \(ErrorText.describe(error))", code: ExitCodes.failure)
            } catch {
                throw CommandError(FeedError.fetch(error as? DownloadError ?? .network(String(describing: error)), url: address))
            }
        }
        // A new file of our own in $TMPDIR, as a fetched feed's (O_EXCL, no link followed), read, then gone.
        let temporary = LexicalPath.join(LexicalPath.temporaryFolder, "podq-opml-\(UUID().uuidString).opml")
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw CommandError("cannot write \(temporary) to read the OPML: \(String(cString: strerror(errno)))", code: ExitCodes.failure) }
        defer { unlink(temporary) }
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                close(fd)
                throw CommandError("cannot write \(temporary) to read the OPML: \(String(cString: strerror(errno)))", code: ExitCodes.failure)
            }
            written += n
        }
        close(fd)
        do { return try OPML.read(file: temporary) } catch { throw CommandError(error) }
    }
}

/// `podq export`: the subscriptions as OPML 2.0 on standard output.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "export", abstract: "Print the subscriptions as OPML 2.0.")
    @OptionGroup var global: GlobalOptions

    func run() throws {
        let context = try QueueContext.open(global)
        do { Console.out(OPML.write(try context.store.library.podcasts().map { ($0.title, $0.url, $0.link) })) } catch { throw CommandError(error) }
    }
}
