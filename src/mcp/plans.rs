//! `planId` and `apply_plan`: a preview bound to what it read, and exactly that plan carried out.
//!
//! A preview (`plan`, `delete_preview` with `--allow-apply` on a live cluster) reads the
//! cluster once, in process, and hands that read to the command as `--snapshot -`: the document
//! is the CLI's for that very read. The server then makes the same plan in process and matches
//! every action of the document to one of its own (equal as JSON, field by field). The id is the
//! SHA-256 of the cluster, the call, the document's actions and the resourceVersion of every
//! object the plan rests on (each target and end state, their owners, their dependents; an owner
//! that is not there counts as `absent`).
//!
//! `apply_plan` takes an id the server issued (once: it is spent whatever happens), reads
//! the cluster again, and makes the preview again: a different id means the plan or something
//! it rests on changed, and nothing is written. Otherwise the matched actions are performed with
//! [`crate::apply::run`] (one round, no re-planning: what `collect --apply` does in its first
//! round), each re-verified just before its request and sent with the GC's preconditions; a
//! delete preview sends only the user's delete, as `collect --apply --delete` does.

use super::server::{Inner, Outcome};
use super::tools::{Args, Kind};
use crate::apply::{self, Header, Record, Stop, kube::KubeOps};
use crate::gc::plan::{Action, Plan, Reason, UserDelete};
use crate::gc::{GarbageCollector, Policy};
use crate::render::plan as view;
use crate::render::text::sanitized;
use crate::snapshot::Snapshot;
use crate::source::live::{self, Connection};
use serde_json::{Map, Value, json};
use sha2::Digest;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A plan id the server handed out.
#[derive(Debug, Clone)]
struct Issued {
    kind: Kind,
    args: Args,
    at: Instant,
    read: BTreeMap<String, (String, String)>,
}

/// The ids handed out and not yet spent.
#[derive(Debug)]
pub struct Plans {
    ttl: Duration,
    issued: Mutex<HashMap<String, Issued>>,
}

impl Plans {
    /// Ids valid for `ttl`.
    pub fn new(ttl: Duration) -> Plans {
        Plans {
            ttl,
            issued: Mutex::new(HashMap::new()),
        }
    }

    fn issue(&self, id: &str, issued: Issued) {
        if let Ok(mut map) = self.issued.lock() {
            map.retain(|_, i| i.at.elapsed() < self.ttl);
            map.insert(id.to_owned(), issued);
        }
    }

    /// Takes `id` out (an id is used once), if it was issued and has not expired.
    fn take(&self, id: &str) -> Result<Issued, String> {
        let mut map = self.issued.lock().map_err(|_| "the plan store is broken")?;
        let issued = map.remove(id).ok_or_else(|| {
            format!(
                "unknown planId {}: it was never issued by this server, or was already used; \
                 nothing was changed. Call plan or delete_preview for a new one",
                super::paths::shown(id)
            )
        })?;
        if issued.at.elapsed() >= self.ttl {
            return Err(format!(
                "planId {} expired ({}s after the preview); nothing was changed. Preview again",
                super::paths::shown(id),
                self.ttl.as_secs()
            ));
        }
        Ok(issued)
    }
}

/// A read of the cluster for a preview.
struct Read {
    conn: Connection,
    snap: Snapshot,
    /// The call as the command gets it: the read on stdin, the namespace resolved.
    args: Args,
}

/// One line from an error of the library.
fn line(e: &crate::error::Error) -> String {
    let mut s = e.lines().join("; ");
    if let Some(h) = e.hint() {
        s.push_str("; hint: ");
        s.push_str(h);
    }
    sanitized(&s)
}

/// Reads the cluster as the command would for this call (a plan: its namespace; a delete
/// preview: everything, as its cascade may leave the namespace).
async fn read(me: &Inner, kind: Kind, args: &Args) -> Result<Read, String> {
    let d = &me.config.defaults;
    let mut opts = d.connect.clone();
    if let Some(c) = &args.context {
        opts.context = Some(c.clone());
    }
    if let Some(k) = &args.kubeconfig {
        opts.kubeconfig = Some(me.root.resolve(k)?);
    }
    if args.namespace.is_some() {
        opts.namespace = args.namespace.clone();
    }
    let limit = me.config.timeout;
    let late = || format!("reading the cluster took longer than {}s", limit.as_secs());
    let conn = tokio::time::timeout(limit, live::connect(&opts))
        .await
        .map_err(|_| late())?
        .map_err(|e| line(&e))?;
    let all = args
        .all_namespaces
        .unwrap_or(args.namespace.is_none() && d.all_namespaces);
    let namespace = (!all).then(|| {
        args.namespace
            .clone()
            .or_else(|| d.namespace.clone())
            .unwrap_or_else(|| conn.default_namespace.clone())
    });
    let mut list = d.live.clone();
    list.namespace = if kind == Kind::Plan {
        namespace.clone()
    } else {
        None
    };
    let snap = tokio::time::timeout(limit, live::snapshot(&conn, &list, &|_| {}))
        .await
        .map_err(|_| late())?
        .map_err(|e| line(&e))?;
    let mut resolved = args.clone();
    resolved.stdin_snapshot = true;
    resolved.context = None;
    resolved.kubeconfig = None;
    resolved.all_namespaces = all.then_some(true);
    resolved.namespace = namespace;
    Ok(Read {
        conn,
        snap,
        args: resolved,
    })
}

