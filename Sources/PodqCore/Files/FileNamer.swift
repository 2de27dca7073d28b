import CPodqSystem
import FoundationEssentials
import Glibc
import PodqBase
import PodqHTTP

/// Safe, unique file names inside the download folder.
///
/// Rules (docs/FILES.md, "Names"): no `/`, NUL or control characters, none of `<>:"\|?*`, no leading
/// dot or trailing dot or space, at most 255 bytes cut on a character boundary with the extension
/// kept; a taken name gets ` (2)`, ` (3)`, …; a path that would leave the folder is refused.
public enum FileNamer {
    /// Which characters a name may keep.
    public enum Rules: Sendable, Equatable {
        /// Linux and macOS file systems: only `/` (and control characters) go; `:`, `?` and the rest stay.
        case posix
        /// Also none of `<>:"\\|?*`: FAT, exFAT, NTFS and SMB shares refuse them (`windows-safe-names`).
        case windows

        /// The rules for files in `folder`: ``windows`` when its file system is FAT, exFAT, NTFS or an
        /// SMB share (a USB stick, a Windows partition, a NAS), else ``posix``. The folder, or the
        /// nearest existing folder above it, is asked (`statfs`).
        public static func detect(for folder: String) -> Rules {
            var path = folder
            var type = podq_file_system_type(path)
            while type < 0 {
                let parent = LexicalPath.parent(of: path)
                guard !parent.isEmpty, parent != path else { return .posix }
                path = parent
                type = podq_file_system_type(path)
            }
            // MSDOS, exFAT, NTFS (the kernel's and ntfs3), CIFS and SMB2.
            let windowsLike: Set<Int64> = [0x4d44, 0x2011_BAB0, 0x5346_544e, 0x7366_746e, 0xFF53_4D42, 0xFE53_4D42]
            return windowsLike.contains(Int64(type)) ? .windows : .posix
        }
    }

    /// The longest name, in UTF-8 bytes, that common file systems accept.
    public static let maxNameBytes = 255
    /// Room kept for `.part` and a ` (99)` suffix, so the partial's name fits too.
    public static let reservedBytes = 5 + 5

    /// The name for a bare URL: its last path segment, percent-decoded, made safe; `download` if empty.
    public static func name(forURL url: URL, rules: Rules = .posix) -> String {
        let segment = url.path.split(separator: "/").last.map(String.init) ?? ""
        let decoded = PercentEncoding.decode(segment) ?? segment
        let safe = safeName(decoded, rules: rules)
        return safe.isEmpty ? "download" : safe
    }

    /// The usual extension for a media type (`audio/mpeg` → `mp3`), nil when unknown.
    public static func fileExtension(forContentType contentType: String) -> String? {
        let type = contentType.split(separator: ";").first?.trimmingSpaces.lowercased() ?? ""
        return extensions[type]
    }

    /// Every extension ``fileExtension(forContentType:)`` can give.
    public static var knownExtensions: Set<String> { Set(extensions.values) }

    private static let extensions: [String: String] = [
        "audio/mpeg": "mp3", "audio/mp3": "mp3", "audio/mp4": "m4a", "audio/x-m4a": "m4a", "audio/m4a": "m4a",
        "audio/aac": "aac", "audio/ogg": "ogg", "audio/opus": "opus", "audio/wav": "wav", "audio/x-wav": "wav",
        "audio/wave": "wav", "audio/flac": "flac", "audio/x-flac": "flac", "video/mp4": "mp4", "video/x-m4v": "m4v",
        "video/quicktime": "mov", "video/webm": "webm", "audio/webm": "weba", "application/pdf": "pdf",
    ]

    /// `raw` made safe as a single file name (see the type's rules); may be empty.
    public static func safeName(_ raw: String, maxBytes: Int = maxNameBytes - reservedBytes, rules: Rules = .posix) -> String {
        var text = SafeText.clean(raw)
        text = String(
            text.unicodeScalars.map { scalar -> Character in
                switch scalar {
                case "/": "_"
                case "\\", "<", ">", ":", "\"", "|", "?", "*": rules == .windows ? "_" : Character(scalar)
                default: Character(scalar)
                }
            })
        while let first = text.first, first == "." || first == " " { text.removeFirst() }
        while let last = text.last, last == "." || last == " " { text.removeLast() }
        return truncate(text, maxBytes: maxBytes)
    }

    /// Cuts `name` to `maxBytes` of UTF-8 on a character boundary, keeping a short extension.
    static func truncate(_ name: String, maxBytes: Int) -> String {
        guard name.utf8.count > maxBytes else { return name }
        let ext = LexicalPath.pathExtension(of: name)
        let keepExt = !ext.isEmpty && ext.utf8.count <= 16
        let suffix = keepExt ? "." + ext : ""
        var stem = keepExt ? String(name.dropLast(suffix.count)) : name
        while stem.utf8.count + suffix.utf8.count > maxBytes, !stem.isEmpty { stem.removeLast() }
        while let last = stem.last, last == "." || last == " " { stem.removeLast() }
        return stem + suffix
    }

