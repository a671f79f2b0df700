//! `kubectl gc policy`: the checks of `admit` that need no lookup, as a
//! `ValidatingAdmissionPolicy` and its binding (`admissionregistration.k8s.io/v1`, Kubernetes
//! 1.30+), evaluated by the API server itself: no server to run.
//!
//! What a policy can judge is the written reference alone: a uid no object can hold, an
//! apiVersion no cluster serves (or the target release does not), a kind spelled otherwise than
//! the API serves it, and a cluster-scoped object naming a namespaced owner kind. Which kinds
//! exist and which are namespaced is known here, when the policy is written: the built-in
//! catalogue for the target release, plus the custom resources of the input, written into the
//! policy as CEL map literals. What needs the owner looked up (an owner in another namespace, a
//! stale uid) is `admit`'s.
//!
//! Like the webhook, the policy never stands in the cluster's way: only references a write
//! adds are judged (an UPDATE that keeps or removes references passes), the control plane's
//! own writes and objects labelled [`SKIP_LABEL`] are not matched, and `failurePolicy: Ignore`
//! admits a write whose expressions fail to evaluate.

use super::decide::{CONTROL_PLANE_USERS, SKIP_LABEL};
use crate::catalog::KubeVersion;
use crate::catalog::builtin;
use crate::diagnose::remedy::wording;
use crate::snapshot::Resource;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};

/// The policy's and the binding's name.
pub const POLICY_NAME: &str = "owner-references.kubectl-gc.io";

/// The first release that serves `admissionregistration.k8s.io/v1` ValidatingAdmissionPolicy.
pub const FIRST_RELEASE: u32 = 30;

/// A binding's `validationActions`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Action {
    /// The API server returns the messages as warnings (kubectl prints them).
    Warn,
    /// The messages go into the audit log's annotations.
    Audit,
    /// The write is refused with the message.
    Deny,
}

impl Action {
    fn name(self) -> &'static str {
        match self {
            Action::Warn => "Warn",
            Action::Audit => "Audit",
            Action::Deny => "Deny",
        }
    }
}

/// The kinds the policy knows, by apiVersion: each kind and whether it is namespaced.
#[derive(Clone, Debug, Default)]
pub struct Served {
    kinds: BTreeMap<String, BTreeMap<String, bool>>,
    /// Groups whose every served version is in `kinds`: an apiVersion of one of them that is
    /// not in `kinds` is served by no cluster of the target release.
    groups: BTreeSet<String>,
    release: u32,
}

/// A DNS-1123 subdomain (an API group, as the API server requires of a CRD's group).
fn is_group(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 253
        && s.split('.').all(|l| {
            !l.is_empty()
                && l.len() <= 63
                && l.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
                && !l.starts_with('-')
                && !l.ends_with('-')
        })
}

/// A kind as the API server serves one: a letter, then letters and digits.
fn is_kind(s: &str) -> bool {
    s.len() <= 63
        && s.starts_with(|c: char| c.is_ascii_alphabetic())
        && s.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// A version as the API server requires of a CRD's (a DNS-1035 label).
fn is_version(s: &str) -> bool {
    s.len() <= 63
        && s.starts_with(|c: char| c.is_ascii_lowercase())
        && !s.ends_with('-')
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

impl Served {
    /// The built-in kinds Kubernetes `release` serves, and the resources of `input` outside the
    /// built-in groups (custom resources and aggregated APIs, from `-f` or `--snapshot`).
    /// Resources whose group, version or kind no API server could serve are left out.
    pub fn new(release: KubeVersion, input: &[Resource]) -> Served {
        let mut out = Served {
            release: release.minor,
            ..Served::default()
        };
        for r in builtin::all() {
            out.groups.insert(r.group.to_owned());
            for v in r.versions.iter().filter(|v| v.served_at(release.minor)) {
                out.kinds
                    .entry(r.api_version(v.version))
                    .or_default()
                    .insert(r.kind.to_owned(), r.namespaced);
            }
        }
        for r in input {
            if builtin::is_builtin_group(&r.group)
                || !is_group(&r.group)
                || !is_version(&r.version)
                || !is_kind(&r.kind)
            {
                continue;
            }
            out.groups.insert(r.group.clone());
            out.kinds
                .entry(r.api_version())
                .or_default()
                .insert(r.kind.clone(), r.namespaced);
        }
        out
    }

    /// How many kinds, in how many apiVersions.
    pub fn counts(&self) -> (usize, usize) {
        let kinds = self.kinds.values().map(BTreeMap::len).sum();
        (kinds, self.kinds.len())
    }
}

/// `s` as a CEL string literal: single-quoted, with `\`, `'` and every character outside
/// printable ASCII escaped, so no input can end the literal or hide in the expression.
pub fn cel_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            ' '..='~' => out.push(c),
            c if (c as u32) <= 0xffff => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    out.push('\'');
    out
}

fn cel_list<'a>(items: impl IntoIterator<Item = &'a str>) -> String {
    let items: Vec<String> = items.into_iter().map(cel_str).collect();
    format!("[{}]", items.join(", "))
}

