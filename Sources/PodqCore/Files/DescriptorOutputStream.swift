import FoundationEssentials
import Glibc

/// An `OutputStream` over an open file descriptor: what a download writes through, on its claimed
/// partial file (``PartialFile/makeOutputStream()``). Foundation's file streams open a path; this one
/// never names the file, so nothing can be swapped in between.
///
/// One `write(2)` per call, at the descriptor's position; or, for one segment of a segmented
/// download, one `pwrite(2)` at the stream's own offset, which each write advances (several
/// segments write through one descriptor at once). Closing the stream leaves the descriptor
/// to its owner, the ``PartialFile``. A failed write returns -1 and keeps the `errno` in
/// ``errorNumber``.
final class DescriptorOutputStream: OutputStream {
    private enum Status { case notOpen, open, closed, failed }
    private let descriptor: Int32
    /// Where the next positional write goes; nil: at the descriptor's position.
    private(set) var offset: Int64?
    private var status = Status.notOpen
    /// The `errno` of the last failed write; 0 when none failed.
    private(set) var errorNumber: Int32 = 0

    init(descriptor: Int32, offset: Int64? = nil) {
        self.descriptor = descriptor
        self.offset = offset
    }

    func open() { if status == .notOpen { status = .open } }
    func close() { status = .closed }
    var streamError: (any Error)? {
        errorNumber == 0 ? nil : POSIXError(POSIXErrorCode(rawValue: errorNumber) ?? .EIO)
    }

    func write(_ buffer: UnsafePointer<UInt8>, maxLength length: Int) -> Int {
        guard status == .open, descriptor >= 0 else {
            errorNumber = EBADF
            return -1
        }
        let written: Int
        if let offset {
            written = pwrite(descriptor, buffer, length, off_t(offset))
            if written > 0 { self.offset = offset + Int64(written) }
        } else {
            written = Glibc.write(descriptor, buffer, length)
        }
        if written < 0 {
            errorNumber = errno
            status = .failed
        }
        return written
    }
}
