//! Object recognition: what each parsed document is (an object, a list, a discovery
//! document, a version report, something else) and what it adds to the snapshot.

use super::FileOptions;
use super::accounting::{FileStats, Loc, Problem};
use super::coverage::{Coverage, Hole, ListFrame, NO_FRAME, PairLog, is_server_list};
use super::doc::{Doc, Element, Items, TopValue};
use super::resources::{CrdInfo, Deferred, Resources, self_link_resource, server_version_hint};
use crate::model::{Batch, MetaIn, ResourceId};
use crate::snapshot::{Skipped, split_api_version};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError};

/// Objects per batch handed to the interning thread.
const BATCH: usize = 8192;

/// Sends parsed objects to the thread that owns the store.
pub(crate) struct Sink {
    batch: Batch,
    tx: Option<SyncSender<Batch>>,
    recycle: Receiver<Batch>,
}

impl Sink {
    pub fn new(batch: Batch, tx: SyncSender<Batch>, recycle: Receiver<Batch>) -> Sink {
        Sink {
            batch,
            tx: Some(tx),
            recycle,
        }
    }

    /// Queues an object, tagged for the store's thread ([`PairLog::tag`]).
    fn push(&mut self, rid: ResourceId, meta: &MetaIn<'_>, tag: u64) {
        self.batch.push_tagged(rid, meta, tag);
        if self.batch.len() >= BATCH {
            self.flush();
        }
    }

    fn flush(&mut self) {
        if self.batch.is_empty() {
            return;
        }
        let next = match self.recycle.try_recv() {
            Ok(b) => b,
            Err(_) => {
                let mut b = self.batch.clone();
                b.clear();
                b
            }
        };
        let full = std::mem::replace(&mut self.batch, next);
        if let Some(tx) = &self.tx {
            // The receiver only hangs up when it panicked; the join reports that.
            if let Err(TrySendError::Full(mut full)) = tx.try_send(full) {
                // The interning thread is behind: hash the batch for it rather than wait.
                full.hash_all();
                let _ = tx.send(full);
            }
        }
    }

    /// Tells the store's thread that about `objects` more objects follow (with the batch
    /// being filled).
    fn expect_more(&mut self, objects: usize) {
        self.batch.expect_more(objects);
    }

    /// Sends what is left and hangs up.
    pub fn close(&mut self) {
        self.flush();
        self.tx = None;
    }
}

/// Inputs smaller than this are not estimated ([`Reader::progress`]): growing the store
/// step by step costs little below some hundred thousand objects.
const ESTIMATE_FROM: u64 = 64 << 20;

/// The objects still to come in an input of `size` bytes whose first `offset` bytes held
/// `read`, at the same density.
pub(super) fn still_to_come(read: usize, offset: u64, size: u64) -> usize {
    let rest = u128::from(size.saturating_sub(offset));
    let more = read as u128 * rest / u128::from(offset.max(1));
    usize::try_from(more).unwrap_or(usize::MAX)
}

/// A new list's frame, numbered after `last`. Past the last number (four billion lists, never
/// in practice) a list gets none: it then covers nothing, so its kinds stay unknown rather
/// than share a number with another list and be covered by that one.
fn next_frame(last: &mut u32) -> ListFrame {
    if *last < NO_FRAME - 1 {
        *last += 1;
        ListFrame::new(*last)
    } else {
        ListFrame::default()
    }
}

/// Context a typed list gives its items.
pub(crate) struct ListCtx {
    /// Item kind (`PodList` → `Pod`); `None` for a generic `List` or a list without kind.
    pub kind: Option<String>,
    pub api_version: String,
}

impl ListCtx {
    /// No list context (a bare array, or a list whose kind is not known yet).
    pub fn none() -> ListCtx {
        ListCtx {
            kind: None,
            api_version: String::new(),
        }
    }

    /// The context a list document gives its items.
    pub fn of(doc: &Doc<'_>) -> ListCtx {
        ListCtx {
            kind: match doc.kind().strip_suffix("List") {
                Some("") | None => None,
                Some(k) => Some(k.to_owned()),
            },
            api_version: doc.api_version().to_owned(),
        }
    }
}