/// A value of the reference for a message: shown when it holds only characters that are safe
/// on a terminal and in an HTTP header, else a placeholder (the API server sends warnings as
/// headers, and kubectl prints them as they come).
fn shown(field: &str) -> String {
    format!(
        "(r.{field}.matches('^[-A-Za-z0-9._:/]{{1,63}}$') ? r.{field} : '(a {field} with other \
         characters)')"
    )
}

/// `ownerReference to Kind "name": ` as a CEL expression on `r`.
fn owner() -> String {
    format!(
        "'ownerReference to ' + {} + ' \"' + {} + '\": '",
        shown("kind"),
        shown("name")
    )
}

const UID_OK: &str =
    "r.uid.matches('^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$')";

/// One check: a condition every added reference must meet, and the message for the first
/// one that does not.
struct Check {
    name: &'static str,
    ok: String,
    /// A CEL string expression on `r`, the reference that fails.
    says: String,
    /// The same without the reference (when the message expression cannot be evaluated).
    fallback: String,
}

fn checks(served: &Served) -> Vec<Check> {
    let groups: Vec<&str> = served
        .groups
        .iter()
        .filter(|g| !g.is_empty())
        .map(String::as_str)
        .collect();
    // An apiVersion of a group the policy knows entirely: the core group's (`v1`, `/v1`), or
    // `group/version` of a listed group.
    let catalogued = format!(
        "r.apiVersion.matches('^/?[^/]*$') || r.apiVersion.split('/')[0] in {}",
        cel_list(groups.iter().copied())
    );
    // `group/version` (or `version`, or `/version` for the core group) with a group and a
    // version the API server could serve: a DNS-1123 subdomain and a DNS-1035 label, and not
    // the core group's informal name.
    let shape = "(r.apiVersion.matches('^(/|[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[a-z]([-a-z0-9]*[a-z0-9])?$') \
                 && !r.apiVersion.startsWith('core/'))";
    let fix_coordinates = format!("Fix: {}.", wording::FIX_COORDINATES);
    let never = ", so the GC cannot look the owner up and will never collect this object. ";
    let remove_absent = format!("remove the reference {}", wording::ABSENT_WHEN);
    let scope_fix = format!(
        "Fix: remove the reference: {}.",
        wording::INVALID_SCOPE_WHEN
    );
    let release = served.release;
    vec![
        Check {
            name: "uid",
            ok: UID_OK.to_owned(),
            says: format!(
                "{} + {}",
                owner(),
                cel_str(&format!(
                    "the uid is not one the API server gives (a lower-case UUID), so no object \
                     can be this owner and the GC treats it as gone: it deletes this object, or \
                     removes the reference when another owner remains. Fix: set the uid to the \
                     owner's current uid, or {remove_absent}."
                ))
            ),
            fallback: format!(
                "An ownerReference's uid is not one the API server gives (a lower-case UUID), \
                 so the GC treats its owner as gone. Fix: set the uid to the owner's current \
                 uid, or {remove_absent}."
            ),
        },
        Check {
            name: "apiVersion",
            ok: format!("{shape} && (!({catalogued}) || {SERVED})"),
            says: format!(
                "{} + {} + {} + ({shape} ? {} : {}) + {}",
                owner(),
                cel_str("apiVersion "),
                shown("apiVersion"),
                cel_str(&format!(" is not served by Kubernetes 1.{release}")),
                cel_str(
                    " is served by no cluster (core kinds are \"v1\", other groups' \"group/version\")"
                ),
                cel_str(&format!("{never}{fix_coordinates}")),
            ),
            fallback: format!(
                "An ownerReference's apiVersion is not served{never}{fix_coordinates}"
            ),
        },
        Check {
            name: "kind",
            ok: format!(
                "{SERVED} ? r.kind in variables.kinds[{VERSION}] : r.kind.matches('^[A-Z]')"
            ),
            says: format!(
                "{} + ({SERVED} && r.kind in variables.lowerKinds[{VERSION}] \
                 ? {} + variables.lowerKinds[{VERSION}][r.kind] + {} \
                 + variables.lowerKinds[{VERSION}][r.kind] + '.' : {})",
                owner(),
                cel_str("the kind is written in lower case: the GC maps it to "),
                cel_str(
                    ", but controllers compare kinds exactly and do not take this object for \
                     their own. Fix: write the kind "
                ),
                cel_str(&format!(
                    "the kind is not one this apiVersion serves (kinds are singular and \
                     UpperCamelCase; the GC maps only the exact kind or its all-lower-case \
                     form){never}{fix_coordinates}"
                )),
            ),
            fallback: format!(
                "An ownerReference's kind is not written as the API serves it (singular, \
                 UpperCamelCase). {fix_coordinates}"
            ),
        },
        Check {
            name: "scope",
            ok: format!(
                "!variables.clusterScoped || !({SERVED}) || \
                 !(r.kind in variables.namespacedKinds[{VERSION}])"
            ),
            says: format!(
                "{} + {}",
                owner(),
                cel_str(&format!(
                    "this object is cluster-scoped and the owner's kind is namespaced, so the GC \
                     ignores the reference and will never collect this object. {scope_fix}"
                ))
            ),
            fallback: format!(
                "A cluster-scoped object names a namespaced owner kind, so the GC ignores the \
                 reference and will never collect it. {scope_fix}"
            ),
        },
    ]
}

