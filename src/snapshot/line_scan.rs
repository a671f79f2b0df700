//! One object line of a snapshot read in a single pass, without serde, when it is exactly what
//! the writer ([`super::format::write`]) produces.
//!
//! Reading the 1M-object snapshot, the parsing thread set the read's pace, and most of it was
//! serde's machinery around each key and value; the list reader of `-f` inputs had already
//! dropped that machinery for its items (`source::files::item_scan`), and `audit --snapshot`
//! was slower than `audit -f` of the same objects. This scanner reads the writer's shape:
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
//! the `json_item` fuzz target hold the two against each other.

use crate::model::meta::{MetaIn, MetaLists, OwnerRefIn};
use crate::util::json_scan::Scan;
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

/// Metadata keys, as the writer writes them (each at most once).
const NAMESPACE: u16 = 1;
const NAME: u16 = 1 << 1;
const UID: u16 = 1 << 2;
const RESOURCE_VERSION: u16 = 1 << 3;
const CREATION_TIMESTAMP: u16 = 1 << 4;
const DELETION_TIMESTAMP: u16 = 1 << 5;
const FINALIZERS: u16 = 1 << 6;
const LABELS: u16 = 1 << 7;
const OWNER_REFERENCES: u16 = 1 << 8;

fn meta<'t>(s: &mut Scan<'t>, lists: &mut MetaLists) -> Option<MetaIn<'t>> {
    if s.peek()? != b'{' {
        return None;
    }
    let mut m = MetaIn::default();
    let mut seen = 0u16;
    s.fields(|s, k| {
        let key = match k {
            "namespace" => NAMESPACE,
            "name" => NAME,
            "uid" => UID,
            "resourceVersion" => RESOURCE_VERSION,
            "creationTimestamp" => CREATION_TIMESTAMP,
            "deletionTimestamp" => DELETION_TIMESTAMP,
            "finalizers" => FINALIZERS,
            "labels" => LABELS,
            "ownerReferences" => OWNER_REFERENCES,
            _ => return None,
        };
        if seen & key != 0 {
            return None;
        }
        seen |= key;
        match key {
            NAMESPACE => m.namespace = s.text()?,
            NAME => m.name = s.text()?,
            UID => m.uid = s.text()?,
            RESOURCE_VERSION => m.resource_version = s.text()?,
            CREATION_TIMESTAMP => m.creation_timestamp = s.text()?,
            DELETION_TIMESTAMP => m.deletion_timestamp = s.str_or_null()?.map(Cow::Borrowed),
            // The parser refuses a `null` finalizer: give up on it.
            FINALIZERS => {
                m.finalizers = s.list(lists.finalizers(), |s| {
                    Some(Some(Cow::Borrowed(s.plain()?)))
                })?
            }
            LABELS => {
                let mut v = lists.labels();
                if !s.null()? {
                    // A `null` value is the empty string to the parser too.
                    s.fields(|s, k| {
                        let value = s.str_or_null()?.unwrap_or("");
                        v.push((Cow::Borrowed(k), Cow::Borrowed(value)));
                        Some(())
                    })?;
                }
                m.labels.0 = v;
            }
            _ => m.owner_references = s.list(lists.owner_refs(), |s| owner_ref(s).map(Some))?,
        }
        Some(())
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
        let bit = match k {
            "apiVersion" => 1,
            "kind" => 1 << 1,
            "name" => 1 << 2,
            "uid" => 1 << 3,
            "controller" => 1 << 4,
            "blockOwnerDeletion" => 1 << 5,
            _ => return None,
        };
        if seen & bit != 0 {
            return None;
        }
        seen |= bit;
        match k {
            "apiVersion" => r.api_version = s.text()?,
            "kind" => r.kind = s.text()?,
            "name" => r.name = s.text()?,
            "uid" => r.uid = s.text()?,
            "controller" => r.controller = s.bool_or_null()?,
            _ => r.block_owner_deletion = s.bool_or_null()?,
        }
        Some(())
    })?;
    Some(r)
}

/// Reads `text` both ways and panics where the scanner answers and serde does not read the
/// same resource and metadata; whether the scanner answered. The scanner reads into the lists
/// `lists` kept from the lines before, and keeps this one's, as the reader does. For the tests
/// and the `json_item` fuzz target only.
#[cfg(any(test, fuzzing))]
pub(super) fn agree(text: &str, lists: &mut MetaLists) -> bool {
    let Some((resource, mut fast)) = line(text, lists) else {
        return false;
    };
    let slow: super::format::Line<'_> = serde_json::from_str(text)
        .unwrap_or_else(|e| panic!("the scanner read {text:?}; serde failed: {e}"));
    assert_eq!(resource, slow.resource, "{text:?}");
    assert_eq!(
        format!("{fast:?}"),
        format!("{:?}", slow.metadata),
        "{text:?}"
    );
    lists.keep(&mut fast);
    true
}

#[cfg(test)]
mod tests;