/// The command's document for `read`.
async fn document(me: &Inner, kind: Kind, read: &Read) -> Outcome {
    let mut bytes = Vec::new();
    crate::snapshot::format::write(&read.snap, &mut bytes)
        .map_err(|e| format!("cannot hand the read to the command: {e}"))?;
    me.run_with(kind, &read.args, Some(bytes)).await
}

/// The GC release the command emulates for `read` (its `Loaded::gc_version`).
fn gc_version(me: &Inner, read: &Read) -> Result<crate::catalog::KubeVersion, String> {
    let asked = match &read.args.gc_version {
        Some(v) => Some(
            v.parse::<crate::catalog::KubeVersion>()
                .map_err(|_| format!("`gc_version` {} is not a release", super::paths::shown(v)))?,
        ),
        None => me.config.defaults.gc_version,
    };
    Ok(asked.unwrap_or_else(|| GarbageCollector::default_gc_version(&read.snap)))
}

/// The plan the command made, made again in process.
fn plan_of(gc: &GarbageCollector<'_>, kind: Kind, args: &Args) -> Result<Plan, String> {
    if kind == Kind::Plan {
        return Ok(Plan::steady_state(gc));
    }
    let target = args.object.as_deref().unwrap_or_default();
    let ns = if args.all_namespaces == Some(true) {
        None
    } else {
        args.namespace.as_deref()
    };
    let id = crate::lookup::resolve_target(gc.snap, target, ns).map_err(|e| line(&e))?;
    let policy = match args.cascade.as_deref() {
        Some("foreground") => Some(Policy::Foreground),
        Some("orphan") => Some(Policy::Orphan),
        Some("default") => None,
        _ => Some(Policy::Background),
    };
    Ok(Plan::preview_delete(gc, UserDelete { target: id, policy }))
}

/// For each action of the document, the index of the equal action of `plan`.
fn matched(
    gc: &GarbageCollector<'_>,
    plan: &Plan,
    kind: Kind,
    doc: &Map<String, Value>,
) -> Result<Vec<usize>, String> {
    let mode = if kind == Kind::Plan {
        "collect"
    } else {
        "delete-preview"
    };
    let report = view::report(gc, plan, mode);
    let ours: Vec<Value> = report
        .actions
        .iter()
        .map(|a| serde_json::to_value(a).unwrap_or(Value::Null))
        .collect();
    let mut used = vec![false; ours.len()];
    let mut out = Vec::new();
    for theirs in doc
        .get("actions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        // `when` is the timeline's reading of the action (the command adds it after planning),
        // not part of what is carried out: the actions are matched without it.
        let mut theirs = theirs.clone();
        if let Some(m) = theirs.as_object_mut() {
            m.remove("when");
            m.remove("whenReason");
        }
        let i = (0..ours.len())
            .find(|&i| !used[i] && ours[i] == theirs)
            .ok_or("the server's own plan does not hold an action of the preview; nothing can be applied from it")?;
        used[i] = true;
        out.push(i);
    }
    Ok(out)
}

/// What the plan rests on: uid → (resourceVersion or `absent`, the object as people name it).
fn rests_on(snap: &Snapshot, doc: &Map<String, Value>) -> BTreeMap<String, (String, String)> {
    let store = &snap.store;
    let mut core: BTreeSet<String> = BTreeSet::new();
    for list in ["actions", "outcomes"] {
        for item in doc
            .get(list)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(uid) = item.pointer("/target/uid").and_then(Value::as_str) {
                core.insert(uid.to_owned());
            }
        }
    }
    let mut all = core.clone();
    for uid in &core {
        if let Some(id) = store.by_uid_text(uid) {
            all.extend(
                store
                    .owner_refs(id)
                    .iter()
                    .map(|r| store.str(r.uid).to_owned()),
            );
        }
    }
    for id in store.ids() {
        if store
            .owner_refs(id)
            .iter()
            .any(|r| core.contains(store.str(r.uid)))
        {
            all.insert(store.str(store.object(id).uid).to_owned());
        }
    }
    all.into_iter()
        .map(|uid| {
            let state = match store.by_uid_text(&uid) {
                Some(id) => (
                    store.str(store.object(id).resource_version).to_owned(),
                    snap.describe(id),
                ),
                None => ("absent".to_owned(), format!("uid {uid}")),
            };
            (uid, state)
        })
        .collect()
}

