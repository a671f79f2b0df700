//! The snapshot writer: header, one line per object, trailer with the CRC-32 of what precedes
//! it ([`super`] describes the format).

use super::{API_VERSION, FORMAT_VERSION, Header, KIND, Trailer, TrailerLine};
use crate::error::{Error, Result};
use crate::model::{ObjId, Store, Sym};
use crate::snapshot::Snapshot;
use serde::Serialize;
use std::io::{BufWriter, Write};
use std::path::Path;

/// Writes a snapshot; gzip-compressed when `path` ends in `.gz`.
pub fn write_file(snapshot: &Snapshot, path: &Path) -> Result<()> {
    // Into a temporary file beside the target, renamed over it when complete: a reader sees
    // the previous snapshot or the whole new one, never a part, and a file being read through
    // a map ([`map_plain`]) is never truncated under it. (Not synced to the disk: this is for
    // readers, not for a crash, as the plain write before it.)
    let cannot = |what: &str, e: std::io::Error| {
        Error::input(path, format!("cannot {what} snapshot file: {e}"), None)
    };
    let in_place = || {
        let file = std::fs::File::create(path).map_err(|e| cannot("create", e))?;
        write_to(snapshot, path, &file)
    };
    // Written in place where a rename would replace something else than a file's content: a
    // device or a FIFO (`-o /dev/stdout`), or a symbolic link.
    if std::fs::symlink_metadata(path).is_ok_and(|m| !m.file_type().is_file()) {
        return in_place();
    }
    let Ok(tmp) = crate::util::temp_file_beside(path) else {
        // No file can be made beside it (a directory one may not write to, where the file
        // itself may be written): in place, as before, or the error of that.
        return in_place();
    };
    write_to(snapshot, path, tmp.as_file())?;
    crate::util::as_plainly_created(tmp.as_file());
    tmp.persist(path).map_err(|e| cannot("replace", e.error))?;
    Ok(())
}

/// Writes a snapshot to `file` (gzip when `path` ends in `.gz`).
fn write_to(snapshot: &Snapshot, path: &Path, file: &std::fs::File) -> Result<()> {
    let gz = path.extension().is_some_and(|e| e == "gz");
    let result = if gz {
        let mut enc =
            flate2::write::GzEncoder::new(BufWriter::new(file), flate2::Compression::fast());
        write(snapshot, &mut enc).and_then(|_| enc.finish()?.flush())
    } else {
        let mut w = BufWriter::new(file);
        write(snapshot, &mut w).and_then(|_| w.flush())
    };
    result.map_err(|e| Error::input(path, format!("cannot write snapshot: {e}"), None))
}

/// A writer that computes the CRC-32 of what goes through it.
struct Crc<'w> {
    w: &'w mut dyn Write,
    crc: crc32fast::Hasher,
}

impl Write for Crc<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.w.write(buf)?;
        self.crc.update(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.w.flush()
    }
}

/// Writes a snapshot to any writer.
pub fn write(snapshot: &Snapshot, w: &mut dyn Write) -> std::io::Result<()> {
    let mut cw = Crc {
        w,
        crc: crc32fast::Hasher::new(),
    };
    // serde_json writes token by token (a quote, a key, a comma): through `&mut dyn Write`
    // each token was a virtual call, a CRC update of a few bytes and another virtual call into
    // the caller's writer — 0.1 s for a 50k-object snapshot, after the last list. A typed
    // buffer of our own in front makes those plain copies; the CRC and the caller's writer see
    // blocks of 256 KiB.
    {
        let mut buffered = std::io::BufWriter::with_capacity(256 * 1024, &mut cw);
        write_body(snapshot, &mut buffered)?;
        buffered.flush()?;
    }
    let trailer = TrailerLine {
        trailer: Trailer {
            objects: snapshot.store.len() as u64,
            crc32: format!("{:08x}", cw.crc.clone().finalize()),
        },
    };
    serde_json::to_writer(&mut *cw.w, &trailer)?;
    cw.w.write_all(b"\n")
}

