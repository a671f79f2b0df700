//! Which objects a command shows: `-n`/`-A`, `-l`, `--kind`, `--field-selector`, the same for
//! every command that reads a cluster. Selections never change the analysis (owners may live
//! anywhere); they choose what is printed, what counts for exit codes and, for `collect
//! --apply`, what is performed.
//!
//! A selection cannot silently miss: a kind is resolved the way kubectl resolves it against
//! the input's resources (an unknown kind is an error), and a namespace the input shows does
//! not exist is an error; where the input cannot tell (file inputs without Namespace objects),
//! a warning on stderr says the selection matched nothing.

use crate::cli::GlobalArgs;
use crate::error::{Error, Result};
use crate::lookup::{self, KindMatch};
use crate::model::ObjId;
use crate::model::selector::Selector;
use crate::snapshot::{ListOutcome, Snapshot};

/// One `--field-selector` requirement.
#[derive(Debug, Clone, PartialEq, Eq)]
struct FieldReq {
    field: Field,
    value: String,
    equal: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Name,
    Namespace,
}

/// The selection flags, checked for syntax (before anything is read).
#[derive(Debug, Default)]
pub struct Selection {
    namespace: Option<String>,
    selector: Option<Selector>,
    kind_words: Vec<String>,
    /// The resolved kinds as (group, plural): by name, not by row, so a selection made on one
    /// read of the cluster holds on the next (`--apply`'s later rounds read it again).
    kinds: Option<Vec<(String, String)>>,
    fields: Vec<FieldReq>,
}

impl Selection {
    /// Parses `-l`, `--kind` and `--field-selector` (syntax errors are usage errors). The
    /// namespace is set by [`Selection::resolve`].
    pub fn parse(g: &GlobalArgs) -> Result<Selection> {
        let selector = g
            .selector
            .as_deref()
            .map(|s| {
                Selector::parse(s).map_err(|e| {
                    Error::usage(
                        format!("bad label selector: {e}"),
                        "e.g. -l app=web,tier!=db",
                    )
                })
            })
            .transpose()?;
        let fields = g
            .field_selector
            .as_deref()
            .map(parse_fields)
            .transpose()?
            .unwrap_or_default();
        let kind_words: Vec<String> = g
            .kind
            .iter()
            .map(|k| k.trim().to_owned())
            .filter(|k| !k.is_empty())
            .collect();
        Ok(Selection {
            namespace: None,
            selector,
            kind_words,
            kinds: None,
            fields,
        })
    }

    /// True when only the namespace (if any) selects: no label, kind or field selection.
    pub fn selects_all_of_namespace(&self) -> bool {
        self.selector.is_none() && self.kind_words.is_empty() && self.fields.is_empty()
    }

    /// Resolves the kinds against the input and checks the namespace (`namespace`: the
    /// command's scope, `None` for all; checked only when `-n` was given, not for a context's
    /// default namespace). Errors for a kind or namespace the input shows does not exist; a
    /// warning on stderr where the input cannot tell.
    pub fn resolve(
        mut self,
        snap: &Snapshot,
        namespace: Option<&str>,
        explicit_namespace: bool,
    ) -> Result<Selection> {
        if !self.kind_words.is_empty() {
            let mut rows = Vec::new();
            for word in &self.kind_words {
                match lookup::resolve_kind(snap, word) {
                    KindMatch::Found(found) => rows.extend(found),
                    KindMatch::NotInInput(kind) if snap_is_authoritative(snap) => {
                        return Err(Error::usage(
                            format!(
                                "--kind {word}: the input has no {kind} resource (the cluster does not serve it, or the GC does not watch it)"
                            ),
                            format!(
                                "kinds in the input: {}",
                                lookup::join_some(&lookup::kinds_in(snap), 12)
                            ),
                        ));
                    }
                    KindMatch::NotInInput(kind) => {
                        eprintln!(
                            "warning: --kind {word}: the input holds no {kind} objects; nothing of that kind is shown"
                        );
                    }
                    KindMatch::Unknown => {
                        return Err(Error::usage(
                            format!("--kind {word}: no such kind in the input or in Kubernetes"),
                            format!(
                                "--kind takes a kind, plural, short name or kind.group as kubectl does; kinds in the input: {}",
                                lookup::join_some(&lookup::kinds_in(snap), 12)
                            ),
                        ));
                    }
                }
            }
            self.kinds = Some(
                rows.into_iter()
                    .map(|r| {
                        let r = &snap.resources[r.index()];
                        (r.group.clone(), r.plural.clone())
                    })
                    .collect(),
            );
        }
        if let Some(ns) = namespace {
            if explicit_namespace {
                check_namespace(snap, ns)?;
            }
            self.namespace = Some(ns.to_owned());
        }
        for f in self
            .fields
            .iter()
            .filter(|f| f.field == Field::Namespace && f.equal)
        {
            check_namespace(snap, &f.value)?;
        }
        Ok(self)
    }

