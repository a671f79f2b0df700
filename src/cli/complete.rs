//! `kubectl gc __complete WORD…`: kubectl's completion protocol for plugins (kubectl ≥ 1.26).
//!
//! For `kubectl gc <TAB>`, kubectl runs `kubectl_complete-gc` (the two-line shim in
//! `completions/`, which calls `kubectl-gc __complete "$@"`) with the words typed after `gc`; the
//! last word is the one being completed (`""` for a new word). The answer is Cobra's format: one
//! candidate per line (`value<TAB>description`), then `:<directive>`.
//!
//! Candidates come from the clap definition through `clap_complete`'s dynamic engine, so they
//! never drift from the real command line. On top of it:
//! - values of path arguments (`--snapshot`, `-f`, `--kubeconfig`, `snapshot -o`) get no
//!   candidates and directive 0, so the shell completes file names itself;
//! - `--context`, `--cluster` and `--user` complete from the kubeconfig (`--kubeconfig` if
//!   given on the line, else `$KUBECONFIG` or `~/.kube/config`); nothing touches the network;
//! - `-n`, `--kind`, the `KIND/NAME` (and `KIND NAME`) of `graph` and `why`, and `collect
//!   --delete` complete from the input the line names (`-f`, `--snapshot`) or the cluster,
//!   through a [`Candidates`] provider (`commands::complete` reads the input or the cluster, in bounded
//!   time; without one, these complete nothing).
//!
//! `__complete` is handled before clap parses the command line (otherwise clap would take the
//! global `-o` and friends for itself), so it never shows in `--help`.

use std::ffi::{OsStr, OsString};

/// The hidden first argument that selects completion mode.
pub const COMMAND: &str = "__complete";

/// Cobra `ShellCompDirective` values used here.
pub mod directive {
    /// Default: the shell may fall back to completing file names.
    pub const DEFAULT: u32 = 0;
    /// Do not complete file names when there is no candidate.
    pub const NO_FILE_COMP: u32 = 4;
}

/// Cobra's NoSpace directive: the shell adds no space after the candidate (`deployments/`).
pub const NO_SPACE: u32 = 2;

/// What the word being completed is.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Slot {
    /// A file or directory name: leave it to the shell.
    Path,
    /// A kubeconfig name (`contexts`, `clusters` or `users`).
    Kubeconfig(&'static str),
    /// A namespace (`-n`).
    Namespace,
    /// Kinds (`--kind`, comma-separated).
    Kind,
    /// `KIND/NAME` (graph's positional words, `collect --delete`).
    Target,
    /// A name of this kind (`graph KIND NAME…`).
    NameOf(String),
    /// Anything else: ask clap.
    Other,
}

/// Where namespaces, kinds and names come from: the input the command line names, or the
/// cluster. `words` are the words typed so far (the provider reads its flags from them).
pub trait Candidates {
    /// Namespaces.
    fn namespaces(&self, words: &[OsString]) -> Vec<String>;
    /// Kinds, as kubectl names resource types (`pods`, `deployments.apps`).
    fn kinds(&self, words: &[OsString]) -> Vec<String>;
    /// Names of objects of `kind` (in the line's namespace, or every one with `-A`).
    fn names(&self, words: &[OsString], kind: &str) -> Vec<String>;
}

/// The provider that knows nothing (no input, no cluster).
pub struct NoCandidates;

impl Candidates for NoCandidates {
    fn namespaces(&self, _: &[OsString]) -> Vec<String> {
        Vec::new()
    }
    fn kinds(&self, _: &[OsString]) -> Vec<String> {
        Vec::new()
    }
    fn names(&self, _: &[OsString], _: &str) -> Vec<String> {
        Vec::new()
    }
}

/// Answers one completion request: `words` are the arguments after `__complete` (the last one
/// is the word being completed). Returns the complete response text, ending in `:<directive>`.
pub fn cobra_complete(words: &[OsString]) -> String {
    cobra_complete_with(words, &NoCandidates)
}