/// Everything the parsing side knows: counters, problems, resource rows, coverage.
pub(crate) struct Reader<'o> {
    pub opts: &'o FileOptions,
    pub stats: FileStats,
    pub problems: Vec<Problem>,
    pub skipped: Vec<Skipped>,
    pub res: Resources,
    pub cov: Coverage,
    pub sink: Sink,
    /// Namespace and APIService details read from their objects (snapshot::details).
    pub details: crate::snapshot::Details,
    /// UIDs given to manifests without one (`FileOptions::manifests`).
    manifest_uids: u64,
    /// Where each object pushed came from, in push order (`FileOptions::manifests` only).
    pub origins: Vec<super::origin::Origin>,
    /// The lines of the objects of the document being read, when lines are kept.
    pub lines: Option<super::origin::DocLines>,
    /// Keep lines for the stream being read (a manifest file read directly, not an archive
    /// member).
    pub track_lines: bool,
    /// The size of the input being read, when known, and the objects read before it: until
    /// the store's final size is estimated from it ([`Reader::progress`]).
    estimate: Option<(u64, usize)>,
    /// Inputs smaller than this are not estimated ([`ESTIMATE_FROM`]; tests lower it).
    pub(super) estimate_from: u64,
    /// The file of the last origin: the objects of one file share its name.
    last_file: Option<std::sync::Arc<str>>,
    /// Last resolved (apiVersion, kind) → (row, group/kind): consecutive items share it.
    last: Option<(String, String, ResourceId, u32)>,
    /// Last apiVersion split, and where its version starts (`None`: not valid).
    last_split: (String, Option<usize>),
    /// Lists begun ([`Reader::frame`]).
    frames: u32,
}

