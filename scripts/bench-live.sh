#!/usr/bin/env bash
# Live benchmark (BENCHMARKS.md, "Live"): `kubectl gc snapshot` against a real API server, as a
# ratio to the physical floor — the same metadata-only lists fetched in protobuf, bytes
# discarded.
#
#   scripts/bench-live.sh compare [OBJECTS]              default 50000
#   scripts/bench-live.sh curve [OBJECTS [CONFIGMAPS]]   default 20000 + 180000
#
# Each mode starts a fresh control plane (scripts/testenv: kube-apiserver v1.20.2 and etcd
# on this machine, no controllers: nothing changes while it runs) and loads a synthetic cluster
# (`kubectl gc generate --apply-to-kubeconfig`, OBJECTS objects). `curve` adds CONFIGMAPS
# ConfigMaps (labels, a managedFields entry, every tenth one with an ownerReference) in 20
# namespaces — one big resource, where the page count dominates.
#
# Methods (RUNS rounds, every method once per round, median; wall time of the whole process):
#   floor-pb        every list the snapshot makes (pages of MAX_PAGE objects — the largest
#                   kubectl-gc asks for, the cheapest for the server —, the same concurrency,
#                   each resource's pages in sequence), PartialObjectMetadataList in protobuf,
#                   persistent HTTP/1.1 connections, each body read into a buffer and discarded
#                   (a small Go program: net/http, what client-go is built on; built here)
#   floor-pb-h2     the same over HTTP/2 (client-go's default; one multiplexed connection)
#   floor-pb-gzip   the same as floor-pb, asking for gzip as kube-rs does by default
#   floor-pb-500    the same as floor-pb in pages of 500 (kubectl's --chunk-size default)
#   floor-json      the same lists in JSON (identity)
#   kubectl-gc      `kubectl gc snapshot -o FILE` with default flags (process start, connection,
#                   discovery, every list, the file written; pages growing from 500 to MAX_PAGE
#                   while fast)
#   kubectl-gc-identity   the same with `disable-compression: true` in the kubeconfig
#   before          KGC_BIN_BEFORE, when set: another build (the previous release) the same way
#   peer            `kubectl-check-ownerreferences`, when on PATH
#   kubectl         KUBECTL=1: `kubectl get <the same resources> -A -o json`
# `curve` runs floor-pb and `kubectl gc snapshot --chunk-size P` at every page size P in PAGES,
# then kubectl-gc with default flags against the floor at MAX_PAGE.
#
# Reported besides time: the client's CPU time and peak RSS, the CPU time kube-apiserver and
# etcd spent during the run, and their peak RSS (VmHWM, reset before each run through
# /proc/PID/clear_refs; needs the same user as the control plane).
#
# Environment: RUNS (3), PAGES ("500 1000 2000 5000 10000 20000"), MAX_PAGE (10000: kubectl-gc's
# largest page), CONCURRENCY (kubectl-gc's default), KGC_BIN (default: builds target/release/kubectl-gc with the `testkit` feature,
# which has the hidden `generate` command),
# KGC_BIN_BEFORE, KUBECTL, KGC_TESTENV_BIN (default: what scripts/testenv-install prints), KEEP=1 (leave the
# control plane running; its directory is printed).
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
mode="${1:-compare}"
shift || true
runs="${RUNS:-3}"
testenv="$here/scripts/testenv"
bin="${KGC_BIN:-}"
if [[ -z "$bin" ]]; then
  (cd "$here" && cargo build --release --quiet --features testkit)
  bin="$here/target/release/kubectl-gc"
fi
# kubectl-gc's own defaults, from `kubectl gc options` (the global flags' help).
default_of() { "$bin" options | grep -A3 -- "--$1" | grep -o 'default: [0-9]*' | head -1 | grep -o '[0-9]*'; }
page="${MAX_PAGE:-10000}"
conc="${CONCURRENCY:-$(default_of concurrency)}"

work="$(mktemp -d -t kgc-bench-live.XXXXXX)"
envdir="$work/testenv"
cleanup() {
  if [[ "${KEEP:-}" == 1 ]]; then
    echo "control plane left running: $envdir (stop with $testenv stop --dir $envdir)" >&2
  else
    [[ -d "$envdir" ]] && "$testenv" stop --dir "$envdir" >/dev/null 2>&1 || true
    rm -rf "$work"
  fi
}
trap cleanup EXIT

# The floor: a Go program (standard library only; Go comes with the test environment's install),
# the same HTTP client code client-go is built on.
mkdir -p "$work/floor"
cat >"$work/floor/main.go" <<'GO'
// floor URLS SERVER TOKEN PAGE CONCURRENCY pb|json identity|gzip http1|http2
// Pages through every collection URL in URLS (CONCURRENCY resources at a time, each resource's
// pages in sequence, persistent connections) and discards the bodies: the physical floor of a
// metadata snapshot. Prints pages and bytes on stderr.
package main

