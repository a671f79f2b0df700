//! Where each object of a manifest input came from: the file (or archive member), the
//! document and item, and — for files read directly, not archive members — the line where the
//! object starts and the line of each of its ownerReferences. `check apply` points its
//! findings there (SARIF regions, JUnit `file`/`line`), so code scanning annotates the line
//! that is wrong.
//!
//! Recorded only with [`super::FileOptions::manifests`]: the reader of cluster dumps (the path
//! benchmarked at the parse floor) does none of this. Lines cost a second, position-keeping
//! parse of each document ([`yaml_lines`], [`json_lines`]), which only files named directly
//! or walked in a directory pay: inside an archive (a Velero backup) a line would name no file
//! of any repository, so none is computed.

use crate::model::ObjId;
use serde::Deserialize;
use std::sync::Arc;

/// Where one input object came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    /// The file, archive member (`backup.tar.gz/resources/…`) or `<stdin>`.
    pub file: Arc<str>,
    /// 1-based document, when the input holds several.
    pub doc: Option<u32>,
    /// 0-based item of a list or array.
    pub item: Option<u32>,
    /// 1-based line where the object starts (unknown inside archives, or when the document
    /// could not be read again with positions).
    pub line: Option<u32>,
    /// 1-based line of each ownerReference, in order (empty when unknown).
    pub ref_lines: Vec<u32>,
}

impl Origin {
    /// `file (document 2, item 17)`, or `file:LINE` when the line is known: how a finding names
    /// its source.
    pub fn label(&self) -> String {
        if let Some(l) = self.line {
            return format!("{}:{l}", self.file);
        }
        let mut parts = Vec::new();
        if let Some(d) = self.doc {
            parts.push(format!("document {d}"));
        }
        if let Some(i) = self.item {
            parts.push(format!("item {i}"));
        }
        if parts.is_empty() {
            self.file.to_string()
        } else {
            format!("{} ({})", self.file, parts.join(", "))
        }
    }

    /// The line of ownerReference `i`, else the object's.
    pub fn line_of_ref(&self, i: usize) -> Option<u32> {
        self.ref_lines.get(i).copied().or(self.line)
    }
}

/// A second copy of an object already read (the same UID), and how it differs from the
/// copy kept. A Velero backup holds each object of a resource with several versions twice;
/// such copies agree and are one object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DuplicateCopy {
    /// The object kept (the first copy).
    pub kept: ObjId,
    /// Where the second copy came from.
    pub copy: Origin,
    /// The metadata that differs (`ownerReferences`, `finalizers`, `labels`, …); empty when the
    /// copies agree on everything kubectl-gc reads.
    pub differs: Vec<&'static str>,
}

/// The origins of a manifest input's objects.
#[derive(Clone, Debug, Default)]
pub struct Origins {
    /// Per object of the snapshot (by [`ObjId`]): where it came from (`None` for the few the
    /// reader adds after parsing, whose kind only their selfLink told).
    pub of_object: Vec<Option<Origin>>,
    /// Second copies of objects (same UID), dropped from the snapshot.
    pub duplicates: Vec<DuplicateCopy>,
}

impl Origins {
    /// Where object `id` came from.
    pub fn of(&self, id: ObjId) -> Option<&Origin> {
        self.of_object.get(id.index()).and_then(Option::as_ref)
    }
}

/// The lines of one object in a document.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ObjLines {
    pub start: u32,
    pub refs: Vec<u32>,
}

/// The lines of the objects of the document being read: the document itself, and its items
/// from `item_base` on (a streamed list hands its items over one at a time).
#[derive(Clone, Debug, Default)]
pub(crate) struct DocLines {
    pub top: Option<ObjLines>,
    pub items: Vec<ObjLines>,
    pub item_base: usize,
}

impl DocLines {
    /// The lines of item `item` (`None`: the document itself).
    pub fn get(&self, item: Option<usize>) -> Option<&ObjLines> {
        match item {
            None => self.top.as_ref(),
            Some(i) => self.items.get(i.checked_sub(self.item_base)?),
        }
    }

