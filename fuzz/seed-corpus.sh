#!/usr/bin/env bash
# Seeds fuzz/corpus/<target>/ from the repository's examples and its real cluster dumps
# (tests/data/realdata, or $KGC_REALDATA). Idempotent.
# No pipefail: `head` ends the listing pipelines early on purpose (SIGPIPE upstream).
set -eu
cd "$(dirname "$0")"
root=..
real=${KGC_REALDATA:-$root/tests/data/realdata}
mkdir -p corpus/file_reader corpus/snapshot_reader corpus/timestamp corpus/audit_reader corpus/json_item
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
# List items of the usual shapes (the scanner's answers) and near them.
printf '%s' '{"apiVersion":"v1","kind":"Namespace","metadata":{"creationTimestamp":"2026-11-17T14:29:55Z","labels":{"kubernetes.io/metadata.name":"default"},"name":"default","resourceVersion":"1","uid":"ce01e389-6d78-4ac8-a276-0c95209d3070"}}' > corpus/json_item/namespace
printf '%s' '{"apiVersion":"v1","kind":"Pod","metadata":{"annotations":{"a":"{\"x\":1}\n\u00e9"},"finalizers":["f",null],"labels":{"app":"web","t":null},"managedFields":[{"time":"t","fieldsV1":{"f:metadata":{}}}],"name":"web","namespace":"shop","ownerReferences":[{"apiVersion":"apps/v1","blockOwnerDeletion":true,"controller":true,"kind":"ReplicaSet","name":"web","uid":"u1","x":[1,-0.5e-3]}],"uid":"u2","deletionTimestamp":null},"spec":{"replicas":3,"ok":false},"status":{}}' > corpus/json_item/pod
printf '%s' '{ "kind" : "ConfigMap" , "data" : { "a" : [ 0 , 2E+10 , true , null , [ [ ] , { } ] ] } , "metadata" : { "name" : "c" , "labels" : null } }' > corpus/json_item/spaced
# Snapshot object lines (the line scanner's answers), from the example snapshots.
grep -h '^{"resource"' "$root"/examples/*.json "$root"/examples/*.ndjson | head -50 |
  while IFS= read -r l; do printf '%s' "$l" > "corpus/json_item/line-$(printf '%s' "$l" | md5sum | cut -c1-16)"; done
printf '2021-09-14T10:20:30Z' > corpus/timestamp/basic
printf '2021-09-14T12:20:30.123456+02:00' > corpus/timestamp/offset
echo "seeded: $(ls corpus/json_item | wc -l) json_item, $(ls corpus/audit_reader | wc -l) audit_reader, $(ls corpus/file_reader | wc -l) file_reader, $(ls corpus/snapshot_reader | wc -l) snapshot_reader, $(ls corpus/timestamp | wc -l) timestamp"