import (
	"bytes"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

var jsonContinue = regexp.MustCompile(`"continue":"([^"]*)"`)

func varint(b []byte, i int) (uint64, int) {
	var v uint64
	var shift uint
	for i < len(b) {
		c := b[i]
		i++
		v |= uint64(c&0x7f) << shift
		shift += 7
		if c < 0x80 {
			return v, i
		}
	}
	return v, len(b) + 1
}

// field returns the [start, end) of the first length-delimited field number f in b[i:end].
func field(b []byte, i, end int, f uint64) (int, int, bool) {
	for i < end {
		key, j := varint(b, i)
		if j > end {
			return 0, 0, false
		}
		i = j
		switch key & 7 {
		case 2:
			n, j := varint(b, i)
			if j > end || j+int(n) > end {
				return 0, 0, false
			}
			if key>>3 == f {
				return j, j + int(n), true
			}
			i = j + int(n)
		case 0:
			_, i = varint(b, i)
		default:
			return 0, 0, false
		}
	}
	return 0, 0, false
}

// pbContinue: "k8s\0" + runtime.Unknown{raw = 2: List{metadata = 1: ListMeta{continue = 3}}}.
func pbContinue(b []byte) string {
	if !bytes.HasPrefix(b, []byte("k8s\x00")) {
		fmt.Fprintf(os.Stderr, "not protobuf: %.60q\n", b)
		os.Exit(1)
	}
	s, e, ok := field(b, 4, len(b), 2)
	if !ok {
		return ""
	}
	s, e, ok = field(b, s, e, 1)
	if !ok {
		return ""
	}
	s, e, ok = field(b, s, e, 3)
	if !ok {
		return ""
	}
	return string(b[s:e])
}

func main() {
	a := os.Args[1:]
	urlsFile, server, token, page, wire, enc, proto := a[0], a[1], a[2], a[3], a[5], a[6], a[7]
	conc, _ := strconv.Atoi(a[4])
	accept := map[string]string{
		"pb":   "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1",
		"json": "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1",
	}[wire]
	tr := &http.Transport{
		TLSClientConfig:     &tls.Config{InsecureSkipVerify: true},
		MaxIdleConnsPerHost: conc,
		DisableCompression:  enc != "gzip", // Go asks for gzip and decompresses transparently
		ForceAttemptHTTP2:   proto == "http2",
	}
	if proto == "http1" {
		tr.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
	}
	client := &http.Client{Transport: tr}
	raw, err := os.ReadFile(urlsFile)
	if err != nil {
		panic(err)
	}
	urls := make(chan string, 1000)
	for _, u := range strings.Fields(string(raw)) {
		urls <- u
	}
	close(urls)
	var mu sync.Mutex
	var pages, size int
	var wg sync.WaitGroup
	for w := 0; w < conc; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf bytes.Buffer
			for u := range urls {
				cont := ""
				for {
					q := "limit=" + page
					if cont != "" {
						q += "&continue=" + url.QueryEscape(cont)
					}
					req, _ := http.NewRequest("GET", server+u+"?"+q, nil)
					req.Header.Set("Authorization", "Bearer "+token)
					req.Header.Set("Accept", accept)
					req.Header.Set("User-Agent", "bench-live-floor")
					resp, err := client.Do(req)
					if err != nil {
						panic(err)
					}
					buf.Reset()
					if _, err := io.Copy(&buf, resp.Body); err != nil {
						panic(err)
					}
					resp.Body.Close()
					if resp.StatusCode != 200 {
						fmt.Fprintf(os.Stderr, "HTTP %d for %s: %.200s\n", resp.StatusCode, u, buf.Bytes())
						os.Exit(1)
					}
					b := buf.Bytes()
					mu.Lock()
					pages++
					size += len(b)
					mu.Unlock()
					if wire == "pb" {
						cont = pbContinue(b)
					} else {
						head := b
						if len(head) > 4096 {
							head = head[:4096]
						}
						m := jsonContinue.FindSubmatch(head)
						cont = ""
						if m != nil {
							cont = string(m[1])
						}
					}
					if cont == "" {
						break
					}
				}
			}
		}()
	}
	wg.Wait()
	fmt.Fprintf(os.Stderr, "%d pages, %.1f MB\n", pages, float64(size)/1e6)
}
GO
command -v go >/dev/null || { echo "the floor needs Go (apt-get install golang-go)" >&2; exit 1; }
(cd "$work/floor" && GOFLAGS= go build -o floor main.go)

cat >"$work/timed.py" <<'PY'
# timed.py APISERVER_PIDFILE ETCD_PIDFILE -- CMD...: runs CMD; prints
# "wall_s rss_mib apiserver_hwm_mib etcd_hwm_mib cpu_s apiserver_cpu_s etcd_cpu_s".
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
def cpu(pid):
    try:
        f = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
        return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")
    except OSError:
        return float("nan")
for pid in pids:
    try:
        open("/proc/%d/clear_refs" % pid, "w").write("5")
    except OSError:
        pass
