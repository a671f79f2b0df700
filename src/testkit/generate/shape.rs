//! The cluster's shape, built object by object: the cluster-scoped owners, each namespace's
//! base, then application units (Deployments, StatefulSets, CronJobs, operator resources)
//! round-robin over the namespaces until the object count is reached, with the anomalies
//! injected as they fall due.

use super::*;

const APPS: &[&str] = &[
    "web",
    "api",
    "worker",
    "cache",
    "auth",
    "billing",
    "search",
    "frontend",
    "gateway",
    "ingest",
    "metrics",
    "notifier",
    "scheduler",
    "payments",
    "catalog",
    "checkout",
    "inventory",
    "orders",
    "profile",
    "reports",
    "mailer",
    "uploader",
    "thumbnailer",
    "recommender",
    "ledger",
    "session",
    "feeds",
    "graphql",
    "pricing",
    "shipping",
];

const TEAMS: &[&str] = &[
    "alpha", "atlas", "aurora", "beacon", "cobalt", "comet", "delta", "ember", "falcon", "garnet",
    "harbor", "helix", "indigo", "jade", "kestrel", "lumen", "magma", "nebula", "onyx", "orbit",
    "pioneer", "quartz", "raven", "sierra", "summit", "tango", "titan", "umbra", "vector",
    "willow", "zenith", "zephyr",
];

const ENVS: &[&str] = &["prod", "staging", "dev", "qa", "perf"];

const SYSTEM_NAMESPACES: &[&str] = &[
    "default",
    "kube-system",
    "kube-public",
    "kube-node-lease",
    "monitoring",
];
const NS_KUBE_SYSTEM: u32 = 1;
const NS_NODE_LEASE: u32 = 3;
const NS_MONITORING: u32 = 4;

#[derive(Clone, Copy)]
enum Anomaly {
    Dangling = 0,
    CrossNamespace = 1,
    Unresolvable = 2,
    Foreground = 3,
    Orphan = 4,
}

struct Gen {
    o: GenOptions,
    rng: Rng,
    now: i64,
    rv: u64,
    objs: Vec<GenObj>,
    namespaces: Vec<String>,
    /// Per namespace, how many names of each unit sort were handed out.
    counters: Vec<u32>,
    /// Every `Redis` so far (cross-namespace owners).
    redises: Vec<u32>,
    injected: [usize; 5],
}

impl Gen {
    fn full(&self) -> bool {
        self.objs.len() >= self.o.objects
    }

    /// True when an anomaly of this sort is due, keeping the injected count proportional to
    /// the progress of the run.
    fn due(&mut self, a: Anomaly) -> bool {
        let rate = match a {
            Anomaly::Dangling => self.o.dangling_rate,
            Anomaly::CrossNamespace => self.o.cross_namespace_rate,
            Anomaly::Unresolvable => self.o.unresolvable_rate,
            Anomaly::Foreground => self.o.foreground_rate,
            Anomaly::Orphan => self.o.orphan_rate,
        };
        let expected = rate * (self.objs.len() + 1) as f64;
        if (self.injected[a as usize] as f64) < expected.floor() && !self.full() {
            self.injected[a as usize] += 1;
            true
        } else {
            false
        }
    }

    fn created_after(&mut self, t: i64) -> i64 {
        (t + self.rng.below(86_400) as i64).min(self.now - 1)
    }

