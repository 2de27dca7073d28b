/// A stream of bytes out, in the shape of Foundation's `OutputStream` (open, write, close, the error of
/// a failed write): what a ``DownloadOperation`` writes its chunks through. podq's own since
/// FoundationEssentials has no streams; the one kind is ``DescriptorOutputStream``.
public protocol OutputStream: AnyObject {
    /// Makes the stream ready to write.
    func open()
    /// Writes up to `length` bytes from `buffer`; the count written, or -1 on failure.
    func write(_ buffer: UnsafePointer<UInt8>, maxLength length: Int) -> Int
    /// Ends the stream; further writes fail.
    func close()
    /// Why the last write failed; nil when none did.
    var streamError: (any Error)? { get }
    /// The `errno` of the last failed write; 0 when none failed.
    var errorNumber: Int32 { get }
}
