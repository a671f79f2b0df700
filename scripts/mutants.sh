#!/usr/bin/env bash
# Mutation testing of the code that can delete, write or block (issue 65): cargo-mutants
# (`cargo install cargo-mutants --locked`) over one scope at a time, each with the unit tests
# that guard it. The results are kept in docs/testing.md ("Mutation testing"): what was caught,
# what was missed, and for each missed mutant why it is harmless or the test that now kills
# it. Not run in CI: one mutant is one build of the library's unit-test binary, minutes each
# on a laptop (docs/testing.md has the times).
#
#   scripts/mutants.sh --list                # the scopes
#   scripts/mutants.sh apply-converge gc-row9 # some scopes
#   scripts/mutants.sh all                   # every scope (hours)
#   MUTANTS_JOBS=2 scripts/mutants.sh remedy # parallel builds (each needs a copy of target/)
#
# Each scope runs in a copy of the tree (cargo-mutants' default: never --in-place, so the
# checkout being worked in is not touched), with target/ copied so that dependencies are not
# rebuilt, and writes mutants.out/<scope>/ (caught.txt, missed.txt, timeout.txt,
# unviable.txt, outcomes.json).
set -euo pipefail
cd "$(dirname "$0")/.."

export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}" CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
jobs="${MUTANTS_JOBS:-1}"
out="${MUTANTS_OUT:-mutants.out}"

# A scope: its file (-f); a regex of the functions to mutate (--re, empty for all); the
# filters of the library's unit tests that guard it. Separated by `;`.
scope() {
  case "$1" in
    gc-row9) echo "src/gc/attempt_to_delete.rs;attempt_to_delete_item;gc:: diagnose::tests" ;;
    apply-converge) echo "src/apply/converge.rs;;apply::" ;;
    apply-verify) echo "src/apply/verify.rs;;apply::" ;;
    apply-relink) echo "src/apply/relink.rs;;apply::relink" ;;
    apply-patch) echo "src/apply/patch.rs;;apply::" ;;
    apply-verbs) echo "src/apply/verbs.rs;;apply::" ;;
    apply-ops) echo "src/apply/ops.rs;is_object_not_found|concerns_one_object|gc_get_path;apply::" ;;
    remedy) echo "src/diagnose/remedy.rs;shell_word;remedy" ;;
    admit-decide) echo "src/admit/decide.rs;;admit::" ;;
    admit-server) echo "src/admit/server.rs;;admit::" ;;
    history-actor) echo "src/diagnose/history/actor.rs;;diagnose::history" ;;
    history-cause) echo "src/diagnose/history/cause.rs;;diagnose::history" ;;
    *) return 1 ;;
  esac
}
all=(gc-row9 apply-converge apply-verify apply-relink apply-patch apply-verbs apply-ops remedy
  admit-decide admit-server history-actor history-cause)

if [[ "${1:-}" == "--list" || $# -eq 0 ]]; then
  for s in "${all[@]}"; do printf '%-16s %s\n' "$s" "$(scope "$s")"; done
  exit 0
fi
[[ "$1" == "all" ]] && set -- "${all[@]}"
command -v cargo-mutants >/dev/null || {
  echo "error: cargo-mutants is not installed" >&2
  echo "hint: cargo install cargo-mutants --locked" >&2
  exit 2
}

for s in "$@"; do
  spec="$(scope "$s")" || { echo "error: unknown scope $s (--list)" >&2; exit 2; }
  IFS=';' read -r file re tests <<<"$spec"
  args=(-f "$file" -C --lib -j "$jobs" --copy-target true --baseline skip
    --timeout 300 --build-timeout 3600 -o "$out/$s")
  [[ -n "$re" ]] && args+=(--re "$re")
  mkdir -p "$out/$s"
  echo "== $s: cargo mutants ${args[*]} -- -- $tests" >&2
  start=$(date +%s)
  # Exit 2 (mutants missed) and 3 (timeouts) are results, not failures of the script.
  # shellcheck disable=SC2086
  cargo mutants "${args[@]}" -- -- $tests || {
    rc=$?
    [[ $rc -eq 2 || $rc -eq 3 ]] || exit "$rc"
  }
  end=$(date +%s)
  for f in caught missed timeout unviable; do
    printf '%s %s: %s\n' "$s" "$f" "$(wc -l <"$out/$s/mutants.out/$f.txt" 2>/dev/null || echo 0)"
  done
  echo "$s: $(( (end - start) / 60 )) min" >&2
done
