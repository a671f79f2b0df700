//! Errors and exit codes.
//!
//! Every error a user can cause (bad flags, a bad kubeconfig, an unreachable cluster, a malformed
//! snapshot) is a variant here with a one-line cause and, where we can give one, a hint. `main`
//! prints `error: <cause>` and `hint: <hint>` and exits with [`Error::exit_code`]; nothing is
//! ever printed with `{:?}`.

use std::error::Error as StdError;
use std::path::PathBuf;

/// Documented process exit codes (README "Exit codes", docs/exit-codes.md, every command's
/// `--help`; `tests/integration/exit_codes.rs` reads this module and holds them together).
pub mod exit {
    /// Success; for `audit`/`check`: no finding at or above `--fail-on`.
    pub const OK: u8 = 0;
    /// An unexpected failure while running (an API call failed mid-run, an I/O error writing
    /// output).
    pub const ERROR: u8 = 1;
    /// Bad command line (clap's own code).
    pub const USAGE: u8 = 2;
    /// Unreadable or malformed input (snapshot file, `-f` input, baseline, CRD manifest).
    pub const INPUT: u8 = 3;
    /// kubeconfig, connection, TLS or authentication problem.
    pub const CLUSTER: u8 = 4;
    /// Findings at or above `--fail-on`.
    pub const FINDINGS: u8 = 5;
    /// Coverage incomplete (forbidden or failed resources) and `--strict-coverage` was given.
    pub const INCOMPLETE: u8 = 6;
    /// `collect --apply` or `relink --apply` refused to start or stopped before finishing.
    pub const APPLY_STOPPED: u8 = 7;
    /// The object named (`why`, `graph`, `collect --delete` KIND/NAME) is not in the input.
    pub const NOT_FOUND: u8 = 8;
    /// `collect --apply` or `relink --apply` exited at once on a second Ctrl-C (128 + SIGINT,
    /// as a shell reports a process SIGINT ends); the first one stops it with 7.
    pub const INTERRUPTED_NOW: u8 = 130;
    /// The same on a second SIGTERM (128 + SIGTERM).
    pub const TERMINATED_NOW: u8 = 143;
}

/// Library error type.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A flag combination or value that clap could not reject by itself.
    #[error("{message}")]
    Usage {
        /// What is wrong.
        message: String,
        /// How to fix it.
        hint: Option<String>,
    },
    /// An input file or document that cannot be read.
    #[error("{}: {message}", path.display())]
    Input {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
        /// How to fix it.
        hint: Option<String>,
    },
    /// Broken `-f` input: one line per broken document (file, where in it, why).
    #[error("{} broken input document{}:\n  {}", problems.len(), if problems.len() == 1 { "" } else { "s" }, problems.join("\n  "))]
    BrokenInput {
        /// One line per problem.
        problems: Vec<String>,
        /// How to fix it.
        hint: Option<String>,
    },
    /// kubeconfig, connection, TLS or credentials.
    #[error("{message}")]
    Cluster {
        /// What is wrong.
        message: String,
        /// How to fix it.
        hint: Option<String>,
    },
    /// An API request failed in a way the command cannot work around.
    #[error("{message}")]
    Api {
        /// What is wrong.
        message: String,
        /// How to fix it.
        hint: Option<String>,
    },
    /// `--apply` refused to start or stopped part-way.
    #[error("{message}")]
    ApplyStopped {
        /// What happened.
        message: String,
        /// What to do next.
        hint: Option<String>,
    },
    /// The object a command was asked about is not in the input (a kind that exists, no object
    /// of that name): one code in every command.
    #[error("{message}")]
    NotFound {
        /// What was not found.
        message: String,
        /// The nearest names, or where else to look.
        hint: Option<String>,
    },
    /// Writing output failed.
    #[error("writing output: {0}")]
    Io(#[from] std::io::Error),
}

impl Error {
    /// A usage error with a hint.
    pub fn usage(message: impl Into<String>, hint: impl Into<String>) -> Self {
        Error::Usage {
            message: message.into(),
            hint: Some(hint.into()),
        }
    }

    /// An input error.
    pub fn input(
        path: impl Into<PathBuf>,
        message: impl Into<String>,
        hint: Option<String>,
    ) -> Self {
        Error::Input {
            path: path.into(),
            message: message.into(),
            hint,
        }
    }

