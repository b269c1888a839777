#!/usr/bin/env bash
# Quire's hot paths against baselines serving the very same bytes, side by
# side on this machine: wrk with 32 connections for SECONDS_EACH seconds,
# rounds alternating between the servers.
# - A published page (~13 KB) against nginx serving it as a file; Quire on a
#   public site, a share-link site and a visitor-authentication site (a
#   signed visitor token in its cookie).
# - `GET /v1/spaces/{id}` with a token against a minimal axum handler
#   answering the same bytes (`quire-bench bare`).
#
#   cargo build --release -p quire -p quire-bench
#   crates/quire-bench/scripts/hot-paths.sh [target/release]
#
# Needs nginx, wrk, curl, jq and python3. QUIRE_DATABASE_URL runs Quire on
# PostgreSQL (an empty database) instead of SQLite. Rate limits are on but
# too high to refuse anything (every request is counted);
# RATE_LIMITS=off turns them off, to measure what counting costs. Metrics
# are served (so every request is counted and timed); METRICS=off leaves
# them out, to measure what recording costs.
set -euo pipefail

BIN="${1:-target/release}"
QUIRE="$BIN/quire"
ROUNDS="${ROUNDS:-3}"
SECONDS_EACH="${SECONDS_EACH:-10}"
PORT="${PORT:-8131}"
NGINX_PORT="${NGINX_PORT:-8132}"
BARE_PORT="${BARE_PORT:-8133}"
work="$(mktemp -d)"
base="http://127.0.0.1:$PORT"

cleanup() {
  [ -n "${quire_pid:-}" ] && kill "$quire_pid" 2>/dev/null || true
  [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
  [ -n "${bare_pid:-}" ] && kill "$bare_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

if [ "${RATE_LIMITS:-on}" = off ]; then limit=0; else limit=1000000000; fi
metrics=()
if [ "${METRICS:-on}" != off ]; then metrics=(--metrics-listen "127.0.0.1:${METRICS_PORT:-8134}"); fi
"$QUIRE" serve --data-dir "$work/data" --listen "127.0.0.1:$PORT" --public-url "$base" \
  --rate-limit-token "$limit" --rate-limit-address "$limit" --rate-limit-sites "$limit" --rate-limit-sign-in "$limit" \
  "${metrics[@]}" >"$work/quire.log" 2>&1 &
quire_pid=$!
for _ in $(seq 1 100); do curl -fsS -o /dev/null "$base/health" 2>/dev/null && break; sleep 0.1; done

token="$("$QUIRE" token create --data-dir "$work/data" --email bench@example.com --name Bench | tail -1)"
api() {
  curl -fsS -X "$1" -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
    "$base/v1$2" ${3:+--data-binary "$3"}
}

# A page of ~13 KB of HTML: prose, a list, code and a table.
markdown="$(python3 - <<'EOF'
import json
parts = ["# Configuration\n"]
for i in range(12):
    parts.append(f"## Section {i}\n\nQuire reads its settings from flags and `QUIRE_*` variables; section {i} explains "
                 "how the server finds its database, where it keeps files, and what it sends to the people who read it.\n")
    parts.append("- one setting\n- another setting\n- a third one, with `code`\n")
    if i % 3 == 0:
        parts.append("```bash\nquire serve --listen 127.0.0.1:8080 --data-dir ./quire-data\n```\n")
    if i % 4 == 0:
        parts.append("| name | default |\n|---|---|\n| listen | 127.0.0.1:8080 |\n| data-dir | ./quire-data |\n")
print(json.dumps("\n".join(parts)))
EOF
)"

org="$(api POST /orgs '{"title":"Bench"}' | jq -r .id)"
space="$(api POST "/orgs/$org/spaces" '{"title":"Handbook"}' | jq -r .id)"
cr="$(api POST "/spaces/$space/change-requests" '{"subject":"Pages"}' | jq -r .id)"
api POST "/spaces/$space/change-requests/$cr/content" \
  "{\"changes\":[{\"operation\":\"insert_page\",\"title\":\"Welcome\",\"document\":{\"markdown\":\"Start here.\\n\"}},{\"operation\":\"insert_page\",\"title\":\"Configuration\",\"document\":{\"markdown\":$markdown}}]}" >/dev/null
api POST "/spaces/$space/change-requests/$cr/merge" >/dev/null

# Three sites over the space: public, share-link, visitor-auth.
site() {
  local id
  id="$(api POST "/orgs/$org/sites" "{\"title\":\"$1\",\"visibility\":\"$2\",\"spaces\":[\"$space\"]}" | jq -r .id)"
  api POST "/orgs/$org/sites/$id/publish" >/dev/null
  echo "$id"
}
public_site="$(site Public public)"
shared_site="$(site Shared share-link)"
visitor_site="$(site Visitors visitor-auth)"
public_url="$(api GET "/orgs/$org/sites/$public_site" | jq -r .urls.published)configuration"
shared_url="$(api POST "/orgs/$org/sites/$shared_site/share-links" '{"name":"Partners"}' | jq -r .urls.published)configuration"
visitor_url="$(api GET "/orgs/$org/sites/$visitor_site" | jq -r .urls.preview)configuration"
key="$(api GET "/orgs/$org/sites/$visitor_site/publishing/auth" | jq -r .privateKey)"
visitor_token="$(KEY="$key" python3 - <<'EOF'
import base64, hashlib, hmac, json, os, time
b64 = lambda b: base64.urlsafe_b64encode(b).rstrip(b"=").decode()
head = b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
body = b64(json.dumps({"exp": int(time.time()) + 86400}).encode())
sig = hmac.new(os.environ["KEY"].encode(), f"{head}.{body}".encode(), hashlib.sha256).digest()
print(f"{head}.{body}.{b64(sig)}")
EOF
)"

