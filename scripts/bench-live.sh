#!/usr/bin/env bash
# Live benchmark (BENCHMARKS.md): how long `kubectl gc snapshot` takes against a real API server,
# compared with the raw concurrent fetch of the same metadata lists and with a kubectl sweep.
#
#   scripts/bench-live.sh [SIZE...]        default sizes: 10000 50000
#
# For each size it starts a fresh control plane from ../shared/k8s-testenv (no controllers, no
# GC: nothing changes while it runs), loads a synthetic cluster of SIZE objects into it
# (`kubectl gc generate --apply-to-kubeconfig`), then times, RUNS times each (median):
#   kubectl-gc           `kubectl gc snapshot` (process start, discovery, every list, file
#                        written); kube-rs asks for gzip-compressed responses, like kubectl
#   kubectl-gc-identity  the same with `disable-compression: true` in the kubeconfig
#   raw-curl             the same lists (every resource the snapshot lists, same page size, same
#                        concurrency, PartialObjectMetadataList), one curl process per page
#   raw-keepalive        the same with persistent connections (python3 http.client): the
#                        stricter baseline, no TLS handshake per page
#   raw-keepalive-gzip   the same, asking for gzip like kube-rs (and decompressing)
#   kubectl              `kubectl get <the same resources> -A -o json --chunk-size=PAGE`
# Targets: kubectl-gc ≤ 1.2 × the raw fetch (like for like: same encoding), and ≥ 10 × faster
# than kubectl.
#
# Environment: RUNS (default 3), CONCURRENCY (8), PAGE (500), KGC_BIN (default: builds
# target/release/kubectl-gc with the `testkit` feature, which has the hidden `generate`
# command), KGC_TESTENV_SCRIPTS (default ../shared/k8s-testenv).
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
sizes=("$@")
((${#sizes[@]})) || sizes=(10000 50000)
runs="${RUNS:-3}"
conc="${CONCURRENCY:-8}"
page="${PAGE:-500}"
testenv="${KGC_TESTENV_SCRIPTS:-$here/../shared/k8s-testenv}"
bin="${KGC_BIN:-}"
if [[ -z "$bin" ]]; then
  (cd "$here" && cargo build --release --quiet --features testkit)
  bin="$here/target/release/kubectl-gc"
fi
work="$(mktemp -d -t kgc-bench-live.XXXXXX)"
envdir=""
cleanup() {
  [[ -n "$envdir" && -d "$envdir" ]] && "$testenv/stop" --dir "$envdir" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

now() { date +%s.%N; }
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# raw_curl URLS_FILE: page through every list with curl, CONCURRENCY lists at a time.
raw_curl() {
  export server token page
  xargs -P "$conc" -I{} bash -c '
    url="{}"; cont=""; pages=0; bytes=0
    while :; do
      args=(-G --data "limit=$page")
      [[ -n "$cont" ]] && args+=(--data-urlencode "continue=$cont")
      # (A curl User-Agent makes the API server pretty-print: send a neutral one.)
      body="$(curl -sSk --fail -A bench-live -H "Authorization: Bearer $token" \
        -H "Accept: application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1" \
        "${args[@]}" "$server$url")"
      pages=$((pages + 1)); bytes=$((bytes + ${#body}))
      # The list metadata (with the continue token) comes before the items.
      cont="$(printf "%s" "$body" | head -c 4096 | grep -o "\"continue\": *\"[^\"]*\"" | head -1 | cut -d\" -f4)"
      [[ -n "$cont" ]] || break
    done
    echo "$pages $bytes"' <"$1" | awk '{p += $1; b += $2} END {printf "    raw-curl: %d pages, %.1f MB\n", p, b / 1e6}' >&2
}

# raw_keepalive URLS_FILE [gzip]: the same with one persistent connection per worker; with
# `gzip`, asking for compressed responses (and decompressing them) as kube-rs does.
raw_keepalive() {
  python3 - "$1" "$server" "$token" "$page" "$conc" "${2:-identity}" <<'PY'
import gzip, http.client, queue, re, ssl, sys, threading, urllib.parse
urls_file, server, token, page, conc, encoding = sys.argv[1:]
host = urllib.parse.urlparse(server)
ctx = ssl._create_unverified_context()
q = queue.Queue()
for u in open(urls_file).read().split():
    q.put(u)
cont_re = re.compile(rb'"continue":"([^"]*)"')
pages = [0, 0]
def worker():
    c = http.client.HTTPSConnection(host.hostname, host.port, context=ctx)
    hdr = {"Authorization": "Bearer " + token,
           "Accept": "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1",
           "Accept-Encoding": encoding}
    while True:
        try:
            url = q.get_nowait()
        except queue.Empty:
            return
        cont = ""
        while True:
            qs = "limit=" + page + ("&continue=" + urllib.parse.quote(cont) if cont else "")
            c.request("GET", url + "?" + qs, headers=hdr)
            r = c.getresponse()
            body = r.read()
            if r.getheader("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
            if r.status != 200:
                sys.exit("HTTP %d for %s" % (r.status, url))
            pages[0] += 1
            pages[1] += len(body)
            # The list metadata (with the continue token) comes before the items.
            m = cont_re.search(body[:4096])
            cont = m.group(1).decode() if m else ""
            if not cont:
                break
ts = [threading.Thread(target=worker) for _ in range(int(conc))]
for t in ts: t.start()
for t in ts: t.join()
print("    raw-keepalive (%s): %d pages, %.1f MB" % (encoding, pages[0], pages[1] / 1e6),
      file=sys.stderr)
PY
}

printf '%-7s %-20s %9s %9s\n' size method median "÷ gc"
for n in "${sizes[@]}"; do
  envdir="$work/testenv-$n"
  "$testenv/start" --dir "$envdir" >/dev/null 2>"$work/start.log" || { cat "$work/start.log"; exit 1; }
  # shellcheck disable=SC1091
  source "$envdir/env"
  server="$KGC_TESTENV_SERVER"
  token="$KGC_TESTENV_ADMIN_TOKEN"
  kc="$envdir/kubeconfig"
  "$bin" generate --objects "$n" --apply-to-kubeconfig "$kc" --load-concurrency 32 2>"$work/load.log" ||
    { cat "$work/load.log"; exit 1; }
  grep -E '^created' "$work/load.log" | sed "s/^/  load $n: /" >&2

  # The resources the snapshot lists, for the raw fetches and kubectl.
  "$bin" snapshot -o "$work/snap.ndjson" --kubeconfig "$kc" --concurrency "$conc" --chunk-size "$page" 2>/dev/null
  head -1 "$work/snap.ndjson" | python3 -c '
import json, sys
h = json.load(sys.stdin)
urls, names = [], []
for r in h["resources"]:
    if r.get("outcome") != "complete":
        continue
    base = "/api/" + r["version"] if not r["group"] else "/apis/%s/%s" % (r["group"], r["version"])
    urls.append(base + "/" + r["plural"])
    names.append(r["plural"] + ("." + r["group"] if r["group"] else ""))
open(sys.argv[1], "w").write("\n".join(urls) + "\n")
open(sys.argv[2], "w").write(",".join(names))
' "$work/urls" "$work/kinds"
  objects=$(head -1 "$work/snap.ndjson" | python3 -c 'import json,sys; print(json.load(sys.stdin)["objects"])')
  echo "  $n generated → $objects objects in the cluster, $(wc -l <"$work/urls") resources listed" >&2

  # kube-rs (like kubectl) asks for gzip unless the kubeconfig says `disable-compression`.
  sed 's/^    server:/    disable-compression: true\n    server:/' "$kc" >"$work/kubeconfig-identity"
  declare -A t=()
  methods=(kubectl-gc kubectl-gc-identity raw-curl raw-keepalive raw-keepalive-gzip kubectl)
  for method in "${methods[@]}"; do
    for _ in $(seq "$runs"); do
      s=$(now)
      case $method in
        kubectl-gc) "$bin" snapshot -o "$work/s.ndjson" --kubeconfig "$kc" --concurrency "$conc" --chunk-size "$page" 2>/dev/null ;;
        kubectl-gc-identity) "$bin" snapshot -o "$work/s.ndjson" --kubeconfig "$work/kubeconfig-identity" --concurrency "$conc" --chunk-size "$page" 2>/dev/null ;;
        raw-curl) raw_curl "$work/urls" ;;
        raw-keepalive) raw_keepalive "$work/urls" ;;
        raw-keepalive-gzip) raw_keepalive "$work/urls" gzip ;;
        kubectl) kubectl --kubeconfig "$kc" get "$(cat "$work/kinds")" -A -o json --chunk-size="$page" >"$work/kubectl.json" ;;
      esac
      e=$(now)
      echo "$e - $s" | bc -l
    done | median >"$work/t"
    t[$method]=$(cat "$work/t")
  done
  for method in "${methods[@]}"; do
    printf '%-7s %-20s %8.3fs %8.2f×\n' "$n" "$method" "${t[$method]}" "$(echo "${t[$method]} / ${t[kubectl-gc]}" | bc -l)"
  done
  # Like for like: the same encoding, against the fastest raw fetch of it.
  raw=${t[raw-curl]}
  if (($(echo "${t[raw-keepalive]} < $raw" | bc -l))); then raw=${t[raw-keepalive]}; fi
  check() { # check NAME VALUE OP LIMIT
    local ok=MISS
    (($(echo "$2 $3 $4" | bc -l))) && ok=MET
    printf '  %s %s = %.2f (%s %s)\n' "$ok" "$1" "$2" "$3" "$4"
  }
  check "kubectl-gc ÷ raw (gzip, keep-alive)" "$(echo "${t[kubectl-gc]} / ${t[raw-keepalive-gzip]}" | bc -l)" "<=" 1.2
  check "kubectl-gc ÷ fastest raw (identity)" "$(echo "${t[kubectl-gc-identity]} / $raw" | bc -l)" "<=" 1.2
  check "kubectl ÷ kubectl-gc" "$(echo "${t[kubectl]} / ${t[kubectl-gc]}" | bc -l)" ">=" 10
  "$testenv/stop" --dir "$envdir" >/dev/null 2>&1 || true
  envdir=""
done
