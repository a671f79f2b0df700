//! The plain table written without comfy-table: the same text, for the case that needs none
//! of its machinery.
//!
//! A table made by [`super::table`] and laid out by [`super::fit`] with no width to fit and no
//! colour is only text padded to each column's widest cell. comfy-table gets there through a
//! `Cell` (a vector of lines) per cell, a formatted copy of every line and a joined copy of
//! every row, in the single-threaded tail after the analysis (BENCHMARKS.md, "Figures behind the code"). Everything
//! else (a width to fit, colour) still goes through comfy-table; the tests hold this writer to
//! comfy-table's output on random tables.

use std::io::Write;
use unicode_width::UnicodeWidthStr as _;

/// kubectl's gap after every column but the last ([`super::pad_columns`]).
const GAP: usize = 3;

/// Writes `header` (if any) and `rows`, cells already sanitised ([`super::text::sanitize`]),
/// exactly as [`super::write_table`] writes the comfy-table of the same cells made by
/// [`super::table`] without colour and padded by [`super::fit`] without a width. `false`
/// (nothing written) for a table comfy-table lays out otherwise: a column wider than 65,535
/// characters (its width type), whose cells it would wrap.
pub fn write_plain(
    w: &mut dyn Write,
    header: Option<&[String]>,
    rows: &[Vec<String>],
) -> std::io::Result<bool> {
    let all = || header.into_iter().chain(rows.iter().map(Vec::as_slice));
    let columns = all().map(<[String]>::len).max().unwrap_or(0);
    // Each cell's width, measured once; a cell of several lines is measured line by line
    // where it is written.
    let mut cell_widths = Vec::with_capacity(rows.len() * columns + columns);
    // A column is at least one character wide, as comfy-table makes it.
    let mut widths = vec![1usize; columns];
    for row in all() {
        for (c, cell) in row.iter().enumerate() {
            let width = cell.split('\n').map(width).max().unwrap_or(0);
            widths[c] = widths[c].max(width);
            cell_widths.push(width);
        }
    }
    if widths.iter().any(|&w| w > usize::from(u16::MAX)) {
        return Ok(false);
    }
    let pad = |c: usize| if c + 1 == columns { 0 } else { GAP };
    let mut line = String::new();
    let mut out = Vec::with_capacity(rows.len() * 128);
    let mut at = 0;
    for row in all() {
        let row_widths = &cell_widths[at..at + row.len()];
        at += row.len();
        // A row is as high as its highest cell; missing cells and missing lines are blank.
        let multi_line = row.iter().any(|c| c.contains('\n'));
        let height = if multi_line {
            row.iter().map(|c| c.split('\n').count()).max().unwrap_or(0)
        } else {
            usize::from(!row.is_empty())
        }
        .max(usize::from(row.len() < columns));
        for l in 0..height {
            line.clear();
            for (c, &column) in widths.iter().enumerate() {
                let used = match row.get(c) {
                    Some(cell) if !multi_line => {
                        line.push_str(cell);
                        row_widths[c]
                    }
                    Some(cell) => match cell.split('\n').nth(l) {
                        Some(t) => {
                            line.push_str(t);
                            width(t)
                        }
                        None => 0,
                    },
                    None => 0,
                };
                line.extend(std::iter::repeat_n(' ', column - used + pad(c)));
            }
            out.extend_from_slice(line.trim_end().as_bytes());
            out.push(b'\n');
        }
    }
    w.write_all(&out)?;
    Ok(true)
}

