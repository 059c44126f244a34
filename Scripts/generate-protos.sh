#!/usr/bin/env bash
# Regenerates Tests/ENExportFormatTests/Generated/export.pb.swift from Sources/ENExportFormat/Protos/export.proto
# (swift-protobuf is the tests' independent decoder and encoder; the module reads and writes the wire format itself).
#
# Needs `protoc` (Debian/Ubuntu: `apt-get install -y protobuf-compiler`; macOS: `brew install protobuf`).
# The Swift plugin is built from the swift-protobuf version this package resolves, so the generated code
# always matches the library it compiles against. CI never runs this: the generated file is committed.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

if ! command -v protoc >/dev/null 2>&1; then
    echo "error: protoc not found; install protobuf-compiler" >&2
    exit 1
fi

scratch="$root/.build-protoc"
swift build -c release --product protoc-gen-swift --scratch-path "$scratch" >&2
plugin="$(swift build -c release --product protoc-gen-swift --scratch-path "$scratch" --show-bin-path)/protoc-gen-swift"

out="Tests/ENExportFormatTests/Generated"
mkdir -p "$out"
protoc \
    --plugin=protoc-gen-swift="$plugin" \
    --swift_out="$out" \
    --swift_opt=Visibility=Internal,FileNaming=DropPath,UseAccessLevelOnImports=true \
    -I Sources/ENExportFormat/Protos \
    Sources/ENExportFormat/Protos/export.proto
echo "wrote $out/export.pb.swift" >&2
