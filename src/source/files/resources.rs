//! The resource table of a file snapshot: rows for the kinds the objects belong to, completed
//! from discovery documents, CRDs and the built-in catalogue; kinds only known to be served
//! get [`ListOutcome::NotListed`] rows, so the REST mapper knows they exist.

use super::coverage::Coverage;
use super::doc::Doc;
use crate::catalog::{KubeVersion, builtin};
use crate::model::{MetaIn, ResourceId};
use crate::snapshot::{ListOutcome, Resource, split_api_version};
use std::cmp::Ordering;
use std::collections::HashMap;

#[derive(Debug, Clone)]
pub(crate) struct CrdInfo {
    pub group: String,
    pub kind: String,
    pub plural: String,
    pub namespaced: bool,
    /// Served versions.
    pub versions: Vec<String>,
}

impl CrdInfo {
    /// `spec.group`, `spec.names` and `spec.scope` of a CRD (v1 or v1beta1).
    pub fn of(doc: &Doc<'_>) -> Option<CrdInfo> {
        let spec = doc.hints().spec.as_ref()?;
        let group = spec.group.as_deref()?;
        let kind = spec.kind.as_deref()?;
        let plural = spec.plural.as_deref()?;
        if group.is_empty() || kind.is_empty() || plural.is_empty() {
            return None;
        }
        let mut versions: Vec<String> = Vec::new();
        for v in &spec.versions {
            if let Some(name) = &v.name
                && v.served.unwrap_or(true)
                && !versions.contains(name)
            {
                versions.push(name.clone());
            }
        }
        if let Some(v) = &spec.version
            && !versions.contains(v)
        {
            versions.push(v.clone());
        }
        Some(CrdInfo {
            group: group.to_owned(),
            kind: kind.to_owned(),
            plural: plural.to_owned(),
            namespaced: spec.scope.as_deref() != Some("Cluster"),
            versions,
        })
    }
}

#[derive(Debug, Clone)]
struct Discovered {
    plural: String,
    namespaced: bool,
    verbs: Vec<String>,
}

/// An object without `kind`/`apiVersion` whose `metadata.selfLink` names its resource; the kind
/// is looked up once all CRDs and discovery documents are known.
#[derive(Debug)]
pub(crate) struct Deferred {
    pub source: String,
    pub group: String,
    pub version: String,
    pub plural: String,
    pub metadata: MetaIn<'static>,
}

/// Rows and what completes them.
#[derive(Debug, Default)]
pub(crate) struct Resources {
    pub rows: Vec<Resource>,
    by_gvk: HashMap<(String, String, String), ResourceId>,
    crds: HashMap<(String, String), CrdInfo>,
    discovered: HashMap<(String, String, String), Discovered>,
    discovered_order: Vec<(String, String, String)>,
    group_preferred: HashMap<String, String>,
    pub server_version: Option<(u8, String)>,
    pub deferred: Vec<Deferred>,
}

impl Resources {
    /// The row of group/version/kind, added (to be completed later) when new.
    pub fn row(&mut self, group: &str, version: &str, kind: &str) -> ResourceId {
        let key = (group.to_owned(), version.to_owned(), kind.to_owned());
        if let Some(&id) = self.by_gvk.get(&key) {
            return id;
        }
        let id = ResourceId(self.rows.len() as u32);
        self.rows.push(Resource {
            group: group.to_owned(),
            version: version.to_owned(),
            kind: kind.to_owned(),
            plural: String::new(),
            namespaced: false,
            verbs: Vec::new(),
            preferred_version: version.to_owned(),
            list: ListOutcome::Partial {
                namespaces: Vec::new(),
            },
        });
        self.by_gvk.insert(key, id);
        id
    }

    pub fn crd(&mut self, crd: CrdInfo) {
        self.crds
            .entry((crd.group.clone(), crd.kind.clone()))
            .or_insert(crd);
    }

