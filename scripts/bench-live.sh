#!/usr/bin/env bash
# Live benchmark (BENCHMARKS.md, "Live"): `kubectl gc snapshot` against a real API server, as a
# ratio to the physical floor — the same metadata-only lists fetched in protobuf, bytes
# discarded.
#
#   scripts/bench-live.sh compare [OBJECTS]              default 50000
#   scripts/bench-live.sh curve [OBJECTS [CONFIGMAPS]]   default 20000 + 180000
#
# Each mode starts a fresh control plane (../shared/k8s-testenv: kube-apiserver v1.20.2 and etcd
# on this machine, no controllers: nothing changes while it runs) and loads a synthetic cluster
# (`kubectl gc generate --apply-to-kubeconfig`, OBJECTS objects). `curve` adds CONFIGMAPS
# ConfigMaps (labels, a managedFields entry, every tenth one with an ownerReference) in 20
# namespaces — one big resource, where the page count dominates.
#
# Methods (each run RUNS times, median; wall time of the whole process):
#   floor-pb        every list the snapshot makes (same page size, same concurrency, each
#                   resource's pages in sequence), PartialObjectMetadataList in protobuf,
#                   persistent connections, body read and discarded (python3 http.client)
#   floor-pb-gzip   the same, asking for gzip as kube-rs does by default (and decompressing)
#   floor-json      the same lists in JSON (identity)
#   kubectl-gc      `kubectl gc snapshot -o FILE` with default flags (process start, connection,
#                   discovery, every list, the file written)
#   kubectl-gc-identity   the same with `disable-compression: true` in the kubeconfig
#   before          KGC_BIN_BEFORE, when set: another build (the previous release) the same way
#   peer            `kubectl-check-ownerreferences`, when on PATH
#   kubectl         KUBECTL=1: `kubectl get <the same resources> -A -o json`
# `curve` runs floor-pb and kubectl-gc at every page size in PAGES.
#
# Reported besides time: peak RSS of kubectl-gc (and of the floor's python), and the peak RSS of
# kube-apiserver and etcd during the run (VmHWM, reset before each run through
# /proc/PID/clear_refs; needs the same user as the control plane).
#
# Environment: RUNS (3), PAGES ("500 1000 2000 5000 10000 20000"), PAGE (kubectl-gc's default),
# CONCURRENCY (kubectl-gc's default), KGC_BIN (default: builds target/release/kubectl-gc),
# KGC_BIN_BEFORE, KUBECTL, KGC_TESTENV_SCRIPTS (default ../shared/k8s-testenv), KEEP=1 (leave the
# control plane running; its directory is printed).
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
mode="${1:-compare}"
shift || true
runs="${RUNS:-3}"
testenv="${KGC_TESTENV_SCRIPTS:-$here/../shared/k8s-testenv}"
bin="${KGC_BIN:-}"
if [[ -z "$bin" ]]; then
  (cd "$here" && cargo build --release --quiet)
  bin="$here/target/release/kubectl-gc"
fi
# kubectl-gc's own defaults, from its help text.
default_of() { "$bin" snapshot --help | grep -A3 -- "--$1" | grep -o 'default: [0-9]*' | head -1 | grep -o '[0-9]*'; }
page="${PAGE:-$(default_of chunk-size)}"
conc="${CONCURRENCY:-$(default_of concurrency)}"

work="$(mktemp -d -t kgc-bench-live.XXXXXX)"
envdir="$work/testenv"
cleanup() {
  if [[ "${KEEP:-}" == 1 ]]; then
    echo "control plane left running: $envdir (stop with $testenv/stop --dir $envdir)" >&2
  else
    [[ -d "$envdir" ]] && "$testenv/stop" --dir "$envdir" >/dev/null 2>&1 || true
    rm -rf "$work"
  fi
}
trap cleanup EXIT

