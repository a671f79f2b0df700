//! What the API server's `OwnerReferencesPermissionEnforcement` admission plugin asks of the
//! identity that writes ownerReferences, so `check apply`, `relink` and `admit` can say a write
//! will be refused before it is sent, instead of a 403 at apply time. The plugin is off by
//! default upstream and on in OpenShift and many hardened clusters; nothing tells a client
//! whether it is on, so the prediction is always worded "where it is enabled".
//!
//! The rule, as `plugin/pkg/admission/gc/gc_admission.go` applies it (the same from 1.13 to
//! 1.38):
//! - it judges CREATE and UPDATE (a PATCH is an UPDATE), except `pods/status`;
//! - nothing, unless the write changes the references: a CREATE with any; an UPDATE whose list
//!   differs from the old one in length or in any position (a `blockOwnerDeletion` left unset
//!   is not `false`);
//! - an UPDATE needs `delete` on the object itself, at the same resource, subresource,
//!   namespace and name ("cannot set an ownerRef on a resource you can't delete"). A CREATE
//!   does not, since 1.11 (kubernetes#63403);
//! - each reference that becomes blocking needs `update` on its owner's `finalizers`
//!   subresource, by the owner's name: in the dependent's namespace for a namespaced owner, at
//!   cluster scope for a cluster-scoped one (1.13, kubernetes#70389), for every resource the
//!   API server's REST mapper maps the reference's apiVersion and kind to. Becoming blocking
//!   is `blockOwnerDeletion: true` where the old object has no reference with that UID, or its
//!   reference with that UID (the last, when several share it) was not `true`;
//! - a blocking reference whose apiVersion/kind the REST mapper cannot map is refused whatever
//!   the permissions ("cannot set blockOwnerDeletion in this case because cannot find
//!   RESTMapping").
//!
//! This module is the rule only: which access reviews a write needs ([`required`]) and what
//! their answers mean ([`judge`]). The reviews themselves are the API server's
//! (`source::live::access`).

use super::code::{Code, Severity};
use super::finding::Finding;
use super::remedy::Remedy;
use crate::gc::rest_mapper::{Mapping, RestMapper};
use crate::model::ObjId;
use crate::snapshot::Snapshot;
pub use crate::source::live::access::{Decision, ResourceAttributes};
use std::collections::HashMap;

/// The admission plugin's name, as the API server's `--enable-admission-plugins` takes it.
pub const PLUGIN: &str = "OwnerReferencesPermissionEnforcement";

/// One ownerReference, as written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RefIn<'a> {
    /// `apiVersion`.
    pub api_version: &'a str,
    /// `kind`.
    pub kind: &'a str,
    /// `name`.
    pub name: &'a str,
    /// `uid`.
    pub uid: &'a str,
    /// `controller` (unset is not `false`).
    pub controller: Option<bool>,
    /// `blockOwnerDeletion` (unset is not `false`).
    pub block_owner_deletion: Option<bool>,
}

/// A write of an object: where it goes and its references before and after.
#[derive(Clone, Copy, Debug)]
pub struct Write<'a> {
    /// The object's API group.
    pub group: &'a str,
    /// The version written.
    pub version: &'a str,
    /// Its plural resource name.
    pub resource: &'a str,
    /// The subresource written to (`""`: the object).
    pub subresource: &'a str,
    /// Its namespace (`""`: cluster-scoped).
    pub namespace: &'a str,
    /// Its name.
    pub name: &'a str,
    /// The references it has now: `None` for a CREATE.
    pub old: Option<&'a [RefIn<'a>]>,
    /// The references it will have.
    pub new: &'a [RefIn<'a>],
}

/// What the API server's REST mapper makes of an owner's apiVersion/kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OwnerMapping {
    /// The resources it maps to: (group, plural, namespaced).
    Mapped(Vec<(String, String, bool)>),
    /// It maps to nothing the server serves: the plugin refuses a blocking reference to it.
    Unmappable(String),
    /// The input cannot tell (discovery failed, a kind no input shows).
    Unknown(String),
}

/// Why the plugin asks for something.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Why {
    /// The write changes the references of an existing object: `delete` on it.
    ChangesReferences,
    /// The reference at this index of the new list becomes blocking.
    Blocks(usize),
}

