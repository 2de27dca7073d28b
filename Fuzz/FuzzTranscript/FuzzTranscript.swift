// libFuzzer target: bytes → TranscriptReader.read in every format, and ChapterList.read. Every cue must
// be clean, non-empty text with a finite, non-negative start, in time order; nothing may crash or hang.
import CFuzzMain
import Foundation
import PodqBase

@testable import PodqCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTranscript(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let limits = TranscriptLimits(bytes: 1 << 20, cues: 2_000, cueBytes: 2_000)
    for format in [nil] + TranscriptFormat.allCases.map(Optional.some) {
        guard let document = try? TranscriptReader.read(bytes, format: format, duration: 600, limits: limits) else { continue }
        precondition(!document.cues.isEmpty, "a document without cues")
        precondition(document.cues.count <= limits.cues, "more cues than the limit")
        var last = -1.0
        for cue in document.cues {
            precondition(!cue.text.isEmpty, "an empty cue")
            precondition(!cue.text.unicodeScalars.contains { SafeText.isUnsafe($0) }, "unsafe text")
            precondition(cue.text.utf8.count <= limits.cueBytes + 3, "a cue over the limit")
            if let start = cue.start {
                precondition(start.isFinite && start >= 0, "a bad time")
                precondition(start >= last, "out of order")
                last = start
            }
        }
    }
    if let chapters = try? ChapterList.read(bytes) {
        precondition(zip(chapters.chapters, chapters.chapters.dropFirst()).allSatisfy { $0.start <= $1.start }, "chapters out of order")
        for chapter in chapters.chapters {
            precondition(!chapter.title.unicodeScalars.contains { SafeText.isUnsafe($0) }, "unsafe title")
            precondition(chapter.url.map { $0.hasPrefix("http") } ?? true, "a link that is not http(s)")
        }
    }
    return 0
}

@_cdecl("FuzzTranscript_main")
public func fuzzTranscriptMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    podq_fuzz_main(argc, argv)
}
