//! Random ownership forests for the suites that compare with the real GC (`apply_safety`,
//! `differential`): ConfigMaps, Secrets and ClusterRoles, references to existing objects
//! (some with a wrong kind or name, some into another namespace) and to owners that never
//! existed, every `blockOwnerDeletion` value, custom finalizers, and deletion states. The same
//! seed makes the same forests.

use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};

/// The custom finalizer that holds objects terminating.
pub const HOLD: &str = "example.com/hold";

/// A small deterministic generator (splitmix64).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    ConfigMap,
    Secret,
    ClusterRole,
}

impl Kind {
    pub fn api_version(self) -> &'static str {
        match self {
            Kind::ConfigMap | Kind::Secret => "v1",
            Kind::ClusterRole => "rbac.authorization.k8s.io/v1",
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Kind::ConfigMap => "ConfigMap",
            Kind::Secret => "Secret",
            Kind::ClusterRole => "ClusterRole",
        }
    }
    pub fn plural(self) -> &'static str {
        match self {
            Kind::ConfigMap => "configmaps",
            Kind::Secret => "secrets",
            Kind::ClusterRole => "clusterroles",
        }
    }
    pub fn namespaced(self) -> bool {
        self != Kind::ClusterRole
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Delete {
    Background,
    Orphan,
    Foreground,
}

/// How a reference to an existing object is spelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Twist {
    Exact,
    WrongKind,
    WrongName,
}

#[derive(Clone, Debug)]
pub enum Target {
    Object(usize, Twist),
    Missing {
        kind: Kind,
        name: String,
        uid: String,
    },
}

#[derive(Clone, Debug)]
pub struct RefSpec {
    pub target: Target,
    pub block: Option<bool>,
    pub controller: bool,
}

#[derive(Clone, Debug)]
pub struct Obj {
    pub forest: usize,
    pub kind: Kind,
    pub ns: Option<&'static str>,
    pub name: String,
    pub refs: Vec<RefSpec>,
    pub hold: bool,
    pub delete: Option<Delete>,
    pub level: usize,
}

impl Obj {
    pub fn key(&self) -> String {
        format!(
            "{}/{}/{}",
            self.kind.name(),
            self.ns.unwrap_or(""),
            self.name
        )
    }
}

pub fn generate(seed: u64, forests: usize, namespaces: &[&'static str]) -> Vec<Obj> {
    let mut rng = Rng(seed);
    let mut out: Vec<Obj> = Vec::new();
    for f in 0..forests {
        let base = out.len();
        let home = namespaces[f % namespaces.len()];
        let n = 1 + rng.below(3) + rng.below(4);
        let mut missing: Vec<(Kind, String, String)> = Vec::new();
        for j in 0..n {
            let kind = match rng.below(100) {
                0..=69 => Kind::ConfigMap,
                70..=89 => Kind::Secret,
                _ => Kind::ClusterRole,
            };
            let ns = if !kind.namespaced() {
                None
            } else if rng.chance(8) {
                Some(namespaces[(f + 1 + rng.below(namespaces.len() - 1)) % namespaces.len()])
            } else {
                Some(home)
            };
            let name = if kind.namespaced() {
                format!("f{f}-{j}")
            } else {
                format!("diff-f{f}-{j}")
            };
            let wanted = if j == 0 {
                usize::from(rng.chance(35))
            } else {
                1 + usize::from(rng.chance(35))
            };
            let mut refs: Vec<RefSpec> = Vec::new();
            let mut seen: BTreeSet<String> = BTreeSet::new();
            for _ in 0..wanted {
                let target = if j > 0 && rng.chance(72) {
                    let t = base + rng.below(j);
                    let twist = match rng.below(100) {
                        0..=4 => Twist::WrongKind,
                        5..=7 => Twist::WrongName,
                        _ => Twist::Exact,
                    };
                    if !seen.insert(format!("o{t}")) {
                        continue;
                    }
                    Target::Object(t, twist)
                } else {
                    if missing.is_empty() || rng.chance(40) {
                        let mk = match rng.below(100) {
                            0..=69 => Kind::ConfigMap,
                            70..=84 => Kind::Secret,
                            _ => Kind::ClusterRole,
                        };
                        let k = missing.len();
                        missing.push((
                            mk,
                            format!("ghost-{f}-{k}"),
                            format!("00000000-0000-4000-8000-0000{f:04x}{k:04x}"),
                        ));
                    }
                    let (kind, name, uid) = missing[rng.below(missing.len())].clone();
                    if !seen.insert(uid.clone()) {
                        continue;
                    }
                    Target::Missing { kind, name, uid }
                };
                let block = match rng.below(10) {
                    0..=3 => None,
                    4..=7 => Some(true),
                    _ => Some(false),
                };
                let controller = refs.iter().all(|r| !r.controller) && rng.chance(30);
                refs.push(RefSpec {
                    target,
                    block,
                    controller,
                });
            }
            let level = refs
                .iter()
                .filter_map(|r| match r.target {
                    Target::Object(t, _) => Some(out[t].level + 1),
                    Target::Missing { .. } => None,
                })
                .max()
                .unwrap_or(0);
            let hold = rng.chance(15);
            let delete = match rng.below(100) {
                0..=64 => None,
                65..=76 => Some(Delete::Background),
                77..=88 => Some(Delete::Orphan),
                _ => Some(Delete::Foreground),
            };
            out.push(Obj {
                forest: f,
                kind,
                ns,
                name,
                refs,
                hold,
                delete,
                level,
            });
        }
    }
    out
}

/// The object's manifest; `meta(namespace, name, ownerReferences)` makes its metadata (the
/// caller's labels).
pub fn manifest(
    o: &Obj,
    objs: &[Obj],
    uids: &BTreeMap<String, String>,
    meta: &dyn Fn(&str, &str, Vec<Value>) -> Value,
) -> Value {
    let refs: Vec<Value> = o
        .refs
        .iter()
        .map(|r| {
            let (api, kind, name, uid) = match &r.target {
                Target::Object(t, twist) => {
                    let t = &objs[*t];
                    let (api, kind) = match (twist, t.kind) {
                        (Twist::WrongKind, Kind::ConfigMap) => ("v1", "Secret"),
                        (Twist::WrongKind, _) => ("v1", "ConfigMap"),
                        _ => (t.kind.api_version(), t.kind.name()),
                    };
                    let name = match twist {
                        Twist::WrongName => format!("{}-renamed", t.name),
                        _ => t.name.clone(),
                    };
                    (api, kind, name, uids[&t.key()].clone())
                }
                Target::Missing { kind, name, uid } => {
                    (kind.api_version(), kind.name(), name.clone(), uid.clone())
                }
            };
            let mut v = json!({"apiVersion": api, "kind": kind, "name": name, "uid": uid});
            if let Some(b) = r.block {
                v["blockOwnerDeletion"] = json!(b);
            }
            if r.controller {
                v["controller"] = json!(true);
            }
            v
        })
        .collect();
    let mut m = meta(o.ns.unwrap_or(""), &o.name, refs);
    if o.hold {
        m["finalizers"] = json!([HOLD]);
    }
    json!({"apiVersion": o.kind.api_version(), "kind": o.kind.name(), "metadata": m})
}