cat >"$work/fetch.py" <<'PY'
# fetch.py URLS SERVER TOKEN PAGE CONCURRENCY pb|json identity|gzip
# Pages through every URL (one worker per concurrent resource, persistent connections),
# discarding the bodies; prints pages and bytes on stderr.
import gzip, http.client, queue, re, ssl, sys, threading, urllib.parse
urls_file, server, token, page, conc, wire, encoding = sys.argv[1:]
host = urllib.parse.urlparse(server)
ctx = ssl._create_unverified_context()
q = queue.Queue()
for u in open(urls_file).read().split():
    q.put(u)
accept = {"pb": "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1",
          "json": "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"}[wire]
json_continue = re.compile(rb'"continue":"([^"]*)"')

def varint(b, i):
    v = shift = 0
    while True:
        c = b[i]; i += 1
        v |= (c & 0x7F) << shift; shift += 7
        if c < 0x80:
            return v, i

def fields(b, i, end):
    while i < end:
        key, i = varint(b, i)
        if key & 7 == 2:
            n, i = varint(b, i)
            yield key >> 3, i, i + n
            i += n
        elif key & 7 == 0:
            _, i = varint(b, i)
        else:
            raise ValueError("unexpected wire type")

def pb_continue(b):
    # "k8s\0" + runtime.Unknown{raw = 2: List{metadata = 1: ListMeta{continue = 3}}}
    assert b[:4] == b"k8s\0", b[:40]
    for f, s, e in fields(b, 4, len(b)):
        if f == 2:
            for f2, s2, e2 in fields(b, s, e):
                if f2 == 1:
                    for f3, s3, e3 in fields(b, s2, e2):
                        if f3 == 3:
                            return b[s3:e3].decode()
                    return ""
    return ""

