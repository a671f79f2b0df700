//! One judgement of a reference, rendered by every command (issue 64): the same kind of break,
//! in the same words, from `audit`, `why` (verdict and reference detail) and `check apply`, for
//! the inputs that once got five answers — a same-namespace name/UID mismatch (GC003, newcomer
//! N2), a UID in another namespace whose name is taken here by another object (GC004), a
//! recreated owner (GC002) and a missing one (GC001).

use crate::support::run::kubectl_gc;
use serde_json::{Value, json};

const RS_ABC: &str = "00000000-0000-4000-8000-0000000000a2";
const RS_WEB: &str = "00000000-0000-4000-8000-0000000000a1";
const RS_OTHER: &str = "00000000-0000-4000-8000-0000000000a9";

fn rs(ns: &str, name: &str, uid: &str) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
           "metadata": {"name": name, "namespace": ns, "uid": uid}})
}

/// Pod `shop/p` owned by `ReplicaSet/{name}` with `uid`, beside `objects`.
fn input(name: &str, uid: &str, objects: Vec<Value>) -> tempfile::NamedTempFile {
    let mut items = objects;
    items.push(json!({"apiVersion": "v1", "kind": "Pod", "metadata": {
        "name": "p", "namespace": "shop", "uid": "00000000-0000-4000-8000-0000000000b1",
        "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": name,
                             "uid": uid, "controller": true}]}}));
    let f = tempfile::Builder::new().suffix(".json").tempfile().unwrap();
    std::fs::write(
        f.path(),
        json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string(),
    )
    .unwrap();
    f
}

