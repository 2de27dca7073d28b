// libFuzzer target: bytes → OPML.read. Every outline must be a clean title and an http(s) URL.
import CFuzzMain
import Foundation
import PodqBase

@testable import PodqCore

private let path = "/dev/shm/podq-fuzz-opml-\(getpid()).opml"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOPML(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FileManager.default.createFile(atPath: path, contents: Data(bytes: data, count: size))
    let limits = FeedLimits(fileSize: 1 << 20, expansion: 1 << 20, fieldBytes: 64 << 10, items: 500)
    guard let contents = try? OPML.read(file: path, limits: limits) else { return 0 }
    for outline in contents.outlines {
        precondition(!outline.title.unicodeScalars.contains { SafeText.isUnsafe($0) }, "unsafe title")
        precondition(
            outline.url.hasPrefix("http://") || outline.url.hasPrefix("https://") || outline.url.lowercased().hasPrefix("http"),
            "not http(s): \(outline.url)")
        precondition(!outline.url.unicodeScalars.contains { $0.value <= 0x20 || $0.value >= 0x7F }, "raw bytes in a URL")
        // What export writes reads back the same.
        _ = OPML.write([(outline.title, outline.url, nil)])
    }
    return 0
}

@_cdecl("FuzzOPML_main")
public func fuzzOPMLMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    podq_fuzz_main(argc, argv)
}
