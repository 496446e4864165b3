import Foundation
import NIOSSL
import ReceiptKit

/// HTTPS for `receipts serve` (`--tls-cert FILE --tls-key FILE`): a phone's browser installs the
/// review page and keeps its upload queue (a service worker) only on a secure origin, which a
/// server on the home network is only over HTTPS. PEM files: the certificate (the server's first,
/// then any intermediates) and its private key.
public struct ServerTLS: Sendable {
    let configuration: TLSConfiguration
    /// The certificate file, as given (for the log).
    public let certificateFile: String

    /// Loads and checks both files now, so that a wrong one stops the server before it listens.
    /// Errors name the file and what is wrong with it (missing, not PEM, a key that is not the
    /// certificate's).
    public init(certificateFile: String, keyFile: String) throws {
        self.certificateFile = certificateFile
        for file in [certificateFile, keyFile] {
            guard FileManager.default.isReadableFile(atPath: file) else {
                let why = FileManager.default.fileExists(atPath: file) ? "cannot be read (check its permissions)" : "no such file"
                throw ReceiptError(.invalidConfiguration, file: file, why)
            }
        }
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificateFile)
        } catch {
            throw ReceiptError(.invalidConfiguration, file: certificateFile, "not a PEM certificate (-----BEGIN CERTIFICATE-----)",
                               cause: String(describing: error))
        }
        guard !chain.isEmpty else {
            throw ReceiptError(.invalidConfiguration, file: certificateFile, "holds no certificate (-----BEGIN CERTIFICATE-----)")
        }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: keyFile, format: .pem)
        } catch {
            throw ReceiptError(.invalidConfiguration, file: keyFile, "not a PEM private key (-----BEGIN PRIVATE KEY-----)",
                               cause: String(describing: error))
        }
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) },
                                                                      privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        do {
            // The context is where a key that is not the certificate's is found.
            _ = try NIOSSLContext(configuration: configuration)
        } catch {
            throw ReceiptError(.invalidConfiguration, file: keyFile, "is not the private key of the certificate in \(certificateFile)",
                               cause: String(describing: error))
        }
        self.configuration = configuration
    }
}