/// [`cobra_complete`] with namespaces, kinds and names from `provider`.
pub fn cobra_complete_with(words: &[OsString], provider: &dyn Candidates) -> String {
    let mut words: Vec<OsString> = words.to_vec();
    if words.is_empty() {
        words.push(OsString::new());
    }
    let mut cmd = super::command_for_completion();
    cmd.build();
    let (current, kubeconfig) = {
        let (before, current) = words.split_at(words.len() - 1);
        (
            current[0].to_string_lossy().into_owned(),
            find_kubeconfig(before),
        )
    };
    let slot = slot_of(&cmd, &words);

    let mut lines: Vec<String> = Vec::new();
    let directive = match slot {
        Slot::Path => directive::DEFAULT,
        Slot::Kubeconfig(section) => {
            // `--context=pro` completes to `--context=prod`.
            let (prefix, partial) = match current.split_once('=') {
                Some((flag, value)) if flag.starts_with("--") => (format!("{flag}="), value),
                _ => (String::new(), current.as_str()),
            };
            for name in crate::source::live::kubeconfig_names(
                kubeconfig.as_deref().map(std::path::Path::new),
                section,
            ) {
                if name.starts_with(partial) {
                    lines.push(format!("{prefix}{name}"));
                }
            }
            directive::NO_FILE_COMP
        }
        Slot::Namespace => {
            let (prefix, partial) = flag_value_prefix(&current);
            for ns in provider.namespaces(&words[..words.len() - 1]) {
                if ns.starts_with(partial) {
                    lines.push(format!("{prefix}{ns}"));
                }
            }
            directive::NO_FILE_COMP
        }
        Slot::Kind => {
            // `--kind po,dep` completes the last of the comma-separated kinds.
            let (prefix, partial) = flag_value_prefix(&current);
            let (done, last) = match partial.rsplit_once(',') {
                Some((d, l)) => (format!("{d},"), l),
                None => (String::new(), partial),
            };
            for k in provider.kinds(&words[..words.len() - 1]) {
                if k.starts_with(last) {
                    lines.push(format!("{prefix}{done}{k}"));
                }
            }
            directive::NO_FILE_COMP
        }
        Slot::Target => {
            let before = &words[..words.len() - 1];
            let (prefix, partial) = flag_value_prefix(&current);
            match partial.split_once('/') {
                Some((kind, name)) => {
                    for n in provider.names(before, kind) {
                        if n.starts_with(name) {
                            lines.push(format!("{prefix}{kind}/{n}"));
                        }
                    }
                    directive::NO_FILE_COMP
                }
                None => {
                    for k in provider.kinds(before) {
                        if k.starts_with(partial) {
                            lines.push(format!("{prefix}{k}/"));
                        }
                    }
                    directive::NO_FILE_COMP | NO_SPACE
                }
            }
        }
        Slot::NameOf(kind) => {
            for n in provider.names(&words[..words.len() - 1], &kind) {
                if n.starts_with(current.as_str()) {
                    lines.push(n);
                }
            }
            directive::NO_FILE_COMP
        }
        Slot::Other => {
            let mut argv: Vec<OsString> = Vec::with_capacity(words.len() + 1);
            argv.push("kubectl-gc".into());
            argv.extend(words.iter().cloned());
            let index = argv.len() - 1;
            let candidates =
                clap_complete::engine::complete(&mut cmd, argv, index, None).unwrap_or_default();
            // Like Cobra, offer flags only once the word starts with `-`.
            let flags_wanted = current.starts_with('-');
            for c in candidates.iter().filter(|c| !c.is_hide_set()) {
                let value = c.get_value().to_string_lossy();
                if value.starts_with('-') && !flags_wanted {
                    continue;
                }
                let help = c
                    .get_help()
                    .map(|h| one_line(&h.to_string()))
                    .unwrap_or_default();
                if help.is_empty() {
                    lines.push(value.into_owned());
                } else {
                    lines.push(format!("{value}\t{help}"));
                }
            }
            directive::NO_FILE_COMP
        }
    };
    let mut out = String::new();
    for line in lines {
        out.push_str(&line);
        out.push('\n');
    }
    out.push_str(&format!(":{directive}\n"));
    out
}

/// `--flag=value` splits into (`--flag=`, `value`); anything else is the value itself.
fn flag_value_prefix(current: &str) -> (String, &str) {
    match current.split_once('=') {
        Some((flag, value)) if flag.starts_with('-') => (format!("{flag}="), value),
        _ => (String::new(), current),
    }
}

/// The first sentence of a help text on one line (Cobra descriptions are single-line).
fn one_line(help: &str) -> String {
    let flat = help.split_whitespace().collect::<Vec<_>>().join(" ");
    let first = match flat.find(". ") {
        Some(i) => &flat[..i],
        None => flat.as_str(),
    };
    first.trim_end_matches('.').to_owned()
}

