# Sourced by Scripts/load.sh and Scripts/load-ceilings.sh: the `enserver serve` flags every load run uses, in one
# place. accept-all verification, named explicitly (it is allowed on loopback only); the same revision-token key on
# every instance, as behind one load balancer, handed over as LOAD_TOKEN_KEY_STYLE says: `env`
# (ENSERVER_REVISION_TOKEN_KEYS, the default) or `file` (--revision-token-keys-file); secrets never on argv. No publish
# rate limit (--publish-burst 0): every request comes from one address.
#
#   load_serve_flags WORKDIR   sets $serve_flags (and exports the key when the style is env)
load_serve_flags() {
    load_token_key="1=$(head -c 32 /dev/urandom | base64)"
    case "${LOAD_TOKEN_KEY_STYLE:-env}" in
    file)
        (umask 077 && printf '%s\n' "$load_token_key" >"$1/revision-token-keys")
        load_token_flags="--revision-token-keys-file $1/revision-token-keys" ;;
    env) export ENSERVER_REVISION_TOKEN_KEYS="$load_token_key"; load_token_flags="" ;;
    *) echo "LOAD_TOKEN_KEY_STYLE: env or file" >&2; exit 2 ;;
    esac
    if [ ! -f "$1/signing.pem" ]; then
        openssl ecparam -name prime256v1 -genkey -noout -out "$1/ec.pem" 2>/dev/null
        # Readable by its owner only: enserver refuses key files others may read.
        (umask 077 && openssl pkcs8 -topk8 -nocrypt -in "$1/ec.pem" -out "$1/signing.pem")
    fi
    serve_flags="--region US --signing-key $1/signing.pem --key-id 310 --health-authority-id load.test \
--verifier accept-all --publish-burst 0 $load_token_flags --host 127.0.0.1"
}

# Waits until `enserver` answers /health on port $1; prints its logs and fails after 30 s.
load_wait_healthy() {
    load_n=0
    until curl -fs "http://127.0.0.1:$1/health" >/dev/null 2>&1; do
        load_n=$((load_n + 1))
        [ "$load_n" -lt 300 ] || { echo "enserver on $1 did not start" >&2; cat "$2"/server-*.log >&2 2>/dev/null; exit 1; }
        sleep 0.1
    done
}
