#!/usr/bin/env bash
# Fails when a file under Tests/ that is not Swift source is missing from NOTICE, or NOTICE lists a file that
# does not exist. NOTICE lists third-party files as "File: <path>" and the package's own as "Generated: <path>"
# (written by a committed script or tool) or "Written: <path>" (written by hand for this package).
set -euo pipefail
cd "$(dirname "$0")/.."
listed=$(sed -n -E 's/^(File|Generated|Written): +([^ ]+).*$/\2/p' NOTICE | sort)
present=$(git ls-files --cached --others --exclude-standard -- Tests | grep -v '\.swift$' | sort -u \
    | while read -r f; do [ -e "$f" ] && echo "$f"; done || true)
status=0
missing=$(comm -13 <(echo "$listed") <(echo "$present"))
if [ -n "$missing" ]; then
    echo "NOTICE lists no origin for these files under Tests/ (add a File:, Generated: or Written: entry):"
    echo "$missing" | sed 's/^/  /'
    status=1
fi
stale=$(comm -23 <(echo "$listed") <(echo "$present"))
if [ -n "$stale" ]; then
    echo "NOTICE lists files that do not exist:"
    echo "$stale" | sed 's/^/  /'
    status=1
fi
[ $status -eq 0 ] && echo "NOTICE covers all $(echo "$present" | wc -l) non-Swift files under Tests/"
exit $status
