import FoundationEssentials
import Glibc
import Logging
import PodqBase
import PodqHTTP

/// The log lines of a run: one per event, failures with their cause and the URLs they went through.
extension QueueRunner {
    func log(_ event: Event, op: DownloadOperation, attempts: Int) {
        var metadata: Logger.Metadata = ["id": "\(op.id)", "url": "\(op.request.url.absoluteString)"]
        let chain = op.redirectChain
        if chain.count > 1 { metadata["chain"] = "\(chain.joined(separator: " -> "))" }
        switch event {
        case .started:
            metadata["file"] = "\(op.request.destination)"
            logger.info("download started", metadata: metadata)
        case .resumed(_, _, let offset):
            metadata["at"] = "\(offset)"
            logger.info("download resumed", metadata: metadata)
        case .completed(_, _, let path, let bytes, let unverified):
            metadata["file"] = "\(path)"
            metadata["bytes"] = "\(bytes)"
            if let integrity = op.integrity { metadata["verified-by"] = "\(integrity.verifiedBy)" }
            if let unverified {
                metadata["reason"] = "\(unverified)"
                logger.warning("download completed, unverified: the file is kept, flagged", metadata: metadata)
            } else {
                logger.info("download completed", metadata: metadata)
            }
        case .stopped(_, _, let bytes):
            metadata["bytes"] = "\(bytes)"
            logger.info("download stopped, partial file kept", metadata: metadata)
        case .cancelled:
            logger.info("download cancelled", metadata: metadata)
        case .retrying(_, _, let delay, let reason):
            metadata["reason"] = "\(reason)"
            metadata["cause"] = "\(Self.cause(op.error))"
            metadata["attempt"] = "\(attempts)"
            metadata["retry-in"] = "\(String(printf: "%.1f", delay))s"
            logger.warning("download attempt failed, will retry", metadata: metadata)
        case .failed(_, _, let reason):
            metadata["reason"] = "\(reason)"
            metadata["cause"] = "\(Self.cause(op.error))"
            metadata["attempts"] = "\(attempts)"
            logger.error("download failed", metadata: metadata)
        case .diskFull(let message):
            metadata["reason"] = "\(message)"
            logger.error("disk full, queue paused", metadata: metadata)
        case .note(_, _, let text):
            metadata["note"] = "\(text)"
            logger.notice("download goes on, note", metadata: metadata)
        }
    }

    /// The error as its case and values (`connectionFailed("Connection refused")`): more precise
    /// than the sentence shown to the user.
    static func cause(_ error: DownloadError?) -> String {
        error.map { String(describing: $0) } ?? "unknown"
    }
}