    /// Adds an object; `None` once the budget is spent.
    fn push(
        &mut self,
        kind: u8,
        namespace: u32,
        name: String,
        labels: Vec<(&'static str, String)>,
        owner_refs: Vec<GenRef>,
    ) -> Option<u32> {
        if self.full() {
            return None;
        }
        self.rv += 1 + self.rng.below(40);
        let created = match owner_refs.iter().find_map(|r| match r.target {
            RefTarget::Object(i) => Some(self.objs[i as usize].created),
            _ => None,
        }) {
            Some(t) => self.created_after(t),
            None => self.now - 86_400 * 90 + self.rng.below(86_400 * 89) as i64,
        };
        let uid = self.rng.uid();
        self.objs.push(GenObj {
            kind,
            namespace,
            name,
            uid,
            resource_version: self.rv,
            created,
            deletion: None,
            finalizers: Vec::new(),
            labels,
            owner_refs,
        });
        Some(self.objs.len() as u32 - 1)
    }

    /// A controller reference (`controller` and `blockOwnerDeletion` true) to object `i`.
    fn ctrl(&self, i: u32) -> GenRef {
        let o = &self.objs[i as usize];
        GenRef {
            target: RefTarget::Object(i),
            name: o.name.clone(),
            uid: o.uid,
            controller: Some(true),
            block_owner_deletion: Some(true),
        }
    }

    fn delete(&mut self, i: u32, how: Deletion, finalizer: &'static str) {
        let age = 60 + self.rng.below(3 * 86_400) as i64;
        let o = &mut self.objs[i as usize];
        o.deletion = Some((self.now - age, how));
        o.finalizers.push(finalizer);
    }

    fn next_name(&mut self, ns: u32, words: &[&str]) -> String {
        let c = &mut self.counters[ns as usize];
        let n = *c as usize;
        *c += 1;
        let word = words[n % words.len()];
        match n / words.len() {
            0 => word.to_owned(),
            k => format!("{word}-{k}"),
        }
    }

    fn pod_spec_hash(&mut self) -> String {
        let n = 9 + self.rng.below(2) as usize;
        self.rng.suffix(n)
    }

    fn cluster(&mut self) {
        let n = self.o.objects;
        for ns in SYSTEM_NAMESPACES {
            self.namespaces.push((*ns).to_owned());
        }
        let apps = self.o.namespaces.unwrap_or((n / 500).max(2));
        for i in 0..apps {
            let team = TEAMS[i % TEAMS.len()];
            let env = ENVS[(i / TEAMS.len()) % ENVS.len()];
            let round = i / (TEAMS.len() * ENVS.len());
            self.namespaces.push(if round == 0 {
                format!("{team}-{env}")
            } else {
                format!("{team}-{env}-{round}")
            });
        }
        self.counters = vec![0; self.namespaces.len()];
        for ns in 0..self.namespaces.len() {
            let name = self.namespaces[ns].clone();
            let labels = vec![("kubernetes.io/metadata.name", name.clone())];
            self.push(K_NAMESPACE, NO_NAMESPACE, name, labels, vec![]);
        }
        // Nodes, their leases, and the mirror pods of the control plane.
        let nodes: Vec<u32> = (0..(n / 400).max(3))
            .filter_map(|i| {
                let pool = if i < 3 { "control-plane" } else { "pool" };
                let name = format!("{pool}-{}-{}", i, self.rng.suffix(5));
                let labels = vec![
                    ("kubernetes.io/hostname", name.clone()),
                    ("kubernetes.io/os", "linux".to_owned()),
                ];
                self.push(K_NODE, NO_NAMESPACE, name, labels, vec![])
            })
            .collect();
        for (i, &node) in nodes.iter().enumerate() {
            let name = self.objs[node as usize].name.clone();
            let node_ref = GenRef {
                controller: None,
                block_owner_deletion: None,
                ..self.ctrl(node)
            };
            self.push(K_LEASE, NS_NODE_LEASE, name.clone(), vec![], vec![node_ref]);
            if i < 3 {
                for c in [
                    "etcd",
                    "kube-apiserver",
                    "kube-controller-manager",
                    "kube-scheduler",
                ] {
                    let labels = vec![
                        ("component", c.to_owned()),
                        ("tier", "control-plane".to_owned()),
                    ];
                    let owner = GenRef {
                        block_owner_deletion: None,
                        ..self.ctrl(node)
                    };
                    self.push(
                        K_POD,
                        NS_KUBE_SYSTEM,
                        format!("{c}-{name}"),
                        labels,
                        vec![owner],
                    );
                }
            }
        }
        for (ns, ds) in [
            (NS_KUBE_SYSTEM, "kube-proxy"),
            (NS_MONITORING, "node-exporter"),
        ] {
            let labels = vec![("app", ds.to_owned())];
            let Some(d) = self.push(K_DAEMONSET, ns, ds.to_owned(), labels.clone(), vec![]) else {
                return;
            };
            let hash = self.pod_spec_hash();
            let rev = self.ctrl(d);
            self.push(
                K_CONTROLLERREVISION,
                ns,
                format!("{ds}-{hash}"),
                labels.clone(),
                vec![rev],
            );
            let mut names = std::collections::HashSet::new();
            for _ in &nodes {
                let mut name = format!("{ds}-{}", self.rng.suffix(5));
                while !names.insert(name.clone()) {
                    name = format!("{ds}-{}", self.rng.suffix(5));
                }
                let owner = self.ctrl(d);
                self.push(K_POD, ns, name, labels.clone(), vec![owner]);
            }
        }
        // Cluster-scoped custom resources owning cluster-scoped RBAC.
        for i in 0..(n / 20_000).max(1) {
            let name = format!("baseline-{i}");
            let Some(p) = self.push(K_CLUSTERPOLICY, NO_NAMESPACE, name.clone(), vec![], vec![])
            else {
                return;
            };
            for (kind, suffix) in [
                (K_CLUSTERROLE, "view"),
                (K_CLUSTERROLE, "edit"),
                (K_CLUSTERROLEBINDING, "view"),
            ] {
                let owner = self.ctrl(p);
                let labels = vec![("policy.example.com/name", name.clone())];
                self.push(
                    kind,
                    NO_NAMESPACE,
                    format!("{name}-{suffix}"),
                    labels,
                    vec![owner],
                );
            }
        }
    }

    fn namespace_base(&mut self, ns: u32) {
        self.push(K_SERVICEACCOUNT, ns, "default".into(), vec![], vec![]);
        self.push(K_CONFIGMAP, ns, "kube-root-ca.crt".into(), vec![], vec![]);
        let token = format!("default-token-{}", self.rng.suffix(5));
        self.push(K_SECRET, ns, token, vec![], vec![]);
        if self.rng.chance(0.5) {
            self.push(K_ROLE, ns, "developer".into(), vec![], vec![]);
            self.push(K_ROLEBINDING, ns, "developers".into(), vec![], vec![]);
        }
    }

    fn service(&mut self, ns: u32, name: &str, owner: Option<u32>) {
        let labels = vec![("app", name.to_owned())];
        let refs = owner.map(|o| vec![self.ctrl(o)]).unwrap_or_default();
        let Some(svc) = self.push(K_SERVICE, ns, name.to_owned(), labels, refs) else {
            return;
        };
        let slice = format!("{name}-{}", self.rng.suffix(5));
        let labels = vec![
            ("kubernetes.io/service-name", name.to_owned()),
            (
                "endpointslice.kubernetes.io/managed-by",
                "endpointslice-controller.k8s.io".to_owned(),
            ),
        ];
        let owner = self.ctrl(svc);
        self.push(K_ENDPOINTSLICE, ns, slice, labels, vec![owner]);
    }

    fn deployment(&mut self, ns: u32) {
        let name = self.next_name(ns, APPS);
        let app = vec![("app", name.clone())];
        let Some(d) = self.push(K_DEPLOYMENT, ns, name.clone(), app, vec![]) else {
            return;
        };
        let foreground = self.due(Anomaly::Foreground);
        if foreground {
            self.delete(d, Deletion::Foreground, finalizers::FOREGROUND);
        } else if self.due(Anomaly::Orphan) {
            self.delete(d, Deletion::Orphan, finalizers::ORPHAN);
        }
        let revisions = 1 + self.rng.below(3);
        for rev in 0..revisions {
            let hash = self.pod_spec_hash();
            let rs_name = format!("{name}-{hash}");
            let labels = vec![("app", name.clone()), ("pod-template-hash", hash.clone())];
            let owner = self.ctrl(d);
            let Some(rs) = self.push(
                K_REPLICASET,
                ns,
                rs_name.clone(),
                labels.clone(),
                vec![owner],
            ) else {
                return;
            };
            let current = rev == 0;
            if foreground && current {
                self.delete(rs, Deletion::Foreground, finalizers::FOREGROUND);
            }
            let replicas = if current { 1 + self.rng.below(4) } else { 0 };
            for p in 0..replicas {
                let pod = format!("{rs_name}-{}", self.rng.suffix(5));
                let owner = self.ctrl(rs);
                let Some(pod) = self.push(K_POD, ns, pod, labels.clone(), vec![owner]) else {
                    return;
                };
                if foreground && p == 0 {
                    self.delete(pod, Deletion::Plain, BLOCKER_FINALIZER);
                }
            }
        }
        self.service(ns, &name, None);
        if self.rng.chance(0.5) {
            self.push(K_CONFIGMAP, ns, format!("{name}-config"), vec![], vec![]);
        }
        if self.rng.chance(0.3) {
            self.push(K_SECRET, ns, format!("{name}-tls"), vec![], vec![]);
        }
        if self.due(Anomaly::Dangling) {
            // A pod left behind by a ReplicaSet that is gone.
            let hash = self.pod_spec_hash();
            let rs_name = format!("{name}-{hash}");
            let owner = GenRef {
                target: RefTarget::Absent(K_REPLICASET),
                name: rs_name.clone(),
                uid: self.rng.uid(),
                controller: Some(true),
                block_owner_deletion: Some(true),
            };
            let pod = format!("{rs_name}-{}", self.rng.suffix(5));
            let labels = vec![("app", name.clone()), ("pod-template-hash", hash)];
            self.push(K_POD, ns, pod, labels, vec![owner]);
        }
        if self.due(Anomaly::Unresolvable) {
            let owner = GenRef {
                target: RefTarget::Unserved,
                name: name.clone(),
                uid: self.rng.uid(),
                controller: None,
                block_owner_deletion: None,
            };
            self.push(
                K_CONFIGMAP,
                ns,
                format!("{name}-legacy"),
                vec![],
                vec![owner],
            );
        }
    }

    fn statefulset_pods(&mut self, ns: u32, sts: u32, name: &str) {
        let labels = vec![("app", name.to_owned())];
        let hash = self.pod_spec_hash();
        let owner = self.ctrl(sts);
        self.push(
            K_CONTROLLERREVISION,
            ns,
            format!("{name}-{hash}"),
            labels.clone(),
            vec![owner],
        );
        let replicas = 1 + self.rng.below(3);
        for i in 0..replicas {
            let pod = format!("{name}-{i}");
            let mut labels = labels.clone();
            labels.push(("controller-revision-hash", format!("{name}-{hash}")));
            labels.push(("statefulset.kubernetes.io/pod-name", pod.clone()));
            let owner = self.ctrl(sts);
            self.push(K_POD, ns, pod, labels, vec![owner]);
            self.push(K_PVC, ns, format!("data-{name}-{i}"), vec![], vec![]);
        }
    }

    fn statefulset(&mut self, ns: u32) {
        let name = format!("{}-db", self.next_name(ns, APPS));
        let labels = vec![("app", name.clone())];
        let Some(sts) = self.push(K_STATEFULSET, ns, name.clone(), labels, vec![]) else {
            return;
        };
        self.statefulset_pods(ns, sts, &name);
        self.service(ns, &name, None);
    }

    fn cronjob(&mut self, ns: u32) {
        let name = format!("{}-cleanup", self.next_name(ns, APPS));
        let Some(cj) = self.push(K_CRONJOB, ns, name.clone(), vec![], vec![]) else {
            return;
        };
        let base = (self.now / 60) as u64 - self.rng.below(10_000);
        for j in 0..3u64 {
            let job = format!("{name}-{}", base + j * 60);
            let owner = self.ctrl(cj);
            let uid_label = format_uid(self.rng.uid());
            let labels = vec![("job-name", job.clone()), ("controller-uid", uid_label)];
            let Some(job_id) = self.push(K_JOB, ns, job.clone(), labels.clone(), vec![owner])
            else {
                return;
            };
            let pod = format!("{job}-{}", self.rng.suffix(5));
            let owner = self.ctrl(job_id);
            self.push(K_POD, ns, pod, labels, vec![owner]);
        }
    }

    fn operator(&mut self, ns: u32) {
        let name = format!("{}-redis", self.next_name(ns, APPS));
        let labels = vec![("app.kubernetes.io/instance", name.clone())];
        let Some(r) = self.push(K_REDIS, ns, name.clone(), labels.clone(), vec![]) else {
            return;
        };
        let owner = self.ctrl(r);
        if let Some(sts) = self.push(K_STATEFULSET, ns, name.clone(), labels.clone(), vec![owner]) {
            self.statefulset_pods(ns, sts, &name);
        }
        self.service(ns, &name, Some(r));
        let owner = self.ctrl(r);
        self.push(
            K_CONFIGMAP,
            ns,
            format!("{name}-config"),
            labels.clone(),
            vec![owner],
        );
        let owner = self.ctrl(r);
        self.push(K_SECRET, ns, format!("{name}-auth"), labels, vec![owner]);
        if self.due(Anomaly::CrossNamespace) {
            // Shared configuration owned by an instance in another namespace (GC004).
            if let Some(&other) = self
                .redises
                .iter()
                .rev()
                .find(|&&o| self.objs[o as usize].namespace != ns)
            {
                let owner = self.ctrl(other);
                let other_name = self.objs[other as usize].name.clone();
                let name = format!("{other_name}-shared-{}", self.rng.suffix(5));
                self.push(K_CONFIGMAP, ns, name, vec![], vec![owner]);
            } else {
                self.injected[Anomaly::CrossNamespace as usize] -= 1;
            }
        }
        self.redises.push(r);
    }

    fn misc(&mut self, ns: u32) {
        let name = self.next_name(ns, APPS);
        self.push(K_CONFIGMAP, ns, format!("{name}-settings"), vec![], vec![]);
        self.push(K_SECRET, ns, format!("{name}-credentials"), vec![], vec![]);
        self.push(K_SERVICEACCOUNT, ns, name, vec![], vec![]);
    }

    fn run(mut self) -> Generated {
        self.cluster();
        let first_app_ns = SYSTEM_NAMESPACES.len() as u32;
        let n_ns = self.namespaces.len() as u32;
        for ns in 0..n_ns {
            self.namespace_base(ns);
        }
        'fill: loop {
            for ns in first_app_ns..n_ns {
                if self.full() {
                    break 'fill;
                }
                let roll = self.rng.below(100);
                match roll {
                    0..55 => self.deployment(ns),
                    55..68 => self.statefulset(ns),
                    68..83 => self.cronjob(ns),
                    83..93 => self.operator(ns),
                    _ => self.misc(ns),
                }
            }
        }
        let [dangling, cross_namespace, unresolvable, foreground, orphan] = self.injected;
        Generated {
            options: self.o,
            namespaces: self.namespaces,
            objects: self.objs,
            injected: Injected {
                dangling,
                cross_namespace,
                unresolvable,
                foreground,
                orphan,
            },
        }
    }
}

/// Generates a cluster.
pub fn generate(options: &GenOptions) -> Generated {
    let now = parse_rfc3339(&options.captured_at).unwrap_or(1_795_000_000);
    let g = Gen {
        o: options.clone(),
        rng: Rng(options.seed ^ 0x6b75_6265_6374_6c67),
        now,
        rv: 1_000_000,
        objs: Vec::with_capacity(options.objects),
        namespaces: Vec::new(),
        counters: Vec::new(),
        redises: Vec::new(),
        injected: [0; 5],
    };
    g.run()
}
