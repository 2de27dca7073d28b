import Foundation
import PodqTestSupport

/// `podq-bench fresh-build [--write FILE]`: what a new user waits for between `git clone` and
/// `make demo` (issue 17). Clones the repository it runs in (its committed state) into a temporary
/// folder and runs `swift build -debug-info-format none --product podq` there, as `make demo` does, stamping every line of the
/// build's output with the time it appeared: how long resolving takes, how long compiling and linking,
/// and how long BoringSSL (swift-nio-ssl's C library, the largest dependency) kept the compiler busy.
/// Then `make deb` in the same clone (issue 34): the release build from scratch and the package.
/// SwiftPM's package cache is whatever the machine has (warm on a machine that built podq before).
enum FreshBuildBench {
    struct Result {
        /// Seconds from the build's start to its first compile job: resolving and fetching packages.
        var resolving: Double
        /// Seconds from the first compile job to the end.
        var compiling: Double
        var total: Double
        /// Seconds between the first and the last of BoringSSL's jobs (its `.cc` and `.S` files).
        var boringSSL: Double
        /// The build's own count of jobs (`[n/m]`).
        var jobs: Int
        var succeeded: Bool
        /// Seconds `make deb` took after the debug build (nil when it was not run or failed).
        var deb: Double? = nil
    }

    static func run(_ options: [String]) throws {
        let repo = FileManager.default.currentDirectoryPath
        let dir = TemporaryDirectory("podq-fresh-build")
        defer { dir.remove() }
        let clone = dir.file("podq")
        guard shell(["git", "clone", "-q", repo, clone], in: dir.path) == 0 else {
            FileHandle.standardError.write(Data("podq-bench: git clone of \(repo) failed\n".utf8))
            Foundation.exit(1)
        }
        print("fresh-build: swift build --product podq in a new clone (several minutes on 2 cores)")
        var result = try build(in: clone)
        guard result.succeeded else {
            print(markdown(result))
            FileHandle.standardError.write(Data("podq-bench: the fresh build failed\n".utf8))
            Foundation.exit(1)
        }
        print("fresh-build: make deb in the same clone (the release build from scratch, then the package)")
        let started = Date()
        // An hour at most (it takes about five minutes on 2 cores).
        guard shell(["timeout", "3600", "make", "deb"], in: clone, quiet: true) == 0 else {
            FileHandle.standardError.write(Data("podq-bench: make deb in the fresh clone failed (make deb there shows why)\n".utf8))
            Foundation.exit(1)
        }
        result.deb = Date().timeIntervalSince(started)
        let text = markdown(result)
        print(text)
        if let index = options.firstIndex(of: "--write"), options.indices.contains(index + 1) {
            try BenchReport.replace(
                between: "<!-- make bench: fresh build start -->", and: "<!-- make bench: fresh build end -->",
                in: options[index + 1], with: text)
            print("wrote \(options[index + 1])")
        }
    }

    private static func shell(_ arguments: [String], in directory: String, quiet: Bool = false) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        if quiet {
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
        }
        guard (try? process.run()) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Runs the build, reading its output line by line as it comes.
    private static func build(in directory: String) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swift", "build", "-debug-info-format", "none", "--product", "podq"]  // as the Makefile's DEBUG_BUILD
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        let start = Date()
        try process.run()
        var firstCompile: Double?
        var boring: (first: Double, last: Double)?
        var jobs = 0
        let output = pipe.fileHandleForReading
        var pending = Data()
        // Blocks until the build writes or ends: this is the bench's only work meanwhile.
        while case let chunk = output.availableData, !chunk.isEmpty {
            pending.append(chunk)
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                pending.removeSubrange(pending.startIndex...newline)
                let at = Date().timeIntervalSince(start)
                if line.hasPrefix("["), let slash = line.firstIndex(of: "/"), let close = line.firstIndex(of: "]"), slash < close {
                    if firstCompile == nil { firstCompile = at }
                    jobs = max(jobs, Int(line[line.index(after: slash)..<close]) ?? 0)
                    // SwiftPM names a C job by its file alone; BoringSSL's are the build's only C++ and
                    // assembly files (podq's and NIO's own C files end in .c).
                    if line.hasSuffix(".cc") || line.hasSuffix(".S") { boring = (boring?.first ?? at, at) }
                }
            }
        }
        process.waitUntilExit()
        let total = Date().timeIntervalSince(start)
        let resolving = firstCompile ?? total
        return Result(
            resolving: resolving, compiling: total - resolving, total: total,
            boringSSL: boring.map { $0.last - $0.first } ?? 0, jobs: jobs, succeeded: process.terminationStatus == 0)
    }

    static func markdown(_ r: Result) -> String {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        func s(_ seconds: Double) -> String { String(format: "%.0f s", seconds) }
        return """
            Measured by `podq-bench fresh-build` (`make bench`) on \(ISO8601DateFormatter().string(from: Date()).prefix(10)), \(cores) cores: `git clone`, then `swift build -debug-info-format none --product podq` (what `make demo` runs first), the machine's package cache as it was.

            | step | wall |
            |---|---|
            | resolving the packages | \(s(r.resolving)) |
            | compiling and linking (\(r.jobs) jobs) | \(s(r.compiling)) |
            | in all | **\(s(r.total))** |
            | of which BoringSSL (its C++ and assembly files, first to last) | \(s(r.boringSSL)) |
            \(r.deb.map { "| then `make deb` in the same clone (the release build from scratch, the package) | \(s($0)) |\n| from `git clone` to the package | **\(s(r.total + $0))** |\n" } ?? "")
            """
    }
}
