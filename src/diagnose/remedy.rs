//! Remedies: ready-to-run `kubectl` commands that fix a reference or finish a deletion. Each
//! write is guarded by a JSON-patch `test` of the value it expects, so it fails instead of
//! changing an object that moved on since the snapshot.
//!
//! Every value that comes from the input (names, namespaces, UIDs, finalizers) is quoted for
//! the shell by [`shell_word`]: a remedy is made to be pasted into a shell, and a crafted name
//! or UID in a support bundle must not run a command when it is.

use crate::gc::State;
use crate::model::{ObjId, Sym};
use crate::snapshot::Snapshot;
use serde::Serialize;

mod reference;
pub mod wording;

pub use reference::{finish_deletion, for_reference, for_write};

/// One remedy: what it does and when to use it, and the command that does it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Remedy {
    /// What it does and when to use it, as a sentence.
    pub note: String,
    /// The command, shell-quoted; empty when the step is not one command.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub command: String,
    /// The same fix in a manifest, for an object not created yet (`check apply`): what to change
    /// in the object's manifest. Empty when the remedy is no edit of the manifest (a finalizer,
    /// a UID only a live cluster knows).
    #[serde(skip)]
    pub manifest: String,
}

impl Remedy {
    /// A remedy that is one command on a live cluster and no edit of a manifest.
    pub fn run(note: impl Into<String>, command: impl Into<String>) -> Remedy {
        Remedy {
            note: note.into(),
            command: command.into(),
            manifest: String::new(),
        }
    }
}

/// `kubectl` target words for an object: `kind.group/name [-n ns]`.
pub fn kubectl_target(snap: &Snapshot, id: ObjId) -> String {
    let o = snap.store.object(id);
    let r = snap.resource_of(o);
    let res = r.plural_group();
    let ns = snap.store.str(o.namespace);
    let name = snap.store.str(o.name);
    let target = shell_word(&format!("{res}/{name}"));
    if ns.is_empty() {
        target
    } else {
        format!("{target} -n {}", shell_word(ns))
    }
}

/// `s` as one shell word that bash, zsh and POSIX sh read back as exactly `s`: unchanged when
/// it holds only characters no shell treats specially, else single-quoted (a `'` inside
/// becomes `'\''`). Text with control or invisible characters is written `$'…'` with those
/// characters as `\xNN`/`\uNNNN` escapes (bash, zsh, ksh), so nothing invisible or
/// terminal-controlling is ever printed inside a command.
pub fn shell_word(s: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "@%+=:,./_-".contains(c);
    // A leading `=` is zsh's `=command` expansion (EQUALS, on by default).
    if !s.is_empty() && !s.starts_with('=') && s.chars().all(plain) {
        return s.to_owned();
    }
    if s.chars().any(crate::util::is_terminal_hostile) {
        let mut out = String::from("$'");
        for c in s.chars() {
            match c {
                '\\' => out.push_str("\\\\"),
                '\'' => out.push_str("\\'"),
                // `\xNN` is one byte, so only for ASCII: a C1 control is UTF-8's two.
                c if crate::util::is_terminal_hostile(c) && c.is_ascii() => {
                    out.push_str(&format!("\\x{:02x}", c as u32))
                }
                // bash reads at most 4 hex digits after `\u`, 8 after `\U`.
                c if crate::util::is_terminal_hostile(c) && (c as u32) <= 0xffff => {
                    out.push_str(&format!("\\u{:04x}", c as u32))
                }
                c if crate::util::is_terminal_hostile(c) => {
                    out.push_str(&format!("\\U{:08x}", c as u32))
                }
                c => out.push(c),
            }
        }
        out.push('\'');
        return out;
    }
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// `kubectl patch TARGET --type=json -p PATCH`, the patch JSON-encoded and shell-quoted.
pub(crate) fn json_patch(snap: &Snapshot, id: ObjId, ops: serde_json::Value) -> String {
    format!(
        "kubectl patch {} --type=json -p {}",
        kubectl_target(snap, id),
        shell_word(&ops.to_string())
    )
}

pub(crate) fn ref_index(snap: &Snapshot, state: &State, id: ObjId, uid: Sym) -> usize {
    state
        .owner_refs(&snap.store, id)
        .iter()
        .position(|r| r.uid == uid)
        .unwrap_or(0)
}

/// `kubectl patch` removing the reference to `uid` (JSON patch with a `test` guard, which
/// works for custom resources too).
pub fn remove_ref(snap: &Snapshot, state: &State, id: ObjId, uid: Sym) -> String {
    let i = ref_index(snap, state, id, uid);
    json_patch(
        snap,
        id,
        serde_json::json!([
            {"op": "test", "path": format!("/metadata/ownerReferences/{i}/uid"), "value": snap.store.str(uid)},
            {"op": "remove", "path": format!("/metadata/ownerReferences/{i}")},
        ]),
    )
}

/// `kubectl patch` setting `blockOwnerDeletion=false` on the reference to `uid`.
pub fn unblock_ref(snap: &Snapshot, state: &State, id: ObjId, uid: Sym) -> String {
    let i = ref_index(snap, state, id, uid);
    json_patch(
        snap,
        id,
        serde_json::json!([
            {"op": "test", "path": format!("/metadata/ownerReferences/{i}/uid"), "value": snap.store.str(uid)},
            {"op": "replace", "path": format!("/metadata/ownerReferences/{i}/blockOwnerDeletion"), "value": false},
        ]),
    )
}

/// Finishes a deletion held by finalizers: removes them all, guarded by a test on their
/// current value. Only for when the controllers owning them cannot or will not.
pub fn remove_finalizers(snap: &Snapshot, state: &State, id: ObjId) -> String {
    let store = &snap.store;
    let fins: Vec<&str> = state
        .finalizers(store, id)
        .iter()
        .map(|f| store.str(*f))
        .collect();
    json_patch(
        snap,
        id,
        serde_json::json!([
            {"op": "test", "path": "/metadata/finalizers", "value": fins},
            {"op": "remove", "path": "/metadata/finalizers"},
        ]),
    )
}

/// Removes one finalizer, guarded by a test that it is still at the index it had: the last
/// step of a remedy, after the controller that owns it could not finish.
pub fn remove_finalizer(snap: &Snapshot, state: &State, id: ObjId, finalizer: Sym) -> String {
    let i = state
        .finalizers(&snap.store, id)
        .iter()
        .position(|f| *f == finalizer)
        .unwrap_or(0);
    json_patch(
        snap,
        id,
        serde_json::json!([
            {"op": "test", "path": format!("/metadata/finalizers/{i}"), "value": snap.store.str(finalizer)},
            {"op": "remove", "path": format!("/metadata/finalizers/{i}")},
        ]),
    )
}

#[cfg(test)]
mod tests;