/// One thing the plugin checks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Check {
    /// An authorization the writer must have.
    Access {
        /// What is asked.
        attrs: ResourceAttributes,
        /// Why.
        why: Why,
    },
    /// Refused whatever the writer may do: the reference's kind cannot be mapped.
    Refused {
        /// The reference.
        why: Why,
        /// The mapper's reason.
        reason: String,
    },
    /// What the plugin would ask cannot be told from the input.
    Unknown {
        /// The reference.
        why: Why,
        /// Why it cannot be told.
        reason: String,
    },
}

fn changes_references(old: Option<&[RefIn<'_>]>, new: &[RefIn<'_>]) -> bool {
    match old {
        None => !new.is_empty(),
        Some(old) => old != new,
    }
}

/// Indexes of the references of `new` that become blocking (upstream indexes the old list by
/// UID, a later duplicate replacing an earlier one).
fn newly_blocking(old: Option<&[RefIn<'_>]>, new: &[RefIn<'_>]) -> Vec<usize> {
    let old_by_uid: HashMap<&str, &RefIn<'_>> =
        old.unwrap_or_default().iter().map(|r| (r.uid, r)).collect();
    new.iter()
        .enumerate()
        .filter(|(_, r)| r.block_owner_deletion == Some(true))
        .filter(|(_, r)| {
            old_by_uid
                .get(r.uid)
                .is_none_or(|o| o.block_owner_deletion != Some(true))
        })
        .map(|(i, _)| i)
        .collect()
}

fn version_of(api_version: &str) -> &str {
    api_version.rsplit_once('/').map_or(api_version, |(_, v)| v)
}

/// What the plugin checks for `w`, in its order; empty when it lets the write through without
/// asking. `map` REST-maps an owner's apiVersion/kind as the API server does.
pub fn required(w: &Write<'_>, map: &dyn Fn(&RefIn<'_>) -> OwnerMapping) -> Vec<Check> {
    if w.group.is_empty() && w.resource == "pods" && w.subresource == "status" {
        return Vec::new();
    }
    if !changes_references(w.old, w.new) {
        return Vec::new();
    }
    let mut out = Vec::new();
    if w.old.is_some() {
        out.push(Check::Access {
            attrs: ResourceAttributes {
                verb: "delete".into(),
                group: w.group.into(),
                version: w.version.into(),
                resource: w.resource.into(),
                subresource: w.subresource.into(),
                namespace: w.namespace.into(),
                name: w.name.into(),
            },
            why: Why::ChangesReferences,
        });
    }
    for i in newly_blocking(w.old, w.new) {
        let r = &w.new[i];
        let why = Why::Blocks(i);
        match map(r) {
            OwnerMapping::Mapped(resources) => {
                for (group, plural, namespaced) in resources {
                    out.push(Check::Access {
                        attrs: ResourceAttributes {
                            verb: "update".into(),
                            group,
                            version: version_of(r.api_version).into(),
                            resource: plural,
                            subresource: "finalizers".into(),
                            namespace: if namespaced {
                                w.namespace.into()
                            } else {
                                String::new()
                            },
                            name: r.name.into(),
                        },
                        why,
                    });
                }
            }
            OwnerMapping::Unmappable(reason) => out.push(Check::Refused { why, reason }),
            OwnerMapping::Unknown(reason) => out.push(Check::Unknown { why, reason }),
        }
    }
    out
}

/// One reason the plugin refuses the write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Denial {
    /// Why it asked.
    pub why: Why,
    /// What was asked, when it was an authorization.
    pub attrs: Option<ResourceAttributes>,
    /// The refusal, worded as the API server words it, with what it asked.
    pub message: String,
}

/// What the plugin does with the write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// It admits it.
    Admitted,
    /// It refuses it (the API server stops at the first reason; all are listed).
    Refused(Vec<Denial>),
    /// It cannot be told: the input, or an access review, does not say.
    Unknown(Vec<String>),
}

/// `verb resource[.group][/subresource] "name" [in namespace "ns"]`.
pub fn describe(a: &ResourceAttributes) -> String {
    let mut s = format!("{} {}", a.verb, a.resource);
    if !a.group.is_empty() {
        s.push('.');
        s.push_str(&a.group);
    }
    if !a.subresource.is_empty() {
        s.push('/');
        s.push_str(&a.subresource);
    }
    if !a.name.is_empty() {
        s.push_str(&format!(" {:?}", a.name));
    }
    if a.namespace.is_empty() {
        s.push_str(" at cluster scope");
    } else {
        s.push_str(&format!(" in namespace {:?}", a.namespace));
    }
    s
}

