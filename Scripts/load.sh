#!/bin/sh
# Measures `enserver`'s publish API under load, on loopback, with wrk (installed when missing).
#
#   Scripts/load.sh sqlite|postgres [INSTANCES] [SECONDS] [CONNECTIONS]
#
# Starts INSTANCES (default 1) release-built `enserver` processes on one store (a fresh SQLite file, or a fresh
# schema of the PostgreSQL database that Scripts/postgres.sh starts; ENKEYSERVER_TEST_POSTGRES_URL names another),
# then runs one `wrk` per instance for SECONDS (default 20) with CONNECTIONS (default 8) connections in all, each
# request 14 new keys (Scripts/load/publish.lua). Prints one JSON line per instance and the keys stored.
set -eu
cd "$(dirname "$0")/.."
storage=${1:?usage: Scripts/load.sh sqlite|postgres [INSTANCES] [SECONDS] [CONNECTIONS]}
instances=${2:-1}
seconds=${3:-20}
connections=${4:-8}
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
scratch=${LOAD_SCRATCH:-.build-release}
swift build -c release --product enserver --scratch-path "$scratch" >&2
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
umask 077  # enserver refuses key files others may read
openssl ecparam -name prime256v1 -genkey -noout -out "$work/ec.pem" 2>/dev/null
openssl pkcs8 -topk8 -nocrypt -in "$work/ec.pem" -out "$work/signing.pem"
# The same revision-token key on every instance, as behind one load balancer.
token_key="1=$(head -c 32 /dev/urandom | base64)"
ENSERVER_REVISION_TOKEN_KEYS=$token_key
export ENSERVER_REVISION_TOKEN_KEYS
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
    "$binary" serve $store --region US --signing-key "$work/signing.pem" --key-id 310 \
        --health-authority-id load.test --verifier accept-all --publish-burst 0 --export-interval 0 \
        --host 127.0.0.1 --port "$port" --admin-port 0 >"$work/server-$i.log" 2>&1 &
    pids="$pids $!"
    ports="$ports $port"
    i=$((i + 1))
done
for port in $ports; do
    n=0
    until curl -fs "http://127.0.0.1:$port/health" >/dev/null 2>&1; do
        n=$((n + 1)); [ "$n" -lt 300 ] || { echo "enserver on $port did not start" >&2; cat "$work"/server-*.log >&2; exit 1; }
        sleep 0.1
    done
done
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
