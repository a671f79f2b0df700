//! DOT, byte-for-byte as kube-controller-manager's GC debug endpoint prints it
//! (`/debug/controllers/garbagecollector/graph`, gc-model §8), and a parser for what it
//! prints.
//!
//! # v1.26+ format ([`write()`])
//!
//! ```text
//! strict digraph full {
//!   // Node definitions.                      (only when there is a vertex)
//!   "<uid>" [
//!     label="uid=<uid>\nnamespace=<ns>\n<Kind>.<version>[.<group>]/<name>\n[<conditions>\n]"
//!     group="…"
//!     version="…"
//!     kind="…"
//!     namespace="…"
//!     name="…"
//!     uid="…"
//!     missing="false"
//!     beingDeleted="false"
//!     deletingDependents="false"
//!     virtual="false"
//!   ];
//!   // Edge definitions.                      (only when there is an edge)
//!   "<dependent uid>" -> "<owner uid>";
//! }
//! ```
//!
//! Vertices are sorted by UID, edges by (dependent, owner) UID, one edge per ownerReference
//! (a dependent listing one owner twice gives two identical lines, as upstream). Every quoted
//! string is Go `%q` ([`go_quote`]). The group and version come from the identity's apiVersion
//! as Go's `schema.ParseGroupVersion` splits it ([`parse_group_version`]). The conditions line
//! lists `beingDeleted`, `deletingDependents`, `virtual`, `missingFromGraph` (in that order,
//! comma-joined) when any holds.
//!
//! # Legacy format ([`write_legacy`], v1.12–v1.25: gonum's encoder)
//!
//! Verified against a running v1.20.2 kube-controller-manager: `strict digraph full {`, vertices
//! identified by integers allocated per request (we allocate them in UID order), attributes in
//! the same order with the same values, each wrapped in double quotes by the GC and then quoted
//! *again* by gonum when the result is not a valid Go string literal — which is always the case
//! for the label (it contains raw newlines), so the label reads `label="\"uid=…\n…\n\""`. One
//! edge per (dependent, owner) pair (gonum's simple graph merges duplicates), a blank line
//! before `// Edge definitions.`, and no newline after the closing brace. (gc-model §8.4
//! describes the even older encoder — not strict, unquoted labels with raw newlines; the parser
//! below reads that too.)
//!
//! # The quirk we fix (gc-model §8.5)
//!
//! When the GC synthesises a "missing" vertex for an owner UID that has no node, it records that
//! vertex under the **dependent's** UID instead of the owner's. A second dependent of the same
//! absent owner then gets a second, duplicate missing vertex, and a dependent processed later
//! whose owner is the first dependent gets its edge pointed at the missing vertex; since the GC
//! iterates a Go map, its output is not even deterministic in that case. kubectl-gc keys the
//! missing vertex by the owner's UID (what the code intends): one vertex per absent owner, every
//! edge to its real target. (With a graph built from a snapshot every absent owner is a
//! *virtual* node, so missing vertices only appear in graphs built by hand; the GC prints them
//! when it has verified an owner absent and dropped its virtual node while dependents still
//! point at it.)
//!
//! Two smaller deviations: Go's `strconv.Quote` escapes every rune Unicode does not consider
//! printable; we escape control, format, separator, private-use and non-character code points
//! but treat unassigned code points as printable (Kubernetes names, kinds and UIDs are ASCII in
//! practice). And the legacy encoder panics on a self-reference (an object owning itself) —
//! gonum's simple graph refuses self edges, so the real endpoint fails — while we print the
//! edge.
//!
//! **Files.** This one writes the endpoint's formats (and Go's quoting); `styled.rs` writes
//! the DOT for people ([`write_styled`]); `parse.rs` reads the endpoint's DOT back ([`parse`]).

mod parse;
mod styled;

pub use parse::{DotGraph, ParseError, parse};
pub use styled::{LARGE, dot_text, write_styled};

use super::{Subgraph, Vertex};
use std::fmt::Write as _;
use std::io::{self, Write};

/// Splits an apiVersion like Go's `schema.ParseGroupVersion`: `""` and `"/"` → empty;
/// `"v1"` → core; `"g/v"` → group and version; more than one `/` → empty (a parse error,
/// which the GC logs and prints as empty group and version).
pub fn parse_group_version(api_version: &str) -> (&str, &str) {
    if api_version.is_empty() || api_version == "/" {
        return ("", "");
    }
    match api_version.matches('/').count() {
        0 => ("", api_version),
        1 => api_version.split_once('/').unwrap_or(("", "")),
        _ => ("", ""),
    }
}

