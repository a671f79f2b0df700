//! kubectl's short names of the built-in resources (`cm` → `configmaps`), as `kubectl get`
//! accepts them.

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