/// The id of the plan `doc` made from `read`.
fn plan_id(
    read: &Read,
    kind: Kind,
    doc: &Map<String, Value>,
    rests: &BTreeMap<String, (String, String)>,
) -> String {
    let a = &read.args;
    let bound = json!({
        "server": read.conn.server_url,
        "context": read.conn.context,
        "tool": kind.doc().name,
        "object": a.object,
        "cascade": a.cascade,
        "namespace": a.namespace,
        "allNamespaces": a.all_namespaces,
        "kinds": a.kinds,
        "selector": a.selector,
        "gcVersion": doc.get("gcVersion"),
        "actions": doc.get("actions"),
        "read": rests.iter().map(|(u, (rv, _))| (u.clone(), json!(rv))).collect::<Map<String, Value>>(),
    });
    let digest = sha2::Sha256::digest(bound.to_string().as_bytes());
    format!("plan-{}", super::hex(&digest[..16]))
}

/// `plan`/`delete_preview` with a planId.
pub async fn preview(me: &Inner, kind: Kind, args: &Args) -> Outcome {
    let read = read(me, kind, args).await?;
    let mut doc = document(me, kind, &read).await?;
    let gc = crate::run::garbage_collector(&read.snap, gc_version(me, &read)?);
    let plan = plan_of(&gc, kind, &read.args)?;
    matched(&gc, &plan, kind, &doc)?;
    let rests = rests_on(&read.snap, &doc);
    let id = plan_id(&read, kind, &doc, &rests);
    me.plans.issue(
        &id,
        Issued {
            kind,
            args: args.clone(),
            at: Instant::now(),
            read: rests,
        },
    );
    doc.insert("planId".into(), json!(id));
    Ok(doc)
}

/// What changed between a preview and the re-read, for the refusal (at most five objects).
fn changes(
    before: &BTreeMap<String, (String, String)>,
    after: &BTreeMap<String, (String, String)>,
) -> String {
    let mut out = Vec::new();
    for (uid, (rv, name)) in before {
        match after.get(uid) {
            Some((now, _)) if now == rv => {}
            Some((now, _)) if rv == "absent" => {
                out.push(format!("{name} appeared (resourceVersion {now})"))
            }
            Some((now, _)) if now == "absent" => out.push(format!("{name} is gone")),
            Some((now, _)) => out.push(format!("{name}: resourceVersion {rv} → {now}")),
            None => out.push(format!("{name} is no longer part of the plan")),
        }
    }
    for (uid, (_, name)) in after {
        if !before.contains_key(uid) {
            out.push(format!("{name} is now part of the plan"));
        }
    }
    if out.is_empty() {
        return "the plan's actions differ".into();
    }
    let more = out.len().saturating_sub(5);
    out.truncate(5);
    let mut s = out.join("; ");
    if more > 0 {
        s.push_str(&format!("; and {more} more"));
    }
    s
}

/// `apply_plan`.
pub async fn apply(me: &Inner, args: &Args) -> Outcome {
    let id = args.plan_id.as_deref().unwrap_or_default();
    let issued = me.plans.take(id)?;
    let kind = issued.kind;
    let read = read(me, kind, &issued.args).await?;
    let doc = document(me, kind, &read).await?;
    let rests = rests_on(&read.snap, &doc);
    if plan_id(&read, kind, &doc, &rests) != id {
        return Err(sanitized(&format!(
            "refused: the cluster changed since the preview ({}); nothing was changed and the \
             planId is spent. Preview again and show the new plan before applying it",
            changes(&issued.read, &rests)
        )));
    }
    let version = gc_version(me, &read)?;
    let limits = (me.config.qps, me.config.timeout);
    // The apply's futures are not `Send` (its progress callback): it runs on a thread of its
    // own, with a runtime of its own; the connection's client works from any runtime.
    let result = tokio::task::spawn_blocking(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start the apply: {e}"))?;
        rt.block_on(carry_out(read, doc, kind, version, limits))
    })
    .await
    .map_err(|e| format!("the apply stopped: {e}"))??;
    let mut out = result;
    out.insert("planId".into(), json!(id));
    Ok(out)
}

