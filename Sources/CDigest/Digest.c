#include "Digest.h"

#include <stdlib.h>
#include <string.h>
#include <openssl/evp.h>

// The whole of xxHash, inlined here: no library to load at run time.
#define XXH_INLINE_ALL
#include <xxhash.h>

struct podq_digest {
    int algorithm;
    XXH3_state_t *xxh3;
    EVP_MD_CTX *evp;
};

static const EVP_MD *evp_for(int algorithm) {
    switch (algorithm) {
    case PODQ_DIGEST_MD5: return EVP_md5();
    case PODQ_DIGEST_SHA1: return EVP_sha1();
    case PODQ_DIGEST_SHA256: return EVP_sha256();
    case PODQ_DIGEST_SHA384: return EVP_sha384();
    case PODQ_DIGEST_SHA512: return EVP_sha512();
    default: return NULL;
    }
}

podq_digest *podq_digest_new(int algorithm) {
    podq_digest *digest = calloc(1, sizeof *digest);
    if (digest == NULL) return NULL;
    digest->algorithm = algorithm;
    if (algorithm == PODQ_DIGEST_XXH3_128) {
        digest->xxh3 = XXH3_createState();
        if (digest->xxh3 == NULL || XXH3_128bits_reset(digest->xxh3) != XXH_OK) goto fail;
        return digest;
    }
    const EVP_MD *md = evp_for(algorithm);
    if (md == NULL) goto fail;
    digest->evp = EVP_MD_CTX_new();
    if (digest->evp == NULL || EVP_DigestInit_ex(digest->evp, md, NULL) != 1) goto fail;
    return digest;
fail:
    podq_digest_free(digest);
    return NULL;
}

void podq_digest_update(podq_digest *digest, const void *bytes, size_t count) {
    if (count == 0) return;
    if (digest->xxh3 != NULL) {
        XXH3_128bits_update(digest->xxh3, bytes, count);
    } else {
        EVP_DigestUpdate(digest->evp, bytes, count);
    }
}

size_t podq_digest_final(podq_digest *digest, unsigned char *out) {
    if (digest->xxh3 != NULL) {
        XXH128_canonical_t canonical;
        XXH128_canonicalFromHash(&canonical, XXH3_128bits_digest(digest->xxh3));
        memcpy(out, canonical.digest, sizeof canonical.digest);
        return sizeof canonical.digest;
    }
    unsigned int length = 0;
    if (EVP_DigestFinal_ex(digest->evp, out, &length) != 1) return 0;
    return length;
}

void podq_digest_free(podq_digest *digest) {
    if (digest == NULL) return;
    if (digest->xxh3 != NULL) XXH3_freeState(digest->xxh3);
    if (digest->evp != NULL) EVP_MD_CTX_free(digest->evp);
    free(digest);
}
