//! A parser for the DOT the GC's debug endpoint prints, in every version [`super`] describes
//! (v1.26+, gonum with or without re-quoting, and the older unquoted encoder): what `graph
//! --from-gc` fetches, for [`crate::render::graph::gcdiff`] to compare. Graph, node and edge default
//! attributes are skipped; subgraphs are refused.

/// A parsed DOT graph (the subset the GC endpoint emits, any of its versions).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DotGraph {
    /// `strict` was given.
    pub strict: bool,
    /// Vertices in order: the id and the attributes (unquoted values).
    pub nodes: Vec<(String, Vec<(String, String)>)>,
    /// Edges in order: (from id, to id).
    pub edges: Vec<(String, String)>,
}

/// Why a text is not a DOT graph we understand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based line of the problem.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    /// An identifier, numeral or quoted string (unquoted with Go's escapes), or HTML string.
    Id(String),
    Punct(char),
    Arrow,
}

struct Lexer<'t> {
    s: &'t [u8],
    text: &'t str,
    i: usize,
    line: usize,
}

impl<'t> Lexer<'t> {
    fn err(&self, message: impl Into<String>) -> ParseError {
        ParseError {
            line: self.line,
            message: message.into(),
        }
    }

    fn next(&mut self) -> Result<Option<(Tok, usize)>, ParseError> {
        loop {
            let Some(&c) = self.s.get(self.i) else {
                return Ok(None);
            };
            match c {
                b'\n' => {
                    self.line += 1;
                    self.i += 1;
                }
                c if c.is_ascii_whitespace() => self.i += 1,
                b'/' if self.s.get(self.i + 1) == Some(&b'/') => self.skip_line(),
                b'#' if self.i == 0 || self.s[self.i - 1] == b'\n' => self.skip_line(),
                b'/' if self.s.get(self.i + 1) == Some(&b'*') => {
                    let rest = &self.text[self.i + 2..];
                    let end = rest
                        .find("*/")
                        .ok_or_else(|| self.err("unterminated comment"))?;
                    self.line += rest[..end].matches('\n').count();
                    self.i += 2 + end + 2;
                }
                _ => break,
            }
        }
        let line = self.line;
        let c = self.s[self.i];
        let tok = match c {
            b'{' | b'}' | b'[' | b']' | b';' | b',' | b'=' | b':' => {
                self.i += 1;
                Tok::Punct(c as char)
            }
            b'-' if matches!(self.s.get(self.i + 1), Some(b'>' | b'-')) => {
                self.i += 2;
                Tok::Arrow
            }
            b'"' => Tok::Id(self.quoted()?),
            b'<' => Tok::Id(self.html()?),
            _ => {
                let start = self.i;
                while let Some(&c) = self.s.get(self.i) {
                    let word = c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || c >= 0x80;
                    let dash = c == b'-' && !matches!(self.s.get(self.i + 1), Some(b'>' | b'-'));
                    if word || dash {
                        self.i += 1;
                    } else {
                        break;
                    }
                }
                if start == self.i {
                    return Err(self.err(format!("unexpected character {:?}", c as char)));
                }
                Tok::Id(self.text[start..self.i].to_owned())
            }
        };
        Ok(Some((tok, line)))
    }

    fn skip_line(&mut self) {
        while let Some(&c) = self.s.get(self.i) {
            if c == b'\n' {
                break;
            }
            self.i += 1;
        }
    }

    /// A quoted string, unescaped with Go's rules (the GC quotes with `%q`); raw newlines are
    /// accepted (the oldest encoder did not escape them), unknown escapes are kept as written.
    fn quoted(&mut self) -> Result<String, ParseError> {
        self.i += 1;
        let mut out = String::new();
        loop {
            let rest = &self.text[self.i..];
            let Some(c) = rest.chars().next() else {
                return Err(self.err("unterminated string"));
            };
            self.i += c.len_utf8();
            match c {
                '"' => return Ok(out),
                '\n' => {
                    self.line += 1;
                    out.push('\n');
                }
                '\\' => {
                    let Some(e) = self.text[self.i..].chars().next() else {
                        return Err(self.err("unterminated string"));
                    };
                    self.i += e.len_utf8();
                    match e {
                        'a' => out.push('\x07'),
                        'b' => out.push('\x08'),
                        'f' => out.push('\x0c'),
                        'n' => out.push('\n'),
                        'r' => out.push('\r'),
                        't' => out.push('\t'),
                        'v' => out.push('\x0b'),
                        '\\' | '"' | '\'' => out.push(e),
                        '\n' => self.line += 1, // DOT line continuation
                        'x' | 'u' | 'U' => {
                            let n = match e {
                                'x' => 2,
                                'u' => 4,
                                _ => 8,
                            };
                            let digits = self.text.get(self.i..self.i + n).unwrap_or("");
                            match u32::from_str_radix(digits, 16)
                                .ok()
                                .filter(|_| digits.len() == n)
                            {
                                Some(v) => {
                                    self.i += n;
                                    out.push(char::from_u32(v).unwrap_or('\u{fffd}'));
                                }
                                None => {
                                    out.push('\\');
                                    out.push(e);
                                }
                            }
                        }
                        '0'..='7' => {
                            let digits = self.text.get(self.i..self.i + 2).unwrap_or("");
                            match u32::from_str_radix(&format!("{e}{digits}"), 8)
                                .ok()
                                .filter(|_| digits.len() == 2)
                            {
                                Some(v) => {
                                    self.i += 2;
                                    out.push(char::from_u32(v).unwrap_or('\u{fffd}'));
                                }
                                None => {
                                    out.push('\\');
                                    out.push(e);
                                }
                            }
                        }
                        other => {
                            out.push('\\');
                            out.push(other);
                        }
                    }
                }
                c => out.push(c),
            }
        }
    }

