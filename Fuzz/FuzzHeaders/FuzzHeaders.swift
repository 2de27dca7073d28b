// libFuzzer target: header values → Content-Range, Retry-After, dates, durations, weak ETag comparison;
// URLs → tracking prefixes, logins; proxy settings.
import CFuzzMain
import Foundation
import PodqBase

@testable import PodqCore
@testable import PodqHTTP

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHeaders(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let range = ContentRange(text) {
        if let r = range.range { precondition(r.lowerBound >= 0 && r.upperBound >= r.lowerBound, "bad range \(r)") }
        if let total = range.total, let r = range.range { precondition(r.upperBound <= total || true) }
    }
    if let seconds = RetryAfter.seconds(text) { precondition(seconds.isFinite && seconds >= 0, "Retry-After \(seconds)") }
    _ = FeedDate.parse(text)
    if let d = FeedDate.duration(text) { precondition(d >= 0, "negative duration") }
    let validators = ResourceValidators(weakETag: "W/\"abc\"")
    _ = validators.weakETagChanged(to: text)
    _ = EpisodeRecord.key(for: text)
    _ = SafeText.redactingCredentials(text)
    // A URL's tracking prefix: what it carries is an absolute http(s) URL with a host, never itself.
    if let url = URL(string: text), let inner = TrackingPrefix.innerURL(of: url) {
        precondition(["http", "https"].contains(inner.scheme?.lowercased() ?? ""), "inner URL \(inner) is not http(s)")
        precondition(inner.host?.isEmpty == false, "inner URL \(inner) has no host")
        precondition(inner.absoluteString != url.absoluteString, "a URL carries itself")
    }
    if let url = URL(string: text) {
        let (clean, _) = Credentials.split(url)
        let parts = URLComponents(url: clean, resolvingAgainstBaseURL: false)
        precondition(parts?.user == nil && parts?.password == nil, "the login stayed in \(clean)")
    }
    if let proxies = try? ProxySettings.from(environment: ["all_proxy": text, "no_proxy": text]), let url = URL(string: "http://example.org/x") {
        _ = proxies.server(for: url)
    }
    return 0
}

@_cdecl("FuzzHeaders_main")
public func fuzzHeadersMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    podq_fuzz_main(argc, argv)
}