fn json_of(args: &[&str]) -> Value {
    let (code, out, err) = kubectl_gc(args);
    assert!(code == 0 || code == 5, "{args:?}: {code} {err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

/// What each command says of the Pod's one reference: (code, message) from `audit`, the
/// reference's code and detail and the verdict from `why`.
fn answers(file: &str) -> (String, String, String, String, String) {
    let audit = json_of(&["audit", "-f", file, "--assume-complete", "-o", "json"]);
    let f = audit["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["object"]["name"] == "p")
        .unwrap_or_else(|| panic!("no finding on p: {audit}"))
        .clone();
    let why = json_of(&[
        "why",
        "pod/p",
        "-n",
        "shop",
        "-f",
        file,
        "--assume-complete",
        "-o",
        "json",
    ]);
    let r = &why["gc"]["ownerReferences"][0];
    (
        f["code"].as_str().unwrap().to_owned(),
        f["message"].as_str().unwrap().to_owned(),
        r["code"].as_str().unwrap_or_default().to_owned(),
        r["detail"].as_str().unwrap().to_owned(),
        why["verdict"].as_str().unwrap().to_owned(),
    )
}

/// Every command gives the break the same code, `why`'s detail is `audit`'s message, and
/// `why`'s verdict gives its opening clause (the judgement's summary).
fn agree(file: &str, code: &str, summary: &str) {
    let (a_code, a_msg, w_code, w_detail, verdict) = answers(file);
    assert_eq!((a_code.as_str(), w_code.as_str()), (code, code), "{a_msg}");
    assert_eq!(w_detail, a_msg);
    assert!(a_msg.starts_with(summary), "audit: {a_msg}");
    assert!(verdict.contains(summary), "why: {verdict}");
}

#[test]
fn a_same_namespace_name_uid_mismatch_is_gc003_everywhere_never_cross_namespace() {
    let f = input("web-xyz", RS_ABC, vec![rs("shop", "web-abc", RS_ABC)]);
    let file = f.path().to_str().unwrap();
    agree(
        file,
        "GC003",
        "the reference's UID belongs to ReplicaSet/web-abc -n shop, but the reference names \
         ReplicaSet/web-xyz",
    );
    let (_, msg, _, _, verdict) = answers(file);
    for text in [&msg, &verdict] {
        assert!(!text.contains("cross namespaces"), "{text}");
        assert!(!text.contains("recreated"), "{text}");
    }
    // The evidence: the input holds the object with the reference's UID, which proves it.
    let why = json_of(&[
        "why",
        "pod/p",
        "-n",
        "shop",
        "-f",
        file,
        "--assume-complete",
        "-o",
        "json",
    ]);
    let e = &why["gc"]["ownerReferences"][0]["evidence"];
    assert_eq!(e["proven"], true, "{e}");
    assert_eq!(
        e["basis"], "the input holds ReplicaSet/web-abc -n shop with the reference's UID",
        "{e}"
    );
}

#[test]
fn a_uid_in_another_namespace_is_gc004_even_when_the_name_is_taken_here() {
    let f = input(
        "web",
        RS_OTHER,
        vec![
            rs("shop", "web-abc", RS_ABC),
            rs("shop", "web", RS_WEB),
            rs("other", "web", RS_OTHER),
        ],
    );
    let file = f.path().to_str().unwrap();
    agree(
        file,
        "GC004",
        "the reference's UID belongs to ReplicaSet/web -n other, in another namespace, and an \
         ownerReference cannot cross namespaces",
    );
    let (_, msg, _, _, verdict) = answers(file);
    assert!(
        msg.contains("finds ReplicaSet/web -n shop under another UID"),
        "{msg}"
    );
    assert!(!verdict.contains("recreated"), "{verdict}");
}

#[test]
fn a_recreated_owner_is_gc002_and_a_missing_one_gc001() {
    let f = input(
        "web",
        "00000000-0000-4000-8000-0000000000ff",
        vec![rs("shop", "web", RS_WEB)],
    );
    agree(
        f.path().to_str().unwrap(),
        "GC002",
        &format!(
            "owner apps/v1 ReplicaSet/web (uid 00000000-0000-4000-8000-0000000000ff) was \
             recreated: ReplicaSet/web -n shop exists with uid {RS_WEB}"
        ),
    );
    let f = input(
        "gone",
        "00000000-0000-4000-8000-0000000000ff",
        vec![rs("shop", "web", RS_WEB)],
    );
    agree(
        f.path().to_str().unwrap(),
        "GC001",
        "owner apps/v1 ReplicaSet/gone (uid 00000000-0000-4000-8000-0000000000ff) does not exist \
         in namespace \"shop\"",
    );
}

/// `check apply --target empty` creates every input object anew (new UIDs), so nothing in the
/// applied cluster holds the reference's UID; the input says which object held it where the
/// manifests came from, and the break is judged against it (newcomer NC10): GC004 for an owner
/// in another namespace, GC003 for one named otherwise, in `audit`'s words.
#[test]
fn check_apply_judges_a_reference_by_the_object_that_held_its_uid_in_the_source() {
    let check = |f: &tempfile::NamedTempFile| {
        let file = f.path().to_str().unwrap();
        let d = json_of(&[
            "check", "apply", "-f", file, "--target", "empty", "-o", "json",
        ]);
        d["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["object"]["name"] == "p" && x["code"] != "GC024")
            .unwrap_or_else(|| panic!("{d}"))
            .clone()
    };
    let f = input("web", RS_OTHER, vec![rs("other", "web", RS_OTHER)]);
    let x = check(&f);
    assert_eq!(x["code"], "GC004", "{x}");
    let msg = x["message"].as_str().unwrap();
    assert!(
        msg.starts_with(
            "the reference's UID belongs to ReplicaSet/web -n other, in another namespace, and \
             an ownerReference cannot cross namespaces"
        ),
        "{msg}"
    );
    // The owner is created anew: the GC never sees it under that UID, so records no event.
    assert!(!msg.contains("OwnerRefInvalidNamespace"), "{msg}");
    let f = input("web-xyz", RS_ABC, vec![rs("shop", "web-abc", RS_ABC)]);
    assert_eq!(check(&f)["code"], "GC003");
    // Absent in the source as well: still GC001.
    let f = input(
        "gone",
        "00000000-0000-4000-8000-0000000000ff",
        vec![rs("shop", "web", RS_WEB)],
    );
    assert_eq!(check(&f)["code"], "GC001");
}

/// C7: errors come with their reason and fix in the table, not only critical findings; C8: a
/// block of remedies already printed for one row is named for the next, not repeated.
#[test]
fn the_audit_table_details_errors_once_per_block_of_remedies() {
    let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let shop = examples.join("shop-kubectl-get.yaml");
    let (_, out, err) = kubectl_gc(&["audit", "-f", shop.to_str().unwrap(), "--assume-complete"]);
    assert!(
        out.contains(
            "\nGC001 ConfigMap/web-settings -n shop: owner apps/v1 ReplicaSet/web-58b6c4f9d7"
        ),
        "{out}{err}"
    );
    assert!(out.contains("  to fix, safest first:"), "{out}");
    let stuck = examples.join("stuck-foreground-deletion.json");
    let (_, out, err) = kubectl_gc(&["audit", "--snapshot", stuck.to_str().unwrap()]);
    let blocks = out.matches("  to unblock, safest first:").count();
    let named = out.matches("  to unblock: as for GC008 ").count();
    assert_eq!((blocks, named), (1, 1), "{out}{err}");
}
