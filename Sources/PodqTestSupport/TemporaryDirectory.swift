import Foundation

/// A fresh folder under the system's temporary folder, removed by ``remove()``.
public struct TemporaryDirectory: Sendable {
    public let path: String

    public init(_ label: String = "podq-test") {
        let base = (NSTemporaryDirectory() as NSString).appendingPathComponent("\(label)-\(UUID().uuidString.prefix(12))")
        try? FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        path = base
    }

    /// `name` inside the folder.
    public func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    /// The names of the files in the folder, sorted.
    public var contents: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }

    public func remove() { try? FileManager.default.removeItem(atPath: path) }
}
