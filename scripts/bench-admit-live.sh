#!/usr/bin/env bash
# kubectl gc admit as the API server sees it (BENCHMARKS.md, "admit as the API server sees it"):
# the API server's own histogram of the webhook's calls, and the write rate of concurrent
# writers, for admit and for an allow-all webhook (hyper + rustls and nothing else) in the
# same run, on one test cluster.
#
#   scripts/bench-admit-live.sh
#
# A fresh control plane (scripts/testenv: kube-apiserver v1.20.2 and etcd on loopback, no
# controllers), a namespace `bench` with one owner ConfigMap, a CA and a serving certificate
# for 127.0.0.1 (openssl), the allow-all webhook and `kubectl gc admit` (warn mode, the
# configuration --print-config prints for the cluster) both serving. Then ROUNDS rounds, each
# measuring both webhooks in turn (the order alternates from round to round): the webhook's
# configuration is put in place (the other one's removed), WRITERS writers create ConfigMaps
# carrying a valid ownerReference to the owner for WARMUP seconds (not counted), then for SECS
# seconds while the API server's `apiserver_admission_webhook_admission_duration_seconds`
# and admit's verdict counters are read before and after.
#
# Reported per round and webhook: writes/s, the calls the API server made, the share of them
# in its first bucket (≤ 5 ms), and for admit the calls it answered without judging them
# (timeout, overloaded; should be 0). The load average is printed before and after.
#
# Environment: ROUNDS (3), SECS (10), WARMUP (2), WRITERS (4); KGC_BIN (default:
# target/profiling/kubectl-gc) and KGC_ADMIT_LIVE (default: the newest
# target/profiling/deps/admit_live-*), both built here with `cargo build --profile profiling
# --bin kubectl-gc --bench admit_live` unless given; KGC_TESTENV_BIN; KEEP=1 leaves the
# control plane running (its directory is printed).
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
rounds="${ROUNDS:-3}" secs="${SECS:-10}" warmup="${WARMUP:-2}" writers="${WRITERS:-4}"
bin="${KGC_BIN:-}" helper="${KGC_ADMIT_LIVE:-}"
if [[ -z "$bin" || -z "$helper" ]]; then
  (cd "$here" && cargo build --quiet --profile profiling --bin kubectl-gc --bench admit_live)
  bin="${bin:-$here/target/profiling/kubectl-gc}"
  helper="${helper:-$(ls -t "$here"/target/profiling/deps/admit_live-* | grep -v '\.d$' | head -1)}"
fi

work="$(mktemp -d -t kgc-bench-admit.XXXXXX)"
pids=()
cleanup() {
  for p in ${pids[@]+"${pids[@]}"}; do kill "$p" 2>/dev/null || true; done
  if [[ "${KEEP:-}" == 1 ]]; then
    echo "control plane left running: $work/plane" >&2
  else
    "$here/scripts/testenv" stop --dir "$work/plane" || true
  fi
}
trap cleanup EXIT
"$here/scripts/testenv" start --dir "$work/plane" >/dev/null
# shellcheck disable=SC1091
source "$work/plane/env"

port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
until_ok() {
  local limit=$((SECONDS + $1))
  shift
  while ! "$@" >/dev/null 2>&1; do
    ((SECONDS < limit)) || return 1
    sleep 0.25
  done
}

# A CA, and a serving certificate for 127.0.0.1 it signed.
cd "$work"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
  -subj /CN=bench-ca -keyout ca.key -out ca.crt 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=127.0.0.1 \
  -keyout tls.key -out tls.csr 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1\n' >san.ext
openssl x509 -req -in tls.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 1 \
  -extfile san.ext -out tls.crt 2>/dev/null

kubectl create namespace bench >/dev/null
kubectl create configmap owner -n bench >/dev/null
owner_uid="$(kubectl get configmap owner -n bench -o 'jsonpath={.metadata.uid}')"

allow_port="$(port)" admit_port="$(port)"
"$helper" allow-all --listen "127.0.0.1:$allow_port" --cert tls.crt --key tls.key \
  >allow-all.log 2>&1 &
pids+=("$!")
"$bin" admit --listen "127.0.0.1:$admit_port" --tls-cert-file tls.crt \
  --tls-private-key-file tls.key >admit.log 2>&1 &
pids+=("$!")
until_ok 60 curl -sf --cacert ca.crt "https://127.0.0.1:$admit_port/healthz" ||
  { echo "admit did not become ready: $work/admit.log" >&2; exit 1; }

# admit's configuration for this cluster; the allow-all one is the same under another name.
"$bin" admit --print-config --url "https://127.0.0.1:$admit_port/validate" --ca-file ca.crt \
  >admit-config.yaml
sed -e "s#127.0.0.1:$admit_port#127.0.0.1:$allow_port#" \
  -e 's#owner-references.kubectl-gc.io#allow-all.bench.kubectl-gc.io#' \
  admit-config.yaml >allow-config.yaml
kubectl create -f admit-config.yaml >/dev/null

# The API server's histogram for webhook $1: "first-bucket-count total-count".
histogram() {
  kubectl get --raw /metrics | awk -v n="name=\"$1\"" '
    /^apiserver_admission_webhook_admission_duration_seconds_bucket/ && index($0, n) &&
      index($0, "le=\"0.005\"") { b += $NF }
    /^apiserver_admission_webhook_admission_duration_seconds_count/ && index($0, n) { c += $NF }
    END { printf "%d %d\n", b, c }'
}
# admit's answers without a verdict so far (timeout, overloaded).
unjudged() {
  curl -sf --cacert ca.crt "https://127.0.0.1:$admit_port/metrics" | awk '
    /^kubectl_gc_admit_verdicts_total/ && (/verdict="timeout"/ || /verdict="overloaded"/) { s += $NF }
    END { printf "%d\n", s }'
}
run_writers() {
  "$helper" write --kubeconfig "$KUBECONFIG" --namespace bench --owner owner \
    --owner-uid "$owner_uid" --writers "$writers" --seconds "$1"
}

measure() {
  local target=$1 name config
  if [[ "$target" == admit ]]; then
    name=owner-references.kubectl-gc.io config=admit-config.yaml
  else
    name=allow-all.bench.kubectl-gc.io config=allow-config.yaml
  fi
  kubectl replace -f "$config" >/dev/null
  run_writers "$warmup" >/dev/null
  read -r b0 c0 < <(histogram "$name")
  local u0 u1
  u0="$(unjudged)"
  read -r _ writes _ seconds _ errors < <(run_writers "$secs")
  read -r b1 c1 < <(histogram "$name")
  u1="$(unjudged)"
  awk -v t="$target" -v r="$round" -v w="$writes" -v s="$seconds" -v e="$errors" \
    -v b=$((b1 - b0)) -v c=$((c1 - c0)) -v u=$((u1 - u0)) 'BEGIN {
      printf "%-5s %-9s %9.1f %7d %10.2f%% %8d %9d\n", r, t, w / s, c,
        (c ? 100 * b / c : 0), e, (t == "admit" ? u : 0) }'
}

echo "load before: $(uptime)"
printf '%-5s %-9s %9s %7s %11s %8s %9s\n' round webhook writes/s calls "<=5ms" errors unjudged
for round in $(seq 1 "$rounds"); do
  if ((round % 2)); then order=(allow-all admit); else order=(admit allow-all); fi
  for t in "${order[@]}"; do measure "$t"; done
done
echo "load after: $(uptime)"
