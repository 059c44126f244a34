#!/usr/bin/env bash
# Installs (Debian's `postgresql` package) and starts a local PostgreSQL for the key server's tests, listening on
# loopback only, with the role and database the tests use:
#
#   postgres://enserver:enserver@127.0.0.1:5432/enserver_test
#
# Idempotent: does nothing that is already done. Scripts/setup.sh runs it, so the README's test command has it.
# Tests read another server from ENKEYSERVER_TEST_POSTGRES_URL; ENKEYSERVER_TEST_POSTGRES=skip skips them.
set -euo pipefail

if [ "$(uname -s)" != "Linux" ]; then
    exit 0
fi
port=5432
sudo=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
        echo "postgres: need root (or sudo) to install and start PostgreSQL" >&2
        exit 1
    fi
fi
as_postgres() {
    if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else sudo -u postgres "$@"; fi
}

if ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || ! command -v pg_ctlcluster >/dev/null 2>&1; then
    echo "postgres: installing postgresql" >&2
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq >&2
    # The package's own start needs an init system; the cluster is started below instead.
    $sudo apt-get install -y -qq postgresql >&2 || true
    ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || { echo "postgres: installing failed" >&2; exit 1; }
fi
version=$(ls /usr/lib/postgresql | sort -V | tail -1)
if ! pg_lsclusters -h | awk '{print $1, $2}' | grep -qx "$version main"; then
    $sudo pg_createcluster "$version" main --port "$port" >&2
fi
# Loopback only, whatever the cluster had (Debian's postgresql.conf reads conf.d last).
echo "listen_addresses = '127.0.0.1'" | $sudo tee "/etc/postgresql/$version/main/conf.d/enserver-loopback.conf" >/dev/null
if ! pg_lsclusters -h | awk -v v="$version" '$1 == v && $2 == "main" {print $4}' | grep -q online; then
    $sudo pg_ctlcluster "$version" main start
else
    $sudo pg_ctlcluster "$version" main reload
fi
port=$(pg_lsclusters -h | awk -v v="$version" '$1 == v && $2 == "main" {print $3}')
for _ in $(seq 1 30); do
    as_postgres psql -p "$port" -qtAc "SELECT 1" >/dev/null 2>&1 && break
    sleep 1
done
if [ "$(as_postgres psql -p "$port" -qtAc "SELECT 1 FROM pg_roles WHERE rolname = 'enserver'")" != "1" ]; then
    as_postgres psql -p "$port" -qc "CREATE ROLE enserver LOGIN PASSWORD 'enserver'" >&2
fi
if [ "$(as_postgres psql -p "$port" -qtAc "SELECT 1 FROM pg_database WHERE datname = 'enserver_test'")" != "1" ]; then
    as_postgres createdb -p "$port" -O enserver enserver_test >&2
fi
echo "postgres: PostgreSQL $version on 127.0.0.1:$port, postgres://enserver:enserver@127.0.0.1:$port/enserver_test" >&2
