import PodqCore
import PodqHTTP
import PodqTestSupport
import XCTest

/// Which trust store `SSL_CERT_FILE` and `SSL_CERT_DIR` give (the HTTPS itself is tested through the
/// binary in TLSCommandTests).
final class TLSTrustTests: XCTestCase {
    func testNothingSetOrTheSystemStoreNamedMeansTheDefaultBuiltLazily() throws {
        XCTAssertNil(try TLSTrust.configuration(environment: [:]))
        XCTAssertNil(try TLSTrust.configuration(environment: ["SSL_CERT_FILE": "", "SSL_CERT_DIR": ""]))
        XCTAssertNil(try TLSTrust.configuration(environment: ["SSL_CERT_FILE": "/etc/ssl/certs/ca-certificates.crt", "SSL_CERT_DIR": "/etc/ssl/certs"]))
    }

    func testACAFileOrFolderIsUsedAndABadOneIsNamed() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let ca = dir.file("ca.pem")
        try TestCertificates.make().caPEM.write(toFile: ca, atomically: true, encoding: .utf8)
        XCTAssertNotNil(try TLSTrust.configuration(environment: ["SSL_CERT_FILE": ca]))
        XCTAssertNotNil(try TLSTrust.configuration(environment: ["SSL_CERT_DIR": dir.path]))
        XCTAssertThrowsError(try TLSTrust.configuration(environment: ["SSL_CERT_FILE": dir.file("none.pem")])) {
            guard case .badTrustStore(let variable, _, _)? = $0 as? DownloadError else { return XCTFail("\($0)") }
            XCTAssertEqual(variable, "SSL_CERT_FILE")
        }
        try "not a certificate".write(toFile: dir.file("junk.pem"), atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try TLSTrust.configuration(environment: ["SSL_CERT_FILE": dir.file("junk.pem")]))
        XCTAssertThrowsError(try TLSTrust.configuration(environment: ["SSL_CERT_DIR": ca]), "a file is not a folder")
    }
}