/// The label text of a vertex (before quoting): three or four lines, each ending in `\n`.
pub fn label(v: &Vertex<'_>) -> String {
    let (group, version) = parse_group_version(v.api_version);
    let mut s = format!(
        "uid={}\nnamespace={}\n{}.{}",
        v.uid, v.namespace, v.kind, version
    );
    if !group.is_empty() {
        s.push('.');
        s.push_str(group);
    }
    s.push('/');
    s.push_str(v.name);
    s.push('\n');
    let conditions: Vec<&str> = [
        (v.being_deleted, "beingDeleted"),
        (v.deleting_dependents, "deletingDependents"),
        (v.is_virtual, "virtual"),
        (v.missing, "missingFromGraph"),
    ]
    .iter()
    .filter(|(on, _)| *on)
    .map(|(_, name)| *name)
    .collect();
    if !conditions.is_empty() {
        s.push_str(&conditions.join(","));
        s.push('\n');
    }
    s
}

/// The attributes of a vertex, in the GC's order, unquoted.
pub fn attributes(v: &Vertex<'_>) -> [(&'static str, String); 11] {
    let (group, version) = parse_group_version(v.api_version);
    let b = |x: bool| if x { "true" } else { "false" }.to_owned();
    [
        ("label", label(v)),
        ("group", group.to_owned()),
        ("version", version.to_owned()),
        ("kind", v.kind.to_owned()),
        ("namespace", v.namespace.to_owned()),
        ("name", v.name.to_owned()),
        ("uid", v.uid.to_owned()),
        ("missing", b(v.missing)),
        ("beingDeleted", b(v.being_deleted)),
        ("deletingDependents", b(v.deleting_dependents)),
        ("virtual", b(v.is_virtual)),
    ]
}

/// Writes the v1.26+ format.
pub fn write(w: &mut dyn Write, sub: &Subgraph<'_>) -> io::Result<()> {
    let mut out = String::with_capacity(64 + sub.vertex_count() * 420);
    out.push_str("strict digraph full {\n");
    let vertices = sub.sorted_vertices();
    if !vertices.is_empty() {
        out.push_str("  // Node definitions.\n");
    }
    for v in vertices {
        let v = &sub.graph[v];
        let _ = writeln!(out, "  {} [", go_quote(v.uid));
        for (key, value) in attributes(v) {
            let _ = writeln!(out, "    {key}={}", go_quote(&value));
        }
        out.push_str("  ];\n");
        if out.len() > 1 << 20 {
            w.write_all(out.as_bytes())?;
            out.clear();
        }
    }
    let edges = sub.sorted_edges();
    if !edges.is_empty() {
        out.push_str("  // Edge definitions.\n");
    }
    for e in edges {
        let (f, t) = sub.graph.edge_endpoints(e).expect("edge exists");
        let _ = writeln!(
            out,
            "  {} -> {};",
            go_quote(sub.graph[f].uid),
            go_quote(sub.graph[t].uid)
        );
        if out.len() > 1 << 20 {
            w.write_all(out.as_bytes())?;
            out.clear();
        }
    }
    out.push_str("}\n");
    w.write_all(out.as_bytes())
}

/// Writes the legacy (gonum, v1.12–v1.25) format as v1.20–v1.25 print it.
pub fn write_legacy(w: &mut dyn Write, sub: &Subgraph<'_>) -> io::Result<()> {
    let vertices = sub.sorted_vertices();
    let mut id = vec![0usize; sub.graph.node_count()];
    for (i, v) in vertices.iter().enumerate() {
        id[v.index()] = i;
    }
    let mut out = String::with_capacity(64 + vertices.len() * 440);
    out.push_str("strict digraph full {");
    if !vertices.is_empty() {
        out.push_str("\n  // Node definitions.");
    }
    for v in &vertices {
        let _ = write!(out, "\n  {} [", id[v.index()]);
        for (key, value) in attributes(&sub.graph[*v]) {
            let _ = write!(out, "\n    {key}={}", gonum_value(&value));
        }
        out.push_str("\n  ];");
        if out.len() > 1 << 20 {
            w.write_all(out.as_bytes())?;
            out.clear();
        }
    }
    // A simple graph: one edge per (from, to) pair, ordered by from id, then to id.
    let mut edges: Vec<(usize, usize)> = sub
        .graph
        .edge_indices()
        .filter_map(|e| sub.graph.edge_endpoints(e))
        .map(|(f, t)| (id[f.index()], id[t.index()]))
        .collect();
    edges.sort_unstable();
    edges.dedup();
    if !edges.is_empty() {
        out.push_str("\n\n  // Edge definitions.");
    }
    for (f, t) in edges {
        let _ = write!(out, "\n  {f} -> {t};");
    }
    out.push_str("\n}");
    w.write_all(out.as_bytes())
}

