import PodqCommands

/// The `podq` executable: everything lives in PodqCommands.
@main
enum PodqMain {
    static func main() async {
        await PodqCLI.main()
    }
}
