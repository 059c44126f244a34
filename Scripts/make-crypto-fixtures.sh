#!/usr/bin/env bash
# Writes the public keys of Tests/ENTestSupport/Fixtures/crypto/ that the P-256 verifier must refuse:
# an Ed25519 key and a P-384 key, both fresh throwaway keys made with openssl (the private halves are discarded).
set -euo pipefail
cd "$(dirname "$0")/../Tests/ENTestSupport/Fixtures/crypto"
openssl genpkey -algorithm ed25519 | openssl pkey -pubout -out ed25519-public.pem
openssl ecparam -name secp384r1 -genkey -noout | openssl ec -pubout -out p384-public.pem 2>/dev/null
echo "wrote ed25519-public.pem and p384-public.pem"