    pub fn offer_server_version(&mut self, priority: u8, version: String) {
        if self
            .server_version
            .as_ref()
            .is_none_or(|(p, _)| priority < *p)
        {
            self.server_version = Some((priority, version));
        }
    }

    /// Records a discovery document; `false` when `doc` is not one.
    pub fn discovery(&mut self, doc: &Doc<'_>) -> bool {
        let kind = doc.kind();
        let h = doc.hints();
        let untyped = kind.is_empty() && doc.metadata.is_none();
        if kind == "APIResourceList"
            || (untyped && h.group_version.is_some() && h.resources.is_some())
        {
            self.api_resource_list(doc);
            return true;
        }
        if kind == "APIGroupList" {
            for g in h.groups.iter().flatten() {
                let preferred = g.preferred_version.as_ref().and_then(|p| p.version.clone());
                if let (Some(name), Some(p)) = (&g.name, preferred) {
                    self.prefer(name, p);
                }
            }
            return true;
        }
        if kind == "APIGroup"
            || (untyped
                && h.name.is_some()
                && h.versions.is_some()
                && h.preferred_version.is_some())
        {
            let preferred = h.preferred_version.as_ref().and_then(|p| p.version.clone());
            if let (Some(name), Some(p)) = (&h.name, preferred) {
                self.prefer(name, p);
            }
            return true;
        }
        false
    }

    fn prefer(&mut self, group: &str, version: String) {
        if !version.is_empty() {
            self.group_preferred
                .entry(group.to_owned())
                .or_insert(version);
        }
    }

    fn api_resource_list(&mut self, doc: &Doc<'_>) {
        let gv = doc.hints().group_version.as_deref().unwrap_or("");
        let Some((group, version)) = split_api_version(gv) else {
            return;
        };
        for r in doc.hints().resources.iter().flatten() {
            let plural = r.name.as_deref().unwrap_or("");
            let kind = r.kind.as_deref().unwrap_or("");
            if plural.is_empty() || plural.contains('/') || kind.is_empty() {
                continue; // subresources
            }
            let key = (group.to_owned(), version.to_owned(), kind.to_owned());
            if self.discovered.contains_key(&key) {
                continue;
            }
            self.discovered.insert(
                key.clone(),
                Discovered {
                    plural: plural.to_owned(),
                    namespaced: r.namespaced.unwrap_or(true),
                    verbs: r.verbs.clone(),
                },
            );
            self.discovered_order.push(key);
        }
    }

    /// The kind served as `group/version` `plural`, from the catalogue, discovery, CRDs or the
    /// kinds seen in the input.
    pub fn kind_for_plural(
        &self,
        cov: &Coverage,
        group: &str,
        version: &str,
        plural: &str,
    ) -> Option<String> {
        if let Some(r) = builtin::all()
            .iter()
            .find(|r| r.group == group && r.plural == plural)
        {
            return Some(r.kind.to_owned());
        }
        if let Some(((_, _, k), _)) = self
            .discovered
            .iter()
            .find(|((g, v, _), d)| g == group && v == version && d.plural == plural)
        {
            return Some(k.clone());
        }
        if let Some(c) = self
            .crds
            .values()
            .find(|c| c.group == group && c.plural == plural)
        {
            return Some(c.kind.clone());
        }
        let mut seen: Vec<&String> = cov
            .gks
            .iter()
            .filter(|(g, k)| g == group && guess_plural(k) == plural)
            .map(|(_, k)| k)
            .collect();
        seen.sort();
        seen.first().map(|k| (*k).clone())
    }

