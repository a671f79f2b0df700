#!/usr/bin/env bash
# Two builds of kubectl-gc, the same command, interleaved with the JSON floor: how
# BENCHMARKS.md's before/after tables are measured.
#
#   scripts/bench-ab.sh [-r ROUNDS] [-F FLOOR_INPUT] BEFORE AFTER -- KUBECTL-GC ARGS...
#
#   scripts/bench-ab.sh -r 16 -F target/bench-data/list-1000000-meta-v1.json \
#       /tmp/kgc-before target/release/kubectl-gc -- \
#       audit -f target/bench-data/list-1000000-meta-v1.json
#
# Why interleaved, and why per round: on the shared virtual machine of BENCHMARKS.md the same
# build's `audit -f` of the 1M List took 0.71-1.06 s within one set of rounds, far more than
# most changes are worth. Each round runs the floor (`read + IgnoredAny` of FLOOR_INPUT, the
# file-input bench's own floor phase), then both builds, in turn order BEFORE AFTER, then
# AFTER BEFORE in the next round, so that a drift within a round does not favour either. The
# ratio AFTER ÷ BEFORE is taken within each round, and its median reported with how many rounds
# AFTER won: a spell slows both builds of a round alike.
#
# Before timing, both builds run the command once and their standard output and exit codes
# must be identical: a speed-up that changes a result is not one. (Set ALLOW_DIFFERENT=1 to
# time builds whose output differs on purpose.)
#
# Reported: per round the floor's, BEFORE's and AFTER's wall time; then medians of wall time,
# CPU time (user + system) and peak RSS, each build's wall time ÷ the floor's, and the
# per-round ratio. Times come from GNU time (`/usr/bin/time`), the whole process as a user
# waits for it, to 10 ms: meant for commands that take a good part of a second or more.
# Output goes to /dev/null.
#
# FLOOR_INPUT: a JSON file (default: none, no floor). The floor is the file-input bench's
# `--phase floor-json`: the script builds the bench (`cargo bench --no-run`) to find it.
set -euo pipefail
export LC_ALL=C

