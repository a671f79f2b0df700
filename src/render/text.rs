//! Hostile text made harmless for terminals: the one sanitiser every human-facing string goes
//! through before it is written (tables, trees, summaries, remedies, errors).
//!
//! Names, UIDs, finalizers and messages come from clusters, support bundles and files anyone
//! may have crafted. Printed raw, an escape sequence in a name clears the screen, moves the
//! cursor to overwrite earlier lines, sets the window title or (in some terminals) writes to
//! the clipboard; a carriage return or a newline fakes a line of output. kubectl shows ESC as
//! `^[` and CR as `\r` (cli-runtime's terminal escaper); this goes further and shows every
//! character that is not printable text escaped, so the output keeps one line per row and
//! still says what was there:
//!
//! | character | shown as |
//! |---|---|
//! | ESC (U+001B) | `^[` (as kubectl) |
//! | CR, LF, TAB | `\r`, `\n`, `\t` |
//! | other C0 controls, DEL, C1 controls (U+0080–U+009F) | `\xNN` |
//! | invisible format characters: bidirectional overrides and isolates, zero-width characters, the BOM, and the line/paragraph separators | `\u{NNNN}` |
//!
//! A backslash is left as it is: the escaping is for reading, not reversible (kubectl's is
//! not either). Machine formats (JSON, YAML) are not touched: their encoders escape control
//! characters themselves, and scripts need the exact values.

use std::borrow::Cow;

pub use crate::util::is_terminal_hostile as is_hostile;

/// `s` with every hostile character shown escaped (see the module documentation); borrowed
/// when there is nothing to escape, which is almost always.
pub fn sanitize(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_hostile) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if !is_hostile(c) {
            out.push(c);
            continue;
        }
        match c {
            '\u{1b}' => out.push_str("^["),
            '\r' => out.push_str("\\r"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) <= 0xff => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push_str(&format!("\\u{{{:04x}}}", c as u32)),
        }
    }
    Cow::Owned(out)
}

/// [`sanitize`] into an owned string.
pub fn sanitized(s: &str) -> String {
    sanitize(s).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_text_is_borrowed_unchanged() {
        for s in [
            "web-5d4f",
            "deployments.apps/web -n shop",
            "ünïcødé ✓ 名前",
            "",
        ] {
            assert!(matches!(sanitize(s), Cow::Borrowed(_)), "{s}");
        }
    }

    #[test]
    fn controls_are_shown_escaped_like_kubectl_and_more() {
        assert_eq!(sanitize("a\u{1b}[2Jb"), "a^[[2Jb");
        assert_eq!(sanitize("x\ry"), "x\\ry");
        assert_eq!(sanitize("x\ny\tz"), "x\\ny\\tz");
        assert_eq!(sanitize("bell\u{7}"), "bell\\x07");
        assert_eq!(sanitize("del\u{7f}"), "del\\x7f");
        assert_eq!(sanitize("c1\u{9b}31m"), "c1\\x9b31m");
        // Trojan Source: a right-to-left override and an isolate.
        assert_eq!(sanitize("ab\u{202e}cd\u{2066}"), "ab\\u{202e}cd\\u{2066}");
        assert_eq!(sanitize("\u{feff}bom"), "\\u{feff}bom");
        // An OSC window title: nothing of the sequence stays live.
        let title = sanitize("\u{1b}]0;pwned\u{7}");
        assert!(!title.chars().any(is_hostile), "{title}");
    }
}
