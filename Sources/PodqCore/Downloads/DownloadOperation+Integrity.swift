import FoundationEssentials
import Glibc

/// The check of a file's bytes against what its publisher and server say, before it takes its final
/// name (docs/FILES.md, "Integrity").
extension DownloadOperation {
    /// Starts the digests of a pass whose response said `validators`: podq's checksum, any extra
    /// digest the configuration asks for, and the algorithm of the most authoritative published digest
    /// (the feed's, else the server's), computed only when someone gave one.
    @discardableResult
    func beginDigest(validators: ResourceValidators?) -> FileDigest {
        let published = request.publishedDigests + PublishedDigest.parse(stored: validators?.serverDigests)
        // A hash podq cannot compute (libcrypto missing) cannot be checked: the next one is.
        let checkable = published.filter(\.algorithm.isAvailable)
        if checkable.count < published.count {
            configuration.logger.warning("integrity: libcrypto (OpenSSL 3, Debian's libssl3) is not installed; the publisher's MD5/SHA hashes are not checked")
        }
        let expected = PublishedDigest.strongest(checkable)
        var algorithms = configuration.extraDigests
        algorithms.insert(configuration.checksum)
        if let expected { algorithms.insert(expected.algorithm) }
        let digest = FileDigest(algorithms: algorithms)
        setDigest(digest, expected: expected)
        return digest
    }

    /// The digests of the pass running now, for the sinks that write it.
    var currentDigest: FileDigest? { digestPass.digest }

    /// Finishes the pass's digests over the file's `length` bytes and decides (``IntegrityVerdict``):
    /// a file that matches, or has nothing to match, is recorded and saved; the first mismatch starts
    /// the file again from zero; a second one is recorded as unverified, with why, and the file kept.
    ///
    /// A `stitched` file (written by several connections) that does not match throws
    /// ``StitchedMismatch``, whatever came before: its parts are of different versions, and the file
    /// is fetched again on one connection, never kept.
    func verifyIntegrity(_ file: PartialFile, length: Int64, stitched: Bool = false) async throws {
        // A pass that began without a response (none is, today) hashes the whole file here.
        let digest = digestPass.digest ?? beginDigest(validators: validators)
        let (_, expected, earlier) = digestPass
        let digests = try digest.finish(file, length: length)
        let verdict = IntegrityVerdict.decide(
            digests: digests, expected: expected,
            lengthKnown: expectedLength != nil, checksumAlgorithm: configuration.checksum,
            earlierMismatch: earlier)
        if stitched, case .refetch(_, let reason) = verdict {
            throw StitchedMismatch(reason: reason)
        }
        if stitched, let expected, case .unverified = verdict {
            throw StitchedMismatch(reason: "its \(expected.algorithm.name) is not what \(IntegrityVerdict.describe(expected.source)) says")
        }
        let integrity: Integrity
        switch verdict {
        case .verified(let result):
            integrity = result
        case .refetch(let checksum, let reason):
            configuration.logger.notice("integrity: \(reason); fetching the file once more from zero")
            record(mismatch: checksum)
            // Once more on one connection: a second pass is never stitched.
            throw RestartFromZero(withoutSegments: true)
        case .unverified(let result):
            configuration.logger.warning("integrity: \(result.problem ?? "")")
            integrity = result
        }
        record(integrity: integrity)
        await hooks.save(.verified(integrity))
    }
}

/// A file written by several connections whose bytes do not match the digest known before them: its
/// parts came from answers that differ inside (ads filled anew per request, same length, one ETag).
struct StitchedMismatch: Error {
    var reason: String
}
