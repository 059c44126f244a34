#!/usr/bin/env bash
# Builds the DocC documentation of every module with a catalog, warnings as errors.
#
#   Scripts/docs.sh [OUTPUT_DIR]      (default .build/docs; one TARGET.doccarchive per module)
#
# One debug build and one symbol-graph extraction for the whole package (`swift package dump-symbol-graph`, which
# reuses the build `swift build` or `swift run` made), then `docc convert` of each catalog with its module's symbol
# graphs. swift-docc-plugin's `swift package generate-documentation --target T` gives the same archives, but builds
# the package again for each target it is given.
set -euo pipefail
cd "$(dirname "$0")/.."
output=${1:-.build/docs}

docc=$(command -v docc || xcrun --find docc 2>/dev/null || true)
if [ -z "$docc" ]; then echo "docs: no docc (it comes with the Swift toolchain)" >&2; exit 1; fi

log=.build/docs-symbolgraph.log
mkdir -p .build "$output"
swift package dump-symbol-graph --minimum-access-level public --emit-extension-block-symbols > "$log" 2>&1 \
    || { cat "$log"; echo "docs: extracting the symbol graphs failed" >&2; exit 1; }
graphs=$(sed -n 's/^Files written to //p' "$log" | tail -1)
if [ ! -d "$graphs" ]; then cat "$log"; echo "docs: no symbol graph directory in the output above" >&2; exit 1; fi

failed=()
for catalog in Sources/*/*.docc; do
    target=$(basename "$catalog" .docc)
    [ "$(basename "$(dirname "$catalog")")" = "$target" ] || continue
    module_graphs=$(mktemp -d)
    cp "$graphs/$target.symbols.json" "$module_graphs/"
    for extension in "$graphs/$target@"*.symbols.json; do
        if [ -e "$extension" ]; then cp "$extension" "$module_graphs/"; fi
    done
    if "$docc" convert "$catalog" --additional-symbol-graph-dir "$module_graphs" --fallback-display-name "$target" \
        --fallback-bundle-identifier "$target" --output-path "$output/$target.doccarchive" --warnings-as-errors \
        > ".build/docc-$target.log" 2>&1; then
        echo "Generated $output/$target.doccarchive"
    else
        cat ".build/docc-$target.log"
        failed+=("$target")
    fi
    rm -rf "$module_graphs"
done
if [ "${#failed[@]}" -gt 0 ]; then echo "docs: DocC failed for ${failed[*]}" >&2; exit 1; fi
