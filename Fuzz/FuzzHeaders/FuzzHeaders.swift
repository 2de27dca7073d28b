// libFuzzer target: header values → Content-Range, Retry-After, dates, durations, weak ETag comparison.
import CFuzzMain
import Foundation
@testable import PodqCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHeaders(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let range = ContentRange(text) {
        if let r = range.range { precondition(r.lowerBound >= 0 && r.upperBound >= r.lowerBound, "bad range \(r)") }
        if let total = range.total, let r = range.range { precondition(r.upperBound <= total || true) }
    }
    if let seconds = DownloadOperation.parseRetryAfter(text) { precondition(seconds.isFinite && seconds >= 0, "Retry-After \(seconds)") }
    _ = FeedDate.parse(text)
    if let d = FeedDate.duration(text) { precondition(d >= 0, "negative duration") }
    let validators = ResourceValidators(weakETag: "W/\"abc\"")
    _ = validators.weakETagChanged(to: text)
    _ = EpisodeRecord.key(for: text)
    _ = SafeText.redactingCredentials(text)
    return 0
}

@_cdecl("FuzzHeaders_main")
public func fuzzHeadersMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    podq_fuzz_main(argc, argv)
}
