#!/usr/bin/env bash
# Installs what building and testing this package needs on a fresh Debian/Ubuntu machine, and nothing that
# is already there. Idempotent and quiet when everything is present.
#
#   libssl-dev      OpenSSL 3 libcrypto headers (ENCrypto)            pkg-config: libcrypto
#   libsqlite3-dev  SQLite (ENStore, through GRDB)                    pkg-config: sqlite3
#   zlib1g-dev      zlib (writing export zips: deflate)               pkg-config: zlib
#   libdeflate-dev  libdeflate (reading export zips: inflate, CRC-32)   pkg-config: libdeflate
#   pkg-config      how SwiftPM finds the four above
#   openssl         the command-line tool the tests use as an outside signature verifier
#   protobuf-compiler  protoc, which the tests use as an outside decoder of written export files
#   chromium        headless Chromium, in which the tests open the HTML reports entool writes (evaluate --report,
#                   demo --report) as a browser would (ENTestSupport's HeadlessChromium)
#   postgresql      a local PostgreSQL on loopback for the key server's tests, started by Scripts/postgres.sh
#                   (skipped when ENKEYSERVER_TEST_POSTGRES=skip)
#
# On macOS, install OpenSSL and libdeflate with `brew install openssl@3 libdeflate` and set PKG_CONFIG_PATH to its lib/pkgconfig.
set -euo pipefail

if [ "$(uname -s)" != "Linux" ]; then
    exit 0
fi

missing=()
have_pc() { command -v pkg-config >/dev/null 2>&1 && pkg-config --exists "$1"; }
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
have_pc libcrypto || missing+=(libssl-dev)
have_pc sqlite3 || missing+=(libsqlite3-dev)
have_pc zlib || missing+=(zlib1g-dev)
have_pc libdeflate || missing+=(libdeflate-dev)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
command -v protoc >/dev/null 2>&1 || missing+=(protobuf-compiler)
command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || missing+=(chromium)

start_postgres() {
    if [ "${ENKEYSERVER_TEST_POSTGRES:-}" != "skip" ]; then "$(dirname "$0")/postgres.sh"; fi
}

if [ "${#missing[@]}" -eq 0 ]; then
    start_postgres
    exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
    echo "setup: missing ${missing[*]}; install them with your package manager" >&2
    exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
        echo "setup: need root (or sudo) to install: ${missing[*]}" >&2
        exit 1
    fi
fi
echo "setup: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >&2
$sudo apt-get install -y -qq "${missing[@]}" >&2
start_postgres
