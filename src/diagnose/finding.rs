//! One finding: what is wrong (or about to happen) with one object or resource, in the GC's
//! own terms, with the GC's consequence and ready-to-run remedies.

use super::code::{Code, Severity};
use super::remedy::Remedy;
use crate::model::{ObjId, OwnerRef};

/// What a finding is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Subject {
    /// One object.
    Object(ObjId),
    /// A whole resource (`plural.group`) or group-version, e.g. one the GC cannot list.
    Resource(String),
}

impl From<ObjId> for Subject {
    fn from(id: ObjId) -> Subject {
        Subject::Object(id)
    }
}

/// One finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// Code.
    pub code: Code,
    /// Severity.
    pub severity: Severity,
    /// The object the finding is about (`None` for findings about a whole resource, see
    /// [`Finding::resource`]).
    pub object: Option<ObjId>,
    /// For resource-level findings (e.g. a resource the GC cannot list): `plural.group`.
    pub resource: Option<String>,
    /// The reference involved (a copy: it may no longer exist in a simulated state).
    pub owner_ref: Option<OwnerRef>,
    /// The reference's classification, where one is involved.
    pub classification: Option<&'static str>,
    /// What the GC does about it.
    pub consequence: String,
    /// When the GC does it ([`super::timeline`]; `None`: nothing, or not told yet).
    pub when: Option<super::timeline::Timing>,
    /// What is wrong.
    pub message: String,
    /// Other objects involved (the real owner, the blocking chain, the bad sibling, …).
    pub related: Vec<ObjId>,
    /// What fixes or unblocks it, safest first, each with its ready-to-run command.
    pub remedies: Vec<Remedy>,
}

impl Finding {
    /// The one way to make a finding: its code and severity, what it is about, what the GC does
    /// about it (`consequence`) and what is wrong (`message`). The reference involved, other
    /// objects and remedies are added with the `with_*` methods.
    pub fn new(
        code: Code,
        severity: Severity,
        subject: impl Into<Subject>,
        consequence: String,
        message: String,
    ) -> Finding {
        let (object, resource) = match subject.into() {
            Subject::Object(id) => (Some(id), None),
            Subject::Resource(r) => (None, Some(r)),
        };
        Finding {
            code,
            severity,
            object,
            resource,
            owner_ref: None,
            classification: None,
            consequence,
            when: None,
            message,
            related: Vec::new(),
            remedies: Vec::new(),
        }
    }

    /// The reference involved, and its classification where the GC classified it.
    pub fn with_ref(mut self, r: OwnerRef, classification: Option<&'static str>) -> Finding {
        self.owner_ref = Some(r);
        self.classification = classification;
        self
    }

    /// Other objects involved.
    pub fn with_related(mut self, related: Vec<ObjId>) -> Finding {
        self.related = related;
        self
    }

    /// The remedies' commands, safest first (remedies that are no one command left out).
    pub fn commands(&self) -> Vec<String> {
        self.remedies
            .iter()
            .filter(|r| !r.command.is_empty())
            .map(|r| r.command.clone())
            .collect()
    }

    /// What fixes or unblocks it, safest first.
    pub fn with_remedies(mut self, remedies: Vec<Remedy>) -> Finding {
        self.remedies = remedies;
        self
    }
}
