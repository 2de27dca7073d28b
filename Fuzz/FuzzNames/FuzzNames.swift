// libFuzzer target: titles and URLs → file names. Every name is safe and, with ` (N)` and `.part`,
// fits in 255 bytes; the cleaner leaves nothing unsafe.
import CFuzzMain
import Foundation
import PodqBase

@testable import PodqCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNames(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let clean = SafeText.clean(text)
    precondition(!clean.unicodeScalars.contains { SafeText.isUnsafe($0) }, "clean left unsafe text")
    precondition(SafeText.clean(clean) == clean, "clean is not idempotent")
    let terminal = SafeText.terminal(text)
    precondition(!terminal.unicodeScalars.contains { $0 != "\n" && $0 != "\t" && SafeText.isUnsafe($0) }, "terminal left unsafe text")
    let name = FileNamer.safeName(text)
    precondition(!name.contains("/") && !name.hasPrefix(".") && name.utf8.count <= FileNamer.maxNameBytes, "unsafe name \(name.debugDescription)")
    let windows = FileNamer.safeName(text, rules: .windows)
    precondition(!windows.contains(where: { "/\\<>:\"|?*".contains($0) }) && !windows.hasPrefix("."), "a name Windows refuses \(windows.debugDescription)")
    for (n, numbered) in FileNamer.numberedNames("Show/" + (name.isEmpty ? "x" : name)).prefix(3).enumerated() {
        let last = numbered.split(separator: "/").last.map(String.init) ?? ""
        precondition(last.utf8.count + 5 <= 255, "name \(n) too long")
    }
    if let url = URL(string: text) { _ = FileNamer.name(forURL: url) }
    _ = FeedBuilder.title(fromFileOf: text)
    _ = Suggestion.nearest(to: String(text.prefix(40)), in: ["download", "queue", "refresh"])
    return 0
}

@_cdecl("FuzzNames_main")
public func fuzzNamesMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    podq_fuzz_main(argc, argv)
}
