//! Random forests of owner references with deletion states: the shapes of the live suites'
//! generator (tests/live/forests.rs), offline, for the apply and plan tests.

use super::Cluster;

/// One object of a random forest.
pub struct ForestObj {
    /// Its kind: an index into [`FOREST_KINDS`].
    pub kind: usize,
    /// Its namespace (empty for the cluster-scoped kind).
    pub ns: String,
    /// Its name.
    pub name: String,
    /// Its UID.
    pub uid: String,
    /// Its references: apiVersion, kind, name, uid, blockOwnerDeletion.
    pub refs: Vec<(String, String, String, String, Option<bool>)>,
    /// Whether it carries a custom finalizer.
    pub hold: bool,
    /// Its deletion: `None`, or the policy (0 background, 1 orphan, 2 foreground).
    pub delete: Option<u8>,
}

/// The forests' kinds: apiVersion and kind.
pub const FOREST_KINDS: [(&str, &str); 3] = [
    ("v1", "ConfigMap"),
    ("v1", "Secret"),
    ("rbac.authorization.k8s.io/v1", "ClusterRole"),
];

/// The shapes of the live suites' generator (tests/live/forests.rs, not its random stream):
/// references to earlier objects of the forest (some with a wrong kind or name, some from
/// another namespace) and to owners that never existed, every blockOwnerDeletion value,
/// custom finalizers, deletions with each policy.
pub fn random_forests(seed: u64, forests: usize) -> Vec<ForestObj> {
    let mut state = seed;
    let mut next = move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let mut below = move |n: usize| (next() % n as u64) as usize;
    let nss = ["diff-a", "diff-b", "diff-c"];
    let mut out: Vec<ForestObj> = Vec::new();
    for f in 0..forests {
        let base = out.len();
        let n = 1 + below(3) + below(4);
        let mut missing: Vec<(usize, String, String)> = Vec::new();
        for j in 0..n {
            let kind = match below(100) {
                0..=69 => 0,
                70..=89 => 1,
                _ => 2,
            };
            let ns = if kind == 2 {
                String::new()
            } else if below(100) < 8 {
                nss[(f + 1 + below(2)) % 3].to_owned()
            } else {
                nss[f % 3].to_owned()
            };
            let wanted = usize::from(j > 0) + usize::from(below(100) < 35);
            let mut refs = Vec::new();
            for _ in 0..wanted {
                let (api, k, name, uid) = if j > 0 && below(100) < 72 {
                    let t = &out[base + below(j)];
                    let twist = below(100);
                    let (api, k) = match (twist, t.kind) {
                        (0..=4, 0) => ("v1", "Secret"),
                        (0..=4, _) => ("v1", "ConfigMap"),
                        _ => FOREST_KINDS[t.kind],
                    };
                    let name = if (5..=7).contains(&twist) {
                        format!("{}-renamed", t.name)
                    } else {
                        t.name.clone()
                    };
                    (api.to_owned(), k.to_owned(), name, t.uid.clone())
                } else {
                    if missing.is_empty() || below(100) < 40 {
                        let mk = below(3);
                        let m = missing.len();
                        missing.push((mk, format!("ghost-{f}-{m}"), format!("u-ghost-{f}-{m}")));
                    }
                    let (mk, name, uid) = missing[below(missing.len())].clone();
                    let (api, k) = FOREST_KINDS[mk];
                    (api.to_owned(), k.to_owned(), name, uid)
                };
                if refs
                    .iter()
                    .any(|r: &(String, String, String, String, Option<bool>)| r.3 == uid)
                {
                    continue;
                }
                let block = match below(10) {
                    0..=3 => None,
                    4..=7 => Some(true),
                    _ => Some(false),
                };
                refs.push((api, k, name, uid, block));
            }
            let hold = below(100) < 15;
            let delete = match below(100) {
                0..=64 => None,
                65..=76 => Some(0),
                77..=88 => Some(1),
                _ => Some(2),
            };
            out.push(ForestObj {
                kind,
                ns,
                name: format!("f{f}-{j}"),
                uid: format!("u-{f}-{j}"),
                refs,
                hold,
                delete,
            });
        }
    }
    out
}

/// The forests as the API server holds them after the deletions (a background deletion
/// without finalizers removes the object at once).
pub fn forest_cluster(objs: &[ForestObj]) -> Cluster {
    let mut c = Cluster::new();
    for o in objs {
        let mut fins: Vec<&str> = Vec::new();
        if o.hold {
            fins.push("example.com/hold");
        }
        match o.delete {
            Some(1) => fins.push("orphan"),
            Some(2) => fins.push("foregroundDeletion"),
            _ => {}
        }
        if o.delete.is_some() && fins.is_empty() {
            continue;
        }
        let (api, kind) = FOREST_KINDS[o.kind];
        let spec = c.obj(api, kind, &o.ns, &o.name, &o.uid);
        for (api, kind, name, uid, block) in &o.refs {
            spec.owner(api, kind, name, uid);
            if let Some(b) = block {
                spec.block(*b);
            }
        }
        spec.finalizers(&fins);
        if o.delete.is_some() {
            spec.deleting();
        }
    }
    c
}
