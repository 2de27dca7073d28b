import FoundationEssentials
import Glibc
import PodqBase

/// `podq verify`'s check of one completed file against the checksum recorded when it was downloaded.
public enum FileCheck: Sendable, Equatable {
    /// The file has the recorded checksum.
    case ok
    /// The bytes differ from what was downloaded (bit rot, a bad copy, an edit, a tagger).
    case changed(expected: String, found: String)
    /// No file at the recorded path.
    case missing
    /// The file is there but cannot be read (permissions, an I/O error, a link).
    case unreadable(String)
    /// Completed before podq recorded checksums: nothing to compare with.
    case notRecorded

    /// True for what `podq verify` counts as a problem (exit 1).
    public var isProblem: Bool {
        switch self {
        case .ok, .notRecorded: false
        case .changed, .missing, .unreadable: true
        }
    }

    /// The word `podq verify` prints and writes in its JSON.
    public var word: String {
        switch self {
        case .ok: "ok"
        case .changed: "changed"
        case .missing: "missing"
        case .unreadable: "unreadable"
        case .notRecorded: "not-recorded"
        }
    }

    /// Hashes the file of `row` (a completed download) in `folder` with the algorithm of its recorded
    /// checksum and compares. `progress` hears each block's byte count.
    public static func check(_ row: DownloadRecord, in folder: DownloadFolder, progress: (Int) -> Void = { _ in }) -> FileCheck {
        guard let checksum = row.checksum, let (algorithm, expected) = Integrity.parse(checksum: checksum) else { return .notRecorded }
        guard let digester = Digester(algorithm) else {
            return .unreadable("podq cannot compute \(algorithm.name) here: libcrypto (OpenSSL 3) is not installed")
        }
        do {
            let relative = try folder.relativePath(of: row.destination)
            let found = try folder.read(relative) { block in
                digester.update(block)
                progress(block.count)
                return true
            }
            guard found else { return .missing }
        } catch {
            return .unreadable(ErrorText.describe(error))
        }
        let digest = digester.finish()
        return digest == expected ? .ok : .changed(expected: checksum, found: "\(algorithm.name):\(digest.hex)")
    }
}
