internal import CLibCrypto
import ENCore

/// OpenSSL algorithm objects fetched once per process.
///
/// In OpenSSL 3, `EVP_aes_128_ecb()` and friends perform an implicit provider fetch on every
/// initialisation, which costs hundreds of nanoseconds and serialises threads. Fetching each algorithm
/// once and passing the object explicitly removes that cost from every hot path.
///
/// `@unchecked Sendable`: a fetched `EVP_CIPHER` / `EVP_MD` is immutable and reference-counted, and OpenSSL
/// documents fetched algorithm objects as safe to share between threads. They are never freed (process lifetime).
struct FetchedAlgorithms: @unchecked Sendable {
    let aes128ECB: OpaquePointer
    let aes128CTR: OpaquePointer
    let sha256: OpaquePointer

    /// The shared instance. A failed fetch is a broken OpenSSL installation: it is reported as an error by
    /// ``shared()`` rather than crashing at load time.
    private static let instance: Result<FetchedAlgorithms, ENError> = {
        guard let ecb = EVP_CIPHER_fetch(nil, "AES-128-ECB", nil) else {
            return .failure(.openSSL("fetching AES-128-ECB"))
        }
        guard let ctr = EVP_CIPHER_fetch(nil, "AES-128-CTR", nil) else {
            return .failure(.openSSL("fetching AES-128-CTR"))
        }
        guard let sha = EVP_MD_fetch(nil, "SHA256", nil) else {
            return .failure(.openSSL("fetching SHA256"))
        }
        return .success(FetchedAlgorithms(aes128ECB: ecb, aes128CTR: ctr, sha256: sha))
    }()

    /// The process-wide algorithms, or the error that prevented fetching them.
    static func shared() throws(ENError) -> FetchedAlgorithms {
        try instance.get()
    }
}
