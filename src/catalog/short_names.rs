//! kubectl's short names of the built-in resources (`cm` → `configmaps`), as `kubectl get`
//! accepts them.

/// Every short name [`plural_of`] knows.
pub fn all() -> &'static [&'static str] {
    &[
        "cm", "cj", "crd", "crds", "csr", "deploy", "ds", "ep", "hpa", "ing", "limits", "netpol",
        "no", "ns", "pc", "pdb", "po", "pv", "pvc", "quota", "rc", "rs", "sa", "sc", "sts", "svc",
    ]
}

/// The plural a short name stands for.
pub fn plural_of(short: &str) -> Option<&'static str> {
    Some(match short {
        "cm" => "configmaps",
        "cj" => "cronjobs",
        "crd" | "crds" => "customresourcedefinitions",
        "csr" => "certificatesigningrequests",
        "deploy" => "deployments",
        "ds" => "daemonsets",
        "ep" => "endpoints",
        "hpa" => "horizontalpodautoscalers",
        "ing" => "ingresses",
        "limits" => "limitranges",
        "netpol" => "networkpolicies",
        "no" => "nodes",
        "ns" => "namespaces",
        "pc" => "priorityclasses",
        "pdb" => "poddisruptionbudgets",
        "po" => "pods",
        "pv" => "persistentvolumes",
        "pvc" => "persistentvolumeclaims",
        "quota" => "resourcequotas",
        "rc" => "replicationcontrollers",
        "rs" => "replicasets",
        "sa" => "serviceaccounts",
        "sc" => "storageclasses",
        "sts" => "statefulsets",
        "svc" => "services",
        _ => return None,
    })
}
