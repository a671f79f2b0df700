//! `kubectl gc policy`: the ValidatingAdmissionPolicy and its binding, printed as YAML.

use crate::admit::policy::{self, Action, FIRST_RELEASE, Served};
use crate::catalog::KubeVersion;
use crate::cli::{GlobalArgs, PolicyAction, PolicyArgs};
use crate::error::{Error, Result, exit};

fn actions(args: &PolicyArgs) -> Result<Vec<Action>> {
    let out: Vec<Action> = args
        .validation_actions
        .iter()
        .map(|a| match a {
            PolicyAction::Warn => Action::Warn,
            PolicyAction::Audit => Action::Audit,
            PolicyAction::Deny => Action::Deny,
        })
        .collect();
    if out.contains(&Action::Warn) && out.contains(&Action::Deny) {
        return Err(Error::usage(
            "--validation-actions cannot hold both Deny and Warn (the API server refuses the binding)",
            "choose one: --validation-actions warn or --validation-actions deny (each may add audit)",
        ));
    }
    Ok(out)
}

pub async fn run(g: &GlobalArgs, args: &PolicyArgs) -> Result<u8> {
    let actions = actions(args)?;
    let release = args.release.unwrap_or(KubeVersion::NEWEST);
    if !release.at_least(FIRST_RELEASE) {
        return Err(Error::usage(
            format!(
                "Kubernetes {release} serves no ValidatingAdmissionPolicy v1 (it is served from 1.{FIRST_RELEASE})"
            ),
            "give --release 1.30 or later, or use kubectl gc admit (a webhook) on older clusters",
        ));
    }
    let input = if g.snapshot.is_some() || !g.filename.is_empty() {
        super::input::load(g, false).await?.snapshot.resources
    } else {
        Vec::new()
    };
    let served = Served::new(release, &input);
    let docs = [
        policy::policy(&served),
        policy::binding(&actions, &args.only_namespaces, &args.skip_namespaces),
    ];
    let mut text = String::new();
    for doc in &docs {
        let yaml = serde_saphyr::to_string(doc).map_err(|e| Error::Usage {
            message: format!("cannot write the policy: {e}"),
            hint: None,
        })?;
        text.push_str("---\n");
        text.push_str(&yaml);
    }
    print!("{text}");
    Ok(exit::OK)
}