/// The completion script for `shell` (`kubectl gc completion SHELL`, and the files in
/// `completions/`), for the binary `kubectl-gc`.
///
/// clap_complete's bash generator spells subcommand states two different ways when the binary
/// name contains a `-` (clap-rs/clap#6421, open), which breaks completion after a subcommand.
/// Bash is therefore generated for a dash-free stand-in name, and only the final `complete`
/// registration is pointed at `kubectl-gc`.
pub fn completion_script(shell: clap_complete::Shell) -> Vec<u8> {
    const BIN: &str = "kubectl-gc";
    const STAND_IN: &str = "kubectl_gc";
    let mut out = Vec::new();
    if shell != clap_complete::Shell::Bash {
        clap_complete::generate(shell, &mut super::command_for_completion(), BIN, &mut out);
        return out;
    }
    clap_complete::generate(
        shell,
        &mut super::command_for_completion(),
        STAND_IN,
        &mut out,
    );
    let text = String::from_utf8_lossy(&out);
    let suffix = format!(" {STAND_IN}");
    let mut fixed = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches('\n');
        if body.trim_start().starts_with("complete ") && body.ends_with(&suffix) {
            fixed.push_str(&body[..body.len() - suffix.len()]);
            fixed.push(' ');
            fixed.push_str(BIN);
            fixed.push_str(&line[body.len()..]);
        } else {
            fixed.push_str(line);
        }
    }
    fixed.into_bytes()
}

/// Decides what the last word is: walks the earlier words the way clap would (subcommands,
/// options taking a value, `--opt=value`, bundled short flags).
fn slot_of(root: &clap::Command, words: &[OsString]) -> Slot {
    let (before, current) = words.split_at(words.len() - 1);
    let current = current[0].to_string_lossy();
    let mut cmd = root;
    let mut pending: Option<&clap::Arg> = None;
    let mut escaped = false;
    // The positional words after `graph`.
    let mut positionals: Vec<String> = Vec::new();
    for w in before {
        let w = w.to_string_lossy();
        if pending.take().is_some() {
            continue;
        }
        if escaped {
            continue;
        }
        if w == "--" {
            escaped = true;
        } else if let Some(long) = w.strip_prefix("--") {
            if !long.contains('=') {
                pending = find_long(cmd, long).filter(|a| takes_value(a));
            }
        } else if let Some(shorts) = w.strip_prefix('-').filter(|s| !s.is_empty()) {
            // `-Ao` takes a value for `o` when `o` is last; `-ojson` carries its value.
            let chars: Vec<char> = shorts.chars().collect();
            for (i, ch) in chars.iter().enumerate() {
                if let Some(arg) = find_short(cmd, *ch).filter(|a| takes_value(a)) {
                    if i + 1 == chars.len() {
                        pending = Some(arg);
                    }
                    break;
                }
            }
        } else if let Some(sub) = cmd.find_subcommand(w.as_ref()) {
            cmd = sub;
        } else {
            positionals.push(w.into_owned());
        }
    }
    if escaped {
        return Slot::Other;
    }
    if pending.is_none() && !current.starts_with('-') && cmd.get_name() == "graph" {
        return match positionals.first() {
            Some(kind) if !kind.contains('/') => Slot::NameOf(kind.clone()),
            _ => Slot::Target,
        };
    }
    // why names one object, as KIND/NAME or KIND NAME: nothing more once it is named.
    if pending.is_none() && !current.starts_with('-') && cmd.get_name() == "why" {
        return match positionals.as_slice() {
            [] => Slot::Target,
            [kind] if !kind.contains('/') => Slot::NameOf(kind.clone()),
            _ => Slot::Other,
        };
    }
    let arg = match pending {
        Some(arg) => Some(arg),
        None => current
            .strip_prefix("--")
            .and_then(|l| l.split_once('='))
            .and_then(|(name, _)| find_long(cmd, name)),
    };
    match arg {
        Some(arg) => classify(arg),
        None => Slot::Other,
    }
}

fn classify(arg: &clap::Arg) -> Slot {
    match arg.get_long() {
        Some("context") => return Slot::Kubeconfig("contexts"),
        Some("cluster") => return Slot::Kubeconfig("clusters"),
        Some("user") => return Slot::Kubeconfig("users"),
        Some("namespace") => return Slot::Namespace,
        Some("kind") => return Slot::Kind,
        Some("delete") => return Slot::Target,
        _ => {}
    }
    match arg.get_value_hint() {
        clap::ValueHint::AnyPath | clap::ValueHint::FilePath | clap::ValueHint::DirPath => {
            Slot::Path
        }
        _ => Slot::Other,
    }
}

