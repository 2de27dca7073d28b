import FoundationEssentials
import Glibc
import NIOCore
import NIOPosix
import NIOSSL
import PodqBase

/// Which certificate authorities podq trusts, and why a server's certificate was not trusted.
///
/// Like curl and OpenSSL, `SSL_CERT_FILE` (a PEM file of CA certificates) and `SSL_CERT_DIR` (a folder
/// of them, hashed as `c_rehash` or `update-ca-certificates` leave it) replace the system's store when
/// set; both may be set. A certificate that does not verify is a permanent failure
/// (``DownloadError/untrustedCertificate(host:reason:)``), never retried.
public enum TLSTrust {
    /// The client TLS configuration for `environment`.
    /// - Throws: ``DownloadError/badTrustStore(variable:path:reason:)`` when a variable names something
    ///   podq cannot use.
    /// Nil when neither variable is set: the client's own default, built only for an https request.
    public static func configuration(environment: [String: String] = ProcessInfo.processInfo.environment) throws(DownloadError) -> TLSConfiguration? {
        let file = environment["SSL_CERT_FILE"] ?? "", folder = environment["SSL_CERT_DIR"] ?? ""
        guard !file.isEmpty || !folder.isEmpty else { return nil }
        // Variables that name the system's own store (as some images set them) change nothing: the
        // default is used, and nothing is read ahead of an https request.
        if [Self.systemBundle, ""].contains(file) && [Self.systemFolder, ""].contains(folder) { return nil }
        var tls = TLSConfiguration.makeClientConfiguration()
        var certificates: [NIOSSLCertificate] = []
        if let file = environment["SSL_CERT_FILE"], !file.isEmpty {
            var isFolder = false
            guard FileManager.default.fileExists(atPath: file, isDirectory: &isFolder), !isFolder else {
                throw .badTrustStore(variable: "SSL_CERT_FILE", path: file, reason: "there is no file there")
            }
            guard let loaded = try? NIOSSLCertificate.fromPEMFile(file), !loaded.isEmpty else {
                throw .badTrustStore(variable: "SSL_CERT_FILE", path: file, reason: "it holds no PEM certificate podq can read")
            }
            certificates += loaded
        }
        if let folder = environment["SSL_CERT_DIR"], !folder.isEmpty {
            var isFolder = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder else {
                throw .badTrustStore(variable: "SSL_CERT_DIR", path: folder, reason: "there is no folder there")
            }
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            let loaded = names.sorted().flatMap { name in (try? NIOSSLCertificate.fromPEMFile(folder + "/" + name)) ?? [] }
            guard !loaded.isEmpty else {
                throw .badTrustStore(variable: "SSL_CERT_DIR", path: folder, reason: "it holds no PEM certificate podq can read")
            }
            certificates += loaded
        }
        guard !certificates.isEmpty else { return tls }
        if environment["SSL_CERT_DIR"]?.isEmpty ?? true, let file = environment["SSL_CERT_FILE"] {
            tls.trustRoots = .file(file)  // BoringSSL reads a bundle itself, fastest
            return tls
        }
        // A bundle and a folder often hold the same certificates (Debian's do): each goes in once.
        var seen = Set<[UInt8]>()
        tls.trustRoots = .certificates(certificates.filter { seen.insert((try? $0.toDERBytes()) ?? []).inserted })
        return tls
    }

    /// Debian's store, where swift-nio-ssl looks by default.
    static let systemBundle = "/etc/ssl/certs/ca-certificates.crt"
    static let systemFolder = "/etc/ssl/certs"

    /// True for the errors of a certificate that did not verify (as opposed to a network failure).
    static func isCertificateFailure(_ error: any Error) -> Bool {
        if let extra = error as? NIOSSLExtraError, extra == .failedToValidateHostname { return true }
        return String(describing: error).contains("CERTIFICATE_VERIFY_FAILED")
    }

    /// A TLS failure other than the certificate's, in a few words.
    static func handshakeError(_ error: any Error) -> DownloadError {
        let text = String(describing: error)
        // Answers that will not change by trying again: permanent, never retried (as curl).
        if text.contains("WRONG_VERSION_NUMBER") || text.contains("HTTP_REQUEST") {
            return .tlsRefused("the server does not speak https on that port (try http://)")
        }
        if text.contains("UNSUPPORTED_PROTOCOL") || text.contains("NO_SHARED_CIPHER") || text.contains("HANDSHAKE_FAILURE") {
            return .tlsRefused("the server offers no TLS version or cipher podq accepts")
        }
        return .connectionFailed("the secure (TLS) connection failed")
    }

    /// The marker ``reason(raw:host:port:)`` reads: which kind of failure it was.
    static func rawReason(_ error: any Error) -> String {
        if let extra = error as? NIOSSLExtraError, extra == .failedToValidateHostname { return "hostname" }
        return "verify"
    }

    /// Why the certificate of `host:port` is not trusted, in a few words: connects once more without
    /// verifying, only to read the certificate (nothing is sent).
    static func reason(raw: String, host: String, port: Int) async -> String {
        if raw == "hostname" { return "it was issued for another name than \(host)" }
        guard let certificate = await peerCertificate(host: host, port: port) else {
            return "it is not signed by an authority this machine trusts"
        }
        let now = time(nil)
        if certificate.notValidAfter < now { return "it expired on \(day(certificate.notValidAfter))" }
        if certificate.notValidBefore > now { return "it is not valid before \(day(certificate.notValidBefore))" }
        return "it is signed by an authority this machine does not trust: a private CA, or the certificate signs itself"
    }

    private static func day(_ t: time_t) -> String {
        FeedDate.day(Date(timeIntervalSince1970: TimeInterval(t)))
    }

    /// The leaf certificate `host:port` presents, read without verifying it; nil when it cannot be had.
    private static func peerCertificate(host: String, port: Int) async -> NIOSSLCertificate? {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .none
        guard let context = try? NIOSSLContext(configuration: tls) else { return nil }
        let serverName = host.first?.isNumber == true || host.contains(":") ? nil : host
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(5))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: serverName))
                }
            }
        guard let channel = try? await bootstrap.connect(host: host, port: port).get() else { return nil }
        defer { channel.close(promise: nil) }
        // The certificate arrives with the handshake: wait for it a little.
        for _ in 0..<50 {
            let certificate = try? await channel.eventLoop.submit {
                try channel.pipeline.syncOperations.handler(type: NIOSSLClientHandler.self).peerCertificate
            }.get()
            if let certificate { return certificate }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }
}
