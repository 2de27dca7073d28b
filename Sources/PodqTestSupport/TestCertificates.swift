import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import X509

/// Certificates made in-process for the HTTPS test server: a private CA and a server certificate for
/// 127.0.0.1, valid now, expired, or for another name. Nothing touches the system's trust store.
public struct TestCertificates: Sendable {
    /// The CA's certificate, PEM (what a user would point `SSL_CERT_FILE` at).
    public let caPEM: String
    /// The server's certificate and private key, PEM.
    public let serverPEM: String
    public let serverKeyPEM: String

    /// What the server certificate is like.
    public enum Kind: Sendable {
        case valid
        case expired
        /// Issued for `localhost` only, served at 127.0.0.1.
        case wrongName
    }

    public static func make(_ kind: Kind = .valid) throws -> TestCertificates {
        let now = Date()
        let caKey = P256.Signing.PrivateKey()
        let caName = try DistinguishedName { CommonName("podq test CA") }
        let ca = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(caKey.publicKey),
            notValidBefore: now - 86_400, notValidAfter: now + 86_400 * 30, issuer: caName, subject: caName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true))
            },
            issuerPrivateKey: .init(caKey))
        let key = P256.Signing.PrivateKey()
        let (from, until) = kind == .expired ? (now - 86_400 * 10, now - 86_400 * 3) : (now - 3_600, now + 86_400 * 10)
        let names: [GeneralName] = kind == .wrongName ? [.dnsName("localhost")] : [.ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))]
        let server = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey),
            notValidBefore: from, notValidAfter: until, issuer: caName,
            subject: try DistinguishedName { CommonName(kind == .wrongName ? "localhost" : "127.0.0.1") },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions { SubjectAlternativeNames(names) },
            issuerPrivateKey: .init(caKey))
        return TestCertificates(
            caPEM: try ca.serializeAsPEM().pemString, serverPEM: try server.serializeAsPEM().pemString,
            serverKeyPEM: key.pemRepresentation)
    }

    /// The server side's TLS context.
    public func serverContext() throws -> NIOSSLContext {
        let configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(try NIOSSLCertificate(bytes: Array(serverPEM.utf8), format: .pem))],
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(serverKeyPEM.utf8), format: .pem)))
        return try NIOSSLContext(configuration: configuration)
    }
}