    /// Every line shifted by `by` (lines counted from a document's start → in the file).
    fn shifted(mut self, by: u32) -> DocLines {
        let shift = |o: &mut ObjLines| {
            o.start += by;
            for r in &mut o.refs {
                *r += by;
            }
        };
        if let Some(t) = &mut self.top {
            shift(t);
        }
        self.items.iter_mut().for_each(shift);
        self
    }
}

// --- YAML: serde-saphyr's `Spanned` gives each node's line. ---

#[derive(Deserialize)]
struct YDoc {
    #[serde(default)]
    items: Option<Vec<serde_saphyr::Spanned<YObj>>>,
    #[serde(default)]
    metadata: Option<YMeta>,
}

#[derive(Deserialize)]
struct YObj {
    #[serde(default)]
    metadata: Option<YMeta>,
}

#[derive(Deserialize)]
struct YMeta {
    #[serde(default, rename = "ownerReferences")]
    owner_references: Option<Vec<serde_saphyr::Spanned<serde::de::IgnoredAny>>>,
}

fn y_refs(m: &Option<YMeta>) -> Vec<u32> {
    m.as_ref()
        .and_then(|m| m.owner_references.as_ref())
        .map(|r| r.iter().map(|s| s.referenced.line() as u32).collect())
        .unwrap_or_default()
}

/// The lines of a YAML document's objects, in the file (`first_line`: the document's first
/// line). `None` when the document does not read as an object with positions (its objects
/// then have no line; nothing else changes).
pub(crate) fn yaml_lines(text: &str, first_line: usize) -> Option<DocLines> {
    let doc: serde_saphyr::Spanned<YDoc> = serde_saphyr::from_str(text).ok()?;
    let start = doc.referenced.line() as u32;
    if start == 0 {
        return None;
    }
    let top = ObjLines {
        start,
        refs: y_refs(&doc.value.metadata),
    };
    let items = doc
        .value
        .items
        .iter()
        .flatten()
        .map(|i| ObjLines {
            start: i.referenced.line() as u32,
            refs: y_refs(&i.value.metadata),
        })
        .collect();
    let lines = DocLines {
        top: Some(top),
        items,
        item_base: 0,
    };
    Some(lines.shifted(u32::try_from(first_line.saturating_sub(1)).ok()?))
}

// --- JSON: borrowed raw values tell where they are in the text. ---

#[derive(Deserialize)]
struct JDoc<'a> {
    #[serde(borrow, default)]
    items: Option<Vec<&'a serde_json::value::RawValue>>,
    #[serde(borrow, default)]
    metadata: Option<JMeta<'a>>,
}

#[derive(Deserialize)]
struct JMeta<'a> {
    #[serde(borrow, default, rename = "ownerReferences")]
    owner_references: Option<Vec<&'a serde_json::value::RawValue>>,
}

/// Counts lines from the start of a text, forward only.
struct LineAt<'t> {
    text: &'t str,
    at: usize,
    line: u32,
}

impl LineAt<'_> {
    /// The 1-based line of byte `off` (offsets asked in increasing order).
    fn line(&mut self, off: usize) -> u32 {
        let off = off.min(self.text.len()).max(self.at);
        self.line += memchr::memchr_iter(b'\n', &self.text.as_bytes()[self.at..off]).count() as u32;
        self.at = off;
        self.line
    }
}

/// Byte offset of a value borrowed from `text`.
fn offset_in(text: &str, raw: &serde_json::value::RawValue) -> usize {
    (raw.get().as_ptr() as usize).saturating_sub(text.as_ptr() as usize)
}

fn j_refs(text: &str, m: &Option<JMeta<'_>>, at: &mut LineAt<'_>) -> Vec<u32> {
    m.as_ref()
        .and_then(|m| m.owner_references.as_ref())
        .map(|r| r.iter().map(|v| at.line(offset_in(text, v))).collect())
        .unwrap_or_default()
}