    fn html(&mut self) -> Result<String, ParseError> {
        let start = self.i;
        let mut depth = 0usize;
        while let Some(&c) = self.s.get(self.i) {
            self.i += 1;
            match c {
                b'<' => depth += 1,
                b'>' => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(self.text[start..self.i].to_owned());
                    }
                }
                b'\n' => self.line += 1,
                _ => {}
            }
        }
        Err(self.err("unterminated HTML string"))
    }
}

/// Parses a DOT graph as the GC endpoint prints it (v1.26+, gonum with or without re-quoting).
/// Graph, node and edge default attributes are skipped; subgraphs are refused.
pub fn parse(text: &str) -> Result<DotGraph, ParseError> {
    let mut lx = Lexer {
        s: text.as_bytes(),
        text,
        i: 0,
        line: 1,
    };
    let mut toks: Vec<(Tok, usize)> = Vec::new();
    while let Some(t) = lx.next()? {
        toks.push(t);
    }
    let mut p = 0;
    let at = |p: usize| toks.get(p).map(|(t, _)| t);
    let line_at = |p: usize| toks.get(p).or(toks.last()).map_or(1, |(_, l)| *l);
    let err = |p: usize, m: &str| ParseError {
        line: line_at(p),
        message: m.to_owned(),
    };
    let keyword =
        |t: Option<&Tok>, k: &str| matches!(t, Some(Tok::Id(s)) if s.eq_ignore_ascii_case(k));
    let mut g = DotGraph::default();
    if keyword(at(p), "strict") {
        g.strict = true;
        p += 1;
    }
    if keyword(at(p), "digraph") || keyword(at(p), "graph") {
        p += 1;
    } else {
        return Err(err(p, "expected `digraph` (is this the GC's DOT graph?)"));
    }
    if matches!(at(p), Some(Tok::Id(_))) {
        p += 1;
    }
    if at(p) != Some(&Tok::Punct('{')) {
        return Err(err(p, "expected `{`"));
    }
    p += 1;
    loop {
        match at(p) {
            None => return Err(err(p, "missing closing `}`")),
            Some(Tok::Punct('}')) => {
                p += 1;
                break;
            }
            Some(Tok::Punct(';' | ',')) => p += 1,
            Some(Tok::Id(id)) if id.eq_ignore_ascii_case("subgraph") => {
                return Err(err(p, "subgraphs are not supported"));
            }
            Some(Tok::Id(id)) => {
                let id = id.clone();
                let is_default = ["node", "edge", "graph"]
                    .iter()
                    .any(|k| id.eq_ignore_ascii_case(k));
                p += 1;
                match at(p) {
                    Some(Tok::Punct('=')) => {
                        // graph attribute `a = b`
                        p += 2;
                    }
                    Some(Tok::Arrow) => {
                        let mut from = id;
                        while at(p) == Some(&Tok::Arrow) {
                            let Some(Tok::Id(to)) = at(p + 1) else {
                                return Err(err(p + 1, "expected a node id after `->`"));
                            };
                            g.edges.push((from, to.clone()));
                            from = to.clone();
                            p += 2;
                        }
                        if at(p) == Some(&Tok::Punct('[')) {
                            (_, p) =
                                attr_list(&toks, p).map_err(|q| err(q, "bad attribute list"))?;
                        }
                    }
                    Some(Tok::Punct('[')) => {
                        let (attrs, q) =
                            attr_list(&toks, p).map_err(|q| err(q, "bad attribute list"))?;
                        p = q;
                        if !is_default {
                            g.nodes.push((id, attrs));
                        }
                    }
                    Some(Tok::Punct(':')) => return Err(err(p, "ports are not supported")),
                    _ => {
                        if !is_default {
                            g.nodes.push((id, Vec::new()));
                        }
                    }
                }
            }
            Some(_) => return Err(err(p, "unexpected token")),
        }
    }
    if p < toks.len() {
        return Err(err(p, "text after the closing `}`"));
    }
    Ok(g)
}

/// Parses `[ a=b c=d, … ]` starting at `p` (the `[`); returns the attributes and the index
/// after `]`, or the index of the problem.
fn attr_list(toks: &[(Tok, usize)], mut p: usize) -> Result<(Vec<(String, String)>, usize), usize> {
    let mut attrs = Vec::new();
    p += 1;
    loop {
        match toks.get(p).map(|(t, _)| t) {
            Some(Tok::Punct(']')) => return Ok((attrs, p + 1)),
            Some(Tok::Punct(';' | ',')) => p += 1,
            Some(Tok::Id(k)) => {
                if toks.get(p + 1).map(|(t, _)| t) != Some(&Tok::Punct('=')) {
                    return Err(p + 1);
                }
                let Some((Tok::Id(v), _)) = toks.get(p + 2) else {
                    return Err(p + 2);
                };
                attrs.push((k.clone(), v.clone()));
                p += 3;
            }
            _ => return Err(p),
        }
    }
}
