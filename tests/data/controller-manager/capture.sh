#!/usr/bin/env bash
# Captures what a real kube-controller-manager v1.20.2 logs while its garbage collector and
# namespace controller act, with the API server's audit log, Events and the states before and
# after of the same run: the test data of `history --controller-manager-log`.
#
#   tests/data/controller-manager/capture.sh NAME V [KCM_FLAG…]
#
# writes tests/data/controller-manager/NAME/{kube-controller-manager.log, audit.log, events.json,
# before.json, after.json} (the audit log at Metadata level; reads are not audited). V is the
# controller manager's --v; the flags after it are passed to it (e.g. --logging-format=json).
#
# The scenarios, each in its own namespace (docs/gc-model.md names the GC's rules):
#   cross     a ConfigMap in `cross` whose ownerReference has the UID of a ConfigMap in `ops`
#             (the GC looks for the owner in the dependent's namespace: deleted at the restart)
#   dangling  an ownerReference to an owner that never existed (deleted at the restart)
#   edit      an ownerReference renamed in place while the GC runs: the running GC does not
#             look again (same UID), the restarted one deletes the dependent
#   fg        top <- mid <- leaf, top deleted with --cascade=foreground
#   orph      owner <- dep, owner deleted with --cascade=orphan
#   doomed    a namespace deleted with a ConfigMap in it
# The controller manager is stopped while `cross` and `dangling` are created, so that the state
# before holds them; its restart (logged, as every start) acts on them and on `edit`.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
name=${1:?usage: capture.sh NAME V [KCM_FLAG…]}
v=${2:?usage: capture.sh NAME V [KCM_FLAG…]}
shift 2
out="$here/$name"
mkdir -p "$out"

export KGC_KCM_V="$v" KGC_KCM_ARGS="$*"
dir=$("$root/scripts/testenv" start --controllers garbagecollector,namespace --audit Metadata | tail -1)
trap '"$root/scripts/testenv" stop --dir "$dir"' EXIT
export KUBECONFIG="$dir/kubeconfig"
k() { kubectl --request-timeout=20s "$@"; }
# until_gone KIND NS NAME: waits (up to 60 s) for the object to be gone.
until_gone() {
  local limit=$((SECONDS + 60))
  while k get "$1" -n "$2" "$3" >/dev/null 2>&1; do
    ((SECONDS < limit)) || { echo "capture: $1 $2/$3 still there" >&2; exit 1; }
    sleep 0.5
  done
}
uid() { k get "$1" -n "$2" "$3" -o jsonpath='{.metadata.uid}'; }
cm() { # cm NS NAME [OWNER_NAME OWNER_UID [BLOCK]]
  local refs=""
  if (($# > 2)); then
    refs="ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: $3, uid: $4${5:+, blockOwnerDeletion: true}}]"
  fi
  k apply -f - >/dev/null <<YAML
apiVersion: v1
kind: ConfigMap
metadata: {name: $2, namespace: $1, $refs}
YAML
}

for ns in ops cross dangling edit fg orph doomed; do k create namespace "$ns" >/dev/null; done
sleep 3 # the GC's informers have caught up with the namespaces

# edit: a valid reference while the GC runs, then renamed in place (same UID).
cm edit owner
cm edit dep owner "$(uid cm edit owner)"
sleep 2
k patch cm dep -n edit --type=json -p '[{"op":"replace","path":"/metadata/ownerReferences/0/name","value":"renamed"}]' >/dev/null
sleep 3
k get cm dep -n edit >/dev/null # the running GC left it

# cross and dangling are created with the controller manager stopped: the state before holds them.
"$root/scripts/testenv" stop-kcm --dir "$dir"
cm ops owner
cm cross dep owner "$(uid cm ops owner)"
cm dangling dep ghost 0b0e6a3c-3c2e-4d59-9a6b-000000000001
cm fg top
cm fg mid top "$(uid cm fg top)" block
cm fg leaf mid "$(uid cm fg mid)" block
cm orph owner
cm orph dep owner "$(uid cm orph owner)"
cm doomed c
k get namespaces,configmaps -A -o json >"$out/before.json"

# The restart: the new GC deletes cross/dep, dangling/dep and edit/dep.
"$root/scripts/testenv" start-kcm --dir "$dir"
until_gone cm cross dep
until_gone cm dangling dep
until_gone cm edit dep

k delete cm top -n fg --cascade=foreground --wait=false >/dev/null
until_gone cm fg top
until_gone cm fg mid
until_gone cm fg leaf
k delete cm owner -n orph --cascade=orphan --wait=false >/dev/null
until_gone cm orph owner
k get cm dep -n orph >/dev/null # orphaned, not deleted
k delete namespace doomed --wait=false >/dev/null
until_gone namespace default doomed
# The namespace controller looks at a namespace 5 s after its last change (its grace period for
# HA API servers): only then does it log that the namespace is gone.
sleep 8

k get namespaces,configmaps -A -o json >"$out/after.json"
k get events -A -o json >"$out/events.json"
"$root/scripts/testenv" stop --dir "$dir"
trap - EXIT
cp "$dir/kube-controller-manager.log" "$dir/audit.log" "$out/"
echo "capture: $out" >&2