    /// An input not read because the system refused kubectl-gc a thread: a limit of the
    /// machine, not a fault of the input, so the hint is about the limit.
    pub fn thread_refused(path: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        Error::Input {
            path: path.into(),
            message: message.into(),
            hint: Some(
                "the system refused kubectl-gc a thread: raise its limit on processes and \
                 threads (a pids cgroup, a container's pids limit, `ulimit -u`)"
                    .into(),
            ),
        }
    }

    /// The hint line, if any.
    pub fn hint(&self) -> Option<&str> {
        match self {
            Error::Usage { hint, .. }
            | Error::Input { hint, .. }
            | Error::BrokenInput { hint, .. }
            | Error::Cluster { hint, .. }
            | Error::Api { hint, .. }
            | Error::ApplyStopped { hint, .. }
            | Error::NotFound { hint, .. } => hint.as_deref(),
            Error::Io(_) => None,
        }
    }

    /// The process exit code for this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Usage { .. } => exit::USAGE,
            Error::Input { .. } | Error::BrokenInput { .. } => exit::INPUT,
            Error::Cluster { .. } => exit::CLUSTER,
            Error::Api { .. } | Error::Io(_) => exit::ERROR,
            Error::ApplyStopped { .. } => exit::APPLY_STOPPED,
            Error::NotFound { .. } => exit::NOT_FOUND,
        }
    }

    /// The message as the lines a terminal shows, each still to be sanitised on its own: one
    /// line, except for broken input, whose problems go one per line after a count (at most
    /// [`SHOWN_PROBLEMS`]; the rest are counted). Sanitising the joined text instead would
    /// show the line breaks between problems as `\n`, and joining after sanitising keeps a
    /// line break inside a problem (a file name can hold one) escaped.
    pub fn lines(&self) -> Vec<String> {
        let Error::BrokenInput { problems, .. } = self else {
            return vec![self.to_string()];
        };
        let n = problems.len();
        let mut lines = vec![format!(
            "{n} broken input document{}:",
            if n == 1 { "" } else { "s" }
        )];
        lines.extend(
            problems
                .iter()
                .take(SHOWN_PROBLEMS)
                .map(|p| format!("  {p}")),
        );
        if n > SHOWN_PROBLEMS {
            lines.push(format!(
                "  … and {} more (--skip-broken-input warns about every one)",
                n - SHOWN_PROBLEMS
            ));
        }
        lines
    }

    /// True when the error is a closed stdout (`kubectl gc audit | head`), which is not a failure.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, Error::Io(e) if e.kind() == std::io::ErrorKind::BrokenPipe)
    }
}

/// Broken-input problems an error message shows one per line; more are counted.
pub const SHOWN_PROBLEMS: usize = 20;

/// Library result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// An error and its causes on one line, for messages: `outer: cause: root cause`. Drops kube's
/// and hyper's type-name prefixes (`ServiceError: `, …) and every cause whose text the previous
/// message already contains; a cause whose text contains the previous message replaces it.
pub fn cause_chain(error: &(dyn StdError + 'static)) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut cur: Option<&(dyn StdError + 'static)> = Some(error);
    while let Some(e) = cur {
        let mut text = one_line(&e.to_string());
        for prefix in [
            "ServiceError: ",
            "HyperError: ",
            "auth error: ",
            "client error (Connect): ",
        ] {
            if let Some(rest) = text.strip_prefix(prefix) {
                text = rest.to_owned();
            }
        }
        let redundant = text.is_empty()
            || text == "client error (Connect)"
            || parts.last().is_some_and(|p| p.contains(&text));
        if !redundant {
            if parts.last().is_some_and(|p| text.contains(p.as_str())) {
                parts.pop();
            }
            parts.push(text);
        }
        cur = e.source();
    }
    if parts.is_empty() {
        return "unknown error".to_owned();
    }
    parts.join(": ")
}

/// Collapses whitespace (including newlines) to single spaces: error texts from libraries and
/// servers become one line.
pub fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::cause_chain;

    #[derive(Debug)]
    struct E(&'static str, Option<Box<E>>);
    impl std::fmt::Display for E {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(self.0)
        }
    }
    impl std::error::Error for E {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            self.1.as_deref().map(|e| e as _)
        }
    }

    #[test]
    fn cause_chains_are_one_line_without_repeats_or_type_prefixes() {
        let e = E(
            "ServiceError: client error (Connect)",
            Some(Box::new(E(
                "tcp connect error:\n connection refused",
                Some(Box::new(E("connection refused", None))),
            ))),
        );
        assert_eq!(cause_chain(&e), "tcp connect error: connection refused");
        let e = E("request failed", Some(Box::new(E("timed out", None))));
        assert_eq!(cause_chain(&e), "request failed: timed out");
    }
}
