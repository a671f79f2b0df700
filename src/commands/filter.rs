//! Which objects a report shows: `-n`/`-A`, `-l`, `--kind`. Filters never change the analysis
//! (owners may live anywhere); they only choose what is printed and what counts for exit codes.

use crate::error::{Error, Result};
use crate::model::ObjId;
use crate::model::selector::Selector;
use crate::snapshot::Snapshot;

/// Object filter.
#[derive(Debug, Default)]
pub struct Filter {
    namespace: Option<String>,
    selector: Option<Selector>,
    kinds: Vec<String>,
}

impl Filter {
    /// Builds a filter; a bad selector is a usage error.
    pub fn new(
        namespace: Option<String>,
        selector: Option<&str>,
        kinds: &[String],
    ) -> Result<Filter> {
        let selector = selector
            .map(|s| {
                Selector::parse(s).map_err(|e| {
                    Error::usage(
                        format!("bad label selector: {e}"),
                        "e.g. -l app=web,tier!=db",
                    )
                })
            })
            .transpose()?;
        Ok(Filter {
            namespace,
            selector,
            kinds: kinds.iter().map(|k| k.to_ascii_lowercase()).collect(),
        })
    }

    /// True when the object is in scope.
    pub fn includes(&self, snap: &Snapshot, id: ObjId) -> bool {
        let o = snap.store.object(id);
        if let Some(ns) = &self.namespace
            && snap.store.str(o.namespace) != ns
        {
            return false;
        }
        if let Some(sel) = &self.selector
            && !sel.matches(&snap.store, id)
        {
            return false;
        }
        if !self.kinds.is_empty() {
            let r = snap.resource_of(o);
            let kind = r.kind.to_ascii_lowercase();
            let names = [
                kind.clone(),
                r.plural.clone(),
                format!("{kind}.{}", r.group),
                format!("{}.{}", r.plural, r.group),
            ];
            if !self.kinds.iter().any(|k| names.contains(k)) {
                return false;
            }
        }
        true
    }
}
