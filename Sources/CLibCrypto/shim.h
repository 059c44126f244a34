#ifndef CLIBCRYPTO_SHIM_H
#define CLIBCRYPTO_SHIM_H

// Every OpenSSL header the Swift wrappers use must be listed here (Swift only sees what this includes).
// SHA256_Transform and SHA256_CTX are deprecated in OpenSSL 3 but still exported; the fast HKDF uses them.
#define OPENSSL_SUPPRESS_DEPRECATED 1

#include <openssl/opensslv.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include <openssl/rand.h>
#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/pem.h>
#include <openssl/bio.h>
#include <openssl/ec.h>
#include <openssl/sha.h>
#include <openssl/hmac.h>

/// OPENSSL_free is a function-like macro, which Swift cannot import.
static inline void CLibCrypto_free(void *ptr) { OPENSSL_free(ptr); }

/// BIO_get_mem_data is a macro over BIO_ctrl.
static inline long CLibCrypto_BIO_get_mem_data(BIO *bio, char **pp) { return BIO_get_mem_data(bio, pp); }

#endif
