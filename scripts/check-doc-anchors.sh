#!/usr/bin/env bash
# Fails when a GC-model anchor cited in the code has no heading in docs/gc-model.md.
#
# Comments, tests and the README cite the design document by section: "§3.2 row 9",
# "§3.7–3.9", "Appendix D.5". Each cited anchor must be the first word of a Markdown heading
# in docs/gc-model.md ("### §3.2 attemptToDeleteItem: …", "### Appendix D.5 — …"), so that a
# reader who searches the document for the anchor lands on its section.
#
# Citations qualified by another document ("rust-notes.md §4.2") are not anchors of the GC
# model; they are listed as a note and not checked.
#
# Usage: scripts/check-doc-anchors.sh [repository root]   (default: the script's parent)
# Exit status: 0 all anchors resolve, 1 some do not, 2 the document is missing.
set -euo pipefail
export LC_ALL=C.UTF-8

root=${1:-"$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"}
cd "$root"
doc=docs/gc-model.md
if [[ ! -f $doc ]]; then
  echo "check-doc-anchors: $doc is missing" >&2
  exit 2
fi

# Where citations live. src/ and tests/ must exist; the rest is checked when present.
sources=(src tests)
for extra in benches README.md BENCHMARKS.md ARCHITECTURE.md; do
  [[ -e $extra ]] && sources+=("$extra")
done

# One anchor token: "§3", "§3.2", "§ 6.22", "Appendix D", "Appendix D.5". A range such as
# "§3.7–3.9" or "§1–§2" cites both ends.
anchor='§ ?[0-9]+(\.[0-9]+)*'
range="$anchor(–§? ?[0-9]+(\.[0-9]+)*)?"
appendix='Appendix [A-E](\.[0-9]+)?'

# Drop citations of other documents before extracting ("rust-notes.md` §4.2").
foreign='rust-notes(\.md)?`?[^§]{0,3}§ ?[0-9]+(\.[0-9]+)*'

citations=$(grep -rhoE -e "$foreign" -e "$range" -e "$appendix" "${sources[@]}" || true)
foreign_hits=$(grep -rnoE -e "$foreign" "${sources[@]}" || true)

# Normalise: "§ 3.2" → "§3.2"; split ranges into both ends.
cited=$(
  printf '%s\n' "$citations" |
    grep -vE '^rust-notes' |
    sed -E 's/§ /§/g' |
    awk -F'–' 'NF == 0 { next }
      { print $1
        if (NF > 1) { tail = $2; gsub(/[§ ]/, "", tail); print "§" tail } }' |
    grep -E '^(§[0-9]|Appendix)' | sort -u
)

# Headings: "#…# <anchor>" followed by a space or the end of the line.
headings=$(
  grep -E "^#{1,6} ($anchor|$appendix)( |$)" "$doc" |
    sed -E 's/^#{1,6} //; s/^(§[0-9]+(\.[0-9]+)*|Appendix [A-E](\.[0-9]+)?).*/\1/' |
    sort -u
)

missing=$(comm -23 <(printf '%s\n' "$cited") <(printf '%s\n' "$headings"))
count=$(printf '%s\n' "$cited" | grep -c . || true)
total=$(printf '%s\n' "$citations" | grep -vcE '^rust-notes' || true)

if [[ -n $foreign_hits ]]; then
  echo "note: citations of other documents, not checked:"
  while IFS= read -r hit; do
    echo "  $hit"
  done <<<"$foreign_hits"
fi

if [[ ${CHECK_DOC_ANCHORS_LIST:-} == 1 ]]; then
  echo "cited anchors:"
  while IFS= read -r a; do
    [[ -n $a ]] && echo "  $a"
  done <<<"$cited"
fi

if [[ -n $missing ]]; then
  echo "check-doc-anchors: cited anchors without a heading in $doc:" >&2
  while IFS= read -r a; do
    [[ -z $a ]] && continue
    where=$( (grep -rnF -- "$a" "${sources[@]}" || true) | head -n 1 | cut -d: -f1,2)
    echo "  $a  (${where:-cited as the end of a range})" >&2
  done <<<"$missing"
  exit 1
fi
echo "check-doc-anchors: $count distinct anchors ($total citations) all resolve in $doc"
