//! One item of a big list read in a single pass, without serde, when it has the usual shape.
//!
//! The parsing thread sets the pace of reading a big list, and most of its work through serde
//! is machinery around [`ElementSeed`](super::doc::ElementSeed) — a key deserializer per key,
//! a seed and a visitor per value, every string through the generic `Reference` path — not
//! scanning bytes (measurements in BENCHMARKS.md). Almost every item of a dump
//! has one shape: an object of `apiVersion`, `kind` and `metadata` (plain strings, labels,
//! owner references) and values that are skipped unread (`spec`, `status`, `managedFields`,
//! other annotations). This scanner reads that shape straight into the [`Doc`].
//!
//! It never judges input. On anything else it gives up (returns `None`) and the item is parsed
//! again by `ElementSeed`, which decides, reads or reports it: a string with an escape (the
//! parser decodes it), a control character, a value of the wrong type or `null` where the
//! visitors record something, a key that carries hints (`items`, a CRD's `spec`, …), the
//! `kubectl-gc.io/ignore` annotation, a `remainingItemCount`, any syntax error, and the end of
//! the text (the caller reads more). Where it does answer, the answer is the one the serde
//! parse gives, field for field: skipped values are checked exactly as serde_json's
//! `IgnoredAny` checks them (its number grammar, its escapes, no depth limit of its own).
//! The tests and the `json_item` fuzz target hold the two parses against each other.

use super::doc::{Doc, DocKey, Meta, skips};
use super::meta::{MetaKey, RefKey};
use crate::input::json_scan::Scan;
use crate::model::OwnerRefIn;
use crate::model::meta::{IGNORE_ANNOTATION, MetaLists};
use std::borrow::Cow;

/// Reads the object at the start of `text` into `doc` (a fresh one): the bytes it took, or
/// `None` when the item is not of the usual shape (then `doc` holds a partial read, to be
/// discarded).
pub(super) fn element<'t>(text: &'t str, doc: &mut Doc<'t>, spare: &mut Spare) -> Option<usize> {
    let mut s = Scan::new(text);
    if s.peek()? != b'{' {
        return None;
    }
    let keys = s.fields(|s, k| {
        // The document visitor's own key table and rule for what it reads past unseen.
        match DocKey::of(k) {
            DocKey::ApiVersion => doc.api_version = s.str_or_null()?.map(Cow::Borrowed),
            DocKey::Kind => doc.kind = s.str_or_null()?.map(Cow::Borrowed),
            DocKey::Metadata => metadata(s, &mut doc.metadata, spare)?,
            key if skips(key, doc.kind.as_deref()) => s.skip_value()?,
            _ => return None,
        }
        Some(())
    })?;
    doc.keys = keys;
    Some(s.pos())
}

/// The lists of the last item read, emptied, for the next item to fill (see [`MetaLists`]).
#[derive(Default)]
pub(super) struct Spare(MetaLists);

impl Spare {
    /// Takes back the lists of `doc` (which is done with), emptied.
    pub(super) fn keep(&mut self, doc: &mut Doc<'_>) {
        if let Some(m) = &mut doc.metadata {
            self.0.keep(&mut m.meta);
        }
    }
}

/// `metadata`, as `MetaSeed` reads it (a later `metadata` key replaces an earlier one).
fn metadata<'t>(s: &mut Scan<'t>, out: &mut Option<Meta<'t>>, spare: &mut Spare) -> Option<()> {
    if s.peek()? != b'{' {
        return None;
    }
    let m = out.insert(Meta::default());
    s.fields(|s, k| {
        let meta = &mut m.meta;
        match MetaKey::of(k) {
            MetaKey::Namespace => meta.namespace = s.text()?,
            MetaKey::Name => meta.name = s.text()?,
            MetaKey::Uid => meta.uid = s.text()?,
            MetaKey::ResourceVersion => meta.resource_version = s.text()?,
            MetaKey::CreationTimestamp => meta.creation_timestamp = s.text()?,
            MetaKey::DeletionTimestamp => {
                meta.deletion_timestamp = s.str_or_null()?.map(Cow::Borrowed)
            }
            MetaKey::SelfLink => m.self_link = s.str_or_null()?.map(Cow::Borrowed),
            MetaKey::GenerateName => m.generate_name = s.str_or_null()?.map(Cow::Borrowed),
            MetaKey::Continue => m.continue_token = s.str_or_null()?.map(Cow::Borrowed),
            MetaKey::RemainingItemCount => return None,
            // `null` entries are dropped, as the visitor drops them.
            MetaKey::Finalizers => {
                let v = spare.0.finalizers();
                meta.finalizers = s.list(v, |s| Some(s.str_or_null()?.map(Cow::Borrowed)))?
            }
            MetaKey::Labels => {
                let mut v = spare.0.labels();
                s.string_map(&mut v)?;
                meta.labels.0 = v;
            }
            MetaKey::Annotations => {
                if !s.null()? {
                    s.fields(|s, k| {
                        if k == IGNORE_ANNOTATION {
                            return None;
                        }
                        s.skip_value()
                    })?;
                }
                meta.ignore = None;
            }
            MetaKey::OwnerReferences => {
                let v = spare.0.owner_refs();
                meta.owner_references = s.list(v, |s| owner_ref(s).map(Some))?
            }
            MetaKey::Other => s.skip_value()?,
        }
        Some(())
    })?;
    Some(())
}

/// One `ownerReferences` entry, as `RefSeed` reads it.
fn owner_ref<'t>(s: &mut Scan<'t>) -> Option<OwnerRefIn<'t>> {
    if s.peek()? != b'{' {
        return None;
    }
    let mut r = OwnerRefIn::default();
    s.fields(|s, k| {
        match RefKey::of(k) {
            RefKey::ApiVersion => r.api_version = s.text()?,
            RefKey::Kind => r.kind = s.text()?,
            RefKey::Name => r.name = s.text()?,
            RefKey::Uid => r.uid = s.text()?,
            RefKey::Controller => r.controller = s.bool_or_null()?,
            RefKey::BlockOwnerDeletion => r.block_owner_deletion = s.bool_or_null()?,
            RefKey::Other => s.skip_value()?,
        }
        Some(())
    })?;
    Some(r)
}

#[cfg(test)]
mod tests;
