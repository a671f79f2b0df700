//! Escaping for the document formats (XML/HTML, Markdown). Every string from a cluster or a
//! file is hostile: a name like `</td><script>` or `a|b` must stay text in the report, never
//! become markup. Control characters that XML 1.0 and HTML cannot carry at all (even escaped)
//! are shown as `\xNN` / `\u{NNNN}`, so the text stays visible and the document well-formed;
//! so are the invisible characters that reorder or hide text (bidirectional overrides and
//! isolates, zero-width characters: `util::is_terminal_hostile`), so that a name cannot read
//! reversed or hide part of itself in a PR comment or a report.

use std::fmt::Write as _;

/// Characters XML 1.0 forbids in documents (C0 controls other than tab, newline and carriage
/// return; U+FFFE, U+FFFF), plus DEL and the C1 controls, which HTML treats as parse errors.
fn unrepresentable(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{8}' | '\u{b}' | '\u{c}' | '\u{e}'..='\u{1f}' | '\u{7f}'..='\u{9f}' | '\u{fffe}' | '\u{ffff}')
}

fn push_visible(out: &mut String, c: char) {
    let _ = write!(out, "\\u{{{:04x}}}", c as u32);
}

/// Text for XML and HTML content and double- or single-quoted attribute values: `&`, `<`,
/// `>`, `"` and `'` as entities; characters XML cannot carry as visible escapes.
pub fn xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if unrepresentable(c) || invisible(c) => push_visible(&mut out, c),
            c => out.push(c),
        }
    }
    out
}

/// The invisible format characters of [`crate::util::is_terminal_hostile`] (not the controls,
/// which [`xml`] keeps where XML can carry them: tab and line breaks of multi-line text).
fn invisible(c: char) -> bool {
    !c.is_control() && crate::util::is_terminal_hostile(c)
}

/// One-line text: newlines, tabs and other controls as visible escapes (for names, which
/// never legitimately contain them), then [`xml`] escaping.
pub fn xml_line(s: &str) -> String {
    xml(&one_line(s))
}

/// Replaces every control character (newlines included) and every invisible format
/// character (bidirectional controls, zero-width characters, line and paragraph separators)
/// with a visible escape.
pub fn one_line(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if crate::util::is_terminal_hostile(c) {
            push_visible(&mut out, c);
        } else {
            out.push(c);
        }
    }
    out
}

/// Markdown inline text (GitHub-flavoured): the ASCII punctuation that starts inline markup is
/// backslash-escaped (`|` included, so the text is safe in table cells), `<`, `>` and `&`
/// become entities (no raw HTML), `@` is followed by a zero-width space (no mentions), and
/// controls are visible escapes (no line break can end a table row or start a block).
///
/// The escapes are only where markup could start, so the raw text still reads well in a CI
/// log: `ConfigMap/web`, `example.com/v1` and `came from:` stay as written. What GitHub would
/// autolink is broken at one character: the `:` of `scheme://` and of `mailto:`/`xmpp:`, the
/// `.` of `www.`; and the `.` or `)` after leading digits, which would start an ordered list
/// where the text opens a paragraph.
pub fn markdown(s: &str) -> String {
    let chars: Vec<char> = one_line(s).chars().collect();
    let mut out = String::with_capacity(chars.len() + 8);
    let leading_digits = chars.iter().take_while(|c| c.is_ascii_digit()).count();
    for (i, &c) in chars.iter().enumerate() {
        // `word` ends right before `c`, and starts the text or follows a non-alphanumeric.
        let after_word = |word: &str| {
            let n = word.len();
            i >= n
                && chars[i - n..i]
                    .iter()
                    .zip(word.chars())
                    .all(|(a, b)| a.eq_ignore_ascii_case(&b))
                && (i == n || !chars[i - n - 1].is_ascii_alphanumeric())
        };
        let autolink = match c {
            ':' => chars.get(i + 1) == Some(&'/') || after_word("mailto") || after_word("xmpp"),
            '.' => after_word("www"),
            _ => false,
        };
        let list_marker = matches!(c, '.' | ')') && i > 0 && i == leading_digits;
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '@' => out.push_str("@\u{200b}"),
            // Inline markup: emphasis, code, links and images, strikethrough, tables, math,
            // issue references.
            '\\' | '`' | '*' | '_' | '[' | ']' | '#' | '|' | '~' | '$' => {
                out.push('\\');
                out.push(c);
            }
            c if autolink || list_marker => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// A Markdown code span holding `s` literally: a backtick fence longer than any backtick run
/// in `s` (padded with spaces when `s` starts or ends with a backtick), `|` escaped (GitHub
/// splits table cells on it even inside code spans), controls as visible escapes.
pub fn markdown_code(s: &str) -> String {
    let s = one_line(s).replace('|', "\\|");
    let longest = longest_run(&s, '`');
    let fence = "`".repeat(longest + 1);
    let pad = if s.starts_with('`') || s.ends_with('`') || s.is_empty() {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{s}{pad}{fence}")
}

/// The opening/closing fence of a fenced code block that can hold `body` (three backticks,
/// or more than the longest backtick run in it).
pub fn markdown_fence(body: &str) -> String {
    "`".repeat((longest_run(body, '`') + 1).max(3))
}

fn longest_run(s: &str, ch: char) -> usize {
    let (mut best, mut run) = (0, 0);
    for c in s.chars() {
        if c == ch {
            run += 1;
            best = best.max(run);
        } else {
            run = 0;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_escapes_markup_and_controls() {
        assert_eq!(
            xml("<a href=\"x\">&'\u{1}"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;\\u{0001}"
        );
        assert_eq!(xml("tab\tnl\n"), "tab\tnl\n");
        assert_eq!(xml_line("a\nb"), "a\\u{000a}b");
        assert_eq!(xml("\u{fffe}"), "\\u{fffe}");
    }

    #[test]
    fn markdown_text_cannot_make_markup() {
        assert_eq!(markdown("a|b"), "a\\|b");
        assert_eq!(markdown("[x](http://e)"), "\\[x\\](http\\://e)");
        assert_eq!(markdown("see www.example.com"), "see www\\.example.com");
        assert_eq!(markdown("mailto:a"), "mailto\\:a");
        assert_eq!(markdown("1. not a list"), "1\\. not a list");
        assert_eq!(markdown("Pod/x-1.2"), "Pod/x-1.2");
        assert_eq!(markdown("<img src=x>"), "&lt;img src=x&gt;");
        assert_eq!(markdown("@org/team"), "@\u{200b}org/team");
        assert_eq!(markdown("a\nb"), "a\\\\u{000a}b");
        assert_eq!(markdown("**bold**"), "\\*\\*bold\\*\\*");
    }

    /// The words a report is made of read as written: no escapes where no markup can start.
    #[test]
    fn markdown_text_escapes_only_where_markup_starts() {
        assert_eq!(
            markdown("owner example.com/v1 ConfigMap/ghost came from: it"),
            "owner example.com/v1 ConfigMap/ghost came from: it"
        );
        assert_eq!(markdown("wwwx.io and awww.b"), "wwwx.io and awww.b");
        assert_eq!(markdown("x https://e"), "x https\\://e");
    }

    #[test]
    fn code_spans_hold_backticks_and_pipes() {
        assert_eq!(markdown_code("web"), "`web`");
        assert_eq!(markdown_code("a`b"), "``a`b``");
        assert_eq!(markdown_code("`x"), "`` `x ``");
        assert_eq!(markdown_code("a|b"), "`a\\|b`");
        assert_eq!(markdown_fence("x ``` y"), "````");
        assert_eq!(markdown_fence("x"), "```");
    }
}