/// The verdict on `checks` given the authorizer's `answers` (one per [`Check::Access`], in
/// order; an `Err` is a review that failed). `writer` names the identity in the messages.
pub fn judge(
    checks: &[Check],
    answers: &[Result<Decision, String>],
    new: &[RefIn<'_>],
    writer: &str,
) -> Verdict {
    let mut denials = Vec::new();
    let mut unknown = Vec::new();
    let mut answers = answers.iter();
    let owner = |why: Why| match why {
        Why::Blocks(i) => new
            .get(i)
            .map_or_else(String::new, |r| format!("{}/{}", r.kind, r.name)),
        Why::ChangesReferences => String::new(),
    };
    for c in checks {
        match c {
            Check::Access { attrs, why } => match answers.next() {
                Some(Ok(d)) if d.allowed => {}
                Some(Ok(_)) => denials.push(Denial {
                    why: *why,
                    attrs: Some(attrs.clone()),
                    message: match why {
                        Why::ChangesReferences => format!(
                            "cannot set an ownerRef on a resource you can't delete: {writer} \
                             may not {}",
                            describe(attrs)
                        ),
                        Why::Blocks(_) => format!(
                            "cannot set blockOwnerDeletion if an ownerReference refers to a \
                             resource you can't set finalizers on: {writer} may not {}, which \
                             blockOwnerDeletion=true on the reference to {} needs",
                            describe(attrs),
                            owner(*why)
                        ),
                    },
                }),
                Some(Err(e)) => unknown.push(format!(
                    "cannot ask whether {writer} may {}: {e}",
                    describe(attrs)
                )),
                None => unknown.push(format!(
                    "no answer on whether {writer} may {}",
                    describe(attrs)
                )),
            },
            Check::Refused { why, reason } => denials.push(Denial {
                why: *why,
                attrs: None,
                message: format!(
                    "cannot set blockOwnerDeletion in this case because cannot find RESTMapping \
                     for the reference to {}: {reason}",
                    owner(*why)
                ),
            }),
            Check::Unknown {
                why: Why::ChangesReferences,
                reason,
            } => unknown.push(format!(
                "cannot tell whether this write creates the object or changes an existing \
                 one's references: {reason}"
            )),
            Check::Unknown { why, reason } => unknown.push(format!(
                "cannot tell what blockOwnerDeletion=true on the reference to {} needs: {reason}",
                owner(*why)
            )),
        }
    }
    if !denials.is_empty() {
        Verdict::Refused(denials)
    } else if !unknown.is_empty() {
        Verdict::Unknown(unknown)
    } else {
        Verdict::Admitted
    }
}

/// The commands that grant `writer` what `attrs` asks (a Role and RoleBinding in the
/// namespace, or a ClusterRole and ClusterRoleBinding at cluster scope), shell-quoted. `name`
/// names the role and binding. A `system:serviceaccount:NS:NAME` writer is bound as the
/// ServiceAccount it is.
pub fn grant_commands(writer: &str, attrs: &ResourceAttributes, name: &str) -> String {
    use super::remedy::shell_word as q;
    let resource = match (&attrs.group, &attrs.subresource) {
        (g, s) if g.is_empty() && s.is_empty() => attrs.resource.clone(),
        (g, s) if g.is_empty() => format!("{}/{s}", attrs.resource),
        (g, s) if s.is_empty() => format!("{}.{g}", attrs.resource),
        (g, s) => format!("{}.{g}/{s}", attrs.resource),
    };
    let subject = match writer
        .strip_prefix("system:serviceaccount:")
        .and_then(|r| r.split_once(':'))
    {
        Some((ns, sa)) => format!("--serviceaccount={}", q(&format!("{ns}:{sa}"))),
        None => format!("--user={}", q(writer)),
    };
    let (role, binding, ns) = if attrs.namespace.is_empty() {
        ("clusterrole", "clusterrolebinding", String::new())
    } else {
        (
            "role",
            "rolebinding",
            format!(" -n {}", q(&attrs.namespace)),
        )
    };
    let mut create = format!(
        "kubectl create {role} {}{ns} --verb={} --resource={}",
        q(name),
        q(&attrs.verb),
        q(&resource)
    );
    if !attrs.name.is_empty() {
        create.push_str(&format!(" --resource-name={}", q(&attrs.name)));
    }
    format!(
        "{create} && kubectl create {binding} {}{ns} --{role}={} {subject}",
        q(name),
        q(name)
    )
}

/// What the API server's REST mapper makes of `r`'s apiVersion/kind, as the GC's mapper of
/// the same cluster does (the two are the same discovery-backed mapper).
pub fn owner_mapping(mapper: &RestMapper, r: &RefIn<'_>) -> OwnerMapping {
    match mapper.map_names(r.api_version, r.kind) {
        Mapping::Resolved(gr) => {
            let g = mapper.gr(gr);
            OwnerMapping::Mapped(vec![(g.group.clone(), g.plural.clone(), g.namespaced)])
        }
        Mapping::Unlisted { namespaced, why } => {
            let group = r.api_version.rsplit_once('/').map_or("", |(g, _)| g);
            match crate::catalog::builtin::find(group, r.kind) {
                Some(b) => {
                    OwnerMapping::Mapped(vec![(b.group.into(), b.plural.into(), namespaced)])
                }
                None => OwnerMapping::Unknown(why),
            }
        }
        Mapping::Phantom { .. } => OwnerMapping::Unknown(
            "the REST mapper maps this list pseudo-kind to a resource the server does not serve"
                .into(),
        ),
        Mapping::Unresolvable(why) => OwnerMapping::Unmappable(why),
        Mapping::Unknown(why) => OwnerMapping::Unknown(why),
    }
}

/// The references of `id` in `snap`.
pub fn refs_of(snap: &Snapshot, id: ObjId) -> Vec<RefIn<'_>> {
    let st = &snap.store;
    st.owner_refs(id)
        .iter()
        .map(|r| RefIn {
            api_version: st.str(r.api_version),
            kind: st.str(r.kind),
            name: st.str(r.name),
            uid: st.str(r.uid),
            controller: r.controller,
            block_owner_deletion: r.block_owner_deletion,
        })
        .collect()
}

