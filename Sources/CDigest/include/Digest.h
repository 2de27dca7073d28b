#ifndef PODQ_DIGEST_H
#define PODQ_DIGEST_H

#include <stddef.h>

/// Streaming digests for downloads: XXH3-128 (xxHash, compiled in from Debian's libxxhash-dev header)
/// for podq's own checksum, and MD5, SHA-1 and SHA-2 from libcrypto (OpenSSL 3's EVP, `libcrypto.so.3`
/// of Debian's libssl3, loaded at the first use) for what publishers and servers give.

/// The algorithms, by number (DigestAlgorithm's raw values in Swift).
enum {
    PODQ_DIGEST_XXH3_128 = 0,
    PODQ_DIGEST_MD5 = 1,
    PODQ_DIGEST_SHA1 = 2,
    PODQ_DIGEST_SHA256 = 3,
    PODQ_DIGEST_SHA384 = 4,
    PODQ_DIGEST_SHA512 = 5,
};

typedef struct podq_digest podq_digest;

/// 1 when `algorithm` can be computed here: XXH3 always; the others when libcrypto could be loaded.
int podq_digest_available(int algorithm);

/// A new context for `algorithm`; NULL when it is unknown, not available, or memory ran out.
podq_digest *podq_digest_new(int algorithm);

/// Adds `count` bytes.
void podq_digest_update(podq_digest *digest, const void *bytes, size_t count);

/// Writes the digest into `out` (room for 64 bytes) and returns its length (0 on failure). The
/// context can take no more bytes afterwards.
size_t podq_digest_final(podq_digest *digest, unsigned char *out);

void podq_digest_free(podq_digest *digest);

/// XXH3's vector code: 1 when it takes AVX2 (the CPU has it), 0 when the portable SSE2 code. `wanted`
/// 0 or 1 chooses (tests compare the two; AVX2 only where the CPU has it); -1 only asks.
int podq_digest_vector(int wanted);

#endif