    /// Completes every row (plural, scope, verbs, preferred version, coverage) and adds
    /// [`ListOutcome::NotListed`] rows for kinds only known to be served.
    pub fn complete(&mut self, cov: &Coverage, assume_complete: bool) {
        let at = self
            .server_version
            .as_ref()
            .and_then(|(_, v)| KubeVersion::parse(v));
        let mut crds: Vec<&CrdInfo> = self.crds.values().collect();
        crds.sort_by(|a, b| (&a.group, &a.kind).cmp(&(&b.group, &b.kind)));
        let mut extra = Vec::new();
        for crd in crds {
            for v in &crd.versions {
                extra.push((crd.group.clone(), v.clone(), crd.kind.clone()));
            }
        }
        extra.extend(self.discovered_order.iter().cloned());
        for (group, version, kind) in extra {
            let key = (group.clone(), version.clone(), kind.clone());
            if self.by_gvk.contains_key(&key) {
                continue;
            }
            self.by_gvk.insert(key, ResourceId(self.rows.len() as u32));
            self.rows.push(Resource {
                group,
                version: version.clone(),
                kind,
                plural: String::new(),
                namespaced: false,
                verbs: Vec::new(),
                preferred_version: version,
                list: ListOutcome::NotListed,
            });
        }
        let rows = std::mem::take(&mut self.rows);
        self.rows = rows
            .into_iter()
            .map(|r| self.fill_row(r, cov, at, assume_complete))
            .collect();
    }

    fn fill_row(
        &self,
        mut r: Resource,
        cov: &Coverage,
        at: Option<KubeVersion>,
        assume_complete: bool,
    ) -> Resource {
        let key = (r.group.clone(), r.kind.clone());
        let seen = cov.find(&r.group, &r.kind).map(|i| &cov.seen[i as usize]);
        let disc = self
            .discovered
            .get(&(r.group.clone(), r.version.clone(), r.kind.clone()));
        let crd = self.crds.get(&key);
        let known = builtin::find(&r.group, &r.kind);
        if let Some(d) = disc {
            r.plural = d.plural.clone();
            r.namespaced = d.namespaced;
            r.verbs = d.verbs.clone();
        } else if let Some(c) = crd {
            r.plural = c.plural.clone();
            r.namespaced = c.namespaced;
        } else if let Some(k) = known {
            r.plural = k.plural.to_owned();
            r.namespaced = k.namespaced;
        } else {
            r.plural = guess_plural(&r.kind);
            r.namespaced = seen.is_some_and(|s| s.namespaces.iter().any(|n| !n.is_empty()));
        }
        let seen_versions: Vec<&str> = seen
            .map(|s| s.versions.iter().map(String::as_str).collect())
            .unwrap_or_default();
        r.preferred_version = if let Some(p) = self.group_preferred.get(&r.group) {
            p.clone()
        } else if let Some(c) = crd.filter(|c| !c.versions.is_empty()) {
            highest_priority(c.versions.iter().map(String::as_str)).to_owned()
        } else if let Some(k) = known {
            let by_server = at.and_then(|at| k.preferred_at(at));
            let by_input = k
                .versions
                .iter()
                .map(|v| v.version)
                .find(|v| seen_versions.contains(v));
            by_server
                .or(by_input)
                .or(k.versions.first().map(|v| v.version))
                .unwrap_or(r.version.as_str())
                .to_owned()
        } else if !seen_versions.is_empty() {
            highest_priority(seen_versions.iter().copied()).to_owned()
        } else {
            r.version.clone()
        };
        if !matches!(r.list, ListOutcome::NotListed) {
            r.list = match cov.held(&r.group, &r.kind, assume_complete) {
                Ok(namespaces) => ListOutcome::Partial { namespaces },
                Err(cause) => ListOutcome::Failed {
                    message: format!("broken input may hold these objects: {cause}"),
                },
            };
        }
        r
    }
}

/// `(group, version, plural)` from `metadata.selfLink` (`/api/v1/namespaces/ns/pods/name`,
/// `/apis/g/v/plural/name`), which the API server wrote before 1.20.
pub(crate) fn self_link_resource(link: &str) -> Option<(String, String, String)> {
    let parts: Vec<&str> = link.trim_start_matches('/').split('/').collect();
    let (group, version, rest) = match parts.as_slice() {
        ["api", version, rest @ ..] => ("", *version, rest),
        ["apis", group, version, rest @ ..] => (*group, *version, rest),
        _ => return None,
    };
    let plural = match rest {
        ["namespaces", _, plural, _name, ..] => *plural,
        [plural, _name, ..] => *plural,
        _ => return None,
    };
    if version.is_empty() || plural.is_empty() {
        return None;
    }
    Some((group.to_owned(), version.to_owned(), plural.to_owned()))
}

