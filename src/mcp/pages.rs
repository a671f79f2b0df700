//! Answers larger than the cap, in pages. A page is the document with every field except its
//! top-level lists, plus a run of the lists' items (in field order) that fits the cap, so each
//! page has the document's shape and validates against the tool's output schema. The pages
//! after the first wait in a bounded store under a random token.

use serde_json::{Map, Value, json};
use std::collections::VecDeque;

/// Room kept in a page for its `continuation` object.
const CONTINUATION_ROOM: usize = 400;
/// Paged answers kept at once (the oldest go first).
const MAX_KEPT: usize = 16;
/// Bytes of pages kept at once, all answers together.
const MAX_KEPT_BYTES: usize = 256 * 1024 * 1024;

fn size(v: &Value) -> usize {
    serde_json::to_vec(v).map_or(0, |b| b.len())
}

/// `doc` cut into pages of at most about `cap` bytes each (one item per page at least, so a
/// single item larger than the cap makes a larger page). One page: `doc` as it is.
pub fn paginate(doc: Map<String, Value>, cap: usize) -> Vec<Map<String, Value>> {
    let whole = Value::Object(doc);
    if size(&whole) <= cap {
        let Value::Object(doc) = whole else {
            unreachable!()
        };
        return vec![doc];
    }
    let Value::Object(mut base) = whole else {
        unreachable!()
    };
    let mut items: Vec<(String, Value)> = Vec::new();
    let mut totals = Map::new();
    for (k, v) in base.iter_mut() {
        if let Value::Array(list) = v {
            totals.insert(k.clone(), json!(list.len()));
            items.extend(std::mem::take(list).into_iter().map(|i| (k.clone(), i)));
        }
    }
    let base_size = size(&Value::Object(base.clone()));
    let budget = cap.saturating_sub(base_size + CONTINUATION_ROOM);
    let mut pages = Vec::new();
    let mut page = base.clone();
    let mut used = 0usize;
    let mut count = 0usize;
    for (field, item) in items {
        // The comma, and nothing more: the field's brackets are in the base.
        let n = size(&item) + 1;
        if count > 0 && used + n > budget {
            pages.push(std::mem::replace(&mut page, base.clone()));
            used = 0;
            count = 0;
        }
        if let Some(Value::Array(list)) = page.get_mut(&field) {
            list.push(item);
        }
        used += n;
        count += 1;
    }
    pages.push(page);
    let total = pages.len();
    for (i, p) in pages.iter_mut().enumerate() {
        let counts: Map<String, Value> = totals
            .keys()
            .map(|k| {
                let n = p.get(k).and_then(Value::as_array).map_or(0, Vec::len);
                (k.clone(), json!(n))
            })
            .collect();
        p.insert(
            "continuation".into(),
            json!({"page": i + 1, "pages": total, "items": counts, "totalItems": totals}),
        );
    }
    pages
}

/// A page: a JSON object.
type Page = Map<String, Value>;

/// One paged answer: the token of its next page, its pages still to fetch, their bytes.
type Waiting = (String, VecDeque<Page>, usize);

/// Pages waiting to be fetched.
#[derive(Debug, Default)]
pub struct Store {
    answers: VecDeque<Waiting>,
}

impl Store {
    /// Keeps `rest` (the pages after the first) and returns the token that fetches the next
    /// one; the first page gets the token in its `continuation`.
    pub fn keep(&mut self, first: &mut Map<String, Value>, rest: Vec<Map<String, Value>>) {
        if rest.is_empty() {
            return;
        }
        let token = super::random_token("page");
        set_token(first, &token);
        let bytes = rest.iter().map(|p| size(&Value::Object(p.clone()))).sum();
        self.answers.push_back((token, rest.into(), bytes));
        while self.answers.len() > MAX_KEPT
            || self.answers.iter().map(|a| a.2).sum::<usize>() > MAX_KEPT_BYTES
        {
            self.answers.pop_front();
        }
    }

    /// The next page of the answer `token` stands for; `None` when the token is unknown or
    /// its pages were dropped.
    pub fn next(&mut self, token: &str) -> Option<Map<String, Value>> {
        let at = self.answers.iter().position(|a| a.0 == token)?;
        let (_, pages, _) = &mut self.answers[at];
        let mut page = pages.pop_front()?;
        if pages.is_empty() {
            self.answers.remove(at);
        } else {
            let next = super::random_token("page");
            set_token(&mut page, &next);
            self.answers[at].0 = next;
        }
        Some(page)
    }
}

fn set_token(page: &mut Map<String, Value>, token: &str) {
    if let Some(Value::Object(c)) = page.get_mut("continuation") {
        c.insert("token".into(), json!(token));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(n: usize) -> Map<String, Value> {
        let Value::Object(m) = json!({
            "kind": "AuditReport",
            "findings": (0..n).map(|i| json!({"i": i, "pad": "x".repeat(100)})).collect::<Vec<_>>(),
            "notes": ["a", "b"],
        }) else {
            unreachable!()
        };
        m
    }

    #[test]
    fn a_small_document_is_one_page_as_it_is() {
        let d = doc(3);
        assert_eq!(paginate(d.clone(), 100_000), vec![d]);
    }

    #[test]
    fn pages_hold_every_item_once_in_order_within_the_cap() {
        let pages = paginate(doc(500), 8_000);
        assert!(pages.len() > 5, "{}", pages.len());
        let mut seen = Vec::new();
        let mut notes = 0;
        for (i, p) in pages.iter().enumerate() {
            assert!(size(&Value::Object(p.clone())) <= 8_000);
            assert_eq!(p["kind"], "AuditReport");
            assert_eq!(p["continuation"]["page"], i + 1);
            assert_eq!(p["continuation"]["pages"], pages.len());
            seen.extend(
                p["findings"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|f| f["i"].clone()),
            );
            notes += p["notes"].as_array().unwrap().len();
        }
        assert_eq!(seen, (0..500).map(|i| json!(i)).collect::<Vec<_>>());
        assert_eq!(notes, 2);
    }

    #[test]
    fn the_store_hands_out_the_pages_in_order_then_forgets_the_token() {
        let mut pages = paginate(doc(100), 4_000);
        let n = pages.len();
        let mut first = pages.remove(0);
        let mut store = Store::default();
        store.keep(&mut first, pages);
        let mut token = first["continuation"]["token"].as_str().unwrap().to_owned();
        for page in 2..=n {
            let p = store.next(&token).unwrap();
            assert_eq!(p["continuation"]["page"], page);
            if page < n {
                token = p["continuation"]["token"].as_str().unwrap().to_owned();
            } else {
                assert!(p["continuation"].get("token").is_none());
            }
        }
        assert!(store.next(&token).is_none());
        assert!(store.next("page-unknown").is_none());
    }
}
