import ArgumentParser
import PodqBase
import PodqCore
import PodqSession
import PodqUI

/// `podq set <podcast> [key=value...]`: one podcast's own rules (issue 18, point 5).
struct SetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Show or change one podcast's own settings.",
        discussion: """
            A podcast follows the config file in everything until it is given its own value: \
            `podq set "Tech Talk" keep=5 exclude="trailer|bonus"`. An empty value (`keep=`) puts one back \
            to the config's. Without key=value, the podcast's settings are listed. Keys:
            """ + "\n" + PodcastSettings.keys.map { "  \($0.key): \($0.help)" }.joined(separator: "\n")
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The podcast: its id, title or feed URL.", completion: PodcastCompletion.podcasts)
    var podcast: String

    @Argument(help: "key=value pairs (see above).")
    var pairs: [String] = []

    func validate() throws {
        for pair in pairs where !pair.contains("=") {
            throw ValidationError("'\(pair)' is not key=value; the keys: \(PodcastSettings.keys.map(\.key).joined(separator: ", ")).")
        }
    }

    func run() async throws {
        let context = try QueueContext.open(global)
        let found: PodcastRecord
        do { found = try await IdArguments.podcast(podcast, in: context.store) } catch { throw CommandError(error) }
        let id = found.id
        var record = found
        var rules = found.rules
        var keys: Set<String> = []
        for pair in pairs {
            let key = String(pair.prefix { $0 != "=" }).trimmingASCIIWhitespace.lowercased()
            keys.insert(key)
            let value = String(pair.drop { $0 != "=" }.dropFirst())
            if key == "user-agent" {
                let agent = value.trimmingASCIIWhitespace
                record.userAgent = agent.isEmpty ? nil : SafeText.clean(agent)
                continue
            }
            do { try rules.set(key, value) } catch { throw CommandError("\(error)") }
        }
        if !pairs.isEmpty {
            let (finalRules, agent) = (rules, record.userAgent)
            do {
                record = try await context.store.library.updatePodcast(id: id) { p in
                    p.rules = finalRules
                    p.userAgent = agent
                    // `auto-queue=` puts the podcast back to what `add --auto` said; on/off override it.
                    if let on = finalRules.autoQueue { p.autoQueue = on }
                }
            } catch { throw CommandError(error) }
            context.log.info("podcast settings changed", metadata: ["podcast": "\(id)", "settings": "\(record.settings ?? "none")"])
        }
        let own = record.settingPairs
        Console.out(
            "\(ItemKind.podcast.label(id)) \(record.title): auto-queue \(record.autoQueues(config: context.settings.autoQueue) ? "on" : "off")"
                + (own.isEmpty ? "; everything else as the config says" : ""))
        for (key, value) in own where key != "auto-queue" { Console.out("  \(key) = \(value)") }
        // A rule that deletes files says what it would delete, before any run does.
        if !keys.isDisjoint(with: ["keep", "size-budget", "serial", "cleanup-unplayed"]) {
            let preview: Cleanup.Report
            do {
                preview = try await Cleanup.run(
                    store: context.store, downloadFolder: context.paths.downloadFolder, policy: context.settings.cleanup,
                    dryRun: true, podcast: id)
            } catch { throw CommandError(error) }
            var line =
                "  cleanup by these rules: \(preview.removed.count) played episode file\(preview.removed.count == 1 ? "" : "s") "
                + "(\(Format.bytes(preview.bytes))) would be deleted"
            if preview.keptUnplayed > 0 {
                line += "; \(preview.keptUnplayed) not yet played \(preview.keptUnplayed == 1 ? "is" : "are") kept (cleanup-unplayed=on deletes them too)"
            }
            Console.out(line + (preview.removed.isEmpty ? "" : ". `podq cleanup --dry-run` lists them; `podq cleanup` deletes them"))
        }
    }
}