/// A legacy attribute value: the GC wraps it in double quotes; gonum keeps that when it is a
/// valid Go string literal and quotes it again otherwise.
fn gonum_value(raw: &str) -> String {
    let wrapped = format!("\"{raw}\"");
    if go_unquotable(raw) {
        wrapped
    } else {
        go_quote(&wrapped)
    }
}

/// Go's `strconv.Quote`: a double-quoted literal; `"` and `\` escaped, `\a \b \f \n \r \t \v`
/// for those controls, `\xHH` for other ASCII controls, `\uHHHH`/`\UHHHHHHHH` for other
/// non-printable runes, printable Unicode as is.
pub fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if go_printable(c) => out.push(c),
            '\x07' => out.push_str("\\a"),
            '\x08' => out.push_str("\\b"),
            '\x0c' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\x0b' => out.push_str("\\v"),
            c if (c as u32) < 0x20 || c == '\x7f' => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if (c as u32) < 0x10000 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => {
                let _ = write!(out, "\\U{:08x}", c as u32);
            }
        }
    }
    out.push('"');
    out
}

/// Go's `strconv.IsPrint`, approximately: letters, marks, numbers, punctuation, symbols and
/// the ASCII space. Unassigned code points count as printable here (Go escapes them).
fn go_printable(c: char) -> bool {
    let u = c as u32;
    if u < 0x80 {
        return (0x20..0x7f).contains(&u);
    }
    if c.is_control() {
        return false;
    }
    !matches!(u,
        // Separators (Zs except U+0020, Zl, Zp).
        0xA0 | 0x1680 | 0x2000..=0x200A | 0x2028 | 0x2029 | 0x202F | 0x205F | 0x3000
        // Format characters (Cf).
        | 0xAD | 0x600..=0x605 | 0x61C | 0x6DD | 0x70F | 0x890 | 0x891 | 0x8E2 | 0x180E
        | 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x2064 | 0x2066..=0x206F | 0xFEFF
        | 0xFFF9..=0xFFFB | 0x110BD | 0x110CD | 0x13430..=0x1343F | 0x1BCA0..=0x1BCA3
        | 0x1D173..=0x1D17A | 0xE0001 | 0xE0020..=0xE007F
        // Private use (Co) and non-characters.
        | 0xE000..=0xF8FF | 0xF0000..=0xFFFFD | 0x100000..=0x10FFFD | 0xFDD0..=0xFDEF)
        && (u & 0xFFFE) != 0xFFFE
}

/// True when `"<inner>"` is a valid Go double-quoted literal (`strconv.Unquote` succeeds).
fn go_unquotable(inner: &str) -> bool {
    let b = inner.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' | b'\n' => return false,
            b'\\' => {
                let Some(&c) = b.get(i + 1) else {
                    return false;
                };
                i += 2;
                match c {
                    b'a' | b'b' | b'f' | b'n' | b'r' | b't' | b'v' | b'\\' | b'"' => {}
                    b'x' | b'u' | b'U' => {
                        let n = match c {
                            b'x' => 2,
                            b'u' => 4,
                            _ => 8,
                        };
                        let Some(digits) = b.get(i..i + n) else {
                            return false;
                        };
                        if !digits.iter().all(u8::is_ascii_hexdigit) {
                            return false;
                        }
                        let v = u32::from_str_radix(std::str::from_utf8(digits).unwrap_or("g"), 16)
                            .unwrap_or(u32::MAX);
                        if c != b'x' && v > 0x10FFFF {
                            return false;
                        }
                        i += n;
                    }
                    b'0'..=b'7' => {
                        let Some(digits) = b.get(i..i + 2) else {
                            return false;
                        };
                        if !digits.iter().all(|d| (b'0'..=b'7').contains(d)) {
                            return false;
                        }
                        let v = u32::from(c - b'0') * 64
                            + u32::from(digits[0] - b'0') * 8
                            + u32::from(digits[1] - b'0');
                        if v > 255 {
                            return false;
                        }
                        i += 2;
                    }
                    _ => return false,
                }
            }
            _ => i += 1,
        }
    }
    true
}
