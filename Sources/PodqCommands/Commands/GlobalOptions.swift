import ArgumentParser

/// Options every command accepts.
struct GlobalOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The folder for podq's database, lock, log and config (default: $PODQ_HOME; without either, the database is in ~/.local/share/podq and the config is ~/.config/podq/config).",
            valueName: "dir"),
        completion: .directory)
    var home: String?

    @Flag(name: [.short, .long], help: "Show each request, response and event on standard error, and log debug lines to podq.log in the home.")
    var verbose = false

    func validate() throws {
        try Self.path(home, "--home")
    }

    /// An empty path option is a mistake (`--home ''` would mean the current folder): exit 2, said.
    static func path(_ value: String?, _ option: String) throws {
        if let value, value.trimmingSpaces.isEmpty {
            throw ValidationError("\(option) needs a folder; it was given an empty value.")
        }
    }
}
