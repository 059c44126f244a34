#!/usr/bin/env bash
# Writes Tests/ENTestSupport/Fixtures/export/generated/bare-export.bin with the package's own `entool export`:
# a bare export.bin (no export.sig) of 3 keys, region "222", verification key id "222", version "v2".
# The signing key is a throwaway P-256 key made with openssl; only export.bin is kept, so no key is committed.
# Run from anywhere: Scripts/make-bare-export-fixture.sh (builds entool first).
set -euo pipefail
cd "$(dirname "$0")/.."
out=Tests/ENTestSupport/Fixtures/export/generated/bare-export.bin
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

swift build --product entool
entool="$(swift build --show-bin-path)/entool"

openssl ecparam -name prime256v1 -genkey -noout -out "$work/signing.pem"
# Three keys chosen for this package (the key data is SHA-256("swift-exposure-notification bare export N"),
# first 16 bytes). Key 1 is a full-day key with risk 8 and the default period; keys 2 and 3 vary the fields.
key() { printf 'swift-exposure-notification bare export %s' "$1" | openssl dgst -sha256 -r | cut -c1-32; }
cat > "$work/keys.json" <<JSON
[
  {"keyData": "$(key 1)", "rollingStartIntervalNumber": 2663280, "rollingPeriod": 144, "transmissionRiskLevel": 8},
  {"keyData": "$(key 2)", "rollingStartIntervalNumber": 2663136, "rollingPeriod": 144, "transmissionRiskLevel": 5,
   "reportType": 1, "daysSinceOnsetOfSymptoms": 2},
  {"keyData": "$(key 3)", "rollingStartIntervalNumber": 2662992, "rollingPeriod": 72, "transmissionRiskLevel": 1,
   "reportType": 2, "daysSinceOnsetOfSymptoms": -3}
]
JSON
"$entool" export --keys "$work/keys.json" --signing-key "$work/signing.pem" --key-id 222 --key-version v2 \
    --region 222 --start-timestamp 1598486400 --end-timestamp 1598572800 --output "$work/export.zip"
unzip -p "$work/export.zip" export.bin > "$out"
echo "wrote $out ($(wc -c < "$out") bytes)"
