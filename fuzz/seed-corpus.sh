#!/usr/bin/env bash
# Seeds fuzz/corpus/<target>/ from the repository's examples and its real cluster dumps
# (tests/data/realdata, or $KGC_REALDATA). Idempotent.
# No pipefail: `head` ends the listing pipelines early on purpose (SIGPIPE upstream).
set -eu
cd "$(dirname "$0")"
root=..
real=${KGC_REALDATA:-$root/tests/data/realdata}
mkdir -p corpus/file_reader corpus/snapshot_reader corpus/timestamp corpus/audit_reader
cp "$root"/examples/*.yaml corpus/file_reader/
# The audit reader: a real Metadata-level log of a v1.20.2 API server.
cp "$root"/examples/audit-shop.log corpus/audit_reader/
cp "$root"/examples/*.json corpus/snapshot_reader/
if [[ -d $real ]]; then
  # Small real files of every shape: typed lists, kind: List, bare sequences, redacted YAML
  # that does not parse, kindless objects, version reports.
  find "$real" -type f \( -name '*.json' -o -name '*.yaml' \) -size -64k | sort | head -200 |
    while read -r f; do cp "$f" "corpus/file_reader/$(echo "$f" | md5sum | cut -c1-16)"; done
  cp "$real"/ocp-must-gather-clean/*.tar.xz corpus/file_reader/ 2>/dev/null || true
  grep -rhoE '"?(creationTimestamp|deletionTimestamp|lastTransitionTime)"?: "?[^",}]+' "$real" 2>/dev/null |
    sed -E 's/.*: "?//' | sort -u | head -200 |
    while read -r t; do printf '%s' "$t" > "corpus/timestamp/$(printf '%s' "$t" | md5sum | cut -c1-16)"; done
fi
printf '2021-09-14T10:20:30Z' > corpus/timestamp/basic
printf '2021-09-14T12:20:30.123456+02:00' > corpus/timestamp/offset
echo "seeded: $(ls corpus/audit_reader | wc -l) audit_reader, $(ls corpus/file_reader | wc -l) file_reader, $(ls corpus/snapshot_reader | wc -l) snapshot_reader, $(ls corpus/timestamp | wc -l) timestamp"
