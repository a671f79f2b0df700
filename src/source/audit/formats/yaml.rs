//! Audit records as YAML documents: `gcloud logging read`'s default output (GKE Cloud Logging
//! entries, one document each, `---` between them), and events saved with `-o yaml` or by
//! tools that keep them as YAML. Each document is turned into JSON and read as the same
//! record in JSON would be, so every format recognised in JSON is recognised in YAML.
//!
//! An input is read as YAML when its first line is not JSON but has the shape of YAML (a
//! `---` separator, a `%YAML` directive, a comment, or a `key:` mapping entry); anything else
//! stays "not an audit log".

use super::scan::{Buf, LineEnd, MAX_RECORD};
use super::{Ctx, Rec, St, outcome, record};
use std::io;

/// True when `line`, the first line of an input that is not JSON, looks like YAML.
pub(super) fn looks_like_yaml(line: &[u8]) -> bool {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.starts_with(b"#") || line.starts_with(b"%YAML") || is_separator(line) {
        return true;
    }
    // A mapping entry: a plain or quoted key, then `:` at the end or before a space.
    let key_end = match line.first() {
        Some(b'\'' | b'"') => line[1..].iter().position(|b| *b == line[0]).map(|i| i + 2),
        Some(b) if b.is_ascii_alphabetic() || matches!(b, b'_' | b'@' | b'$') => line
            .iter()
            .position(|b| *b == b':')
            .filter(|&i| line[..i].iter().all(|b| !b.is_ascii_control())),
        _ => None,
    };
    key_end.is_some_and(|i| {
        line.get(i) == Some(&b':') && matches!(line.get(i + 1), None | Some(b' ' | b'\t'))
    })
}

/// A document separator (`---`, `--- # …`) or end marker (`...`).
fn is_separator(line: &[u8]) -> bool {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let rest = if let Some(r) = line.strip_prefix(b"---") {
        r
    } else if let Some(r) = line.strip_prefix(b"...") {
        r
    } else {
        return false;
    };
    rest.first().is_none_or(|b| matches!(b, b' ' | b'\t'))
}

/// Reads the rest of the input as YAML documents, each a record.
pub(super) fn documents(ctx: &mut Ctx, buf: &mut Buf, st: &mut St) -> io::Result<()> {
    let mut doc: Vec<u8> = Vec::new();
    let mut start = buf.line;
    let mut too_big = false;
    while !st.stop {
        let line = buf.line;
        let (len, last) = match buf.line_end()? {
            LineEnd::Newline(len) => (len, false),
            LineEnd::Eof(len) => (len, true),
            LineEnd::Long => {
                buf.discard_line()?;
                too_big = true;
                continue;
            }
        };
        let text = &buf.data()[..len];
        if is_separator(text) {
            one(ctx, st, &doc, start, too_big);
            doc.clear();
            too_big = false;
            start = line + 1;
        } else if doc.len() + len < MAX_RECORD {
            doc.extend_from_slice(text);
            doc.push(b'\n');
        } else {
            too_big = true;
        }
        buf.consume_line(len);
        if last {
            break;
        }
    }
    one(ctx, st, &doc, start, too_big);
    Ok(())
}

/// One document, from line `line`.
fn one(ctx: &mut Ctx, st: &mut St, doc: &[u8], line: u64, too_big: bool) {
    if st.stop {
        return;
    }
    let blank = doc.split(|b| *b == b'\n').all(|l| {
        let l = l.trim_ascii_start();
        l.is_empty() || l.starts_with(b"#")
    });
    if blank && !too_big {
        return;
    }
    st.records += 1;
    ctx.stats.records += 1;
    // A document's line is that of its first line of content (after comments).
    let line = first_content_line(doc, line);
    let rec = if too_big {
        Rec::Bad(format!(
            "a YAML document longer than {} MiB: skipped",
            MAX_RECORD >> 20
        ))
    } else {
        match parse(doc) {
            Ok(json) => record(ctx, st, &json, line, None, None),
            Err(why) => Rec::Bad(why),
        }
    };
    outcome(ctx, st, rec, line, None, true);
}

/// The line of the first line of `doc` that is neither blank nor a comment.
fn first_content_line(doc: &[u8], line: u64) -> u64 {
    doc.split(|b| *b == b'\n')
        .position(|l| {
            let l = l.trim_ascii_start();
            !l.is_empty() && !l.starts_with(b"#")
        })
        .map_or(line, |i| line + i as u64)
}

/// One YAML document as JSON text.
fn parse(doc: &[u8]) -> Result<Vec<u8>, String> {
    let Ok(text) = std::str::from_utf8(doc) else {
        return Err("not UTF-8 text: not a YAML document".into());
    };
    let mut options = serde_saphyr::Options::default();
    // Go's YAML and JSON readers keep the last of duplicate keys.
    options.duplicate_keys = serde_saphyr::DuplicateKeyPolicy::LastWins;
    let value: serde_json::Value =
        serde_saphyr::from_str_with_options(text, options).map_err(|e| {
            let msg = e.to_string();
            let first = msg.lines().next().unwrap_or("").trim();
            format!("not valid YAML: {}", super::records::cut_at(first, 200))
        })?;
    serde_json::to_vec(&value).map_err(|e| format!("not a YAML document JSON can hold: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_is_recognised_by_its_first_line() {
        for yes in [
            "---",
            "--- # entry 1",
            "# Copyright 2025 Google LLC",
            "%YAML 1.2",
            "insertId: c7842d26",
            "kind: Event",
            "'@type': type.googleapis.com/google.cloud.audit.AuditLog",
            "protoPayload:",
            "protoPayload:\r",
        ] {
            assert!(looks_like_yaml(yes.as_bytes()), "{yes:?}");
        }
        for no in [
            "",
            "\u{1}\u{2}garbage",
            "2017-09-11T19:55:05Z AUDIT: id=1 ip=::1",
            "http://example.com/x",
            "key:value",
            "-----BEGIN CERTIFICATE-----",
            "hello world",
            "12: numbers first",
        ] {
            assert!(!looks_like_yaml(no.as_bytes()), "{no:?}");
        }
    }
}
