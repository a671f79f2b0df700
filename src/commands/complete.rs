//! Completion candidates that need the input: namespaces, kinds and names, from the files the
//! command line names (`-f`, `--snapshot`) or from the cluster (metadata-only reads), always in
//! bounded time: a TAB must never hang on a slow cluster or a huge must-gather.

use crate::cli::complete::{Candidates, cobra_complete_with};
use crate::snapshot::Snapshot;
use crate::source::live;
use std::ffi::OsString;
use std::time::Duration;

/// How long a completion may spend reading files or asking the cluster.
pub const BUDGET: Duration = Duration::from_secs(3);

/// Answers `kubectl gc __complete WORD…` (kubectl's plugin completion protocol).
pub fn complete(words: &[OsString]) -> String {
    cobra_complete_with(words, &InputCandidates)
}

/// Reads the line's input (or the cluster) for candidates.
struct InputCandidates;

/// The flags of the words typed so far that say where objects come from.
#[derive(Default, Debug)]
struct Line {
    snapshot: Option<String>,
    files: Vec<String>,
    recursive: bool,
    namespace: Option<String>,
    all_namespaces: bool,
    connect: live::ConnectOptions,
}

fn parse_line(words: &[OsString]) -> Line {
    let words: Vec<String> = words
        .iter()
        .map(|w| w.to_string_lossy().into_owned())
        .collect();
    let mut line = Line::default();
    let mut i = 0;
    while i < words.len() {
        let w = &words[i];
        let (flag, inline) = match w.split_once('=') {
            Some((f, v)) if f.starts_with('-') => (f, Some(v.to_owned())),
            _ => (w.as_str(), None),
        };
        let mut value = || -> Option<String> {
            if let Some(v) = &inline {
                return Some(v.clone());
            }
            i += 1;
            words.get(i).cloned()
        };
        let c = &mut line.connect;
        match flag {
            "--snapshot" => line.snapshot = value(),
            "-f" | "--filename" => line.files.extend(value()),
            "-R" | "--recursive" => line.recursive = true,
            "-n" | "--namespace" => line.namespace = value(),
            "-A" | "--all-namespaces" => {
                line.all_namespaces = inline.as_deref().is_none_or(|v| v == "true")
            }
            "--kubeconfig" => c.kubeconfig = value().map(Into::into),
            "--context" => c.context = value(),
            "--cluster" => c.cluster = value(),
            "--user" => c.user = value(),
            "-s" | "--server" => c.overrides.server = value(),
            "--token" => c.overrides.token = value(),
            "--certificate-authority" => {
                c.overrides.certificate_authority = value().map(Into::into)
            }
            "--client-certificate" => c.overrides.client_certificate = value().map(Into::into),
            "--client-key" => c.overrides.client_key = value().map(Into::into),
            "--tls-server-name" => c.overrides.tls_server_name = value(),
            "--insecure-skip-tls-verify" => {
                c.overrides.insecure_skip_tls_verify = inline.as_deref().is_none_or(|v| v == "true")
            }
            "--as" => c.as_user = value(),
            "--as-group" => c.as_groups.extend(value()),
            "--as-uid" => c.overrides.as_uid = value(),
            _ => {}
        }
        i += 1;
    }
    line.connect.namespace = line.namespace.clone();
    // Completion must answer quickly: each request gets the budget at most.
    line.connect.request_timeout = Some(BUDGET);
    line
}

/// Runs `f` on a thread and gives up after [`BUDGET`].
fn bounded<T: Send + 'static>(f: impl FnOnce() -> Option<T> + Send + 'static) -> Option<T> {
    let (tx, rx) = std::sync::mpsc::channel();
    // No thread to be had: no candidates, as with any other failure of completion.
    std::thread::Builder::new()
        .spawn(move || {
            let _ = tx.send(f());
        })
        .ok()?;
    rx.recv_timeout(BUDGET).ok().flatten()
}