    /// A path in `folder` for `name` that no file (final or partial) and no name in `reserved` uses:
    /// `name`, then `stem (2).ext`, `stem (3).ext`, …
    ///
    /// When only `<name>.part` exists (an interrupted download of the same name), `name` is reused
    /// so the download resumes into it, unless `resumePartials` is false.
    /// - Throws: ``DownloadError/outsideDownloadFolder(path:)`` when the result would leave `folder`.
    public static func uniquePath(
        in folder: String, name: String, reserved: Set<String> = [],
        resumePartials: Bool = true
    ) throws(DownloadError) -> String {
        let fm = FileManager.default
        var containment = Containment(folder: folder)
        for candidate in numberedNames(name) {
            let path = try containment.path(of: candidate)
            if reserved.contains(path) || fm.fileExists(atPath: path) { continue }
            if fm.fileExists(atPath: path + ".part") && !resumePartials { continue }
            return path
        }
        throw .fileSystem(path: folder, reason: "too many files named \(name)")
    }

    /// `name`, then `stem (2).ext`, `stem (3).ext`, … up to 10,000: the names a taken one moves on to.
    /// A `name` with folders (`Show/One.mp3`) keeps them and numbers the last component.
    public static func numberedNames(_ name: String) -> some Sequence<String> {
        // Split by hand: corelibs Foundation traps on a one-character string's
        // `deletingLastPathComponent` (a URL whose last segment is `2`).
        let slash = name.lastIndex(of: "/")
        let folder = slash.map { String(name[..<$0]) } ?? ""
        let last = slash.map { String(name[name.index(after: $0)...]) } ?? name
        let ext = LexicalPath.pathExtension(of: last)
        let stem = ext.isEmpty ? last : String(last.dropLast(ext.count + 1))
        let dotExt = ext.isEmpty ? "" : "." + ext
        return (1...10_000).lazy.map { n in
            // With `.part` and the number, the name must still fit: the stem gives way.
            let numbered =
                n == 1 && last.utf8.count + partSuffixBytes <= maxNameBytes
                ? last
                : fitted(stem, suffix: (n == 1 ? "" : " (\(n))") + dotExt)
            return folder.isEmpty ? numbered : folder + "/" + numbered
        }
    }

    /// The bytes `.part` adds to a name.
    static let partSuffixBytes = 5

    /// `stem` + `suffix`, the stem cut on a character boundary so that the whole, with `.part`, is at
    /// most ``maxNameBytes``.
    static func fitted(_ stem: String, suffix: String) -> String {
        var stem = stem
        while stem.utf8.count + suffix.utf8.count + partSuffixBytes > maxNameBytes, !stem.isEmpty { stem.removeLast() }
        while let last = stem.last, last == "." || last == " " { stem.removeLast() }
        return stem + suffix
    }

    /// `relative` inside `folder`, or an error when it would resolve outside (`..`, absolute paths,
    /// symlinked folders).
    public static func contained(_ relative: String, in folder: String) throws(DownloadError) -> String {
        var containment = Containment(folder: folder)
        return try containment.path(of: relative)
    }

    /// ``contained(_:in:)`` for many names in one folder: the folder's links are resolved once, and
    /// each parent folder's once. ``uniquePath(in:name:reserved:resumePartials:)`` tries `name`,
    /// `name (2)`… in the same parent: resolving both for each candidate made naming the 50th
    /// `episode.mp3` cost 50 resolutions of every folder on the way (a sixth of the instructions of 50
    /// downloads at once, docs/PERFORMANCE.md).
    struct Containment {
        let base: String
        private var parentsInside: Set<String> = []

        init(folder: String) {
            base = URL(fileURLWithPath: folder).standardizedFileURL.resolvingSymlinksInPath().path
        }

        mutating func path(of relative: String) throws(DownloadError) -> String {
            let components = relative.split(separator: "/", omittingEmptySubsequences: true)
            guard !relative.hasPrefix("/"), !components.isEmpty,
                !components.contains(where: { $0 == ".." || $0 == "." })
            else {
                throw .outsideDownloadFolder(path: relative)
            }
            let path = LexicalPath.join(base, relative)
            let unresolved = LexicalPath.parent(of: path)
            if !parentsInside.contains(unresolved) {
                let parent = URL(fileURLWithPath: unresolved).resolvingSymlinksInPath().path
                guard parent == base || parent.hasPrefix(base.hasSuffix("/") ? base : base + "/") else {
                    throw .outsideDownloadFolder(path: relative)
                }
                parentsInside.insert(unresolved)
            }
            return path
        }
    }
}
