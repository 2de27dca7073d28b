import ArgumentParser

/// Options every command accepts.
struct GlobalOptions: ParsableArguments {
    @Option(
        name: .long, help: ArgumentHelp("The folder for podq's database, config and lock (default: $PODQ_HOME, else ~/.local/share/podq).", valueName: "dir"),
        completion: .directory)
    var home: String?

    @Flag(name: [.short, .long], help: "Show each request, response and event on standard error, and log debug lines to podq.log in the home.")
    var verbose = false
}
