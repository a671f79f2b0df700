//! Request paths. Every segment that comes from outside the program — a namespace from `-n`, a
//! group, version or plural from a discovery document, a name from a list — goes through
//! [`segment`], the one function that escapes a path segment (the live source's lists and
//! `collect --apply`'s requests alike), so that no such string can add a
//! segment, a query or a fragment to a request, or break the request line.
//!
//! [`segment`] percent-encodes every byte except RFC 3986's unreserved characters
//! (`A-Z a-z 0-9 - . _ ~`), and the whole segments `.` and `..` (which would otherwise be
//! dot-segments, "this" and "parent" directory, to any URL normaliser on the way). The API server
//! decodes the path before routing, so a well-formed segment arrives unchanged.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use std::borrow::Cow;

/// The bytes left as they are: RFC 3986 unreserved characters.
const ESCAPED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// One path segment, percent-encoded (borrowed when nothing needs escaping).
pub fn segment(s: &str) -> Cow<'_, str> {
    match s {
        "." => Cow::Borrowed("%2E"),
        ".." => Cow::Borrowed("%2E%2E"),
        _ => utf8_percent_encode(s, ESCAPED).into(),
    }
}

/// `/api/<version>` for the core group, else `/apis/<group>/<version>`.
pub fn group_version(group: &str, version: &str) -> String {
    if group.is_empty() {
        format!("/api/{}", segment(version))
    } else {
        format!("/apis/{}/{}", segment(group), segment(version))
    }
}

/// A collection: `<group-version>/<plural>`, or `<group-version>/namespaces/<ns>/<plural>`
/// when `namespace` is given.
pub fn collection(group: &str, version: &str, namespace: Option<&str>, plural: &str) -> String {
    let base = group_version(group, version);
    match namespace {
        Some(ns) => format!("{base}/namespaces/{}/{}", segment(ns), segment(plural)),
        None => format!("{base}/{}", segment(plural)),
    }
}

/// One object: its collection followed by `/<name>` (`namespace` empty or `None` for
/// cluster-scoped objects).
pub fn object(
    group: &str,
    version: &str,
    namespace: Option<&str>,
    plural: &str,
    name: &str,
) -> String {
    let namespace = namespace.filter(|ns| !ns.is_empty());
    format!(
        "{}/{}",
        collection(group, version, namespace, plural),
        segment(name)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_segments_are_borrowed_unchanged() {
        for s in [
            "configmaps",
            "apps",
            "v1beta1",
            "kube-system",
            "a.b_c~d",
            "ABC123",
        ] {
            assert!(matches!(segment(s), Cow::Borrowed(b) if b == s), "{s}");
        }
    }

    #[test]
    fn hostile_segments_cannot_change_the_request() {
        let cases = [
            ("a/b", "a%2Fb"),
            ("a%2Fb", "a%252Fb"),
            ("a?x=1", "a%3Fx%3D1"),
            ("a#frag", "a%23frag"),
            (".", "%2E"),
            ("..", "%2E%2E"),
            ("...", "..."),
            ("a b", "a%20b"),
            ("tab\there", "tab%09here"),
            ("new\nline\r", "new%0Aline%0D"),
            ("esc\u{1b}[2J", "esc%1B%5B2J"),
            ("nul\0", "nul%00"),
            ("é✓", "%C3%A9%E2%9C%93"),
            ("a;b,c:d@e", "a%3Bb%2Cc%3Ad%40e"),
            ("", ""),
        ];
        for (raw, want) in cases {
            assert_eq!(segment(raw), want, "{raw:?}");
        }
        // Whatever the input, the result is a valid URI path for the http crate.
        for (raw, _) in cases {
            let path = object("g", "v1", Some(raw), raw, raw);
            assert!(http::Uri::try_from(path.as_str()).is_ok(), "{path}");
        }
    }

    #[test]
    fn paths() {
        assert_eq!(group_version("", "v1"), "/api/v1");
        assert_eq!(group_version("apps", "v1"), "/apis/apps/v1");
        assert_eq!(collection("", "v1", None, "pods"), "/api/v1/pods");
        assert_eq!(
            collection("apps", "v1", Some("shop"), "deployments"),
            "/apis/apps/v1/namespaces/shop/deployments"
        );
        assert_eq!(
            collection("", "v1", Some("a/../../b"), "pods"),
            "/api/v1/namespaces/a%2F..%2F..%2Fb/pods"
        );
        assert_eq!(
            object("", "v1", Some("ns"), "configmaps", "a?x=1"),
            "/api/v1/namespaces/ns/configmaps/a%3Fx%3D1"
        );
        assert_eq!(
            object(
                "rbac.authorization.k8s.io",
                "v1",
                Some(""),
                "clusterroles",
                ".."
            ),
            "/apis/rbac.authorization.k8s.io/v1/clusterroles/%2E%2E"
        );
        assert_eq!(
            group_version("evil.io/v1/../..", "v1"),
            "/apis/evil.io%2Fv1%2F..%2F../v1"
        );
    }
}