totals = [0, 0]
lock = threading.Lock()
def worker():
    c = http.client.HTTPSConnection(host.hostname, host.port, context=ctx)
    hdr = {"Authorization": "Bearer " + token, "Accept": accept,
           "Accept-Encoding": encoding, "User-Agent": "bench-live"}
    pages = size = 0
    while True:
        try:
            url = q.get_nowait()
        except queue.Empty:
            break
        cont = ""
        while True:
            qs = "limit=" + page + ("&continue=" + urllib.parse.quote(cont) if cont else "")
            c.request("GET", url + "?" + qs, headers=hdr)
            r = c.getresponse()
            body = r.read()
            if r.status != 200:
                sys.exit("HTTP %d for %s: %s" % (r.status, url, body[:200]))
            if r.getheader("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
            pages += 1
            size += len(body)
            if wire == "pb":
                cont = pb_continue(body)
            else:
                m = json_continue.search(body[:4096])
                cont = m.group(1).decode() if m else ""
            if not cont:
                break
    with lock:
        totals[0] += pages
        totals[1] += size
ts = [threading.Thread(target=worker) for _ in range(int(conc))]
for t in ts: t.start()
for t in ts: t.join()
print("%d pages, %.1f MB" % (totals[0], totals[1] / 1e6), file=sys.stderr)
PY

cat >"$work/timed.py" <<'PY'
# timed.py PIDFILE... -- CMD...: runs CMD; prints "wall_s rss_mib apiserver_mib etcd_mib".
import os, resource, subprocess, sys, time
sep = sys.argv.index("--")
pids = [int(open(p).read()) for p in sys.argv[1:sep]]
cmd = sys.argv[sep + 1:]
def hwm(pid):
    try:
        for line in open("/proc/%d/status" % pid):
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")
for pid in pids:
    try:
        open("/proc/%d/clear_refs" % pid, "w").write("5")
    except OSError:
        pass
t = time.monotonic()
rc = subprocess.call(cmd, stdout=subprocess.DEVNULL, stderr=open(os.devnull, "w"))
wall = time.monotonic() - t
if rc != 0:
    sys.exit("command failed (%d): %s" % (rc, " ".join(cmd)))
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print("%.3f %.0f %s" % (wall, rss, " ".join("%.0f" % hwm(p) for p in pids)))
PY

start_cluster() {
  "$testenv/start" --dir "$envdir" >/dev/null 2>"$work/start.log" || { cat "$work/start.log"; exit 1; }
  # shellcheck disable=SC1091
  source "$envdir/env"
  server="$KGC_TESTENV_SERVER"
  token="$KGC_TESTENV_ADMIN_TOKEN"
  kc="$envdir/kubeconfig"
  sed 's/^    server:/    disable-compression: true\n    server:/' "$kc" >"$work/kubeconfig-identity"
}

load_generated() { # load_generated OBJECTS
  "$bin" generate --objects "$1" --apply-to-kubeconfig "$kc" --load-concurrency 32 2>"$work/load.log" ||
    { cat "$work/load.log"; exit 1; }
  grep -E '^created' "$work/load.log" | sed 's/^/  load: /' >&2 || true
}

load_configmaps() { # load_configmaps COUNT: COUNT ConfigMaps in 20 namespaces, 32 creates at a time
  python3 - "$server" "$token" "$1" <<'PY'
import http.client, json, queue, ssl, sys, threading, time, urllib.parse
server, token, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
host = urllib.parse.urlparse(server)
ctx = ssl._create_unverified_context()
hdr = {"Authorization": "Bearer " + token, "Content-Type": "application/json", "User-Agent": "bench-live"}
nss = ["bulk-%02d" % i for i in range(20)]
c = http.client.HTTPSConnection(host.hostname, host.port, context=ctx)
for ns in nss:
    c.request("POST", "/api/v1/namespaces", json.dumps({"metadata": {"name": ns}}), hdr)
    c.getresponse().read()
owners = {}
for ns in nss:
    c.request("POST", "/api/v1/namespaces/%s/configmaps" % ns,
              json.dumps({"metadata": {"name": "owner"}}), hdr)
    owners[ns] = json.loads(c.getresponse().read())["metadata"]["uid"]
q = queue.Queue()
for i in range(count):
    q.put(i)
def worker():
    c = http.client.HTTPSConnection(host.hostname, host.port, context=ctx)
    while True:
        try:
            i = q.get_nowait()
        except queue.Empty:
            return
        ns = nss[i % len(nss)]
        meta = {"name": "cm-%07d" % i, "labels": {"app": "bulk-%d" % (i % 97), "tier": "cache"}}
        if i % 10 == 0:
            meta["ownerReferences"] = [{"apiVersion": "v1", "kind": "ConfigMap", "name": "owner",
                                        "uid": owners[ns]}]
        c.request("POST", "/api/v1/namespaces/%s/configmaps" % ns,
                  json.dumps({"metadata": meta, "data": {"k": "v"}}), hdr)
        r = c.getresponse(); r.read()
        if r.status not in (201, 409):
            sys.exit("HTTP %d" % r.status)
t = time.monotonic()
ts = [threading.Thread(target=worker) for _ in range(32)]
for th in ts: th.start()
for th in ts: th.join()
print("  load: created %d configmaps in %.0fs" % (count, time.monotonic() - t), file=sys.stderr)
PY
}

# The resources the snapshot lists (collection URLs and kubectl names), and the object count.
list_targets() {
  "$bin" snapshot -o "$work/snap.ndjson" --kubeconfig "$kc" 2>/dev/null
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
  objects=$(($(wc -l <"$work/snap.ndjson") - 1))
  echo "  cluster: $objects objects, $(wc -l <"$work/urls") resources listed" >&2
}

pidfiles() { echo "$envdir/kube-apiserver.pid" "$envdir/etcd.pid"; }

# measure NAME CMD...: RUNS runs; prints the median line "NAME wall rss apiserver etcd".
measure() {
  local name="$1"; shift
  for _ in $(seq "$runs"); do
    # shellcheck disable=SC2046
    python3 "$work/timed.py" $(pidfiles) -- "$@"
  done | sort -g | awk -v n="$name" '{a[NR]=$0} END {print n, a[int((NR+1)/2)]}'
}

# The floor's command line: floor PAGE pb|json identity|gzip.
floor_cmd() { echo python3 "$work/fetch.py" "$work/urls" "$server" "$token" "$1" "$conc" "$2" "$3"; }

print_table() { # print_table REF_METHOD < lines
  awk -v ref="$1" '
    {name[NR]=$1; wall[NR]=$2; rss[NR]=$3; api[NR]=$4; etcd[NR]=$5; if ($1 == ref) r = $2}
    END {
      printf "%-22s %9s %8s %10s %14s %9s\n", "method", "median", "÷ floor", "peak RSS", "apiserver RSS", "etcd RSS"
      for (i = 1; i <= NR; i++)
        printf "%-22s %8.3fs %7.2f× %7.0f MiB %10.0f MiB %5.0f MiB\n", name[i], wall[i], wall[i] / r, rss[i], api[i], etcd[i]
    }'
}

echo "kubectl-gc: $("$bin" --version | head -1); page size $page, concurrency $conc; load average: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
case "$mode" in
  compare)
    n="${1:-50000}"
    start_cluster
    load_generated "$n"
    list_targets
    # (Paths from mktemp have no spaces: the unquoted expansions below are safe.)
    # shellcheck disable=SC2046
    $(floor_cmd "$page" pb identity) 2>&1 | sed 's/^/  floor-pb: /' >&2
    # shellcheck disable=SC2046
    $(floor_cmd "$page" json identity) 2>&1 | sed 's/^/  floor-json: /' >&2
    {
      # shellcheck disable=SC2046
      measure floor-pb $(floor_cmd "$page" pb identity)
      # shellcheck disable=SC2046
      measure floor-pb-gzip $(floor_cmd "$page" pb gzip)
      # shellcheck disable=SC2046
      measure floor-json $(floor_cmd "$page" json identity)
      measure kubectl-gc "$bin" snapshot -o "$work/s.ndjson" --kubeconfig "$kc"
      measure kubectl-gc-identity "$bin" snapshot -o "$work/s.ndjson" --kubeconfig "$work/kubeconfig-identity"
      if [[ -n "${KGC_BIN_BEFORE:-}" ]]; then
        measure before "$KGC_BIN_BEFORE" snapshot -o "$work/s.ndjson" --kubeconfig "$kc"
      fi
      if command -v kubectl-check-ownerreferences >/dev/null; then
        measure peer kubectl-check-ownerreferences --kubeconfig "$kc"
      fi
      if [[ "${KUBECTL:-}" == 1 ]]; then
        measure kubectl kubectl --kubeconfig "$kc" get "$(cat "$work/kinds")" -A -o json
      fi
    } | tee "$work/results"
    echo
    echo "$objects objects, $(wc -l <"$work/urls") resources, page size $page, concurrency $conc, median of $runs"
    print_table floor-pb <"$work/results"
    ;;
  curve)
    n="${1:-20000}"
    cms="${2:-180000}"
    start_cluster
    load_generated "$n"
    load_configmaps "$cms"
    list_targets
    printf '%-7s %-10s %9s %8s %10s %14s %9s\n' page method median "÷ floor" "peak RSS" "apiserver RSS" "etcd RSS"
    for p in ${PAGES:-500 1000 2000 5000 10000 20000}; do
      # shellcheck disable=SC2046
      f=$(measure floor-pb $(floor_cmd "$p" pb identity))
      g=$(measure kubectl-gc "$bin" snapshot -o "$work/s.ndjson" --kubeconfig "$kc" --chunk-size "$p")
      printf '%s\n%s\n' "$f" "$g" | awk -v p="$p" '
        {name[NR]=$1; wall[NR]=$2; rss[NR]=$3; api[NR]=$4; etcd[NR]=$5}
        END { for (i = 1; i <= NR; i++)
          printf "%-7s %-10s %8.3fs %7.2f× %7.0f MiB %10.0f MiB %5.0f MiB\n", p, name[i], wall[i], wall[i] / wall[1], rss[i], api[i], etcd[i] }'
    done
    echo "$objects objects, $(wc -l <"$work/urls") resources, concurrency $conc, median of $runs"
    ;;
  *)
    echo "usage: $0 compare [OBJECTS] | curve [OBJECTS [CONFIGMAPS]]" >&2
    exit 2
    ;;
esac
