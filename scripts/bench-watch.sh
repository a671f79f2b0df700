#!/usr/bin/env bash
# Live benchmark of `kubectl gc watch` (BENCHMARKS.md, "watch"):
#
#   scripts/bench-watch.sh [SIZE]        default size: 50000 objects
#
# Starts a fresh control plane with scripts/testenv (no GC: nothing else changes the
# cluster), loads a synthetic cluster of SIZE objects (`kubectl gc generate
# --apply-to-kubeconfig`), then measures, RUNS times each (median):
#   snapshot       `kubectl gc snapshot -A` wall time and peak RSS (process start to exit)
#   initial sync   `kubectl gc watch`: process start to /readyz answering 200 (discovery,
#                  every list, the whole cluster evaluated)
#   steady RSS     the watch's resident memory 10 s after it became ready
# and then, once, the alert latency: LATENCY_WRITES (default 200) ConfigMaps with a missing
# owner are created one after another through a keep-alive connection; for each, the time from
# the API server's answer to the create to the watch's transition line (p50, p99, max).
# Targets: initial sync ≤ 1.2 × snapshot; steady RSS ≤ 2 × the snapshot's; p99 ≤ 1 s.
#
# Environment: RUNS (default 3), LATENCY_WRITES (200), KGC_BIN (default: builds
# target/release/kubectl-gc with the `testkit` feature), KGC_TESTENV_BIN
# (default: what scripts/testenv-install prints).
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
n="${1:-50000}"
runs="${RUNS:-3}"
writes="${LATENCY_WRITES:-200}"
testenv="$here/scripts/testenv"
bin="${KGC_BIN:-}"
if [[ -z "$bin" ]]; then
  (cd "$here" && cargo build --release --quiet --features testkit)
  bin="$here/target/release/kubectl-gc"
fi
work="$(mktemp -d -t kgc-bench-watch.XXXXXX)"
envdir="$work/testenv"
watch_pid=""
cleanup() {
  [[ -n "$watch_pid" ]] && kill "$watch_pid" 2>/dev/null || true
  [[ -d "$envdir" ]] && "$testenv" stop --dir "$envdir" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

"$testenv" start --dir "$envdir" >/dev/null 2>"$work/start.log" || { cat "$work/start.log"; exit 1; }
# shellcheck disable=SC1091
source "$envdir/env"
kc="$envdir/kubeconfig"
"$bin" generate --objects "$n" --apply-to-kubeconfig "$kc" --load-concurrency 32 2>"$work/load.log" ||
  { cat "$work/load.log"; exit 1; }
grep -E '^created' "$work/load.log" | sed "s/^/load: /" >&2

snap_t=(); snap_rss=(); sync_t=(); watch_rss=()
for ((r = 1; r <= runs; r++)); do
  /usr/bin/time -f '%e %M' -o "$work/time" "$bin" snapshot -A -o "$work/snap.ndjson" --kubeconfig "$kc" 2>/dev/null
  read -r t rss <"$work/time"
  snap_t+=("$t"); snap_rss+=("$rss")

  port="$(free_port)"
  start=$(date +%s.%N)
  "$bin" watch -o json --kubeconfig "$kc" --metrics-addr "127.0.0.1:$port" >"$work/watch.out" 2>"$work/watch.err" &
  watch_pid=$!
  until curl -sf "http://127.0.0.1:$port/readyz" >/dev/null; do sleep 0.02; done
  ready=$(date +%s.%N)
  sync_t+=("$(echo "$ready - $start" | bc)")
  sleep 10
  watch_rss+=("$(awk '/^VmRSS:/ {print $2}' "/proc/$watch_pid/status")")
  if ((r < runs)); then
    kill "$watch_pid"; wait "$watch_pid" 2>/dev/null || true; watch_pid=""
  fi
done
objects=$(head -1 "$work/snap.ndjson" | python3 -c 'import json,sys; print(json.load(sys.stdin)["objects"])')
st=$(printf '%s\n' "${snap_t[@]}" | median); sr=$(printf '%s\n' "${snap_rss[@]}" | median)
wt=$(printf '%s\n' "${sync_t[@]}" | median); wr=$(printf '%s\n' "${watch_rss[@]}" | median)
echo "objects in the cluster: $objects"
printf 'snapshot            %8.2f s   peak RSS %6d MiB\n' "$st" "$((sr / 1024))"
printf 'watch initial sync  %8.2f s   (%.2f × snapshot; target ≤ 1.2)\n' "$wt" "$(echo "$wt / $st" | bc -l)"
printf 'watch steady RSS    %8d MiB (%.2f × snapshot peak; target ≤ 2)\n' "$((wr / 1024))" "$(echo "$wr / $sr" | bc -l)"

# Alert latency: the watch of the last run is still going.
python3 - "$KGC_TESTENV_SERVER" "$KGC_TESTENV_ADMIN_TOKEN" "$writes" "$work/watch.out" <<'PY'
import http.client, json, ssl, sys, time, threading, os
server, token, writes, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
host = server.replace("https://", "")
ctx = ssl._create_unverified_context()
conn = http.client.HTTPSConnection(host, context=ctx)
hdr = {"Authorization": "Bearer " + token, "Content-Type": "application/json"}
def req(method, path, body=None):
    conn.request(method, path, body=json.dumps(body) if body else None, headers=hdr)
    r = conn.getresponse(); r.read(); return r.status
req("POST", "/api/v1/namespaces", {"metadata": {"name": "bench-latency"}})
seen = {}
def follow():
    with open(out) as f:
        f.seek(0, os.SEEK_END)
        while True:
            line = f.readline()
            if not line:
                time.sleep(0.001); continue
            t = time.time()
            try: d = json.loads(line)
            except ValueError: continue
            name = (d.get("finding", {}).get("object") or {}).get("name", "")
            if d.get("transition") == "appeared" and name.startswith("lat-"):
                seen.setdefault(name, t)
threading.Thread(target=follow, daemon=True).start()
time.sleep(0.5)
sent = {}
for i in range(writes):
    name = "lat-%d" % i
    body = {"metadata": {"name": name, "ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap",
            "name": "ghost", "uid": "00000000-0000-4000-8000-%012d" % i}]}}
    status = req("POST", "/api/v1/namespaces/bench-latency/configmaps", body)
    sent[name] = time.time()
    assert status == 201, status
    time.sleep(0.02)
deadline = time.time() + 30
while len(seen) < writes and time.time() < deadline:
    time.sleep(0.05)
lat = sorted(max(0.0, seen[n] - sent[n]) for n in sent if n in seen)
missing = writes - len(lat)
p = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))] * 1000
print("alert latency       p50 %.0f ms, p99 %.0f ms, max %.0f ms over %d writes (%d missing; target p99 ≤ 1000 ms)"
      % (p(0.5), p(0.99), lat[-1] * 1000, len(lat), missing))
PY