/// The API server version a document reveals, with a priority (lower wins):
///
/// * 0: `kubectl version -o json|yaml` (`serverVersion.gitVersion`), the `/version` response
///   (`gitVersion` with `major`), a troubleshoot bundle's `cluster-info/cluster_version.json`
///   (`info.gitVersion`), a support-bundle-kit `metadata.yaml` (`kubernetesversion`);
/// * 1: OpenShift's `ClusterOperator kube-apiserver` (`status.versions[kube-apiserver]`).
pub(crate) fn server_version_hint(doc: &Doc<'_>) -> Option<(u8, String)> {
    let norm = |s: &str| {
        let s = s.trim();
        if s.is_empty() {
            None
        } else if s.starts_with('v') {
            Some(s.to_owned())
        } else {
            Some(format!("v{s}"))
        }
    };
    let h = doc.hints();
    let kind = doc.kind();
    if kind.is_empty() && doc.metadata.is_none() {
        if let Some(s) = &h.server_git_version {
            return norm(s).map(|s| (0, s));
        }
        if let Some(s) = &h.info_git_version {
            return norm(s).map(|s| (0, s));
        }
        if h.has_major {
            return norm(h.git_version.as_deref().unwrap_or("")).map(|s| (0, s));
        }
        if let Some(k) = &h.kubernetes_version {
            return norm(k).map(|s| (0, s));
        }
        return None;
    }
    if kind == "ClusterOperator"
        && doc.api_version().starts_with("config.openshift.io/")
        && doc.metadata.as_ref().map(|m| m.meta.name.as_ref()) == Some("kube-apiserver")
    {
        let found = h
            .status_versions
            .iter()
            .find(|e| e.name.as_deref() == Some("kube-apiserver"))?;
        return norm(found.version.as_deref().unwrap_or("")).map(|s| (1, s));
    }
    None
}

/// `kubectl`'s guess of a kind's resource name (`UnsafeGuessKindToResource`).
pub(crate) fn guess_plural(kind: &str) -> String {
    let lower = kind.to_ascii_lowercase();
    if lower.is_empty() {
        return lower;
    }
    if lower.ends_with('s') {
        return format!("{lower}es");
    }
    if let Some(stem) = lower.strip_suffix('y')
        && !stem.ends_with(['a', 'e', 'i', 'o', 'u'])
    {
        return format!("{stem}ies");
    }
    format!("{lower}s")
}

/// Kubernetes' version priority: GA before beta before alpha, higher numbers first, then
/// anything else alphabetically.
pub(crate) fn compare_version_priority(a: &str, b: &str) -> Ordering {
    fn parse(v: &str) -> Option<(u8, u64, u64)> {
        let rest = v.strip_prefix('v')?;
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        let major: u64 = rest[..digits].parse().ok()?;
        let tail = &rest[digits..];
        if tail.is_empty() {
            return Some((2, major, 0));
        }
        let (class, minor) = if let Some(m) = tail.strip_prefix("beta") {
            (1, m)
        } else if let Some(m) = tail.strip_prefix("alpha") {
            (0, m)
        } else {
            return None;
        };
        let minor = if minor.is_empty() {
            0
        } else {
            minor.parse().ok()?
        };
        Some((class, major, minor))
    }
    match (parse(a), parse(b)) {
        (Some(x), Some(y)) => y.cmp(&x),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => a.cmp(b),
    }
}

fn highest_priority<'a>(versions: impl Iterator<Item = &'a str>) -> &'a str {
    versions
        .min_by(|a, b| compare_version_priority(a, b))
        .unwrap_or("")
}