/// The write of object `id` of `snap` (its resource, namespace and name) from `old` to `new`.
pub fn write_of<'a>(
    snap: &'a Snapshot,
    id: ObjId,
    old: Option<&'a [RefIn<'a>]>,
    new: &'a [RefIn<'a>],
) -> Write<'a> {
    let o = snap.store.object(id);
    let r = snap.resource_of(o);
    Write {
        group: &r.group,
        version: &r.version,
        resource: &r.plural,
        subresource: "",
        namespace: snap.store.str(o.namespace),
        name: snap.store.str(o.name),
        old,
        new,
    }
}

/// For `check apply`: the plugin's checks on each object the input creates (absent from
/// `target`) or updates (present at the same group, kind, namespace and name), with the
/// references `applied` gives it; objects the plugin asks nothing about are left out.
pub fn apply_checks(
    applied: &super::apply::Applied,
    target: &Snapshot,
    mapper: &RestMapper,
) -> Vec<(ObjId, Vec<Check>)> {
    let coordinates = |snap: &Snapshot, id: ObjId| {
        let o = snap.store.object(id);
        let r = snap.resource_of(o);
        (
            r.group.clone(),
            r.kind.clone(),
            snap.store.str(o.namespace).to_owned(),
            snap.store.str(o.name).to_owned(),
        )
    };
    let in_target: HashMap<_, ObjId> = target
        .store
        .ids()
        .map(|id| (coordinates(target, id), id))
        .collect();
    let snap = &applied.snapshot;
    let mut out = Vec::new();
    for id in snap.store.ids().filter(|&id| applied.from_input(id)) {
        let new = refs_of(snap, id);
        let at = coordinates(snap, id);
        let old = in_target.get(&at).map(|&t| refs_of(target, t));
        let w = write_of(snap, id, old.as_deref(), &new);
        let mut checks = required(&w, &|r| owner_mapping(mapper, r));
        // Not in the target, and the target's list of its kind there was not read: a create
        // or an update, which cannot be told (an update needs delete on it).
        if old.is_none() && !new.is_empty() && !listed(target, &at) {
            checks.insert(
                0,
                Check::Unknown {
                    why: Why::ChangesReferences,
                    reason: format!(
                        "the target's {} in {} were not read",
                        at.1,
                        if at.2.is_empty() {
                            "the cluster"
                        } else {
                            at.2.as_str()
                        }
                    ),
                },
            );
        }
        if !checks.is_empty() {
            out.push((id, checks));
        }
    }
    out
}

