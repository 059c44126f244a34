#!/bin/sh
# Fuzzes one target of enfuzz with libFuzzer and AddressSanitizer.
#
#   Scripts/fuzz.sh [--no-build] TARGET [SECONDS] [-- LIBFUZZER_OPTIONS...]
#   Scripts/fuzz.sh --list
#   Scripts/fuzz.sh --build
#
# `--build` only builds the fuzzer; `--no-build` runs the one built before (.ci/run builds once, then runs two
# targets at a time).
# TARGET is one of `Scripts/fuzz.sh --list`. The corpus grows in .build-fuzz/corpus/TARGET, seeded from the test
# fixtures (and from Fuzz/Corpus/TARGET when present); a crash, a timeout over 1 s, an out-of-memory over 512 MB or
# a broken rule stops the run, saves the input under .build-fuzz/artifacts/TARGET/ and exits non-zero. Keep a
# crasher as a regression test: copy it to Tests/ENTestSupport/Fixtures/fuzz/TARGET/ (FuzzRegressionTests replays
# every file there). libFuzzer options after `--` pass through (for example `-fork=2` for two workers).
set -eu
cd "$(dirname "$0")/.."

targets="export-archive export-binary key-scanner export-signature exposure-configuration store score-input sightings
publish-request verification-certificate revision-token verify-request certificate-request issue-request
batch-issue-request code-status-request"
if [ "${1:-}" = "--list" ]; then echo $targets | tr ' ' '\n'; exit 0; fi
scratch=.build-fuzz
binary="$scratch/release/enfuzz"
build() {
    swift build -c release --product enfuzz --scratch-path "$scratch" \
        -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING -Xswiftc -use-ld=lld >&2
}
if [ "${1:-}" = "--build" ]; then build; exit 0; fi
skip_build=no
if [ "${1:-}" = "--no-build" ]; then skip_build=yes; shift; fi
target=${1:?usage: Scripts/fuzz.sh TARGET [SECONDS] [-- LIBFUZZER_OPTIONS...]}
case " $(echo $targets) " in *" $target "*) ;; *) echo "unknown target $target; one of:" $targets >&2; exit 2 ;; esac
seconds=${2:-60}
shift; [ $# -gt 0 ] && shift
[ "${1:-}" = "--" ] && shift

if [ "$skip_build" = yes ]; then
    [ -x "$binary" ] || { echo "no $binary: run Scripts/fuzz.sh --build first" >&2; exit 2; }
else
    build
fi

corpus="$scratch/corpus/$target"
artifacts="$scratch/artifacts/$target"
mkdir -p "$corpus" "$artifacts"
fixtures=Tests/ENTestSupport/Fixtures
# Seeds: files as they are, and the parts of every export zip (export.bin, export.sig) for the targets that read them.
seed() { cp "$@" "$corpus/" 2>/dev/null || true; }
unzip_part() {
    python3 - "$1" "$corpus" "$2" <<'PY'
import sys, zipfile, pathlib, hashlib
source, corpus, suffix = sys.argv[1:]
try:
    with zipfile.ZipFile(source) as archive:
        for name in archive.namelist():
            if name.endswith(suffix):
                data = archive.read(name)
                (pathlib.Path(corpus) / ("seed-" + hashlib.sha1(data).hexdigest())).write_bytes(data)
except zipfile.BadZipFile:
    pass
PY
}
dictionary=Fuzz/Dictionaries/export.dict
max_len=65536 # bytes; seeds above it are truncated, which is a mutation worth having for these formats
case "$target" in
export-archive)
    seed $(find "$fixtures/export" -name '*.zip' -o -name '*.bin') ;;
export-binary | key-scanner)
    seed $(find "$fixtures/export" -name '*.bin')
    for zip in $(find "$fixtures/export" -name '*.zip'); do unzip_part "$zip" .bin; done ;;
export-signature)
    for zip in $(find "$fixtures/export" -name '*.zip'); do unzip_part "$zip" .sig; done ;;
exposure-configuration)
    seed "$fixtures"/risk/*.json
    dictionary=Fuzz/Dictionaries/json.dict ;;
score-input)
    seed "$fixtures"/risk/score-v1-exposures.json "$fixtures"/risk/score-v2-apple-example.json
    dictionary=Fuzz/Dictionaries/json.dict ;;
sightings)
    : # seeds: Fuzz/Corpus/sightings
    dictionary=Fuzz/Dictionaries/json.dict ;;
publish-request)
    # Seeds: Fuzz/Corpus/publish-request (Scripts/make-fuzz-seeds.py).
    dictionary=Fuzz/Dictionaries/publish.dict
    max_len=64000 ;; # the publish body limit
verification-certificate)
    # Seeds: Fuzz/Corpus/verification-certificate, the fixture's real certificate among them.
    dictionary=Fuzz/Dictionaries/certificate.dict
    max_len=8192 ;;
revision-token)
    # Seeds: Fuzz/Corpus/revision-token, tokens sealed with the target's fixed keys.
    dictionary=Fuzz/Dictionaries/revision-token.dict
    max_len=8192 ;;
verify-request | certificate-request | issue-request | batch-issue-request | code-status-request)
    # Seeds: Fuzz/Corpus/TARGET, Google's docs/api.md examples and bodies with live values (@CODE@, @TOKEN@, …).
    dictionary=Fuzz/Dictionaries/verification.dict
    max_len=64000 ;; # the verification API's body limit
store)
    seed "$fixtures"/fuzz/store/*.sqlite
    dictionary=Fuzz/Dictionaries/sqlite.dict
    max_len=131072 ;;
esac
[ -d "Fuzz/Corpus/$target" ] && seed "Fuzz/Corpus/$target"/*

# -detect_leaks=0 and ASAN_OPTIONS=detect_leaks=0: Swift's lazily initialised globals (ENKeyExport.header, the first
# time an input reaches it) are reported as leaks, by libFuzzer after the input that first touched them and by
# LeakSanitizer at exit; memory growth is bounded by -rss_limit_mb and
# -malloc_limit_mb instead, which stop the run past 512 MB. See Documentation/Reliability.md.
echo "fuzzing $target for $seconds s (corpus $corpus)" >&2
# SWIFT_BACKTRACE=enable=no: libFuzzer reports the crash; Swift's own backtracer would then trip AddressSanitizer.
# quarantine_size_mb=64: AddressSanitizer holds freed memory back (256 MB by default) to catch uses after free; that
# memory counts in the RSS that -rss_limit_mb bounds, so the default would spend half the 512 MB bound on the
# sanitizer instead of the code under test.
SWIFT_BACKTRACE=enable=no ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:quarantine_size_mb=64}" "$binary" "$target" "$corpus" \
    -max_total_time="$seconds" -timeout=1 -rss_limit_mb=512 -malloc_limit_mb=512 -max_len="$max_len" \
    -dict="$dictionary" -artifact_prefix="$artifacts/" -print_final_stats=1 -detect_leaks=0 "$@"
