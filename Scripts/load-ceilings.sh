#!/bin/sh
# Puts `enserver`'s figures beside its storage's own ceiling, measured in the same run on the same machine:
#
#   Scripts/load-ceilings.sh sqlite|postgres|get|all [SECONDS] [CONNECTIONS]
#
# - sqlite: SQLite doing the publish's write directly (Scripts/load/sqlite-ceiling.c: transactions of 14 key inserts
#   into a store `enserver` created, WAL, synchronous FULL and NORMAL, CONNECTIONS threads, one writer at a time),
#   then `Scripts/load.sh sqlite 1`.
# - postgres: `pgbench` running the transaction `enserver` runs for a publish (Scripts/load/publish.pgbench) with
#   CONNECTIONS clients on a schema `enserver` created, then `Scripts/load.sh postgres` with 1 and 2 instances.
# - get: `GET` of one export file, from `enserver` and from nginx serving the same bytes from disk (temporary
#   configs on loopback ports), all with wrk (CONNECTIONS connections), like for like twice: enserver at its default
#   `--log-level info` (a line per request) against nginx with its access log, then enserver at `warning` against
#   nginx with `access_log off`.
#
# SECONDS defaults to 20, CONNECTIONS to 8. Installs wrk, nginx, pgbench and PostgreSQL (Scripts/postgres.sh) when
# missing. Prints the runs' JSON lines, then one table: ceiling, enserver, their ratio, enserver's p99, the target.
set -eu
cd "$(dirname "$0")/.."
what=${1:?usage: Scripts/load-ceilings.sh sqlite|postgres|get|all [SECONDS] [CONNECTIONS]}
seconds=${2:-20}
connections=${3:-8}
case "$what" in sqlite | postgres | get | all) ;; *) echo "load-ceilings: sqlite, postgres, get or all" >&2; exit 2 ;; esac
need() { command -v "$1" >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null; }; }
need wrk wrk
need sqlite3 sqlite3
need cc gcc
scratch=${LOAD_SCRATCH:-.build-release}
[ -n "${LOAD_NO_BUILD:-}" ] || swift build -c release --product enserver --scratch-path "$scratch" >&2
binary="$scratch/release/enserver"
export LOAD_NO_BUILD=1

