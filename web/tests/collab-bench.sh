#!/usr/bin/env bash
# The co-editing benchmark of the README, on the release binary: two
# browsers on one page (web/tests/collab.mjs prints how long an edit takes
# to reach the other browser), then PEOPLE clients on one page and PAGES
# more pages (web/tests/collab-bench.mjs: latency, lost edits, memory per
# open page). Run from the repository's root after `cargo build --release`:
#   bash web/tests/collab-bench.sh sqlite     # one node on SQLite
#   bash web/tests/collab-bench.sh postgres   # two nodes on one PostgreSQL
set -euo pipefail
mode="${1:-sqlite}"
bin="$PWD/target/release/quire"
work="$(mktemp -d)"
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

if [ "$mode" = postgres ]; then
  db=quire_collab_bench
  psql -h 127.0.0.1 -U postgres -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db"
  store=(--database-url "postgres://postgres@127.0.0.1:5432/$db" --blob-url "$work/blobs")
  ports=(8101 8102)
else
  store=(--data-dir "$work/data")
  ports=(8101 8101)
fi
for port in $(printf '%s\n' "${ports[@]}" | sort -u); do
  "$bin" serve "${store[@]}" --listen "127.0.0.1:$port" >"$work/serve-$port.log" 2>&1 &
  pids+=($!)
done
for port in "${ports[@]}"; do
  until curl -fsS -o /dev/null "http://127.0.0.1:$port/health"; do sleep 0.2; done
done
a="http://127.0.0.1:${ports[0]}"
b="http://127.0.0.1:${ports[1]}"
ada=$("$bin" token create "${store[@]}" --email ada@example.com --name "Ada Lovelace" | tail -1)
"$bin" token create "${store[@]}" --email grace@example.com --name "Grace Hopper" >/dev/null
api() { curl -fsS -X "$1" -H "Authorization: Bearer $ada" -H 'Content-Type: application/json' "$a$2" ${3:+-d "$3"}; }
field() { python3 -c "import json,sys; print(eval('json.load(sys.stdin)' + sys.argv[1]))" "$1"; }
org=$(api POST /v1/orgs '{"title":"Docs"}' | field '["id"]')
api POST "/v1/orgs/$org/invites" '{"emails":[{"email":"grace@example.com","role":"edit"}]}' >/dev/null
space=$(api POST "/v1/orgs/$org/spaces" '{"title":"Guide"}' | field '["id"]')
cr_json=$(api POST "/v1/spaces/$space/change-requests" '{"subject":"Write together"}')
cr=$(echo "$cr_json" | field '["id"]')
number=$(echo "$cr_json" | field '["number"]')
page=$(api POST "/v1/spaces/$space/change-requests/$cr/content?compat=false" \
  '{"changes":[{"operation":"insert_page","title":"Start","document":{"markdown":"# Start\n\nThe first paragraph.\n"}}]}' |
  field '["changes"][0]["page"]["id"]')
link_a=$("$bin" sign-in-link "${store[@]}" --email ada@example.com --public-url "$a" | tail -1)
link_b=$("$bin" sign-in-link "${store[@]}" --email grace@example.com --public-url "$b" | tail -1)
(
  cd web
  QUIRE_URL_A="$a" QUIRE_URL_B="$b" QUIRE_LINK_A="$link_a" QUIRE_LINK_B="$link_b" \
    QUIRE_EDIT_PATH="/s/$space/change-requests/$number/edit/$page" \
    QUIRE_API_PATH="/v1/spaces/$space/change-requests/$cr" QUIRE_PAGE="$page" QUIRE_TOKEN="$ada" \
    ARTIFACTS="$work/artifacts" node tests/collab.mjs | grep -E '^edit to|^FAIL' || true
  urls="$a"
  [ "$a" != "$b" ] && urls="$a,$b"
  QUIRE_URLS="$urls" QUIRE_TOKEN="$ada" QUIRE_PID="${pids[0]}" node tests/collab-bench.mjs
)