/// The snapshot of the line's files, when it names any.
fn read_input(line: &Line) -> Option<Snapshot> {
    if let Some(path) = line.snapshot.clone() {
        return bounded(move || crate::snapshot::format::read_file(path.as_ref()).ok());
    }
    if !line.files.is_empty() && !line.files.iter().any(|f| f == "-") {
        let opts = crate::source::files::FileOptions {
            paths: line.files.iter().map(Into::into).collect(),
            recursive: line.recursive,
            // Completion offers what can be read: broken documents are left out, not fatal.
            keep_going: true,
            assume_complete: false,
            max_input_bytes: crate::source::files::DEFAULT_MAX_INPUT_BYTES,
            manifests: false,
        };
        return bounded(move || crate::source::files::read_files(&opts).ok());
    }
    None
}

/// The kind names kubectl completes: plurals, with `.group` outside the core group.
fn kind_word(plural: &str, group: &str) -> String {
    if group.is_empty() {
        plural.to_owned()
    } else {
        format!("{plural}.{group}")
    }
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v.dedup();
    v
}

impl Candidates for InputCandidates {
    fn namespaces(&self, words: &[OsString]) -> Vec<String> {
        let line = parse_line(words);
        if let Some(snap) = read_input(&line) {
            let store = &snap.store;
            return sorted(
                store
                    .ids()
                    .filter_map(|id| {
                        let o = store.object(id);
                        let r = snap.resource_of(o);
                        if r.group.is_empty() && r.kind == "Namespace" {
                            Some(store.str(o.name).to_owned())
                        } else {
                            Some(store.str(o.namespace).to_owned()).filter(|n| !n.is_empty())
                        }
                    })
                    .collect(),
            );
        }
        if line.snapshot.is_some() || !line.files.is_empty() {
            return Vec::new();
        }
        live_bounded(line, |client, _| async move {
            use k8s_openapi::api::core::v1::Namespace;
            let api: kube::Api<Namespace> = kube::Api::all(client);
            let list = api
                .list_metadata(&kube::api::ListParams::default().limit(1000))
                .await
                .ok()?;
            Some(
                list.items
                    .into_iter()
                    .filter_map(|n| n.metadata.name)
                    .collect(),
            )
        })
    }

    fn kinds(&self, words: &[OsString]) -> Vec<String> {
        let line = parse_line(words);
        if let Some(snap) = read_input(&line) {
            return sorted(
                snap.resources
                    .iter()
                    .filter(|r| r.monitored())
                    .map(|r| kind_word(&r.plural, &r.group))
                    .collect(),
            );
        }
        if line.snapshot.is_some() || !line.files.is_empty() {
            return Vec::new();
        }
        live_bounded(line, |client, _| async move {
            let discovery = kube::Discovery::new(client).run().await.ok()?;
            let mut out = Vec::new();
            for group in discovery.groups() {
                for (ar, caps) in group.recommended_resources() {
                    if caps.supports_operation(kube::discovery::verbs::LIST) {
                        out.push(kind_word(&ar.plural, &ar.group));
                    }
                }
            }
            Some(out)
        })
    }