work=$(mktemp -d /tmp/enserver-ceilings.XXXXXX)
pids=""
schema=""
www=""
base_url=${ENKEYSERVER_TEST_POSTGRES_URL:-postgres://enserver:enserver@127.0.0.1:5432/enserver_test}
cleanup() {
    for pid in $pids; do kill "$pid" 2>/dev/null || true; done
    for pidfile in "$work"/nginx-*.pid; do [ ! -f "$pidfile" ] || kill "$(cat "$pidfile")" 2>/dev/null || true; done
    [ -z "$schema" ] || psql -q "$base_url" -c "drop schema if exists $schema cascade" >/dev/null 2>&1 || true
    rm -rf "$work" ${www:+"$www"}
}
trap cleanup EXIT INT TERM
. Scripts/load/serve-flags.sh
load_serve_flags "$work"
rows="$work/rows"
: >"$rows"
# field JSON NAME: one number from a JSON line.
field() { printf '%s' "$1" | python3 -c "import json,sys; print(json.load(sys.stdin)['$2'])"; }
# row NAME CEILING ENSERVER P99 TARGET: one line of the summary.
row() { printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" >>"$rows"; }
# start_server PORT ARGS...: one `enserver serve` in the background, waited for.
start_server() {
    port=$1
    shift
    # shellcheck disable=SC2086
    # The admin listener (metrics, test clock) 1000 ports above.
    "$binary" serve "$@" $serve_flags --port "$port" --admin-port $((port + 1000)) >"$work/server-$port.log" 2>&1 &
    pids="$pids $!"
    last_pid=$!
    load_wait_healthy "$port" "$work"
}
stop_server() { kill "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }
# enserver_rps LINES: the sum of the instances' requests/s and the largest p99 from Scripts/load.sh's JSON lines.
enserver_sum() {
    printf '%s\n' "$1" | grep '^{' | python3 -c '
import json, sys
rows = [json.loads(line)["result"] for line in sys.stdin]
bad = sum(r["non2xx"] + r["socket_errors"] for r in rows)
print("%.1f %.2f %d" % (sum(r["rps"] for r in rows), max(r["p99_ms"] for r in rows), bad))'
}

if [ "$what" = sqlite ] || [ "$what" = all ]; then
    cc -O2 -o "$work/sqlite-ceiling" Scripts/load/sqlite-ceiling.c -lsqlite3 -lpthread
    # A store `enserver` created, so that the schema is the one it writes into.
    start_server 18180 --database "$work/ceiling.sqlite" --export-interval 0
    stop_server "$last_pid"
    sqlite3 "$work/ceiling.sqlite" 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null
    for sync in FULL NORMAL; do
        cp "$work/ceiling.sqlite" "$work/ceiling-$sync.sqlite"
        line=$("$work/sqlite-ceiling" "$work/ceiling-$sync.sqlite" "$connections" "$seconds" "$sync")
        echo "{\"ceiling\": \"sqlite synchronous=$sync\", \"connections\": $connections, \"result\": $line}"
        eval "sqlite_$sync=$(field "$line" rps)"
    done
    out=$(Scripts/load.sh sqlite 1 "$seconds" "$connections")
    printf '%s\n' "$out"
    set -- $(enserver_sum "$out")
    row "publish, SQLite (ceiling synchronous=FULL)" "$sqlite_FULL" "$1" "$2" "0.6x, p99 < 25 ms"
    row "publish, SQLite (ceiling synchronous=NORMAL)" "$sqlite_NORMAL" "$1" "$2" "-"
    [ "$3" -eq 0 ] || echo "enserver on SQLite: $3 requests failed" >&2
fi

if [ "$what" = postgres ] || [ "$what" = all ]; then
    [ -n "${ENKEYSERVER_TEST_POSTGRES_URL:-}" ] || Scripts/postgres.sh
    need pgbench postgresql-client
    schema="ceiling_$$"
    psql -q "$base_url" -c "create schema $schema" >/dev/null
    case "$base_url" in *\?*) url="$base_url&search_path=$schema" ;; *) url="$base_url?search_path=$schema" ;; esac
    # The URL from the environment: one with a password is refused on the command line.
    ENSERVER_POSTGRES=$url
    export ENSERVER_POSTGRES
    start_server 18181 --export-interval 0
    unset ENSERVER_POSTGRES
    stop_server "$last_pid"
    PGOPTIONS="-c search_path=$schema" pgbench -n -M prepared -c "$connections" -j 1 -T "$seconds" \
        -f Scripts/load/publish.pgbench "$base_url" >"$work/pgbench.out" 2>&1 || { cat "$work/pgbench.out" >&2; exit 1; }
    pg_tps=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$work/pgbench.out" | head -1)
    pg_latency=$(sed -n 's/^latency average = \([0-9.]*\) ms.*/\1/p' "$work/pgbench.out" | head -1)
    echo "{\"ceiling\": \"postgres pgbench\", \"connections\": $connections, \"tps\": $pg_tps, \"latency_average_ms\": $pg_latency}"
    for instances in 1 2; do
        out=$(Scripts/load.sh postgres "$instances" "$seconds" "$connections")
        printf '%s\n' "$out"
        set -- $(enserver_sum "$out")
        row "publish, PostgreSQL, $instances instance(s)" "$pg_tps" "$1" "$2" "0.4x, p99 < 25 ms"
        [ "$3" -eq 0 ] || echo "enserver on PostgreSQL: $3 requests failed" >&2
    done
fi

if [ "$what" = get ] || [ "$what" = all ]; then
    need nginx nginx
    # One export file: keys published on a test clock, the clock moved 6 hours on, the batch cut.
    # The test endpoints are on the admin listener (start_server puts it 1000 ports above).
    start_server 18182 --database "$work/get.sqlite" --test-clock 2020-04-01T00:00:00Z
    admin=19182
    # The first export starts the batches; the next one, 6 hours on, cuts the first 4-hour batch.
    curl -fs -H 'Content-Type: application/json' -d '{}' "http://127.0.0.1:$admin/v1/test/export" >/dev/null
    i=0
    while [ "$i" -lt 100 ]; do
        keys=""
        day=1
        while [ "$day" -le 14 ]; do
            start=$((2642688 - 144 * day))
            keys="$keys${keys:+,}{\"key\":\"$(head -c 16 /dev/urandom | base64)\",\"rollingStartNumber\":$start,\"rollingPeriod\":144,\"transmissionRisk\":3}"
            day=$((day + 1))
        done
        curl -fs -H 'Content-Type: application/json' -d "{\"temporaryExposureKeys\":[$keys],\"healthAuthorityID\":\"load.test\"}" \
            http://127.0.0.1:18182/v1/publish >/dev/null
        i=$((i + 1))
    done
    curl -fs -H 'Content-Type: application/json' -d '{"now": "2020-04-01T06:00:00Z"}' "http://127.0.0.1:$admin/v1/test/clock" >/dev/null
    curl -fs -H 'Content-Type: application/json' -d '{}' "http://127.0.0.1:$admin/v1/test/export" >/dev/null
    name=$(curl -fs http://127.0.0.1:18182/index.txt | grep '\.zip$' | head -1)
    [ -n "$name" ] || { echo "load-ceilings: no export file was cut" >&2; cat "$work/server-18182.log" >&2; exit 1; }
    # Readable by nginx's workers (another user when started as root), unlike $work.
    www=$(mktemp -d /tmp/enserver-ceilings-www.XXXXXX)
    chmod 755 "$www"
    mkdir -p "$www/$(dirname "$name")"
    curl -fs "http://127.0.0.1:18182/$name" -o "$www/$name"
    # nginx twice: with its access log (one line per request, as enserver at info) and without (as at warning).
    for logging in on off; do
        if [ "$logging" = on ]; then access="access_log $work/nginx-access.log;"; else access="access_log off;"; fi
        cat >"$work/nginx-$logging.conf" <<NGINX
worker_processes auto;
pid $work/nginx-$logging.pid;
error_log $work/nginx-error.log;
events { worker_connections 1024; }
http {
    $access
    sendfile on;
    client_body_temp_path $work/nginx-tmp;
    proxy_temp_path $work/nginx-tmp;
    fastcgi_temp_path $work/nginx-tmp;
    uwsgi_temp_path $work/nginx-tmp;
    scgi_temp_path $work/nginx-tmp;
    server { listen 127.0.0.1:$([ "$logging" = on ] && echo 18184 || echo 18183); root $www; }
}
NGINX
        nginx -c "$work/nginx-$logging.conf" -e "$work/nginx-error.log"
    done
    for port in 18183 18184; do
        n=0
        until curl -fs "http://127.0.0.1:$port/$name" -o /dev/null; do
            n=$((n + 1)); [ "$n" -lt 50 ] || { echo "nginx did not start" >&2; cat "$work/nginx-error.log" >&2; exit 1; }
            sleep 0.1
        done
    done
    # get NAME PORT: wrk against one server; sets get_NAME and get_p99_NAME.
    get() {
        wrk -t1 -c"$connections" -d"${seconds}s" --latency "http://127.0.0.1:$2/$name" >"$work/wrk-get.out" 2>&1
        rps=$(sed -n 's/^Requests\/sec: *\([0-9.]*\).*/\1/p' "$work/wrk-get.out")
        p99=$(awk '$1 == "99%" {print $2}' "$work/wrk-get.out")
        non2xx=$(sed -n 's/^ *Non-2xx or 3xx responses: *\([0-9]*\).*/\1/p' "$work/wrk-get.out")
        echo "{\"get\": \"$1\", \"file\": \"$name\", \"bytes\": $(wc -c <"$www/$name"), \"rps\": $rps, \"p99\": \"$p99\", \"non2xx\": ${non2xx:-0}}"
        eval "get_$1=$rps; get_p99_$1=$p99"
    }
    # enserver as it runs by default (--log-level info: a line per request), then without request lines.
    get enserver_info 18182
    get nginx_log 18184
    stop_server "$last_pid"
    start_server 18182 --database "$work/get.sqlite" --test-clock 2020-04-01T06:00:00Z --log-level warning
    get enserver_warning 18182
    get nginx 18183
    row "GET one export file, each logging every request (enserver info; nginx access_log)" \
        "$get_nginx_log" "$get_enserver_info" "$get_p99_enserver_info" "0.5x"
    row "GET one export file, neither logging (enserver warning; nginx access_log off)" \
        "$get_nginx" "$get_enserver_warning" "$get_p99_enserver_warning" "0.5x"
fi

echo
printf '%-84s %12s %12s %7s %10s  %s\n' "measure ($connections connections, ${seconds}s)" "ceiling/s" "enserver/s" ratio "p99" target
python3 - "$rows" <<'PY'
import sys
for line in open(sys.argv[1]):
    name, ceiling, enserver, p99, target = line.rstrip("\n").split("\t")
    p99 = p99 if p99.endswith("s") else p99 + " ms"
    print("%-84s %12.1f %12.1f %6.2fx %10s  %s" % (name, float(ceiling), float(enserver), float(enserver) / float(ceiling), p99, target))
PY
