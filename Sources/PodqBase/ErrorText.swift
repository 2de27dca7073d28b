import FoundationEssentials
import Glibc

#if canImport(Glibc)
    import Glibc
#endif

/// An error as a sentence for a person: what `localizedDescription` gave, which FoundationEssentials
/// does not have. podq's own errors say it themselves (`LocalizedError`); a file error says what the
/// system said and of which path ("No such file or directory: /srv/x").
public enum ErrorText {
    public static func describe(_ error: any Error) -> String {
        if let described = (error as? any LocalizedError)?.errorDescription { return described }
        if let posix = error as? POSIXError { return systemMessage(posix.code.rawValue) }
        if let cocoa = error as? CocoaError {
            let path = cocoa.filePath ?? cocoa.url?.path
            let reason: String
            if let underlying = cocoa.underlying as? POSIXError {
                reason = systemMessage(underlying.code.rawValue)
            } else {
                reason = cocoaReason(cocoa.code)
            }
            return path.map { "\(reason): \(SafeText.clean($0))" } ?? reason
        }
        return String(describing: error)
    }

    /// The C library's message for an errno ("No such file or directory").
    public static func systemMessage(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }

    static func cocoaReason(_ code: CocoaError.Code) -> String {
        switch code {
        case .fileNoSuchFile, .fileReadNoSuchFile: "No such file or directory"
        case .fileReadNoPermission, .fileWriteNoPermission: "Permission denied"
        case .fileWriteOutOfSpace: "No space left on device"
        case .fileWriteFileExists: "File exists"
        case .fileReadCorruptFile: "The file is not in the expected format"
        case .fileReadInapplicableStringEncoding, .fileWriteInapplicableStringEncoding: "The text is not in the expected encoding"
        case .fileWriteVolumeReadOnly: "Read-only file system"
        default: "File error \(code.rawValue)"
        }
    }
}

extension CocoaError {
    /// The error beneath, as Foundation files it (`NSUnderlyingError`).
    var underlying: (any Error)? { userInfo["NSUnderlyingError"] as? any Error }
}