fn write_body<W: Write>(snapshot: &Snapshot, w: &mut W) -> std::io::Result<()> {
    let header = Header {
        api_version: API_VERSION.into(),
        kind: KIND.into(),
        format_version: FORMAT_VERSION,
        provenance: snapshot.provenance.clone(),
        resources: snapshot.resources.clone(),
        discovery_failures: snapshot.discovery_failures.clone(),
        skipped: snapshot.skipped.clone(),
        namespace_status: snapshot.details.namespaces.clone(),
        api_services: snapshot.details.api_services.clone(),
        objects: snapshot.store.len() as u64,
    };
    serde_json::to_writer(&mut *w, &header)?;
    w.write_all(b"\n")?;
    for id in snapshot.store.ids() {
        let line = LineOut {
            resource: snapshot.store.object(id).resource.0,
            metadata: MetaOut {
                store: &snapshot.store,
                id,
            },
        };
        serde_json::to_writer(&mut *w, &line)?;
        w.write_all(b"\n")?;
    }
    Ok(())
}

#[derive(Serialize)]
struct LineOut<'a> {
    resource: u32,
    metadata: MetaOut<'a>,
}

/// Serialises one object's metadata straight from the store (no intermediate `ObjectMeta`).
pub struct MetaOut<'a> {
    /// The store.
    pub store: &'a Store,
    /// The object.
    pub id: ObjId,
}

impl Serialize for MetaOut<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let st = self.store;
        let o = st.object(self.id);
        let text = |sym: Sym| st.str(sym);
        let mut m = s.serialize_map(None)?;
        if !o.namespace.is_empty() {
            m.serialize_entry("namespace", text(o.namespace))?;
        }
        m.serialize_entry("name", text(o.name))?;
        m.serialize_entry("uid", text(o.uid))?;
        if !o.resource_version.is_empty() {
            m.serialize_entry("resourceVersion", text(o.resource_version))?;
        }
        if !o.creation_timestamp.is_empty() {
            m.serialize_entry("creationTimestamp", &*st.timestamp(o.creation_timestamp))?;
        }
        if !o.deletion_timestamp.is_empty() {
            m.serialize_entry("deletionTimestamp", text(o.deletion_timestamp))?;
        }
        let fins = st.finalizers(self.id);
        if !fins.is_empty() {
            let v: Vec<&str> = fins.iter().map(|f| text(*f)).collect();
            m.serialize_entry("finalizers", &v)?;
        }
        let labels = st.labels(self.id);
        if !labels.is_empty() {
            m.serialize_entry("labels", &LabelsOut(st, labels))?;
        }
        if !o.ignore.is_empty() {
            let mut ann = std::collections::BTreeMap::new();
            ann.insert(crate::model::meta::IGNORE_ANNOTATION, text(o.ignore));
            m.serialize_entry("annotations", &ann)?;
        }
        let refs = st.owner_refs(self.id);
        if !refs.is_empty() {
            let v: Vec<OwnerRefOut> = refs.iter().map(|r| OwnerRefOut::new(st, r)).collect();
            m.serialize_entry("ownerReferences", &v)?;
        }
        m.end()
    }
}

struct LabelsOut<'a>(&'a Store, &'a [(Sym, Sym)]);

impl Serialize for LabelsOut<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(self.1.len()))?;
        for (k, v) in self.1 {
            m.serialize_entry(self.0.str(*k), self.0.str(*v))?;
        }
        m.end()
    }
}

/// An ownerReference in Kubernetes' own JSON shape.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct OwnerRefOut<'a> {
    /// apiVersion.
    pub api_version: &'a str,
    /// kind.
    pub kind: &'a str,
    /// name.
    pub name: &'a str,
    /// uid.
    pub uid: &'a str,
    /// controller (omitted when unset).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub controller: Option<bool>,
    /// blockOwnerDeletion (omitted when unset).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block_owner_deletion: Option<bool>,
}

impl<'a> OwnerRefOut<'a> {
    /// Resolves an interned reference.
    pub fn new(store: &'a Store, r: &crate::model::OwnerRef) -> Self {
        OwnerRefOut {
            api_version: store.str(r.api_version),
            kind: store.str(r.kind),
            name: store.str(r.name),
            uid: store.str(r.uid),
            controller: r.controller,
            block_owner_deletion: r.block_owner_deletion,
        }
    }
}