    fn names(&self, words: &[OsString], kind: &str) -> Vec<String> {
        let line = parse_line(words);
        let all = line.all_namespaces;
        if let Some(snap) = read_input(&line) {
            let namespace = line.namespace.clone().unwrap_or_else(|| "default".into());
            let crate::lookup::KindMatch::Found(rows) = crate::lookup::resolve_kind(&snap, kind)
            else {
                return Vec::new();
            };
            let store = &snap.store;
            return sorted(
                store
                    .ids()
                    .filter(|&id| {
                        let o = store.object(id);
                        rows.contains(&o.resource)
                            && (all
                                || !snap.resource_of(o).namespaced
                                || store.str(o.namespace) == namespace)
                    })
                    .map(|id| store.str(store.object(id).name).to_owned())
                    .collect(),
            );
        }
        if line.snapshot.is_some() || !line.files.is_empty() {
            return Vec::new();
        }
        let kind = kind.to_ascii_lowercase();
        live_bounded(line, move |client, default_ns| async move {
            let discovery = kube::Discovery::new(client.clone()).run().await.ok()?;
            let (ar, caps) = discovery.groups().find_map(|g| {
                g.recommended_resources().into_iter().find(|(ar, _)| {
                    crate::lookup::names_of(&ar.kind, &ar.plural)
                        .iter()
                        .any(|n| *n == kind || format!("{n}.{}", ar.group) == kind)
                })
            })?;
            let lp = kube::api::ListParams::default().limit(1000);
            let api: kube::Api<kube::api::DynamicObject> =
                if caps.scope == kube::discovery::Scope::Namespaced && !all {
                    kube::Api::namespaced_with(client, &default_ns, &ar)
                } else {
                    kube::Api::all_with(client, &ar)
                };
            let list = api.list_metadata(&lp).await.ok()?;
            Some(
                list.items
                    .into_iter()
                    .filter_map(|o| o.metadata.name)
                    .collect(),
            )
        })
    }
}

/// Connects as the line says and runs `f` with the client and the namespace in effect (`-n`,
/// else the context's), all within [`BUDGET`]; nothing on any failure.
fn live_bounded<F, Fut>(line: Line, f: F) -> Vec<String>
where
    F: FnOnce(kube::Client, String) -> Fut + Send + 'static,
    Fut: std::future::Future<Output = Option<Vec<String>>> + Send,
{
    let found = bounded(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .ok()?;
        rt.block_on(async move {
            tokio::time::timeout(BUDGET, async move {
                let conn = live::connect(&line.connect).await.ok()?;
                f(conn.client, conn.default_namespace).await
            })
            .await
            .ok()
            .flatten()
        })
    });
    sorted(found.unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(w: &[&str]) -> Vec<OsString> {
        w.iter().map(OsString::from).collect()
    }

    #[test]
    fn the_line_says_where_objects_come_from() {
        let l = parse_line(&words(&[
            "graph",
            "-f",
            "a.json",
            "--filename=b.json",
            "-n",
            "shop",
            "--context",
            "prod",
            "-s",
            "https://x",
            "--insecure-skip-tls-verify",
            "-A=false",
        ]));
        assert_eq!(l.files, ["a.json", "b.json"]);
        assert_eq!(l.namespace.as_deref(), Some("shop"));
        assert_eq!(l.connect.context.as_deref(), Some("prod"));
        assert_eq!(l.connect.overrides.server.as_deref(), Some("https://x"));
        assert!(l.connect.overrides.insecure_skip_tls_verify);
        assert!(!l.all_namespaces);
    }

    #[test]
    fn kinds_namespaces_and_names_from_files() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("list.json");
        std::fs::write(
            &f,
            r#"{"apiVersion":"v1","kind":"List","items":[
              {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop","uid":"d1"}},
              {"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-1","namespace":"shop","uid":"p1"}},
              {"apiVersion":"v1","kind":"Pod","metadata":{"name":"api-1","namespace":"other","uid":"p2"}}]}"#,
        )
        .unwrap();
        let f = f.to_string_lossy().into_owned();
        let c = InputCandidates;
        assert_eq!(
            c.kinds(&words(&["audit", "-f", &f])),
            ["deployments.apps", "pods"]
        );
        assert_eq!(
            c.namespaces(&words(&["audit", "-f", &f])),
            ["other", "shop"]
        );
        assert_eq!(
            c.names(&words(&["graph", "-f", &f, "-n", "shop"]), "po"),
            ["web-1"]
        );
        assert_eq!(
            c.names(&words(&["graph", "-f", &f, "-A"]), "pods"),
            ["api-1", "web-1"]
        );
        // Through the protocol.
        let out = complete(&words(&[
            "graph",
            "-f",
            &f,
            "-n",
            "shop",
            "deployments.apps/",
        ]));
        assert_eq!(out, "deployments.apps/web\n:4\n");
    }
}