before = [cpu(p) for p in pids]
t = time.monotonic()
rc = subprocess.call(cmd, stdout=subprocess.DEVNULL, stderr=open(os.devnull, "w"))
wall = time.monotonic() - t
if rc != 0:
    sys.exit("command failed (%d): %s" % (rc, " ".join(cmd)))
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.3f %.0f %s %.2f %s" % (wall, ru.ru_maxrss / 1024,
      " ".join("%.0f" % hwm(p) for p in pids), ru.ru_utime + ru.ru_stime,
      " ".join("%.2f" % (cpu(p) - b) for p, b in zip(pids, before))))
PY

start_cluster() {
  "$testenv" start --dir "$envdir" >/dev/null 2>"$work/start.log" || { cat "$work/start.log"; exit 1; }
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

# measure NAME=CMD...: RUNS rounds, every method once per round (interleaved, so that a change
# in the machine's load hits all methods alike); prints per method the median line
# "NAME wall rss apiserver etcd", in the order given. CMD is word-split (no spaces in paths).
measure() {
  local round spec
  : >"$work/raw"
  for round in $(seq "$runs"); do
    for spec in "$@"; do
      # shellcheck disable=SC2046,SC2086
      echo "${spec%%=*} $(python3 "$work/timed.py" $(pidfiles) -- ${spec#*=})" >>"$work/raw"
    done
    echo "  round $round/$runs done" >&2
  done
  for spec in "$@"; do
    awk -v n="${spec%%=*}" '$1 == n' "$work/raw" | sort -k2 -g |
      awk '{a[NR]=$0} END {print a[int((NR+1)/2)]}'
  done
}

# The floor's command line: floor_cmd PAGE pb|json identity|gzip http1|http2.
floor_cmd() { echo "$work/floor/floor" "$work/urls" "$server" "$token" "$1" "$conc" "$2" "$3" "${4:-http1}"; }

# table LABEL: median lines on stdin (the first is the reference) → one table row each.
table_header() {
  printf '%-8s %-20s %8s %7s %8s %9s %8s %9s %9s\n' "" method median "÷ ref" "CPU" "srv CPU" "peak RSS" "api peak" "etcd peak"
}
table() {
  awk -v label="$1" '
    {n[NR]=$1; w[NR]=$2; rss[NR]=$3; ah[NR]=$4; eh[NR]=$5; c[NR]=$6; ac[NR]=$7; ec[NR]=$8}
    END { for (i = 1; i <= NR; i++)
      printf "%-8s %-20s %7.3fs %6.2f× %7.2fs %9.2fs %5.0f MiB %5.0f MiB %5.0f MiB\n",
        label, n[i], w[i], w[i] / w[1], c[i], ac[i] + ec[i], rss[i], ah[i], eh[i] }'
}

echo "kubectl-gc: $("$bin" --version | head -1); concurrency $conc; load average: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
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
    specs=(
      "floor-pb=$(floor_cmd "$page" pb identity)"
      "floor-pb-h2=$(floor_cmd "$page" pb identity http2)"
      "floor-pb-gzip=$(floor_cmd "$page" pb gzip)"
      "floor-pb-500=$(floor_cmd 500 pb identity)"
      "floor-json=$(floor_cmd "$page" json identity)"
      "kubectl-gc=$bin snapshot -o $work/s.ndjson --kubeconfig $kc"
      "kubectl-gc-identity=$bin snapshot -o $work/s.ndjson --kubeconfig $work/kubeconfig-identity"
    )
    [[ -n "${KGC_BIN_BEFORE:-}" ]] &&
      specs+=("before=$KGC_BIN_BEFORE snapshot -o $work/s.ndjson --kubeconfig $kc")
    command -v kubectl-check-ownerreferences >/dev/null &&
      specs+=("peer=kubectl-check-ownerreferences --kubeconfig $kc")
    [[ "${KUBECTL:-}" == 1 ]] &&
      specs+=("kubectl=kubectl --kubeconfig $kc get $(cat "$work/kinds") -A -o json")
    measure "${specs[@]}" >"$work/results"
    echo
    echo "$objects objects, $(wc -l <"$work/urls") resources, floor pages of $page, concurrency $conc, median of $runs; ÷ ref: ÷ floor-pb"
    table_header
    table "$objects" <"$work/results"
    ;;
  curve)
    n="${1:-20000}"
    cms="${2:-180000}"
    start_cluster
    load_generated "$n"
    load_configmaps "$cms"
    list_targets
    echo "$objects objects, $(wc -l <"$work/urls") resources, concurrency $conc, median of $runs; ÷ ref: ÷ floor-pb at the same page size (default: at $page)"
    table_header
    for p in ${PAGES:-500 1000 2000 5000 10000 20000}; do
      measure "floor-pb=$(floor_cmd "$p" pb identity)" \
        "kubectl-gc=$bin snapshot -o $work/s.ndjson --kubeconfig $kc --chunk-size $p" | table "$p"
    done
    measure "floor-pb=$(floor_cmd "$page" pb identity)" \
      "kubectl-gc=$bin snapshot -o $work/s.ndjson --kubeconfig $kc" | table default
    ;;
  *)
    echo "usage: $0 compare [OBJECTS] | curve [OBJECTS [CONFIGMAPS]]" >&2
    exit 2
    ;;
esac