/// The display width of one line of a cell, as comfy-table measures it; printable ASCII (almost
/// every cell) is one column per byte.
fn width(line: &str) -> usize {
    if line.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        line.len()
    } else {
        line.width()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::{Styles, TableOptions, fit, table, write_table};
    use unicode_width::UnicodeWidthStr;

    /// What comfy-table writes for the same cells in a table made and laid out as the
    /// renderers make it. The cells are taken as they are (the renderers sanitise theirs
    /// first), so that line breaks and zero-width characters reach the layout too.
    fn comfy(header: Option<&[String]>, rows: &[Vec<String>]) -> String {
        let raw = |r: &[String]| r.iter().map(comfy_table::Cell::new).collect::<Vec<_>>();
        let mut t = table(Styles::plain());
        if let Some(h) = header {
            t.set_header(raw(h));
        }
        for r in rows {
            t.add_row(raw(r));
        }
        fit(&mut t, &TableOptions::default(), &[0]);
        let mut out = Vec::new();
        write_table(&mut out, &t).unwrap();
        String::from_utf8(out).unwrap()
    }

    fn plain(header: Option<&[String]>, rows: &[Vec<String>]) -> String {
        let mut out = Vec::new();
        assert!(write_plain(&mut out, header, rows).unwrap());
        String::from_utf8(out).unwrap()
    }

    /// The plain writer's table is comfy-table's, byte for byte.
    fn assert_same_as_comfy(header: Option<&[String]>, rows: &[Vec<String>]) {
        assert_eq!(
            plain(header, rows),
            comfy(header, rows),
            "{header:?} {rows:?}"
        );
    }

    fn strings(row: &[&str]) -> Vec<String> {
        row.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_findings_table_reads_as_comfy_table_writes_it() {
        let header = strings(&["SEVERITY", "CODE", "NAMESPACE", "OBJECT", "CONSEQUENCE"]);
        let rows = vec![
            strings(&[
                "CRITICAL",
                "GC004",
                "shop",
                "ConfigMap/a",
                "the GC will delete",
            ]),
            strings(&["INFO", "GC013", "", "Namespace/名前-ü", "-"]),
            strings(&["ERROR", "GC001", "kube-system", "Pod/x", ""]),
        ];
        assert_same_as_comfy(Some(&header), &rows);
        let got = plain(Some(&header), &rows);
        // As the renderers build it: `cell` sanitises each text for comfy-table, the plain
        // writer is given the sanitised text.
        let hostile = ["WARNING", "GC002", "a\u{1b}[2Jb", "Pod/x\ny", "-"];
        let sanitised = vec![
            hostile
                .iter()
                .map(|c| crate::render::text::sanitized(c))
                .collect::<Vec<_>>(),
        ];
        assert_same_as_comfy(Some(&header), &sanitised);
        let shown = plain(Some(&header), &sanitised);
        assert!(
            shown.contains("a^[[2Jb") && shown.contains("Pod/x\\ny"),
            "{shown}"
        );
        assert!(!shown.contains('\u{1b}'), "{shown}");
        // kubectl's look: three spaces after the widest cell, nothing after the last column.
        assert!(got.starts_with("SEVERITY   CODE    NAMESPACE     OBJECT             "));
        assert!(got.lines().all(|l| l == l.trim_end()));
    }

    #[test]
    fn ragged_empty_and_multi_line_tables_read_as_comfy_table_writes_them() {
        type Case = (Option<Vec<String>>, Vec<Vec<String>>);
        let cases: Vec<Case> = vec![
            (None, vec![]),
            (Some(strings(&["A", "B"])), vec![]),
            (None, vec![vec![]]),
            (
                Some(strings(&["A"])),
                vec![vec![], strings(&["x", "y", "z"])],
            ),
            (
                None,
                vec![strings(&["two\nlines", "one"]), strings(&["", "a\n\nb"])],
            ),
            (
                Some(strings(&["", ""])),
                vec![strings(&[" lead", "trail  "])],
            ),
        ];
        for (header, rows) in cases {
            assert_same_as_comfy(header.as_deref(), &rows);
        }
    }

    #[test]
    fn random_tables_read_as_comfy_table_writes_them() {
        // Characters of every width class comfy-table measures: ASCII, wide (CJK, emoji),
        // zero-width (combining marks, joiners), spaces and line breaks.
        const ALPHABET: &[char] = &[
            'a', 'Z', '-', '/', '.', ' ', '\n', '名', '前', '✓', 'é', '\u{301}', '\u{200d}', '🚀',
            'ß', '\u{3000}',
        ];
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for _ in 0..500 {
            let columns = next(6);
            let cell = |next: &mut dyn FnMut(usize) -> usize| -> String {
                (0..next(12))
                    .map(|_| ALPHABET[next(ALPHABET.len())])
                    .collect()
            };
            let header =
                (next(2) == 0).then(|| (0..columns).map(|_| cell(&mut next)).collect::<Vec<_>>());
            let rows: Vec<Vec<String>> = (0..next(8))
                .map(|_| (0..next(columns + 2)).map(|_| cell(&mut next)).collect())
                .collect();
            assert_same_as_comfy(header.as_deref(), &rows);
        }
    }

    #[test]
    fn printable_ascii_is_measured_as_unicode_width_measures_it() {
        let printable: String = (0x20u8..0x7f).map(char::from).collect();
        assert_eq!(
            width(&printable),
            UnicodeWidthStr::width(printable.as_str())
        );
        for c in printable
            .chars()
            .chain(['\u{7f}', '\u{1}', '名', '\u{301}'])
        {
            let s = c.to_string();
            assert_eq!(width(&s), UnicodeWidthStr::width(s.as_str()), "{c:?}");
        }
    }

    #[test]
    fn a_cell_wider_than_comfy_tables_widths_is_left_to_it() {
        let rows = vec![vec!["x".repeat(70_000)]];
        let mut out = Vec::new();
        assert!(!write_plain(&mut out, None, &rows).unwrap());
        assert!(out.is_empty());
    }
}