/// The reference's apiVersion as the policy's maps key it (`/v1` is core `v1`).
const VERSION: &str = "(r.apiVersion.startsWith('/') ? r.apiVersion.substring(1) : r.apiVersion)";
/// The reference's apiVersion is one the policy knows the kinds of.
const SERVED: &str = "((r.apiVersion.startsWith('/') ? r.apiVersion.substring(1) : r.apiVersion) in variables.kinds)";

/// `{apiVersion: [kind, …]}` of the kinds `pick` keeps; `lower`: each with its all-lower-case
/// form too, which the GC's REST mapper maps to the same kind (§6.9).
fn kinds_literal(served: &Served, lower: bool, pick: impl Fn(bool) -> bool) -> String {
    let entries: Vec<String> = served
        .kinds
        .iter()
        .map(|(v, kinds)| {
            let mut list: BTreeSet<String> = BTreeSet::new();
            for (k, _) in kinds.iter().filter(|(_, ns)| pick(**ns)) {
                list.insert(k.clone());
                if lower {
                    list.insert(k.to_ascii_lowercase());
                }
            }
            format!(
                "{}: {}",
                cel_str(v),
                cel_list(list.iter().map(String::as_str))
            )
        })
        .collect();
    format!("{{{}}}", entries.join(", "))
}

fn lower_literal(served: &Served) -> String {
    let entries: Vec<String> = served
        .kinds
        .iter()
        .map(|(v, kinds)| {
            let pairs: Vec<String> = kinds
                .keys()
                .filter(|k| k.to_ascii_lowercase() != **k)
                .map(|k| format!("{}: {}", cel_str(&k.to_ascii_lowercase()), cel_str(k)))
                .collect();
            format!("{}: {{{}}}", cel_str(v), pairs.join(", "))
        })
        .collect();
    format!("{{{}}}", entries.join(", "))
}

