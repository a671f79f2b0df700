//! Kubernetes versions, as far as GC semantics and API removals care (major is always 1).

use std::fmt;

/// A Kubernetes minor version (`1.20`). Patch levels never change GC decisions we model.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct KubeVersion {
    /// Major version (1).
    pub major: u32,
    /// Minor version.
    pub minor: u32,
}

impl KubeVersion {
    /// `1.minor`.
    pub const fn v1(minor: u32) -> Self {
        KubeVersion { major: 1, minor }
    }

    /// The newest version whose GC behaviour this tool models.
    pub const NEWEST: KubeVersion = KubeVersion::v1(36);

    /// Parses `v1.20.2`, `1.20`, `v1.21.7+rke2r1`, `1.23.5-gke.100`, `4.8` is refused (not k8s).
    pub fn parse(s: &str) -> Option<Self> {
        let s = s.trim();
        let s = s.strip_prefix('v').unwrap_or(s);
        let mut parts = s.split(['.', '+', '-']);
        let major: u32 = parts.next()?.parse().ok()?;
        let minor_text = parts.next()?;
        let digits: String = minor_text
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        let minor: u32 = digits.parse().ok()?;
        if major != 1 {
            return None;
        }
        Some(KubeVersion { major, minor })
    }

    /// True when this version is at least `1.minor`.
    pub fn at_least(self, minor: u32) -> bool {
        self >= KubeVersion::v1(minor)
    }
}

impl fmt::Display for KubeVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

impl std::str::FromStr for KubeVersion {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        KubeVersion::parse(s).ok_or_else(|| {
            format!("`{s}` is not a Kubernetes version (expected e.g. 1.20 or v1.28.3)")
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_shapes_servers_report() {
        assert_eq!(KubeVersion::parse("v1.20.2"), Some(KubeVersion::v1(20)));
        assert_eq!(KubeVersion::parse("1.13"), Some(KubeVersion::v1(13)));
        assert_eq!(
            KubeVersion::parse("v1.21.7+rke2r1"),
            Some(KubeVersion::v1(21))
        );
        assert_eq!(
            KubeVersion::parse("v1.23.5-gke.100"),
            Some(KubeVersion::v1(23))
        );
        assert_eq!(KubeVersion::parse("v1.28+"), Some(KubeVersion::v1(28)));
        assert_eq!(KubeVersion::parse("4.8"), None);
        assert_eq!(KubeVersion::parse("latest"), None);
        assert!(KubeVersion::v1(20).at_least(20) && !KubeVersion::v1(19).at_least(20));
    }
}