/// The lines of the objects of one JSON value, the text of which starts at line `first_line`
/// of the file. `item`: the value is item `item` of a list streamed one item at a time.
pub(crate) fn json_lines(text: &str, first_line: u32, item: Option<usize>) -> Option<DocLines> {
    let mut de = serde_json::Deserializer::from_str(text);
    let doc = JDoc::deserialize(&mut de).ok()?;
    let mut at = LineAt {
        text,
        at: 0,
        line: first_line,
    };
    // The list's own references are counted from the start; the items, in order, forward.
    let own = j_refs(
        text,
        &doc.metadata,
        &mut LineAt {
            text,
            at: 0,
            line: first_line,
        },
    );
    let mut items = Vec::new();
    for raw in doc.items.iter().flatten() {
        let start = at.line(offset_in(text, raw));
        let mut inner = serde_json::Deserializer::from_str(raw.get());
        let refs = match JObj::deserialize(&mut inner) {
            Ok(o) => j_refs(
                raw.get(),
                &o.metadata,
                &mut LineAt {
                    text: raw.get(),
                    at: 0,
                    line: start,
                },
            ),
            Err(_) => Vec::new(),
        };
        items.push(ObjLines { start, refs });
    }
    let top = ObjLines {
        start: first_line,
        refs: own,
    };
    Some(match item {
        None => DocLines {
            top: Some(top),
            items,
            item_base: 0,
        },
        Some(i) => DocLines {
            top: None,
            items: vec![top],
            item_base: i,
        },
    })
}

#[derive(Deserialize)]
struct JObj<'a> {
    #[serde(borrow, default)]
    metadata: Option<JMeta<'a>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_lines_find_objects_items_and_references() {
        let text = "# Source: chart/templates/a.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  ownerReferences:\n  - apiVersion: v1\n    kind: ConfigMap\n    name: p\n    uid: x\n  - apiVersion: v1\n    kind: Secret\n    name: q\n    uid: y\n";
        let l = yaml_lines(text, 10).unwrap();
        let top = l.get(None).unwrap();
        assert_eq!(
            top.start, 11,
            "the first key, after the comment, in the file"
        );
        assert_eq!(top.refs, vec![16, 20]);
        let list = "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: a\n- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: b\n    ownerReferences:\n    - {apiVersion: v1, kind: X, name: y, uid: z}\nkind: List\n";
        let l = yaml_lines(list, 1).unwrap();
        assert_eq!(l.get(Some(0)).unwrap().start, 3);
        assert_eq!(l.get(Some(1)).unwrap().start, 7);
        assert_eq!(l.get(Some(1)).unwrap().refs, vec![12]);
        assert!(l.get(Some(2)).is_none());
    }

    #[test]
    fn json_lines_find_items_and_references() {
        let text = "{\n \"apiVersion\": \"v1\",\n \"items\": [\n  {\n   \"kind\": \"Pod\",\n   \"metadata\": {\n    \"name\": \"a\"\n   }\n  },\n  {\n   \"kind\": \"Pod\",\n   \"metadata\": {\n    \"ownerReferences\": [\n     {\"uid\": \"x\"},\n     {\"uid\": \"y\"}\n    ]\n   }\n  }\n ],\n \"kind\": \"List\"\n}";
        let l = json_lines(text, 5, None).unwrap();
        assert_eq!(l.get(None).unwrap().start, 5);
        assert_eq!(l.get(Some(0)).unwrap().start, 8);
        assert_eq!(l.get(Some(1)).unwrap().start, 14);
        assert_eq!(l.get(Some(1)).unwrap().refs, vec![18, 19]);
        // A streamed item: item 7 of its list, starting at line 40.
        let l = json_lines("{\"metadata\": {\n\"ownerReferences\": [{}]}}", 40, Some(7)).unwrap();
        assert!(l.get(None).is_none());
        assert_eq!(l.get(Some(7)).unwrap().refs, vec![41]);
    }

    #[test]
    fn labels_say_where() {
        let mut o = Origin {
            file: "a.yaml".into(),
            doc: Some(2),
            item: Some(3),
            line: None,
            ref_lines: vec![],
        };
        assert_eq!(o.label(), "a.yaml (document 2, item 3)");
        o.line = Some(9);
        assert_eq!(o.label(), "a.yaml:9");
        assert_eq!(o.line_of_ref(0), Some(9));
    }
}