impl<'o> Reader<'o> {
    pub fn new(opts: &'o FileOptions, sink: Sink) -> Reader<'o> {
        Reader {
            opts,
            stats: FileStats::default(),
            problems: Vec::new(),
            skipped: Vec::new(),
            res: Resources::default(),
            cov: Coverage::new(sink.batch.hasher().clone()),
            sink,
            details: crate::snapshot::Details::default(),
            manifest_uids: 0,
            origins: Vec::new(),
            lines: None,
            track_lines: false,
            estimate: None,
            estimate_from: ESTIMATE_FROM,
            last_file: None,
            last: None,
            last_split: (String::new(), None),
            frames: 0,
        }
    }

    /// Starts reading an input of `size` bytes (`None`: not known, or not worth an estimate).
    pub fn input_size(&mut self, size: Option<u64>) {
        self.estimate = size.map(|s| (s, self.stats.objects));
    }

    /// The input has been read up to byte `offset`. Once a tenth of it is in, the objects it
    /// held so far tell about how many the whole input holds, and the store's thread makes
    /// room for the rest at once ([`crate::model::Store::reserve_more`]). An input whose
    /// first tenth holds much smaller objects than the rest gets more room than it needs: at
    /// most for nine times the objects of that tenth (the store caps any estimate at sixteen
    /// times what it holds).
    pub fn progress(&mut self, offset: u64) {
        let Some((size, before)) = self.estimate else {
            return;
        };
        if offset < size / 10 || size < self.estimate_from {
            return;
        }
        self.estimate = None;
        let read = self.stats.objects.saturating_sub(before);
        self.sink.expect_more(still_to_come(read, offset, size));
    }

    /// The frame of a list whose items are about to be read.
    pub fn frame(&mut self) -> ListFrame {
        next_frame(&mut self.frames)
    }

    /// A broken document or item: reported, and what it could hold becomes unknown.
    pub fn broken(&mut self, loc: &Loc, cause: impl Into<String>, hole: Hole) {
        let p = loc.problem(cause);
        self.stats.broken += 1;
        self.skipped.push(Skipped {
            source: loc.label(),
            reason: p.cause.clone(),
        });
        self.cov.hole(hole, p.to_string());
        self.problems.push(p);
    }

    /// A broken document known only to hold objects of these kinds (in this group when
    /// known, else any), anywhere.
    pub fn broken_kinds(
        &mut self,
        loc: &Loc,
        cause: impl Into<String>,
        kinds: &[(Option<String>, String)],
    ) {
        let cause = cause.into();
        let hole = |(g, k): &(Option<String>, String)| match g {
            Some(g) => Hole::Kind {
                gk: (g.clone(), k.clone()),
                namespace: None,
            },
            None => Hole::KindName {
                kind: k.clone(),
                namespace: None,
            },
        };
        let (last, rest) = kinds.split_last().expect("at least one kind");
        for k in rest {
            self.cov
                .hole(hole(k), loc.problem(cause.clone()).to_string());
        }
        self.broken(loc, cause, hole(last));
    }

    /// A document that is a Kubernetes object but cannot be used (no uid, no kind): skipped
    /// and counted, not an error; what it could be is unknown.
    fn unusable(&mut self, loc: &Loc, reason: &str, hole: Hole) {
        self.stats.ignore(reason);
        self.skipped.push(Skipped {
            source: loc.label(),
            reason: reason.to_owned(),
        });
        let cause = format!("{}: {reason}", loc.label());
        self.cov.hole(hole, cause);
    }

    /// Forgets the last problem (the JSON reader retries a first value as YAML).
    pub fn unrecord_last(&mut self) -> Option<Problem> {
        let p = self.problems.pop()?;
        self.stats.broken -= 1;
        self.skipped.pop();
        if self
            .cov
            .holes
            .last()
            .is_some_and(|(_, c)| *c == p.to_string())
        {
            self.cov.holes.pop();
        }
        Some(p)
    }

    /// Records a problem found earlier (see [`Reader::unrecord_last`]).
    pub fn rerecord(&mut self, p: Problem, hole: Hole) {
        self.stats.broken += 1;
        self.skipped.push(Skipped {
            source: p.file.clone(),
            reason: p.cause.clone(),
        });
        self.cov.hole(hole, p.to_string());
        self.problems.push(p);
    }

    /// Something that is not a Kubernetes object.
    pub fn not_kubernetes(&mut self, reason: &str) {
        self.stats.not_kubernetes += 1;
        self.stats.ignore(reason);
    }

    /// The hole a broken document of this kind leaves (`kind`/`apiVersion` as far as known).
    pub fn hole_of(&mut self, api_version: &str, kind: &str, namespace: Option<&str>) -> Hole {
        let namespace = namespace.map(str::to_owned);
        match (split_api_version(api_version), kind.is_empty()) {
            (Some((group, _)), false) => Hole::Kind {
                gk: (group.to_owned(), kind.to_owned()),
                namespace,
            },
            (None, false) => Hole::KindName {
                kind: kind.to_owned(),
                namespace,
            },
            (_, true) => match namespace {
                Some(ns) => Hole::Namespace(ns),
                None => Hole::Everything,
            },
        }
    }

    /// One top-level document.
    pub fn document(&mut self, loc: &Loc, v: TopValue<'_>) {
        self.stats.documents += 1;
        match v {
            TopValue::Object(doc) => self.value(loc, doc, None, None),
            TopValue::Array(elements) => {
                // A bare array (`jq .items`, a YAML sequence) is not a server list.
                let mut frame = self.frame();
                for (i, e) in elements.into_iter().enumerate() {
                    self.element(&loc.item(i, None), e, None, &mut frame);
                }
            }
            TopValue::Null => self.not_kubernetes("empty document"),
            TopValue::Other => self.not_kubernetes("not an object"),
        }
    }

    /// An element of a list or array.
    pub fn element(
        &mut self,
        loc: &Loc,
        e: Element<'_>,
        ctx: Option<&ListCtx>,
        frame: &mut ListFrame,
    ) {
        match e {
            Element::Object(doc) => self.value(loc, doc, ctx, Some(frame)),
            Element::Other => self.not_kubernetes("not an object"),
        }
    }

    /// A map: discovery document, version report, list or object.
    pub fn value(
        &mut self,
        loc: &Loc,
        mut doc: Doc<'_>,
        ctx: Option<&ListCtx>,
        frame: Option<&mut ListFrame>,
    ) {
        self.value_in_place(loc, &mut doc, ctx, frame)
    }

    /// [`Reader::value`] of a document parsed in place (a list's items are not moved).
    pub fn value_in_place(
        &mut self,
        loc: &Loc,
        doc: &mut Doc<'_>,
        ctx: Option<&ListCtx>,
        frame: Option<&mut ListFrame>,
    ) {
        if let Some((priority, version)) = server_version_hint(doc) {
            self.res.offer_server_version(priority, version);
        }
        if self.res.discovery(doc) {
            self.stats.discovery += 1;
            return;
        }
        if is_list(doc) {
            self.list(loc, std::mem::take(doc));
        } else {
            self.object(loc, doc, ctx, frame);
        }
    }

    /// A list whose items are all in `doc`.
    fn list(&mut self, loc: &Loc, mut doc: Doc<'_>) {
        let items = std::mem::take(&mut doc.items);
        match items {
            Items::Absent | Items::Null => {}
            Items::NotAList => {
                let hole = self.list_hole(&ListCtx::of(&doc), &ListFrame::default());
                self.broken(loc, "`items` is neither a list nor null", hole);
            }
            Items::List(v) => {
                let ctx = ListCtx::of(&doc);
                let mut frame = self.frame();
                for (i, e) in v.into_iter().enumerate() {
                    self.element(&loc.item(i, None), e, Some(&ctx), &mut frame);
                }
                self.end_list(loc, &doc, &frame);
            }
        }
    }

    /// A list is complete: its items' kinds count as held where it is a whole server list.
    pub fn end_list(&mut self, loc: &Loc, doc: &Doc<'_>, frame: &ListFrame) {
        if let Some(e) = &doc.error {
            // The list's own metadata is unreadable: whether it is whole cannot be told.
            let hole = self.list_hole(&ListCtx::of(doc), frame);
            self.broken(loc, e.clone(), hole);
            return;
        }
        let server = doc.metadata.as_ref().is_some_and(|m| {
            is_server_list(
                &m.meta.resource_version,
                m.continue_token.as_deref(),
                m.remaining,
            )
        });
        if server {
            self.cov.cover_frame(frame.id);
        }
    }

    /// What a broken list could have held: its own kind and every kind its items named,
    /// everywhere; everything when it names none (a cut kubectl `List` shows its kind last).
    pub fn list_hole(&mut self, ctx: &ListCtx, frame: &ListFrame) -> Hole {
        let mut named: Vec<Hole> = frame
            .kinds
            .iter()
            .map(|&gk| Hole::Kind {
                gk: self.cov.gks[gk as usize].clone(),
                namespace: None,
            })
            .collect();
        if let Some(k) = &ctx.kind {
            named.push(self.hole_of(&ctx.api_version, k, None));
        } else {
            return Hole::Everything;
        }
        // One hole per kind: record all but the last here, return the last.
        let last = named.pop().unwrap_or(Hole::Everything);
        for h in named {
            self.cov.hole(h, "a broken list named this kind".to_owned());
        }
        last
    }

    /// One object (or something that looks like one).
    pub fn object(
        &mut self,
        loc: &Loc,
        doc: &Doc<'_>,
        ctx: Option<&ListCtx>,
        frame: Option<&mut ListFrame>,
    ) {
        use std::borrow::Cow;
        let mut kind: Cow<'_, str> = Cow::Borrowed(doc.kind());
        let mut api_version: Cow<'_, str> = Cow::Borrowed(doc.api_version());
        if let Some(ctx) = ctx
            && kind.is_empty()
            && let Some(k) = &ctx.kind
        {
            kind = Cow::Owned(k.clone());
            if api_version.is_empty() {
                api_version = Cow::Owned(ctx.api_version.clone());
            }
        }
        if let Some(e) = &doc.error {
            let hole = self.hole_of(&api_version, &kind, doc.namespace());
            self.broken(loc, e.clone(), hole);
            return;
        }
        let uid = doc.has_uid();
        if kind.is_empty() || api_version.is_empty() {
            let typed = !kind.is_empty() || !api_version.is_empty();
            if !typed && !uid {
                self.not_kubernetes(if doc.keys == 0 {
                    "empty object"
                } else {
                    "no kind, apiVersion or metadata.uid"
                });
                return;
            }
            if !typed && let Some(crd) = CrdInfo::of(doc) {
                // A CRD written without TypeMeta (typed-client output, e.g. troubleshoot
                // bundles): its shape is unmistakable.
                let name = doc.metadata.as_ref().map(|m| m.meta.name.as_ref());
                if name == Some(&format!("{}.{}", crd.plural, crd.group)) {
                    api_version = if doc
                        .hints()
                        .spec
                        .as_ref()
                        .is_some_and(|s| s.version.is_some())
                    {
                        "apiextensions.k8s.io/v1beta1".into()
                    } else {
                        "apiextensions.k8s.io/v1".into()
                    };
                    kind = "CustomResourceDefinition".into();
                }
            }
            if (kind.is_empty() || api_version.is_empty())
                && !typed
                && let Some((group, version, plural)) = doc
                    .metadata
                    .as_ref()
                    .and_then(|m| m.self_link.as_deref())
                    .and_then(self_link_resource)
            {
                let meta = doc
                    .metadata
                    .clone()
                    .map(|m| m.into_owned().meta)
                    .unwrap_or_default();
                self.res.deferred.push(Deferred {
                    source: loc.label(),
                    group,
                    version,
                    plural,
                    metadata: meta,
                });
                return;
            }
            if kind.is_empty() || api_version.is_empty() {
                let reason = if kind.is_empty() && ctx.is_some() {
                    "list item has no kind, and its list does not say which kind it holds"
                } else if kind.is_empty() {
                    "no kind/apiVersion: cannot tell which resource this object belongs to"
                } else {
                    "no apiVersion"
                };
                let hole = self.hole_of(&api_version, &kind, doc.namespace());
                self.unusable(loc, reason, hole);
                return;
            }
        }
        let Some((group, version)) = self.split_api_version_cached(&api_version) else {
            let hole = self.hole_of(&api_version, &kind, doc.namespace());
            self.broken(loc, format!("invalid apiVersion {api_version:?}"), hole);
            return;
        };
        let Some(meta) = &doc.metadata else {
            let hole = self.hole_of(&api_version, &kind, None);
            self.unusable(loc, "no metadata", hole);
            return;
        };
        let mut synthesized;
        let mut meta = meta;
        if self.opts.manifests && meta.meta.name.is_empty() {
            // The API server refuses an object without a name unless it has a
            // `generateName`, from which it makes a unique one.
            match meta.generate_name.as_deref().filter(|g| !g.is_empty()) {
                Some(g) => {
                    self.manifest_uids += 1;
                    synthesized = meta.clone();
                    synthesized.meta.name =
                        std::borrow::Cow::Owned(format!("{g}kgc-generated-{}", self.manifest_uids));
                    meta = &synthesized;
                }
                None => {
                    let hole = self.hole_of(&api_version, &kind, doc.namespace());
                    self.broken(
                        loc,
                        "no metadata.name (nor generateName): the API server refuses to create it",
                        hole,
                    );
                    return;
                }
            }
        }
        if meta.meta.uid.is_empty() {
            if !self.opts.manifests {
                let hole = self.hole_of(&api_version, &kind, doc.namespace());
                self.unusable(loc, "no metadata.uid", hole);
                return;
            }
            // A manifest as people write it: the object gets its UID when it is created.
            self.manifest_uids += 1;
            synthesized = meta.clone();
            synthesized.meta.uid =
                std::borrow::Cow::Owned(format!("kgc-manifest-{}", self.manifest_uids));
            meta = &synthesized;
        }
        if group == "apiextensions.k8s.io"
            && kind == "CustomResourceDefinition"
            && let Some(crd) = CrdInfo::of(doc)
        {
            self.res.crd(crd);
        }
        if super::doc::has_details(Some(&kind)) {
            self.details_of(doc, group, &kind, &meta.meta.name);
        }
        let (rid, gk) = self.resolve(&api_version, group, version, &kind);
        self.stats.objects += 1;
        if self.opts.manifests {
            self.origin(loc);
        }
        self.cov.version(gk, version);
        let frame = match frame {
            Some(f) => {
                f.item(gk);
                f.id
            }
            None => NO_FRAME,
        };
        // The namespace is recorded on the store's thread ([`PairLog`]).
        self.sink.push(rid, &meta.meta, PairLog::tag(gk, frame));
    }

    /// Records where the object about to be pushed came from (manifests: every object has a
    /// UID by then, so every one is pushed and origins stay in push order).
    fn origin(&mut self, loc: &Loc) {
        let file = match &self.last_file {
            Some(f) if **f == *loc.file => f.clone(),
            _ => {
                let f: std::sync::Arc<str> = std::sync::Arc::from(&*loc.file);
                self.last_file = Some(f.clone());
                f
            }
        };
        let lines = self.lines.as_ref().and_then(|l| l.get(loc.item));
        self.origins.push(super::origin::Origin {
            file,
            doc: (loc.many && loc.doc > 0).then_some(loc.doc as u32),
            item: loc.item.map(|i| i as u32),
            line: lines.map(|l| l.start),
            ref_lines: lines.map(|l| l.refs.clone()).unwrap_or_default(),
        });
    }

    /// Keeps what a Namespace or an APIService says beyond its metadata. A file's APIServices
    /// are recorded as read once any is seen: a dump holds all of them or none.
    fn details_of(&mut self, doc: &Doc<'_>, group: &str, kind: &str, name: &str) {
        let h = doc.hints();
        match (group, kind) {
            ("", "Namespace") => {
                let status = crate::snapshot::details::namespace_status_from_json(
                    h.detail_spec.as_ref(),
                    h.detail_status.as_ref(),
                );
                self.details.namespaces.insert(name.to_owned(), status);
            }
            ("apiregistration.k8s.io", "APIService") => {
                let object = serde_json::json!({
                    "metadata": {"name": name},
                    "spec": h.detail_spec.clone().unwrap_or_default(),
                    "status": h.detail_status.clone().unwrap_or_default(),
                });
                if let Some(a) = crate::snapshot::details::api_service_from_json(&object) {
                    self.details
                        .api_services
                        .get_or_insert_with(Vec::new)
                        .push(a);
                }
            }
            _ => {}
        }
    }

    /// [`split_api_version`], remembering the last answer: consecutive items share their
    /// apiVersion, and splitting it showed in a large List's profile (BENCHMARKS.md, "Figures behind the code").
    pub(crate) fn split_api_version_cached<'a>(
        &mut self,
        api_version: &'a str,
    ) -> Option<(&'a str, &'a str)> {
        if self.last_split.0 != api_version {
            let at = split_api_version(api_version).map(|(_, v)| api_version.len() - v.len());
            self.last_split = (api_version.to_owned(), at);
        }
        let at = self.last_split.1?;
        let group = if at == 0 { "" } else { &api_version[..at - 1] };
        Some((group, &api_version[at..]))
    }