/// The `ValidatingAdmissionPolicy`.
pub fn policy(served: &Served) -> Value {
    let users = cel_list(CONTROL_PLANE_USERS.iter().copied());
    let (label, skip) = (cel_str(SKIP_LABEL.0), cel_str(SKIP_LABEL.1));
    let checks = checks(served);
    let same =
        "o.uid == r.uid && o.name == r.name && o.kind == r.kind && o.apiVersion == r.apiVersion";
    let validations: Vec<Value> = checks
        .iter()
        .map(|c| {
            json!({
                "expression": format!("variables.added.all(r, {})", c.ok),
                "messageExpression": format!(
                    "variables.added.filter(r, !({})).map(r, {})[0]",
                    c.ok, c.says
                ),
                "message": c.fallback,
                "reason": "Invalid",
            })
        })
        .collect();
    json!({
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {
            "name": POLICY_NAME,
            "annotations": {
                "kubectl-gc.io/release": format!("1.{}", served.release),
                "kubectl-gc.io/checks": checks.iter().map(|c| c.name).collect::<Vec<_>>().join(","),
            },
        },
        "spec": {
            "failurePolicy": "Ignore",
            "matchConstraints": {
                "matchPolicy": "Equivalent",
                "resourceRules": [{
                    "apiGroups": ["*"],
                    "apiVersions": ["*"],
                    "operations": ["CREATE", "UPDATE"],
                    "resources": ["*"],
                    "scope": "*",
                }],
            },
            "matchConditions": [
                {
                    "name": "has-owner-references",
                    "expression": "has(object.metadata.ownerReferences) && size(object.metadata.ownerReferences) > 0",
                },
                {
                    "name": "not-the-control-plane",
                    "expression": format!("!(request.userInfo.username in {users})"),
                },
                {
                    "name": "not-skipped",
                    "expression": format!(
                        "!has(object.metadata.labels) || !({label} in object.metadata.labels) || object.metadata.labels[{label}] != {skip}"
                    ),
                },
            ],
            "variables": [
                {
                    "name": "added",
                    "expression": format!(
                        "object.metadata.ownerReferences.filter(r, oldObject == null || !has(oldObject.metadata.ownerReferences) || !oldObject.metadata.ownerReferences.exists(o, {same}))"
                    ),
                },
                {
                    "name": "clusterScoped",
                    "expression": "!has(object.metadata.namespace) || object.metadata.namespace == ''",
                },
                { "name": "kinds", "expression": kinds_literal(served, false, |_| true) },
                { "name": "lowerKinds", "expression": lower_literal(served) },
                { "name": "namespacedKinds", "expression": kinds_literal(served, true, |ns| ns) },
            ],
            "validations": validations,
        },
    })
}

/// The `ValidatingAdmissionPolicyBinding`: the policy for every namespace but those in
/// `skip_namespaces` (or only those in `only_namespaces`), with these actions.
pub fn binding(
    actions: &[Action],
    only_namespaces: &[String],
    skip_namespaces: &[String],
) -> Value {
    let mut actions: Vec<Action> = actions.to_vec();
    actions.sort();
    actions.dedup();
    let mut exprs = Vec::new();
    if !only_namespaces.is_empty() {
        exprs.push(json!({
            "key": "kubernetes.io/metadata.name", "operator": "In", "values": only_namespaces,
        }));
    }
    if !skip_namespaces.is_empty() {
        exprs.push(json!({
            "key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": skip_namespaces,
        }));
    }
    let mut spec = json!({
        "policyName": POLICY_NAME,
        "validationActions": actions.iter().map(|a| a.name()).collect::<Vec<_>>(),
    });
    if !exprs.is_empty() {
        spec["matchResources"] = json!({ "namespaceSelector": { "matchExpressions": exprs } });
    }
    json!({
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": { "name": POLICY_NAME },
        "spec": spec,
    })
}

#[cfg(test)]
mod tests;