    /// True when the object is selected.
    pub fn includes(&self, snap: &Snapshot, id: ObjId) -> bool {
        let o = snap.store.object(id);
        // -n NS shows the namespace's objects (not cluster-scoped ones), as kubectl get -n;
        // a cluster-scoped kind named with --kind is shown whole, as `kubectl get
        // clusterrolebindings -n NS` lists them all (the namespace does not apply to it).
        if let Some(ns) = &self.namespace
            && snap.store.str(o.namespace) != ns
            && !(self.kinds.is_some() && snap.store.str(o.namespace).is_empty())
        {
            return false;
        }
        if let Some(kinds) = &self.kinds
            && !{
                let r = snap.resource_of(o);
                kinds.iter().any(|(g, p)| *g == r.group && *p == r.plural)
            }
        {
            return false;
        }
        if let Some(sel) = &self.selector
            && !sel.matches(&snap.store, id)
        {
            return false;
        }
        self.fields.iter().all(|f| {
            let actual = match f.field {
                Field::Name => snap.store.str(o.name),
                Field::Namespace => snap.store.str(o.namespace),
            };
            (actual == f.value) == f.equal
        })
    }
}

/// True when the input's resource table lists everything the cluster serves (a live read or
/// a snapshot of one), so a kind missing from it does not exist there.
fn snap_is_authoritative(snap: &Snapshot) -> bool {
    snap.provenance.source == crate::snapshot::SourceKind::Live
}

/// A namespace the input shows does not exist is an error; where the input cannot tell, a
/// warning when it holds nothing there.
fn check_namespace(snap: &Snapshot, ns: &str) -> Result<()> {
    let store = &snap.store;
    let namespaces_complete = snap.resources.iter().any(|r| {
        r.group.is_empty() && r.kind == "Namespace" && matches!(r.list, ListOutcome::Complete)
    });
    let is_namespace_object = |id: ObjId| {
        let o = store.object(id);
        let r = snap.resource_of(o);
        r.group.is_empty() && r.kind == "Namespace" && store.str(o.name) == ns
    };
    let holds_objects = || {
        store
            .ids()
            .any(|id| store.str(store.object(id).namespace) == ns)
    };
    if namespaces_complete {
        if store.ids().any(is_namespace_object) || holds_objects() {
            return Ok(());
        }
        let mut names: Vec<String> = store
            .ids()
            .filter(|&id| {
                let r = snap.resource_of(store.object(id));
                r.group.is_empty() && r.kind == "Namespace"
            })
            .map(|id| store.str(store.object(id).name).to_owned())
            .collect();
        names.sort();
        return Err(Error::usage(
            format!("namespace {ns:?} not found"),
            format!("namespaces: {}", lookup::join_some(&names, 12)),
        ));
    }
    if !holds_objects() && !store.ids().any(is_namespace_object) {
        eprintln!(
            "warning: the input holds no objects in namespace {ns:?} (it cannot tell whether the namespace exists); nothing there to show"
        );
    }
    Ok(())
}

/// Parses `metadata.name=x,metadata.namespace!=y` (`=`, `==`, `!=`).
fn parse_fields(s: &str) -> Result<Vec<FieldReq>> {
    let mut out = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (field, value, equal) = if let Some((f, v)) = part.split_once("!=") {
            (f, v, false)
        } else if let Some((f, v)) = part.split_once("==") {
            (f, v, true)
        } else if let Some((f, v)) = part.split_once('=') {
            (f, v, true)
        } else {
            return Err(Error::usage(
                format!("bad field selector {part:?}"),
                "e.g. --field-selector metadata.name=web,metadata.namespace!=kube-system",
            ));
        };
        let field = match field.trim() {
            "metadata.name" => Field::Name,
            "metadata.namespace" => Field::Namespace,
            other => {
                return Err(Error::usage(
                    format!("--field-selector {other}: cannot be honoured"),
                    "the input holds object metadata only: metadata.name and metadata.namespace can be selected",
                ));
            }
        };
        out.push(FieldReq {
            field,
            value: value.trim().to_owned(),
            equal,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::Cluster;

    fn global(f: impl FnOnce(&mut GlobalArgs)) -> GlobalArgs {
        let mut g = GlobalArgs::default();
        f(&mut g);
        g
    }

    #[test]
    fn kinds_labels_and_fields_select() {
        let mut c = Cluster::new();
        c.obj("v1", "ConfigMap", "ns", "x", "cm-x");
        c.obj("apps/v1", "Deployment", "ns", "web", "d-web");
        c.obj("apps/v1", "Deployment", "other", "api", "d-api");
        let s = c.build();
        let id = |uid: &str| s.store.by_uid(s.store.strings.get(uid).unwrap()).unwrap();
        let sel = Selection::parse(&global(|g| g.kind = vec!["deploy".into()]))
            .unwrap()
            .resolve(&s, None, false)
            .unwrap();
        assert!(sel.includes(&s, id("d-web")) && !sel.includes(&s, id("cm-x")));
        let sel = Selection::parse(&global(|g| {
            g.field_selector = Some("metadata.name!=web".into())
        }))
        .unwrap()
        .resolve(&s, None, false)
        .unwrap();
        assert!(!sel.includes(&s, id("d-web")) && sel.includes(&s, id("d-api")));
        assert!(
            Selection::parse(&global(
                |g| g.field_selector = Some("status.phase=Running".into())
            ))
            .is_err()
        );
        let err = Selection::parse(&global(|g| g.kind = vec!["nonsense".into()]))
            .unwrap()
            .resolve(&s, None, false)
            .unwrap_err();
        assert!(err.to_string().contains("nonsense"), "{err}");
    }
}