/// True when `target` read every object of `at`'s kind in its namespace (a new, empty cluster:
/// trivially).
fn listed(target: &Snapshot, at: &(String, String, String, String)) -> bool {
    let rows: Vec<_> = target
        .resources
        .iter()
        .filter(|r| r.group == at.0 && r.kind == at.1)
        .collect();
    target.store.ids().next().is_none() && target.resources.is_empty()
        || rows.iter().any(|r| r.list.covers(&at.2))
}

/// A role or binding name for the grant of `attrs`: `kubectl-gc-VERB-RESOURCE-NAME`, in the
/// characters RBAC names take everywhere (lower-case letters, digits, `-`, `.`).
fn role_name(attrs: &ResourceAttributes) -> String {
    let raw = format!(
        "kubectl-gc-{}-{}{}-{}",
        attrs.verb,
        attrs.resource,
        if attrs.subresource.is_empty() {
            String::new()
        } else {
            format!("-{}", attrs.subresource)
        },
        attrs.name
    );
    let mut out: String = raw
        .chars()
        .map(|c| match c.to_ascii_lowercase() {
            c @ ('a'..='z' | '0'..='9' | '-' | '.') => c,
            _ => '-',
        })
        .take(253)
        .collect();
    while out.ends_with(['-', '.']) {
        out.pop();
    }
    out
}

/// The GC027 finding on object `id` of `snap` for `verdict` (none when admitted). `writer`
/// names the identity in prose; `grant_to` is its username, when known, for the commands that
/// grant what it lacks.
pub fn finding(
    snap: &Snapshot,
    id: ObjId,
    verdict: &Verdict,
    writer: &str,
    grant_to: Option<&str>,
) -> Option<Finding> {
    let refs = snap.store.owner_refs(id);
    match verdict {
        Verdict::Admitted => None,
        Verdict::Unknown(why) => Some(Finding::new(
            Code::OwnerReferencePermission,
            Severity::Info,
            id,
            format!(
                "where the API server enables {PLUGIN}, whether it admits this write cannot be told"
            ),
            why.join("; "),
        )),
        Verdict::Refused(denials) => {
            let mut remedies = Vec::new();
            let mut blocking = None;
            for d in denials {
                if let Why::Blocks(i) = d.why {
                    let r = refs.get(i).copied();
                    blocking = blocking.or(r);
                    let owner = r.map_or_else(String::new, |r| {
                        format!("{}/{}", snap.store.str(r.kind), snap.store.str(r.name))
                    });
                    remedies.push(Remedy {
                        note: format!(
                            "Write the reference to {owner} without blockOwnerDeletion=true:                              the plugin asks nothing for it, and the owner's foreground                              deletion no longer waits for this object"
                        ),
                        command: String::new(),
                        manifest: format!(
                            "set blockOwnerDeletion: false (or remove it) on the ownerReference                              to {owner}"
                        ),
                    });
                }
                if let (Some(user), Some(attrs)) = (grant_to, &d.attrs) {
                    remedies.push(Remedy::run(
                        format!(
                            "Or grant {user} {} (run by someone who may)",
                            describe(attrs)
                        ),
                        grant_commands(user, attrs, &role_name(attrs)),
                    ));
                }
            }
            let f = Finding::new(
                Code::OwnerReferencePermission,
                Severity::Warning,
                id,
                format!(
                    "where the API server enables {PLUGIN} (OpenShift and others), it refuses                      this write with 403 Forbidden for {writer}: the object is not written"
                ),
                denials
                    .iter()
                    .map(|d| d.message.as_str())
                    .collect::<Vec<_>>()
                    .join("; "),
            )
            .with_remedies(remedies);
            Some(match blocking {
                Some(r) => f.with_ref(r, None),
                None => f,
            })
        }
    }
}

#[cfg(test)]
#[path = "tests/permission.rs"]
mod tests;
