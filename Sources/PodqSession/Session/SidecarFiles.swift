import FoundationEssentials
import Glibc
import PodqBase
import PodqCore

/// The sidecars beside a downloaded episode (``EpisodeSidecars`` writes them), found again: the one the
/// metadata sidecar (`<file>.json`) names, else the first of the names podq gives that exists. Read as
/// every file of the download folder is (``DownloadFolder``: no link followed).
package enum SidecarFiles {
    /// The transcript beside `row`'s file, and the format its name says.
    package static func transcript(of row: DownloadRecord) -> (path: String, format: TranscriptFormat?)? {
        find(row, kind: "transcript", names: ["vtt", "srt", "transcript.json", "html", "txt", "transcript"]).map { path in
            let name = LexicalPath.lastComponent(of: path)
            return (path, name.hasSuffix(".transcript") ? nil : TranscriptFormat(fileName: name))
        }
    }

    /// The chapters beside `row`'s file (`<file>.chapters.json`), read; nil when there are none or they
    /// cannot be read.
    package static func chapters(of row: DownloadRecord) -> ChapterList.Read? {
        guard let path = find(row, kind: "chapters", names: ["chapters.json"]), let folder = try? DownloadFolder(path: row.folderPath),
            let relative = try? folder.relativePath(of: path), let (bytes, tooLarge) = (try? folder.contents(of: relative, limit: 5_000_000)) ?? nil,
            !tooLarge
        else { return nil }
        return try? ChapterList.read(bytes)
    }

    private static func find(_ row: DownloadRecord, kind: String, names: [String]) -> String? {
        guard let folder = try? DownloadFolder(path: row.folderPath), let relative = try? folder.relativePath(of: row.commitPath ?? row.destination)
        else { return nil }
        let base = LexicalPath.deletingExtension(of: relative)
        let parent = LexicalPath.parent(of: relative)
        func inFolder(_ name: String) -> String { parent.isEmpty || parent == "." ? name : LexicalPath.join(parent, name) }
        if let (metadata, _) = (try? folder.contents(of: base + ".json", limit: 1_000_000)) ?? nil, case .object(let fields)? = JSONTree.parse(metadata),
            case .string(let name)? = fields[kind], !name.contains("/"), name != "..", name != ".", folder.identity(of: inFolder(name)) != nil
        {
            return folder.absolute(inFolder(name))
        }
        for ext in names where folder.identity(of: base + "." + ext) != nil { return folder.absolute(base + "." + ext) }
        return nil
    }

    /// `chapters` as FFmpeg's metadata text, which mpv reads with `--chapters-file` (its chapter keys,
    /// its OSC's marks): each chapter from its start to the next one's (or its own end).
    package static func ffmetadata(_ chapters: [Chapter]) -> String {
        var text = ";FFMETADATA1\n"
        for (i, chapter) in chapters.enumerated() {
            let start = Int64((chapter.start * 1000).rounded())
            let until = i + 1 < chapters.count ? chapters[i + 1].start : (chapter.end ?? chapter.start + 1)
            let end = max(start + 1, Int64((until * 1000).rounded()))
            // The metadata format escapes =, ;, #, \ and line ends with a backslash.
            var title = ""
            for c in chapter.title.replacingEvery("\n", with: " ") {
                if "=;#\\".contains(c) { title.append("\\") }
                title.append(c)
            }
            text += "[CHAPTER]\nTIMEBASE=1/1000\nSTART=\(start)\nEND=\(end)\ntitle=\(title)\n"
        }
        return text
    }
}
