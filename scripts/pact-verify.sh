#!/bin/sh
# make pact-verify: the Pact Foundation's own verifier (pact_verifier, from the npm package
# @pact-foundation/pact-cli) verifies a pact the reference wrote, against the reference.
#   1. petstore serve --pact FILE; a client lists available animals with limit=100, creates
#      an animal and gets it; at shutdown the reference writes the pact (bin/pact/).
#   2. a fresh petstore serves (the seed animals); pact_verifier replays that pact, and the
#      v4 and v3 ones pact-js wrote (testdata/pact/, make pact-js), against it, setting the
#      provider states up at /_admin/pact/state. (pact-js's v2 pact has a request without a
#      key, which the verifier's --header would give one.)
# Usage: scripts/pact-verify.sh PETSTORE_BINARY PACT_VERIFIER_BINARY
set -eu
petstore=$1
verifier=$2
out=bin/pact
mkdir -p "$out"
key=pact-verify-key
admin=pact-verify-admin
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null || echo $((20000 + $$ % 10000)); }
wait_up() {
	i=0
	until curl -fsS "http://127.0.0.1:$1/healthz" >/dev/null 2>&1; do
		i=$((i + 1))
		[ "$i" -lt 100 ] || { echo "pact-verify: petstore did not start on port $1" >&2; exit 2; }
		sleep 0.1
	done
}

# 1. The consumer's requests, recorded.
p=$(port)
"$petstore" serve --addr "127.0.0.1:$p" --api-key "$key" --seed testdata/pets.json \
	--pact "$out/reference.json" --pact-consumer petstore-curl >"$out/record.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
wait_up "$p"
base="http://127.0.0.1:$p/v1"
curl -fsS -H "Authorization: Bearer $key" "$base/pets?status=available&limit=100" >/dev/null
id=$(curl -fsS -H "Authorization: Bearer $key" -H 'Content-Type: application/json' \
	-d '{"name":"Rex","categoryId":7,"status":"pending"}' "$base/pets" | sed 's/.*"id":\([0-9]*\).*/\1/')
curl -fsS -H "Authorization: Bearer $key" "$base/pets/$id" >/dev/null
kill -TERM $pid
wait $pid || true
trap - EXIT
grep -q 'pact written' "$out/record.log" || { cat "$out/record.log" >&2; exit 2; }
echo "pact-verify: the reference wrote $out/reference.json"

# 2. The official verifier against a fresh reference.
p=$(port)
"$petstore" serve --addr "127.0.0.1:$p" --api-key "$key" --admin-key "$admin" --seed testdata/pets.json >"$out/provider.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
wait_up "$p"
PACT_DO_NOT_TRACK=true "$verifier" --no-colour -f "$out/reference.json" -f testdata/pact/pact-js-web-petstore.json \
	-f testdata/pact/pact-js-v3-web-petstore.json -h 127.0.0.1 -p "$p" \
	-H "Authorization=Bearer $key" --state-change-url "http://127.0.0.1:$p/_admin/pact/state"