    /// The resource row and group/kind of `apiVersion`/`kind`.
    fn resolve(
        &mut self,
        api_version: &str,
        group: &str,
        version: &str,
        kind: &str,
    ) -> (ResourceId, u32) {
        if let Some((a, k, rid, gk)) = &self.last
            && a == api_version
            && k == kind
        {
            return (*rid, *gk);
        }
        let rid = self.res.row(group, version, kind);
        let gk = self.cov.gk(group, kind);
        self.last = Some((api_version.to_owned(), kind.to_owned(), rid, gk));
        (rid, gk)
    }
}

/// True when `doc` is a list: `kind: …List` (unless it is an object with a uid and no items),
/// or no kind with `items` that are a list or null and no uid.
pub(crate) fn is_list(doc: &Doc<'_>) -> bool {
    let kind = doc.kind();
    if kind.is_empty() {
        matches!(doc.items, Items::List(_) | Items::Null) && !doc.has_uid()
    } else {
        kind.ends_with("List") && (!matches!(doc.items, Items::Absent) || !doc.has_uid())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_past_the_last_number_get_none() {
        let mut last = 0;
        assert_eq!(next_frame(&mut last).id, 1);
        assert_eq!(next_frame(&mut last).id, 2);
        let mut last = NO_FRAME - 2;
        assert_eq!(next_frame(&mut last).id, NO_FRAME - 1);
        assert_eq!(next_frame(&mut last).id, NO_FRAME);
        assert_eq!(next_frame(&mut last).id, NO_FRAME);
    }
}
