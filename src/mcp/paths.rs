//! File arguments confined to `--root`: a path is resolved against the root, every link and
//! `..` followed (canonicalised), and refused unless it ends inside the root; a directory is
//! refused if any link in it (the reader follows links to files) leads out. Refusals name the
//! argument as given, never anything read from a file.
//!
//! What this cannot stop: a process that can write under the root swapping a checked file for a
//! link between this check and the read. The root is meant to be a directory only its owner
//! writes to (an incident folder, a checkout).

use std::path::{Path, PathBuf};

/// Entries a directory argument may hold (checked for links leading out, one by one).
const MAX_ENTRIES: usize = 200_000;

/// Why a path argument was refused: one line for the agent.
pub type Refusal = String;

/// The root and its checks.
#[derive(Debug, Clone)]
pub struct Root {
    dir: PathBuf,
}

impl Root {
    /// `dir` must be canonical (the server canonicalises `--root` once at start).
    pub fn new(dir: PathBuf) -> Root {
        Root { dir }
    }

    /// `arg` (relative to the root, or absolute inside it) as a canonical path inside the root.
    pub fn resolve(&self, arg: &str) -> Result<PathBuf, Refusal> {
        let shown = shown(arg);
        if arg.is_empty() {
            return Err("an empty path".into());
        }
        if arg == "-" {
            return Err("`-` (standard input) is not a file the server can read".into());
        }
        if arg
            .chars()
            .any(|c| matches!(c, '*' | '?' | '[' | ']' | '{' | '}'))
        {
            return Err(format!(
                "{shown}: patterns are not expanded; name files or directories"
            ));
        }
        if arg.chars().any(char::is_control) {
            return Err(format!("{shown}: a path with control characters"));
        }
        let joined = self.dir.join(arg);
        let canonical = std::fs::canonicalize(&joined).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => {
                format!("{shown}: no such file or directory under the server's --root")
            }
            std::io::ErrorKind::PermissionDenied => format!("{shown}: permission denied"),
            _ => format!("{shown}: cannot be read"),
        })?;
        if !canonical.starts_with(&self.dir) {
            return Err(format!(
                "{shown}: outside the server's --root (only files under it are read)"
            ));
        }
        if canonical.is_dir() {
            self.check_tree(&canonical, arg)?;
        }
        Ok(canonical)
    }

    /// Every link under `dir` (not followed into directories, as the reader does not follow
    /// them) must end inside the root.
    fn check_tree(&self, dir: &Path, arg: &str) -> Result<(), Refusal> {
        let mut stack = vec![dir.to_path_buf()];
        let mut seen = 0usize;
        while let Some(d) = stack.pop() {
            let entries = std::fs::read_dir(&d)
                .map_err(|_| format!("{}: a directory in it cannot be listed", shown(arg)))?;
            for entry in entries {
                seen += 1;
                if seen > MAX_ENTRIES {
                    return Err(format!(
                        "{}: more than {MAX_ENTRIES} entries; name the files or a smaller directory",
                        shown(arg)
                    ));
                }
                let Ok(entry) = entry else { continue };
                let path = entry.path();
                let Ok(ft) = entry.file_type() else { continue };
                if ft.is_dir() {
                    stack.push(path);
                } else if ft.is_symlink() {
                    let inside = std::fs::canonicalize(&path)
                        .map(|t| t.starts_with(&self.dir))
                        // A broken link is the reader's problem to report, not an escape.
                        .unwrap_or(true);
                    if !inside {
                        let rel = path.strip_prefix(&self.dir).unwrap_or(&path);
                        return Err(format!(
                            "{}: the link {} in it leads outside the server's --root",
                            shown(arg),
                            shown(&rel.display().to_string())
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}

/// An argument as it is quoted back: sanitised, at most 200 characters.
pub fn shown(s: &str) -> String {
    let s: String = s.chars().take(200).collect();
    format!("{:?}", crate::render::text::sanitized(&s))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> (tempfile::TempDir, tempfile::TempDir, Root) {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(root.path().join("a.yaml"), "x").unwrap();
        std::fs::create_dir(root.path().join("sub")).unwrap();
        std::fs::write(root.path().join("sub/b.yaml"), "x").unwrap();
        std::fs::write(outside.path().join("secret"), "s").unwrap();
        let r = Root::new(std::fs::canonicalize(root.path()).unwrap());
        (root, outside, r)
    }

    #[test]
    fn paths_inside_the_root_resolve() {
        let (root, _o, r) = tree();
        let canon = std::fs::canonicalize(root.path()).unwrap();
        assert_eq!(r.resolve("a.yaml").unwrap(), canon.join("a.yaml"));
        assert_eq!(r.resolve("sub/../a.yaml").unwrap(), canon.join("a.yaml"));
        assert_eq!(r.resolve("sub").unwrap(), canon.join("sub"));
        let abs = canon.join("sub/b.yaml");
        assert_eq!(r.resolve(abs.to_str().unwrap()).unwrap(), abs);
    }

    #[test]
    fn paths_leaving_the_root_are_refused() {
        let (root, outside, r) = tree();
        let secret = outside.path().join("secret");
        for arg in [
            "../x",
            "/etc/passwd",
            secret.to_str().unwrap(),
            "sub/../../x",
        ] {
            let e = r.resolve(arg).unwrap_err();
            assert!(
                e.contains("outside the server's --root") || e.contains("no such file"),
                "{arg}: {e}"
            );
        }
        std::os::unix::fs::symlink(&secret, root.path().join("link")).unwrap();
        assert!(r.resolve("link").unwrap_err().contains("outside"));
        // A directory holding a link that leads out is refused whole.
        std::os::unix::fs::symlink(&secret, root.path().join("sub/link")).unwrap();
        let e = r.resolve("sub").unwrap_err();
        assert!(e.contains("sub/link") && e.contains("leads outside"), "{e}");
        for arg in ["-", "", "*.yaml", "a\u{1b}[2J"] {
            assert!(r.resolve(arg).is_err(), "{arg:?}");
        }
    }
}