fn takes_value(arg: &clap::Arg) -> bool {
    arg.get_num_args().is_some_and(|n| n.takes_values())
}

fn find_long<'a>(cmd: &'a clap::Command, name: &str) -> Option<&'a clap::Arg> {
    cmd.get_arguments().find(|a| {
        a.get_long() == Some(name)
            || a.get_all_aliases()
                .is_some_and(|aliases| aliases.contains(&name))
    })
}

fn find_short(cmd: &clap::Command, ch: char) -> Option<&clap::Arg> {
    cmd.get_arguments().find(|a| a.get_short() == Some(ch))
}

/// The value of `--kubeconfig` among the words already typed.
fn find_kubeconfig(words: &[OsString]) -> Option<OsString> {
    let mut iter = words.iter();
    while let Some(w) = iter.next() {
        if w == OsStr::new("--kubeconfig") {
            return iter.next().cloned();
        }
        if let Some(v) = w.to_str().and_then(|s| s.strip_prefix("--kubeconfig=")) {
            return Some(v.into());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn complete(words: &[&str]) -> (Vec<String>, String) {
        let words: Vec<OsString> = words.iter().map(OsString::from).collect();
        let out = cobra_complete(&words);
        let mut lines: Vec<&str> = out.lines().collect();
        let directive = lines.pop().expect("directive line").to_owned();
        let values = lines
            .iter()
            .map(|l| l.split('\t').next().unwrap_or("").to_owned())
            .collect();
        (values, directive)
    }

    #[test]
    fn a_new_word_lists_the_subcommands_and_no_files() {
        let (values, directive) = complete(&[""]);
        for sub in ["audit", "collect", "snapshot", "completion"] {
            assert!(values.iter().any(|v| v == sub), "{sub} missing: {values:?}");
        }
        assert!(!values.iter().any(|v| v == COMMAND), "{values:?}");
        assert_eq!(directive, ":4");
        let (values, _) = complete(&[]);
        assert!(values.iter().any(|v| v == "audit"), "{values:?}");
    }

    #[test]
    fn output_values_of_audit() {
        let (values, directive) = complete(&["audit", "-o", ""]);
        assert_eq!(
            values,
            [
                "table",
                "wide",
                "json",
                "yaml",
                "name",
                "sarif",
                "junit",
                "markdown",
                "html",
                "jsonpath=",
                "custom-columns="
            ]
        );
        assert_eq!(directive, ":4");
        let (values, _) = complete(&["audit", "--output", "j"]);
        assert_eq!(values, ["json", "junit", "jsonpath="]);
    }

    #[test]
    fn flags_complete_with_descriptions() {
        let out = cobra_complete(&["audit".into(), "--fail".into()]);
        assert!(out.starts_with("--fail-on\tExit with code 5"), "{out}");
        let (values, _) = complete(&["audit", "--"]);
        for flag in ["--snapshot", "--all-namespaces", "--gc-version", "--output"] {
            assert!(
                values.iter().any(|v| v == flag),
                "{flag} missing: {values:?}"
            );
        }
    }

    #[test]
    fn path_values_fall_back_to_the_shells_file_completion() {
        for words in [
            &["audit", "--snapshot", ""][..],
            &["audit", "-f", "ex"],
            &["audit", "-Rf", ""],
            &["--kubeconfig", ""],
            &["snapshot", "-o", ""],
            &["audit", "--snapshot=ex"],
        ] {
            let (values, directive) = complete(words);
            assert!(values.is_empty(), "{words:?}: {values:?}");
            assert_eq!(directive, ":0", "{words:?}");
        }
        // Once the value is typed, completion continues normally.
        let (values, directive) = complete(&["audit", "--snapshot", "x.json", "-o", ""]);
        assert_eq!(values[..4], ["table", "wide", "json", "yaml"]);
        assert_eq!(directive, ":4");
    }

    #[test]
    fn contexts_come_from_the_kubeconfig_on_the_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config");
        std::fs::write(
            &path,
            "apiVersion: v1\nkind: Config\nclusters:\n- name: c1\n  cluster: {server: 'https://127.0.0.1:1'}\n\
             users:\n- name: u1\n  user: {}\ncontexts:\n- name: prod\n  context: {cluster: c1, user: u1}\n\
             - name: staging\n  context: {cluster: c1, user: u1}\ncurrent-context: prod\n",
        )
        .unwrap();
        let kc = path.to_string_lossy().into_owned();
        let (values, directive) = complete(&["audit", "--kubeconfig", &kc, "--context", ""]);
        assert_eq!(values, ["prod", "staging"]);
        assert_eq!(directive, ":4");
        let (values, _) = complete(&["--kubeconfig", &kc, "audit", "--context=st"]);
        assert_eq!(values, ["--context=staging"]);
        let (values, _) = complete(&["--kubeconfig", &kc, "audit", "--cluster", ""]);
        assert_eq!(values, ["c1"]);
        let (values, _) = complete(&["--kubeconfig", &kc, "audit", "--user", "u"]);
        assert_eq!(values, ["u1"]);
        let missing = dir.path().join("missing").to_string_lossy().into_owned();
        let (values, directive) = complete(&["--kubeconfig", &missing, "--context", ""]);
        assert!(values.is_empty());
        assert_eq!(directive, ":4");
    }

    struct Fake;
    impl Candidates for Fake {
        fn namespaces(&self, _: &[OsString]) -> Vec<String> {
            vec!["kube-system".into(), "shop".into()]
        }
        fn kinds(&self, _: &[OsString]) -> Vec<String> {
            vec!["deployments.apps".into(), "pods".into()]
        }
        fn names(&self, _: &[OsString], kind: &str) -> Vec<String> {
            match kind {
                "pods" | "po" => vec!["web-1".into(), "web-2".into()],
                _ => vec!["web".into()],
            }
        }
    }

    fn complete_with(words: &[&str]) -> (Vec<String>, String) {
        let words: Vec<OsString> = words.iter().map(OsString::from).collect();
        let out = cobra_complete_with(&words, &Fake);
        let mut lines: Vec<&str> = out.lines().collect();
        let directive = lines.pop().expect("directive line").to_owned();
        (lines.iter().map(|l| l.to_string()).collect(), directive)
    }

    #[test]
    fn namespaces_kinds_and_names_come_from_the_provider() {
        assert_eq!(
            complete_with(&["audit", "-n", "s"]),
            (vec!["shop".to_owned()], ":4".to_owned())
        );
        assert_eq!(
            complete_with(&["audit", "--namespace=k"]).0,
            ["--namespace=kube-system"]
        );
        assert_eq!(
            complete_with(&["audit", "--kind", "pods,d"]).0,
            ["pods,deployments.apps"]
        );
        // graph KIND/NAME: kinds with a slash and no space, then names.
        assert_eq!(
            complete_with(&["graph", "-n", "shop", ""]),
            (
                vec!["deployments.apps/".to_owned(), "pods/".to_owned()],
                ":6".to_owned()
            )
        );
        assert_eq!(
            complete_with(&["graph", "pods/web-"]).0,
            ["pods/web-1", "pods/web-2"]
        );
        // graph KIND NAME.
        assert_eq!(complete_with(&["graph", "po", "w"]).0, ["web-1", "web-2"]);
        assert_eq!(
            complete_with(&["collect", "--delete", "deployments.apps/"]).0,
            ["deployments.apps/web"]
        );
        // why KIND/NAME and why KIND NAME, as graph; one object only.
        assert_eq!(
            complete_with(&["why", "-n", "shop", ""]),
            (
                vec!["deployments.apps/".to_owned(), "pods/".to_owned()],
                ":6".to_owned()
            )
        );
        assert_eq!(
            complete_with(&["why", "pods/web-"]).0,
            ["pods/web-1", "pods/web-2"]
        );
        assert_eq!(complete_with(&["why", "po", "w"]).0, ["web-1", "web-2"]);
        assert!(complete_with(&["why", "pods/web-1", ""]).0.is_empty());
        assert!(complete_with(&["why", "po", "web-1", ""]).0.is_empty());
        // Without a provider: nothing, and no file names.
        let (values, directive) = complete(&["audit", "-n", ""]);
        assert!(values.is_empty());
        assert_eq!(directive, ":4");
    }

    #[test]
    fn completion_shells_and_enum_values() {
        let (values, _) = complete(&["completion", ""]);
        for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
            assert!(values.iter().any(|v| v == shell), "{shell}: {values:?}");
        }
        let (values, _) = complete(&["collect", "--cascade", ""]);
        assert_eq!(values, ["background", "foreground", "orphan", "default"]);
    }
}