# nginx serves the public page's bytes as a file.
mkdir -p "$work/static"
curl -fsS "$public_url" -o "$work/static/configuration"
for url in "$shared_url" "$visitor_url"; do
  code="$(curl -s -o /dev/null -w '%{http_code}' -H "Cookie: quire_visitor=$visitor_token" "$url")"
  [ "$code" = 200 ] || { echo "$url answered $code" >&2; exit 1; }
done
cat >"$work/nginx.conf" <<EOF
worker_processes auto;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 1024; }
http {
  access_log off;
  default_type text/html;
  server {
    listen 127.0.0.1:$NGINX_PORT;
    root $work/static;
  }
}
EOF
nginx -c "$work/nginx.conf"
nginx_url="http://127.0.0.1:$NGINX_PORT/configuration"
echo "page: $(stat -c %s "$work/static/configuration") bytes; $(gzip -9 -c "$work/static/configuration" | wc -c) gzip -9"

# The bare handler answers the space's JSON.
space_url="$base/v1/spaces/$space"
curl -fsS -H "Authorization: Bearer $token" "$space_url" -o "$work/space.json"
"$BIN/quire-bench" bare --body-file "$work/space.json" --listen "127.0.0.1:$BARE_PORT" >"$work/bare.log" 2>&1 &
bare_pid=$!
for _ in $(seq 1 100); do curl -fsS -o /dev/null "http://127.0.0.1:$BARE_PORT/" 2>/dev/null && break; sleep 0.1; done
echo "space: $(stat -c %s "$work/space.json") bytes"

# Quire's CPU time so far, in clock ticks (user + system).
cpu_ticks() { awk '{print $14 + $15}' "/proc/$quire_pid/stat"; }
ticks_per_second="$(getconf CLK_TCK)"

measure() {
  local name="$1" url="$2"
  shift 2
  local out rps p99 before requests cpu=""
  before="$(cpu_ticks)"
  out="$(wrk -t2 -c32 -d"${SECONDS_EACH}s" --latency "$@" "$url")"
  rps="$(awk '/Requests\/sec/ {print $2}' <<<"$out")"
  p99="$(awk '$1 == "99%" {print $2}' <<<"$out")"
  # Quire's CPU per answer: steadier than req/s on a machine whose cores
  # wrk shares (the measure of what a layer costs, METRICS=off/on).
  if [[ "$name" == quire* ]]; then
    requests="$(awk '/requests in/ {print $1}' <<<"$out")"
    cpu="$(awk -v t="$(( $(cpu_ticks) - before ))" -v n="$requests" -v hz="$ticks_per_second" \
      'BEGIN { printf "   cpu %.2f µs/answer", t * 1e6 / hz / n }')"
  fi
  printf '%-28s %10s req/s   p99 %s%s\n' "$name" "$rps" "$p99" "$cpu"
}

for round in $(seq 1 "$ROUNDS"); do
  echo "round $round"
  measure "nginx, the same bytes" "$nginx_url"
  measure "quire, public site" "$public_url"
  measure "quire, share link" "$shared_url"
  measure "quire, visitor token" "$visitor_url" -H "Cookie: quire_visitor=$visitor_token"
  measure "axum, the same bytes" "http://127.0.0.1:$BARE_PORT/v1/spaces/$space"
  measure "quire, GET /v1/spaces/{id}" "$space_url" -H "Authorization: Bearer $token"
done
