//! Label selectors as `kubectl -l` accepts them: `k=v`, `k==v`, `k!=v`, `k`, `!k`,
//! `k in (a,b)`, `k notin (a,b)`, comma-separated (all must match).

use super::{ObjId, Store};

/// One requirement.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Req {
    Eq(String, String),
    Ne(String, String),
    Exists(String),
    NotExists(String),
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
}

/// A parsed label selector.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Selector(Vec<Req>);

impl Selector {
    /// Parses a selector; the error says what is wrong.
    pub fn parse(s: &str) -> Result<Selector, String> {
        let mut reqs = Vec::new();
        for part in split_top_level(s) {
            let p = part.trim();
            if p.is_empty() {
                continue;
            }
            let req = if let Some(k) = p.strip_prefix('!') {
                Req::NotExists(key(k)?)
            } else if let Some((k, rest)) = p.split_once(" notin ") {
                Req::NotIn(key(k)?, set(rest)?)
            } else if let Some((k, rest)) = p.split_once(" in ") {
                Req::In(key(k)?, set(rest)?)
            } else if let Some((k, v)) = p.split_once("!=") {
                Req::Ne(key(k)?, v.trim().to_owned())
            } else if let Some((k, v)) = p.split_once("==") {
                Req::Eq(key(k)?, v.trim().to_owned())
            } else if let Some((k, v)) = p.split_once('=') {
                Req::Eq(key(k)?, v.trim().to_owned())
            } else {
                Req::Exists(key(p)?)
            };
            reqs.push(req);
        }
        Ok(Selector(reqs))
    }

    /// True when the object's labels satisfy every requirement.
    pub fn matches(&self, store: &Store, id: ObjId) -> bool {
        let labels = store.labels(id);
        let get = |k: &str| {
            labels
                .iter()
                .find(|(lk, _)| store.str(*lk) == k)
                .map(|(_, v)| store.str(*v))
        };
        self.0.iter().all(|r| match r {
            Req::Eq(k, v) => get(k) == Some(v.as_str()),
            Req::Ne(k, v) => get(k) != Some(v.as_str()),
            Req::Exists(k) => get(k).is_some(),
            Req::NotExists(k) => get(k).is_none(),
            Req::In(k, vs) => get(k).is_some_and(|x| vs.iter().any(|v| v == x)),
            Req::NotIn(k, vs) => get(k).is_none_or(|x| !vs.iter().any(|v| v == x)),
        })
    }
}

fn key(k: &str) -> Result<String, String> {
    let k = k.trim();
    if k.is_empty() || k.contains(char::is_whitespace) {
        return Err(format!("invalid label key {k:?}"));
    }
    Ok(k.to_owned())
}

fn set(rest: &str) -> Result<Vec<String>, String> {
    let r = rest.trim();
    let inner = r
        .strip_prefix('(')
        .and_then(|x| x.strip_suffix(')'))
        .ok_or_else(|| format!("expected (a,b,…) after in/notin, got {r:?}"))?;
    Ok(inner
        .split(',')
        .map(|v| v.trim().to_owned())
        .filter(|v| !v.is_empty())
        .collect())
}

/// Splits on commas outside parentheses.
fn split_top_level(s: &str) -> Vec<&str> {
    let (mut out, mut depth, mut start) = (Vec::new(), 0i32, 0);
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::Cluster;

    #[test]
    fn selectors_match_like_kubectl() {
        let mut c = Cluster::new();
        c.obj("v1", "Pod", "ns", "a", "a")
            .label("app", "web")
            .label("tier", "1");
        c.obj("v1", "Pod", "ns", "b", "b").label("app", "db");
        let s = c.build();
        let m = |sel: &str, id: u32| Selector::parse(sel).unwrap().matches(&s.store, ObjId(id));
        assert!(m("app=web", 0) && !m("app=web", 1));
        assert!(m("app!=web", 1) && !m("app!=web", 0));
        assert!(m("tier", 0) && !m("tier", 1));
        assert!(m("!tier", 1));
        assert!(m("app in (web, db)", 0) && m("app in (web,db)", 1));
        assert!(m("app notin (web),!tier", 1) && !m("app notin (web)", 0));
        assert!(m("app==web,tier=1", 0));
        assert!(Selector::parse("app in web").is_err());
    }
}
