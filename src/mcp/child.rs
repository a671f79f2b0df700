//! The seam between a tool and the commands: the tool's command line run by this very binary
//! as a child process, its `-o json` document read from stdout.
//!
//! Why a child and not the command called in process: the answer is the CLI's document by
//! construction (the same code path, flags and renderer, whatever the commands become); a
//! time limit really stops the work (the engine's analyses are synchronous and cannot be
//! cancelled in process); memory and a crash are the child's, and the server stays up; and
//! the seam is a command line, which the commands' own refactors do not touch.

use std::ffi::OsString;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};

/// The most of a child's standard error kept (its first lines say what went wrong).
const STDERR_CAP: usize = 64 * 1024;

/// What a command run as a child answered.
#[derive(Debug)]
pub struct Answer {
    /// Its exit code (`None`: killed by a signal).
    pub code: Option<i32>,
    /// Its standard output.
    pub stdout: Vec<u8>,
    /// Its standard error (the first [`STDERR_CAP`] bytes).
    pub stderr: String,
}

/// Why a command did not answer.
#[derive(Debug, PartialEq, Eq)]
pub enum Failure {
    /// It ran longer than the time limit and was stopped.
    Timeout(Duration),
    /// Its output was larger than the cap and it was stopped.
    TooLarge(usize),
    /// It could not be started.
    Spawn(String),
}

impl Failure {
    /// One line for the agent.
    pub fn message(&self) -> String {
        match self {
            Failure::Timeout(d) => format!(
                "the command ran longer than the server's time limit ({}s) and was stopped; \
                 narrow the input (namespace, kinds) or raise the server's --timeout",
                d.as_secs()
            ),
            Failure::TooLarge(cap) => format!(
                "the command's output passed {} MiB and was stopped; narrow the input \
                 (namespace, kinds, objects)",
                cap / (1024 * 1024)
            ),
            Failure::Spawn(e) => format!("cannot start kubectl-gc: {e}"),
        }
    }
}

/// Runs `exe args…` with `stdin` as its standard input, no terminal, colour off, for at most
/// `timeout`, keeping at most `cap` bytes of its standard output. The child is killed when
/// the limit is hit or the caller goes away (the call was cancelled).
pub async fn run(
    exe: &Path,
    args: &[OsString],
    stdin: Option<Vec<u8>>,
    timeout: Duration,
    cap: usize,
) -> Result<Answer, Failure> {
    let mut cmd = tokio::process::Command::new(exe);
    cmd.args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env("NO_COLOR", "1")
        .env_remove("CLICOLOR_FORCE")
        .kill_on_drop(true);
    let mut child = cmd.spawn().map_err(|e| Failure::Spawn(e.to_string()))?;
    let feed = child.stdin.take().zip(stdin).map(|(mut pipe, bytes)| {
        tokio::spawn(async move {
            // A child that stops reading (an error before its input) closes the pipe: fine.
            let _ = pipe.write_all(&bytes).await;
        })
    });
    let (Some(out), Some(err)) = (child.stdout.take(), child.stderr.take()) else {
        return Err(Failure::Spawn("no pipes to the child".into()));
    };
    let work = async {
        let (stdout, stderr) = tokio::join!(read_capped(out, cap), read_capped(err, STDERR_CAP));
        let status = child.wait().await;
        (stdout, stderr, status)
    };
    let result = tokio::time::timeout(timeout, work).await;
    if let Some(feed) = feed {
        feed.abort();
    }
    let Ok((stdout, stderr, status)) = result else {
        return Err(Failure::Timeout(timeout));
    };
    let (stdout, overflow) = stdout;
    if overflow {
        return Err(Failure::TooLarge(cap));
    }
    let status = status.map_err(|e| Failure::Spawn(e.to_string()))?;
    Ok(Answer {
        code: status.code(),
        stdout,
        stderr: String::from_utf8_lossy(&stderr.0).into_owned(),
    })
}

/// Reads `r` to its end or to `cap` bytes; `true` when there was more (the rest is not read:
/// the child is then killed, which ends it).
async fn read_capped(mut r: impl AsyncRead + Unpin, cap: usize) -> (Vec<u8>, bool) {
    let mut buf = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        match r.read(&mut chunk).await {
            Ok(0) | Err(_) => return (buf, false),
            Ok(n) if buf.len() + n > cap => {
                buf.extend_from_slice(&chunk[..cap - buf.len()]);
                return (buf, true);
            }
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> Vec<OsString> {
        vec!["-c".into(), script.into()]
    }

    #[tokio::test]
    async fn a_child_over_its_time_is_stopped() {
        let start = std::time::Instant::now();
        let r = run(
            Path::new("/bin/sh"),
            &sh("sleep 30"),
            None,
            Duration::from_millis(200),
            1024,
        )
        .await;
        assert_eq!(r.unwrap_err(), Failure::Timeout(Duration::from_millis(200)));
        assert!(start.elapsed() < Duration::from_secs(5));
    }

    #[tokio::test]
    async fn output_past_the_cap_stops_the_child() {
        let r = run(
            Path::new("/bin/sh"),
            &sh("yes"),
            None,
            Duration::from_secs(20),
            100_000,
        )
        .await;
        assert_eq!(r.unwrap_err(), Failure::TooLarge(100_000));
    }

    #[tokio::test]
    async fn stdin_is_fed_and_the_exit_code_kept() {
        let r = run(
            Path::new("/bin/sh"),
            &sh("cat; echo oops >&2; exit 3"),
            Some(b"hello".to_vec()),
            Duration::from_secs(20),
            1024,
        )
        .await
        .unwrap();
        assert_eq!(r.stdout, b"hello");
        assert_eq!(r.stderr, "oops\n");
        assert_eq!(r.code, Some(3));
    }
}