usage() {
  echo "usage: scripts/bench-ab.sh [-r ROUNDS] [-F FLOOR_INPUT] BEFORE AFTER -- KUBECTL-GC ARGS..." >&2
  echo "  (the header of $0 says more)" >&2
  exit 2
}
rounds=10
floor_input=
while getopts 'r:F:h' opt; do
  case $opt in
    r) rounds=$OPTARG ;;
    F) floor_input=$OPTARG ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[[ $# -ge 3 && $3 == -- ]] || usage
before=$1 after=$2
shift 3
[[ $# -gt 0 ]] || usage
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "error: -r wants a positive number of rounds" >&2; exit 2; }
for b in "$before" "$after"; do
  [[ -x $b ]] || { echo "error: $b is not an executable (a kubectl-gc build)" >&2; exit 2; }
done
timer=/usr/bin/time
[[ -x $timer ]] || { echo "error: GNU time ($timer) is needed; install the 'time' package" >&2; exit 2; }

here="$(cd "$(dirname "$0")/.." && pwd)"
floor=()
if [[ -n $floor_input ]]; then
  [[ -f $floor_input ]] || { echo "error: $floor_input: no such file" >&2; exit 2; }
  exe=$(cd "$here" && cargo bench --bench file_input --no-run 2>&1 |
    sed -n 's/.*Executable .*(\(.*file_input-[0-9a-f]*\)).*/\1/p' | tail -1)
  [[ -n $exe ]] || { echo "error: could not build the file-input bench (cargo bench --bench file_input --no-run)" >&2; exit 1; }
  [[ $exe == /* ]] || exe="$here/$exe"
  floor=("$exe" --phase floor-json "$floor_input")
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The same result from both builds first.
set +e
"$before" "$@" >"$work/before.out" 2>"$work/before.err"
rc_before=$?
"$after" "$@" >"$work/after.out" 2>"$work/after.err"
rc_after=$?
set -e
# Exit codes 1-4 are an error, a usage error, a broken input and a cluster error (README,
# "Exit codes"): a command that fails is not worth timing.
for side in before after; do
  rc_var=rc_$side
  if ((${!rc_var} >= 1 && ${!rc_var} <= 4)); then
    echo "error: the $side build exits ${!rc_var}:" >&2
    head -3 "$work/$side.err" >&2
    exit 1
  fi
done
if [[ $rc_before != "$rc_after" ]] || ! cmp -s "$work/before.out" "$work/after.out"; then
  echo "the builds' results differ: exit $rc_before and $rc_after, output $(wc -c <"$work/before.out") and $(wc -c <"$work/after.out") bytes" >&2
  [[ ${ALLOW_DIFFERENT:-} == 1 ]] || { echo "hint: ALLOW_DIFFERENT=1 times them anyway" >&2; exit 1; }
else
  echo "same output from both builds (exit $rc_after, $(wc -c <"$work/after.out") bytes)"
fi

# One timed run: "wall cpu rss_kib" on stdout.
timed() {
  "$timer" -o "$work/t" -f '%e %U %S %M' "$@" >/dev/null 2>&1 || true
  # GNU time writes "Command exited with non-zero status N" first when the exit code is not
  # 0 (audit's findings); the last line is the format's. A run it could not time stops all.
  if ! tail -1 "$work/t" | grep -Eq '^[0-9.]+ [0-9.]+ [0-9.]+ [0-9]+$'; then
    echo "error: could not time: $*" >&2
    cat "$work/t" >&2
    exit 1
  fi
  tail -1 "$work/t" | awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }'
}

printf '%5s %8s %8s %8s\n' round floor before after
: >"$work/rows"
for ((r = 1; r <= rounds; r++)); do
  f="- - -"
  [[ ${#floor[@]} -gt 0 ]] && f=$(timed "${floor[@]}")
  if ((r % 2)); then
    b=$(timed "$before" "$@")
    a=$(timed "$after" "$@")
  else
    a=$(timed "$after" "$@")
    b=$(timed "$before" "$@")
  fi
  echo "$f $b $a" >>"$work/rows"
  printf '%5d %8s %8s %8s\n' "$r" "${f%% *}" "${b%% *}" "${a%% *}"
done

# Columns: floor wall cpu rss, before wall cpu rss, after wall cpu rss.
awk '
  function median(v, n,   i, j, t) {
    for (i = 2; i <= n; i++) { t = v[i]; for (j = i - 1; j >= 1 && v[j] > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
  }
  function col(c,   i) { for (i = 1; i <= n; i++) tmp[i] = row[i, c]; return median(tmp, n) }
  { n++; for (c = 1; c <= 9; c++) row[n, c] = $c }
  END {
    floor = row[1, 1] != "-"
    fw = floor ? col(1) : 0
    printf "\nmedians of %d rounds\n", n
    if (floor) printf "  floor   %.3f s wall, %.2f s CPU, %.0f MiB\n", fw, col(2), col(3) / 1024
    split("before after", name)
    for (k = 1; k <= 2; k++) {
      w = col(3 * k + 1)
      printf "  %-6s  %.3f s wall, %.2f s CPU, %.0f MiB", name[k], w, col(3 * k + 2), col(3 * k + 3) / 1024
      if (floor && fw > 0) printf "  (%.2fx the floor)", w / fw
      printf "\n"
    }
    wins = 0
    for (i = 1; i <= n; i++) { ratio[i] = row[i, 4] > 0 ? row[i, 7] / row[i, 4] : 1; if (row[i, 7] < row[i, 4]) wins++ }
    printf "  after / before, per round: median %.3f; after faster in %d of %d rounds\n", median(ratio, n), wins, n
  }' "$work/rows"
