//! One object line of a snapshot read in a single pass, without serde, when it is exactly what
//! the writer ([`super::format::write`]) produces.
//!
//! The parsing thread sets the pace of reading a large snapshot, and through serde most of its
//! work is machinery around each key and value, which the list reader of `-f` inputs does
//! without for its items (`source::files::item_scan`; measurements in BENCHMARKS.md). This
//! scanner reads the writer's shape:
//! `{"resource":N,"metadata":{…}}`, the metadata keys it writes, each once, with strings
//! without escapes, and owner references with their six keys.
//!
//! It is stricter than the parser, never more lenient: on anything else it gives up (returns
//! `None`) and the line is parsed by serde as before, which decides, decodes or reports it. So
//! it gives up on a key written twice (the parser refuses the line), a key the writer does not
//! write (the parser would skip it, which the scanner does not try), a `null` finalizer (the
//! parser refuses it), the annotations (only written for the `kubectl-gc.io/ignore` one), a
//! resource index that is not a plain integer of `u32`, and anything after the object but
//! whitespace. Where it answers, it gives what the parser gives, field for field: the tests and
//! the `json_item` fuzz target (`format::line_scan_agrees`) hold the two against each other.

use crate::input::json_scan::Scan;
use crate::model::meta::{MetaIn, MetaLists, OwnerRefIn};
use std::borrow::Cow;

/// The resource index and metadata of an object line, or `None` when the line is not of the
/// writer's shape (to be parsed by serde).
pub(super) fn line<'t>(text: &'t str, lists: &mut MetaLists) -> Option<(u32, MetaIn<'t>)> {
    let mut s = Scan::new(text);
    if s.peek()? != b'{' {
        return None;
    }
    let (mut resource, mut metadata) = (None, None);
    s.fields(|s, k| {
        match k {
            "resource" if resource.is_none() => resource = Some(index(s)?),
            "metadata" if metadata.is_none() => metadata = Some(meta(s, lists)?),
            _ => return None,
        }
        Some(())
    })?;
    if !s.at_end() {
        return None;
    }
    Some((resource?, metadata?))
}

/// A resource index: `0` or digits without a leading zero, within `u32`, and not the start of
/// a fraction or an exponent (the parser would then see a float, which is not an index).
fn index(s: &mut Scan<'_>) -> Option<u32> {
    s.peek()?;
    let digits = s.digit_run();
    if digits.is_empty() || (digits.len() > 1 && digits.starts_with('0')) {
        return None;
    }
    if matches!(s.next_byte(), Some(b'.' | b'e' | b'E')) {
        return None;
    }
    // More than `u32` holds fails here, as in the parser.
    digits.parse().ok()
}

/// The metadata, with the keys the writer writes, each at most once.
fn meta<'t>(s: &mut Scan<'t>, lists: &mut MetaLists) -> Option<MetaIn<'t>> {
    if s.peek()? != b'{' {
        return None;
    }
    let mut m = MetaIn::default();
    let mut seen = 0u16;
    s.fields(|s, k| {
        // Each key's value is read, then its bit tells a repeat (the parser refuses it).
        let bit: u16 = match k {
            "namespace" => {
                m.namespace = s.text()?;
                1
            }
            "name" => {
                m.name = s.text()?;
                1 << 1
            }
            "uid" => {
                m.uid = s.text()?;
                1 << 2
            }
            "resourceVersion" => {
                m.resource_version = s.text()?;
                1 << 3
            }
            "creationTimestamp" => {
                m.creation_timestamp = s.text()?;
                1 << 4
            }
            "deletionTimestamp" => {
                m.deletion_timestamp = s.str_or_null()?.map(Cow::Borrowed);
                1 << 5
            }
            // The parser refuses a `null` finalizer: give up on it.
            "finalizers" => {
                let plain = |s: &mut Scan<'t>| Some(Some(Cow::Borrowed(s.plain()?)));
                m.finalizers = s.list(lists.finalizers(), plain)?;
                1 << 6
            }
            "labels" => {
                let mut v = lists.labels();
                s.string_map(&mut v)?;
                m.labels.0 = v;
                1 << 7
            }
            "ownerReferences" => {
                let refs = s.list(lists.owner_refs(), |s| owner_ref(s).map(Some))?;
                m.owner_references = refs;
                1 << 8
            }
            _ => return None,
        };
        (seen & bit == 0).then(|| seen |= bit)
    })?;
    Some(m)
}

/// One owner reference: its six keys, each at most once.
fn owner_ref<'t>(s: &mut Scan<'t>) -> Option<OwnerRefIn<'t>> {
    if s.peek()? != b'{' {
        return None;
    }
    let mut r = OwnerRefIn::default();
    let mut seen = 0u8;
    s.fields(|s, k| {
        let bit: u8 = match k {
            "apiVersion" => {
                r.api_version = s.text()?;
                1
            }
            "kind" => {
                r.kind = s.text()?;
                1 << 1
            }
            "name" => {
                r.name = s.text()?;
                1 << 2
            }
            "uid" => {
                r.uid = s.text()?;
                1 << 3
            }
            "controller" => {
                r.controller = s.bool_or_null()?;
                1 << 4
            }
            "blockOwnerDeletion" => {
                r.block_owner_deletion = s.bool_or_null()?;
                1 << 5
            }
            _ => return None,
        };
        (seen & bit == 0).then(|| seen |= bit)
    })?;
    Some(r)
}

#[cfg(test)]
mod tests;
