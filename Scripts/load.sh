#!/bin/sh
# Measures `enserver`'s publish API under load, on loopback, with wrk (installed when missing).
#
#   Scripts/load.sh sqlite|postgres [INSTANCES] [SECONDS] [CONNECTIONS]
#
# Starts INSTANCES (default 1) release-built `enserver` processes on one store (a fresh SQLite file, or a fresh
# schema of the PostgreSQL database that Scripts/postgres.sh starts; ENKEYSERVER_TEST_POSTGRES_URL names another),
# then runs one `wrk` per instance for SECONDS (default 20) with CONNECTIONS (default 8) connections in all, each
# request 14 new keys (Scripts/load/publish.lua). Prints one JSON line per instance and the keys stored.
# Scripts/load-ceilings.sh puts these figures beside SQLite's, PostgreSQL's and nginx's own in the same run.
# LOAD_NO_BUILD=1 uses the binary as built; LOAD_TOKEN_KEY_STYLE (Scripts/load/serve-flags.sh) how the
# revision-token key is handed over.
set -eu
cd "$(dirname "$0")/.."
storage=${1:?usage: Scripts/load.sh sqlite|postgres [INSTANCES] [SECONDS] [CONNECTIONS]}
instances=${2:-1}
seconds=${3:-20}
connections=${4:-8}
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
scratch=${LOAD_SCRATCH:-.build-release}
[ -n "${LOAD_NO_BUILD:-}" ] || swift build -c release --product enserver --scratch-path "$scratch" >&2
binary="$scratch/release/enserver"

work=$(mktemp -d /tmp/enserver-load.XXXXXX)
pids=""
cleanup() {
    for pid in $pids; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    if [ "$storage" = postgres ]; then psql -q "$base_url" -c "drop schema if exists $schema cascade" >/dev/null 2>&1 || true; fi
    rm -rf "$work"
}
trap cleanup EXIT INT TERM
. Scripts/load/serve-flags.sh
load_serve_flags "$work"
case "$storage" in
sqlite) store="--database $work/keys.sqlite" ;;
postgres)
    base_url=${ENKEYSERVER_TEST_POSTGRES_URL:-postgres://enserver:enserver@127.0.0.1:5432/enserver_test}
    schema="load_$$"
    psql -q "$base_url" -c "create schema $schema" >/dev/null
    # From the environment: a URL with a password is refused on the command line.
    case "$base_url" in *\?*) ENSERVER_POSTGRES="$base_url&search_path=$schema" ;; *) ENSERVER_POSTGRES="$base_url?search_path=$schema" ;; esac
    export ENSERVER_POSTGRES
    store="" ;;
*) echo "storage: sqlite or postgres" >&2; exit 2 ;;
esac
ports=""
i=0
while [ "$i" -lt "$instances" ]; do
    port=$((18080 + i))
    # shellcheck disable=SC2086
    "$binary" serve $store $serve_flags --export-interval 0 --port "$port" --admin-port 0 >"$work/server-$i.log" 2>&1 &
    pids="$pids $!"
    ports="$ports $port"
    i=$((i + 1))
done
for port in $ports; do load_wait_healthy "$port" "$work"; done
per=$((connections / instances)); [ "$per" -ge 1 ] || per=1
wrks=""
for port in $ports; do
    wrk -t1 -c"$per" -d"${seconds}s" --timeout 10s -s Scripts/load/publish.lua "http://127.0.0.1:$port" \
        >"$work/wrk-$port.out" 2>&1 &
    wrks="$wrks $!"
done
for pid in $wrks; do wait "$pid"; done
for port in $ports; do
    printf '{"storage": "%s", "instances": %s, "port": %s, "connections": %s, "result": %s}\n' \
        "$storage" "$instances" "$port" "$per" "$(tail -1 "$work/wrk-$port.out")"
done
case "$storage" in
sqlite) echo "keys stored: $(sqlite3 "$work/keys.sqlite" 'select count(*) from key_server_keys' 2>/dev/null || echo '?')" ;;
postgres) echo "keys stored: $(psql -qtA "$base_url" -c "select count(*) from $schema.key_server_keys" 2>/dev/null || echo '?')" ;;
esac