/// The plan of `read` made again, and the actions the document shows carried out.
async fn carry_out(
    read: Read,
    mut doc: Map<String, Value>,
    kind: Kind,
    version: crate::catalog::KubeVersion,
    limits: (f64, Duration),
) -> Outcome {
    let gc = crate::run::garbage_collector(&read.snap, version);
    let plan = plan_of(&gc, kind, &read.args)?;
    let indices = matched(&gc, &plan, kind, &doc)?;
    // A delete preview: the user's delete only; the cluster's GC runs the cascade it previewed.
    let actions: Vec<&Action> = indices
        .into_iter()
        .map(|i| &plan.actions[i])
        .filter(|a| kind == Kind::Plan || a.reason == Reason::UserDelete)
        .collect();
    doc.insert("dryRun".into(), json!(false));
    let result = execute(limits, &read, &gc, &plan, &actions, kind).await?;
    let mut out = Map::new();
    out.insert(
        "apiVersion".into(),
        json!(crate::render::REPORT_API_VERSION),
    );
    out.insert("kind".into(), json!("ApplyResult"));
    out.insert("plan".into(), Value::Object(doc));
    out.extend(result);
    Ok(out)
}

/// Performs `actions` in one round; the result and every request sent.
async fn execute(
    (qps, limit): (f64, Duration),
    read: &Read,
    gc: &GarbageCollector<'_>,
    plan: &Plan,
    actions: &[&Action],
    kind: Kind,
) -> Result<Map<String, Value>, String> {
    let conn = &read.conn;
    let header = Header {
        api_version: crate::render::REPORT_API_VERSION,
        kind: "ApplyRecord",
        record_version: apply::record::RECORD_VERSION,
        tool: format!("kubectl-gc {} mcp", env!("CARGO_PKG_VERSION")),
        started_at: crate::snapshot::now_rfc3339(),
        context: conn.context.clone(),
        server: conn.server_url.clone(),
        server_version: conn.server_version.clone(),
        gc_version: gc.rules.version.to_string(),
        mode: if kind == Kind::Plan {
            "collect"
        } else {
            "delete"
        },
        namespace: read.args.namespace.clone(),
        snapshot_captured_at: read.snap.provenance.captured_at.clone(),
        actions: actions.len(),
    };
    let mut record = Record::new(Vec::new(), &header).map_err(|e| e.to_string())?;
    let opts = apply::Options {
        qps,
        user_policy_explicit: read.args.cascade.as_deref() != Some("default"),
    };
    // The time limit stops the apply between actions, never in the middle of one.
    let stop = Arc::new(Stop::new());
    let flag = stop.clone();
    let timer = tokio::spawn(async move {
        tokio::time::sleep(limit).await;
        flag.interrupt();
    });
    let ops = KubeOps::new(conn);
    let summary = apply::run(
        &ops,
        gc,
        &plan.end,
        actions,
        &opts,
        &mut record,
        &stop,
        &mut |_, _, _| {},
    )
    .await;
    timer.abort();
    let entries: Vec<Value> = summary
        .attempted
        .iter()
        .map(|x| {
            let e = &x.entry;
            let mut v = json!({
                "seq": e.seq, "round": e.round, "wave": e.wave, "verb": e.verb,
                "target": e.target, "result": e.result, "message": e.message,
            });
            if let Some(c) = e.cause {
                v["cause"] = json!(c);
            }
            v
        })
        .collect();
    let requests: Vec<Value> = summary
        .attempted
        .iter()
        .flat_map(|x| x.entry.requests.iter())
        .map(|r| serde_json::to_value(r).unwrap_or(Value::Null))
        .collect();
    let mut result = json!({
        "complete": summary.complete(),
        "rounds": summary.rounds,
        "converged": summary.converged,
        "done": summary.done(),
        "skipped": summary.skipped(),
        "skippedChanged": summary.skipped_for(apply::SkipCause::Changed),
        "skippedGcWouldNot": summary.skipped_for(apply::SkipCause::GcWouldNot),
        "failed": summary.failed(),
        "notDone": summary.not_done.len(),
        "left": summary.left.len(),
        "entries": entries,
    });
    if let Some(s) = &summary.stopped {
        result["stopped"] = json!(s.as_str());
    }
    if let Some(m) = summary.incomplete_reason() {
        result["message"] = json!(m);
    }
    let mut out = Map::new();
    out.insert("result".into(), result);
    out.insert("requests".into(), Value::Array(requests));
    Ok(out)
}
