import ArgumentParser

/// Options every command accepts.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The folder for podq's database, config and lock (default: $PODQ_HOME, else ~/.local/share/podq).", valueName: "dir"))
    var home: String?
}
