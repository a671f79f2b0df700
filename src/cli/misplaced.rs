//! Flags given beside the command they belong to. clap's own message says only that they are
//! unexpected (with a tip for a flag of similar spelling: `--to` → `--token`) or in conflict;
//! these get one line of cause and a hint naming the command that takes them.

use clap::error::{ContextKind, ContextValue, ErrorKind};
use std::ffi::OsString;

/// A clearer error for a known misplaced flag, or None to keep clap's.
pub(super) fn explain(e: &clap::Error, args: &[OsString]) -> Option<clap::Error> {
    let words: Vec<&str> = args.iter().skip(1).filter_map(|a| a.to_str()).collect();
    let flag = |k: ContextKind| match e.get(k) {
        Some(ContextValue::String(s)) => s.split([' ', '=']).next().map(str::to_owned),
        _ => None,
    };
    let bad = flag(ContextKind::InvalidArg)?;
    let after = |cmd: &str| {
        let at = words.iter().position(|w| *w == cmd)?;
        Some(&words[at + 1..])
    };
    let (cause, hint) = match e.kind() {
        ErrorKind::UnknownArgument => {
            let rest = after("check")?;
            let sub = rest
                .iter()
                .find(|w| ["restart", "health", "upgrade", "apply"].contains(w))?;
            match bad.as_str() {
                "--to" | "--crd" if *sub != "upgrade" => (
                    format!("{bad} is for the upgrade check; check {sub} does not use it"),
                    format!(
                        "kubectl gc check upgrade {bad} …, or kubectl gc check {bad} … (restart, health and upgrade)"
                    ),
                ),
                "--target" | "--restorer" if *sub != "apply" => (
                    format!("{bad} is for check apply; check {sub} does not use it"),
                    "kubectl gc check apply -f PATH --target empty|SNAPSHOT".to_owned(),
                ),
                _ => return None,
            }
        }
        ErrorKind::ArgumentConflict => {
            let prior = flag(ContextKind::PriorArg)?;
            let mut pair = [bad.as_str(), prior.as_str()];
            pair.sort_unstable();
            if pair != ["--filename", "--snapshot"] {
                return None;
            }
            let (cmd, what) = if after("relink").is_some() {
                ("relink", "BACKUP")
            } else if after("check").is_some_and(|rest| rest.contains(&"apply")) {
                ("check apply", "PATH")
            } else {
                return None;
            };
            (
                format!(
                    "{cmd} reads -f as what is restored or applied, and the cluster it goes into \
                     from --target, not --snapshot"
                ),
                format!("kubectl gc {cmd} -f {what} --target SNAPSHOT"),
            )
        }
        _ => return None,
    };
    Some(clap::Error::raw(
        e.kind(),
        format!("{cause}\nhint: {hint}\n"),
    ))
}

#[cfg(test)]
mod tests {
    use super::super::parse;

    fn error(line: &str) -> String {
        let args = std::iter::once("kubectl-gc")
            .chain(line.split_whitespace())
            .map(Into::into)
            .collect();
        match parse(args) {
            Ok(_) => panic!("{line}: parsed"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn a_flag_of_another_check_names_the_check_that_takes_it() {
        let e = error("check restart --to 1.25");
        assert!(e.starts_with("error: --to is for the upgrade check"), "{e}");
        assert!(!e.contains("--token"), "{e}");
        let e = error("check apply -f x.yaml --crd c.yaml");
        assert!(
            e.starts_with("error: --crd is for the upgrade check"),
            "{e}"
        );
        let e = error("check health --target empty");
        assert!(e.starts_with("error: --target is for check apply"), "{e}");
        assert!(
            e.contains("hint: kubectl gc check apply -f PATH --target"),
            "{e}"
        );
    }

    #[test]
    fn snapshot_beside_f_in_relink_and_check_apply_points_at_target() {
        for (line, cmd) in [
            ("relink -f b.yaml --snapshot r.ndjson", "relink"),
            ("check apply -f b.yaml --snapshot r.ndjson", "check apply"),
        ] {
            let e = error(line);
            assert!(e.contains("--target"), "{e}");
            assert!(e.contains(&format!("hint: kubectl gc {cmd} -f ")), "{e}");
        }
        // Elsewhere the conflict is the plain one: -f and --snapshot are two inputs.
        assert!(!error("audit -f b.yaml --snapshot r.ndjson").contains("--target"));
    }
}
