//! Request bodies, byte for byte as the GC builds them (§3.7–3.9).
//!
//! | request | body |
//! |---|---|
//! | DELETE | `{"kind":"DeleteOptions","apiVersion":"v1","preconditions":{"uid":U[,"resourceVersion":RV]},"propagationPolicy":P}` |
//! | P1 SMP (≥ 1.17, row A5) | `{"metadata":{"uid":U,"ownerReferences":[{"$patch":"delete","uid":O},…]}}` |
//! | P1 SMP (< 1.17) | `{"metadata":{"ownerReferences":[{"$patch":"delete","uid":O},…],"uid":U}}` |
//! | P1 JMP (415) | `{"metadata":{"resourceVersion":RV,"ownerReferences":[remaining refs]\|null}}` |
//! | P2 SMP | `{"metadata":{"uid":U,"ownerReferences":[blocking refs, blockOwnerDeletion=false]}}` |
//! | P2 JMP (415) | `{"metadata":{"resourceVersion":RV,"ownerReferences":[every ref, blockOwnerDeletion=false]}}` |
//! | P3 JMP | `{"metadata":{"resourceVersion":RV,"finalizers":[rest]\|null}}` |
//!
//! One deliberate difference: the GC's P2 body is a serialised Go `ObjectMeta`, which also
//! carries `"creationTimestamp":null`; the API server ignores it, and we leave it out.
//! The DELETE body is what client-go's metadata client encodes (`DeleteOptions` with its
//! type meta, preconditions before the policy).

use super::ops::LiveRef;
use crate::gc::Policy;
use serde::Serialize;

fn to_bytes<T: Serialize>(v: &T) -> Vec<u8> {
    serde_json::to_vec(v).expect("patch bodies serialise")
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DeleteOptions<'a> {
    kind: &'static str,
    api_version: &'static str,
    preconditions: Preconditions<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    propagation_policy: Option<&'static str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Preconditions<'a> {
    uid: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    resource_version: Option<&'a str>,
}

/// DELETE body: UID precondition (plus resourceVersion for GC ≥ 1.34) and the policy
/// (`None`: no policy, the type's default — only for a user's `--cascade=default` delete).
pub fn delete(uid: &str, resource_version: Option<&str>, policy: Option<Policy>) -> Vec<u8> {
    to_bytes(&DeleteOptions {
        kind: "DeleteOptions",
        api_version: "v1",
        preconditions: Preconditions {
            uid,
            resource_version,
        },
        propagation_policy: policy.map(Policy::as_str),
    })
}

#[derive(Serialize)]
struct DeleteDirective<'a> {
    #[serde(rename = "$patch")]
    patch: &'static str,
    uid: &'a str,
}

#[derive(Serialize)]
struct Meta<T> {
    metadata: T,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct UidFirst<'a, R> {
    uid: &'a str,
    owner_references: R,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RefsFirst<'a, R> {
    owner_references: R,
    uid: &'a str,
}

/// P1 strategic merge patch: delete the references to `owner_uids` from the object `uid`.
/// `uid_first`: the key order of GC ≥ 1.17 (row A5, `Rules::uid_first_patch_order`).
pub fn remove_refs_smp(uid: &str, owner_uids: &[&str], uid_first: bool) -> Vec<u8> {
    let directives: Vec<DeleteDirective<'_>> = owner_uids
        .iter()
        .map(|u| DeleteDirective {
            patch: "delete",
            uid: u,
        })
        .collect();
    if uid_first {
        to_bytes(&Meta {
            metadata: UidFirst {
                uid,
                owner_references: directives,
            },
        })
    } else {
        to_bytes(&Meta {
            metadata: RefsFirst {
                owner_references: directives,
                uid,
            },
        })
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RvRefs<'a> {
    resource_version: &'a str,
    owner_references: Option<&'a [LiveRef]>,
}

/// P1/P2 JSON merge patch (the 415 fallback): the whole new ownerReferences list, `null` when
/// empty, guarded by the resourceVersion it was computed from.
pub fn refs_jmp(resource_version: &str, refs: &[LiveRef]) -> Vec<u8> {
    to_bytes(&Meta {
        metadata: RvRefs {
            resource_version,
            owner_references: (!refs.is_empty()).then_some(refs),
        },
    })
}

/// P2 strategic merge patch: copies of the blocking references with `blockOwnerDeletion=false`
/// (merged by their `uid` key, so the other references are untouched).
pub fn unblock_smp(uid: &str, blocking: &[LiveRef]) -> Vec<u8> {
    let refs: Vec<LiveRef> = blocking
        .iter()
        .map(|r| LiveRef {
            block_owner_deletion: Some(false),
            ..r.clone()
        })
        .collect();
    to_bytes(&Meta {
        metadata: UidFirst {
            uid,
            owner_references: refs,
        },
    })
}

/// P2 JSON merge patch: every reference rewritten with `blockOwnerDeletion=false`.
pub fn unblock_jmp(resource_version: &str, refs: &[LiveRef]) -> Vec<u8> {
    let refs: Vec<LiveRef> = refs
        .iter()
        .map(|r| LiveRef {
            block_owner_deletion: Some(false),
            ..r.clone()
        })
        .collect();
    refs_jmp(resource_version, &refs)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RvFinalizers<'a> {
    resource_version: &'a str,
    finalizers: Option<&'a [String]>,
}

/// P3: the finalizers that remain (`null` when none), guarded by the resourceVersion.
pub fn finalizers_jmp(resource_version: &str, rest: &[String]) -> Vec<u8> {
    to_bytes(&Meta {
        metadata: RvFinalizers {
            resource_version,
            finalizers: (!rest.is_empty()).then_some(rest),
        },
    })
}
