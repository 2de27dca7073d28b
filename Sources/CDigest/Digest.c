#include "Digest.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

// The whole of xxHash, inlined here: no library to load at run time. Its AVX2 code is compiled too,
// for functions of their own (the rest of the file stays baseline x86-64), and taken when the CPU has
// AVX2: the way xxHash's own xxh_x86dispatch.c does it, which Debian does not ship.
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define XXH_DISPATCH_AVX2 1
#define XXH_TARGET_AVX2 __attribute__((__target__("avx2")))
#endif
#define XXH_INLINE_ALL
#include <xxhash.h>

#if defined(__x86_64__) && defined(__GNUC__)
XXH_TARGET_AVX2 static XXH_errorcode xxh3_update_avx2(XXH3_state_t *state, const void *bytes, size_t count) {
    return XXH3_update(state, (const xxh_u8 *)bytes, count, XXH3_accumulate_512_avx2, XXH3_scrambleAcc_avx2);
}

static int avx2 = -1;  // -1: not asked yet

static int use_avx2(void) {
    int known = __atomic_load_n(&avx2, __ATOMIC_RELAXED);
    if (known < 0) {
        __builtin_cpu_init();
        known = __builtin_cpu_supports("avx2") ? 1 : 0;
        __atomic_store_n(&avx2, known, __ATOMIC_RELAXED);
    }
    return known;
}

int podq_digest_vector(int wanted) {
    if (wanted >= 0) {
        __builtin_cpu_init();
        __atomic_store_n(&avx2, wanted && __builtin_cpu_supports("avx2") ? 1 : 0, __ATOMIC_RELAXED);
    }
    return use_avx2();
}
#else
static int use_avx2(void) { return 0; }
int podq_digest_vector(int wanted) { (void)wanted; return 0; }
#endif

// libcrypto (OpenSSL 3's EVP) is loaded when a publisher's hash first needs it, not at start: linked
// in, it cost every podq run 2 MB of memory for the checksum-only case (docs/DECISIONS.md). Its
// functions are looked up once; the types stay opaque here.
static struct {
    void *(*ctx_new)(void);
    void (*ctx_free)(void *);
    int (*init)(void *, const void *, void *);
    int (*update)(void *, const void *, size_t);
    int (*final)(void *, unsigned char *, unsigned int *);
    const void *(*md[6])(void);
    int loaded;
} crypto;

static pthread_once_t crypto_once = PTHREAD_ONCE_INIT;

static void load_crypto(void) {
    void *lib = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) lib = dlopen("libcrypto.so", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) return;
    crypto.ctx_new = (void *(*)(void))dlsym(lib, "EVP_MD_CTX_new");
    crypto.ctx_free = (void (*)(void *))dlsym(lib, "EVP_MD_CTX_free");
    crypto.init = (int (*)(void *, const void *, void *))dlsym(lib, "EVP_DigestInit_ex");
    crypto.update = (int (*)(void *, const void *, size_t))dlsym(lib, "EVP_DigestUpdate");
    crypto.final = (int (*)(void *, unsigned char *, unsigned int *))dlsym(lib, "EVP_DigestFinal_ex");
    crypto.md[PODQ_DIGEST_MD5] = (const void *(*)(void))dlsym(lib, "EVP_md5");
    crypto.md[PODQ_DIGEST_SHA1] = (const void *(*)(void))dlsym(lib, "EVP_sha1");
    crypto.md[PODQ_DIGEST_SHA256] = (const void *(*)(void))dlsym(lib, "EVP_sha256");
    crypto.md[PODQ_DIGEST_SHA384] = (const void *(*)(void))dlsym(lib, "EVP_sha384");
    crypto.md[PODQ_DIGEST_SHA512] = (const void *(*)(void))dlsym(lib, "EVP_sha512");
    crypto.loaded = crypto.ctx_new && crypto.ctx_free && crypto.init && crypto.update && crypto.final;
}

struct podq_digest {
    int algorithm;
    XXH3_state_t *xxh3;
    void *evp;
};

int podq_digest_available(int algorithm) {
    if (algorithm == PODQ_DIGEST_XXH3_128) return 1;
    if (algorithm < PODQ_DIGEST_MD5 || algorithm > PODQ_DIGEST_SHA512) return 0;
    pthread_once(&crypto_once, load_crypto);
    return crypto.loaded && crypto.md[algorithm] != NULL;
}

podq_digest *podq_digest_new(int algorithm) {
    if (!podq_digest_available(algorithm)) return NULL;
    podq_digest *digest = calloc(1, sizeof *digest);
    if (digest == NULL) return NULL;
    digest->algorithm = algorithm;
    if (algorithm == PODQ_DIGEST_XXH3_128) {
        digest->xxh3 = XXH3_createState();
        if (digest->xxh3 == NULL || XXH3_128bits_reset(digest->xxh3) != XXH_OK) goto fail;
        return digest;
    }
    digest->evp = crypto.ctx_new();
    if (digest->evp == NULL || crypto.init(digest->evp, crypto.md[algorithm](), NULL) != 1) goto fail;
    return digest;
fail:
    podq_digest_free(digest);
    return NULL;
}

void podq_digest_update(podq_digest *digest, const void *bytes, size_t count) {
    if (count == 0) return;
    if (digest->xxh3 != NULL) {
#if defined(__x86_64__) && defined(__GNUC__)
        if (use_avx2()) {
            xxh3_update_avx2(digest->xxh3, bytes, count);
            return;
        }
#endif
        XXH3_128bits_update(digest->xxh3, bytes, count);
    } else {
        crypto.update(digest->evp, bytes, count);
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
    if (crypto.final(digest->evp, out, &length) != 1) return 0;
    return length;
}

void podq_digest_free(podq_digest *digest) {
    if (digest == NULL) return;
    if (digest->xxh3 != NULL) XXH3_freeState(digest->xxh3);
    if (digest->evp != NULL) crypto.ctx_free(digest->evp);
    free(digest);
}
