import Foundation

/// `podq-bench size [BINARY] [--write FILE]`: what the installed binary is made of (issue 34). The
/// stripped size (what `make install` and the package ship), its sections, and its symbols summed by
/// where they come from (the Swift runtime, Foundation, ICU's data and code, BoringSSL, SwiftNIO and
/// AsyncHTTPClient, podq's own), read with `nm -S` from the unstripped release build.
enum SizeBench {
    struct Part {
        var name: String
        var bytes: Int64
    }

    static func run(_ options: [String]) throws {
        let written = options.firstIndex(of: "--write").map { $0 + 1 }
        let binary = options.indices.first { !options[$0].hasPrefix("--") && $0 != written }.map { options[$0] } ?? ".build/release/podq"
        let text = try markdown(binary: binary)
        print(text)
        if let index = options.firstIndex(of: "--write"), options.indices.contains(index + 1) {
            try BenchReport.replace(
                between: "<!-- make bench: size start -->", and: "<!-- make bench: size end -->", in: options[index + 1], with: text)
            print("wrote \(options[index + 1])")
        }
    }

    /// The group a symbol belongs to, by its (mangled) name.
    static func group(_ symbol: String) -> String {
        func swiftModule(_ prefixes: [String]) -> Bool { prefixes.contains { symbol.hasPrefix("$s" + String($0.count) + $0) } }
        if symbol.contains("icudt") { return "ICU data (Foundation's _FoundationICU)" }
        if symbol.hasPrefix("swift_u") || symbol.hasPrefix("_ZN6icu_") || symbol.hasPrefix("_ZNK6icu_") || symbol.contains("icu_7") {
            return "ICU code (_FoundationICU)"
        }
        if symbol.contains("BoringSSL") || symbol.contains("bssl") || symbol.hasPrefix("ecp_nistz256") { return "BoringSSL (swift-nio-ssl)" }
        if swiftModule(["FoundationEssentials", "Foundation", "FoundationInternationalization", "FoundationNetworking", "FoundationXML"])
            || symbol.hasPrefix("__CF") || symbol.hasPrefix("_CF") || symbol.hasPrefix("CF")
        {
            return "Foundation"
        }
        if swiftModule([
            "PodqBase", "PodqHTTP", "PodqSQLite", "PodqSession", "PodqCore", "PodqUI", "PodqCommands", "PodqTerminal", "PodqServer", "PodqResources", "podq",
        ])
            || symbol.hasPrefix("podq_") || symbol.hasPrefix("pq_")
        {
            return "podq's own code"
        }
        if symbol.hasPrefix("$s") && (symbol.dropFirst(2).drop(while: \.isNumber).hasPrefix("NIO") || symbol.contains("AsyncHTTPClient"))
            || symbol.hasPrefix("c_nio") || symbol.hasPrefix("CNIO")
        {
            return "SwiftNIO, AsyncHTTPClient"
        }
        if swiftModule(["ArgumentParser", "ArgumentParserToolInfo"]) { return "swift-argument-parser" }
        if symbol.hasPrefix("$ss") || symbol.hasPrefix("$sS") || symbol.hasPrefix("swift_") || symbol.hasPrefix("_swift") || symbol.hasPrefix("_ZN5swift")
            || symbol.hasPrefix("$s12_Concurrency") || symbol.hasPrefix("$s17_StringProcessing") || symbol.hasPrefix("$s11_RegexParser")
            || symbol.hasPrefix("$s15Synchronization")
        {
            return "Swift runtime and standard library"
        }
        if symbol.hasPrefix("_dispatch") || symbol.hasPrefix("dispatch_") { return "Dispatch" }
        return "other (C++ runtime, libraries' C code, unnamed)"
    }

    static func markdown(binary: String) throws -> String {
        let whole = try size(of: binary)
        let stripped = try strippedSize(binary)
        var groups: [String: Int64] = [:]
        for line in try output(["nm", "-S", "--size-sort", binary]).split(separator: "\n") {
            let fields = line.split(separator: " ", maxSplits: 3)
            guard fields.count == 4, let bytes = Int64(fields[1], radix: 16) else { continue }
            groups[group(String(fields[3])), default: 0] += bytes
        }
        let counted = groups.values.reduce(0, +)
        var sections: [Part] = []
        for line in try output(["size", "-A", binary]).split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 3, fields[0].hasPrefix("."), !fields[0].hasPrefix(".debug"), let bytes = Int64(fields[1]), bytes > 1_000_000 else { continue }
            sections.append(Part(name: String(fields[0]), bytes: bytes))
        }
        func mb(_ bytes: Int64) -> String { String(format: "%.1f MB", Double(bytes) / 1e6) }
        func share(_ bytes: Int64, of total: Int64) -> String { String(format: "%.0f%%", 100 * Double(bytes) / Double(max(1, total))) }
        var text = "The release binary: \(mb(whole)) as built, **\(mb(stripped)) stripped** (what `make install`, the package and the tarball ship).\n\n"
        // Issue 45's goal: half the binary, no ICU.
        text += "Target stripped ≤ 35 MB: \(stripped <= 35_000_000 ? "met" : "**NOT MET**").\n\n"
        text += "| part (symbols) | size | of the symbols |\n|---|---|---|\n"
        for (name, bytes) in groups.sorted(by: { $0.value > $1.value }) {
            text += "| \(name) | \(mb(bytes)) | \(share(bytes, of: counted)) |\n"
        }
        text += "\n| section (over 1 MB) | size |\n|---|---|\n"
        for part in sections.sorted(by: { $0.bytes > $1.bytes }) { text += "| `\(part.name)` | \(mb(part.bytes)) |\n" }
        return text
    }

    static func size(of path: String) throws -> Int64 {
        (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0
    }

    static func strippedSize(_ binary: String) throws -> Int64 {
        let copy = NSTemporaryDirectory() + "/podq-size-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: copy) }
        _ = try output(["strip", "-o", copy, binary])
        return try size(of: copy)
    }

    static func output(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
