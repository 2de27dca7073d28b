// libFuzzer target: bytes → ConfigFile.load, then an edit (as the TUI's `+` makes it): the edit must
// keep every other line byte for byte, and the file must then load with the new value.
import CFuzzMain
import Foundation
import PodqBase

@testable import PodqCore

private let path = "/dev/shm/podq-fuzz-config-\(getpid())"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfig(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let original = Data(bytes: data, count: size)
    FileManager.default.createFile(atPath: path, contents: original)
    let file = ConfigFile(path: path)
    guard (try? file.load()) != nil else { return 0 }
    do {
        try file.set("simultaneous-downloads", to: "7")
    } catch {
        return 0
    }
    let edited = FileManager.default.contents(atPath: path) ?? Data()
    let settings = try? file.load()
    precondition(settings?.simultaneousDownloads == 7, "the edit did not take: \(String(decoding: edited, as: UTF8.self).debugDescription)")
    // Every line that does not set the key is still there, in order.
    // (A last line without a line end gets one: compare lines without one trailing CR.)
    func lines(_ d: Data) -> [Data] {
        d.split(separator: 0x0A, omittingEmptySubsequences: false).map { $0.last == 0x0D ? Data($0.dropLast()) : Data($0) }
    }
    let kept = lines(original).filter { !String(decoding: $0, as: UTF8.self).contains("simultaneous-downloads") }
    let now = lines(edited).filter { !String(decoding: $0, as: UTF8.self).contains("simultaneous-downloads") }
    precondition(kept.filter { !$0.isEmpty } == now.filter { !$0.isEmpty }, "other lines changed")
    return 0
}

@_cdecl("FuzzConfig_main")
public func fuzzConfigMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    podq_fuzz_main(argc, argv)
}
