//! JSON Schema validation of real outputs: the schemas of `schemas/` (every report kind) and
//! SARIF's official 2.1.0 schema, taken from the `serde-sarif` crate that ships it (its
//! `src/schema.json`, found through `cargo metadata`), validated with the `jsonschema` crate.
//! Each test binary uses part of it.

#![allow(dead_code)]

use serde_json::Value;
use std::path::{Path, PathBuf};

/// The repository's `schemas/` directory.
pub fn schema_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas")
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every schema file of `schemas/`, by file name.
pub fn schemas() -> Vec<(String, Value)> {
    let mut out: Vec<(String, Value)> = std::fs::read_dir(schema_dir())
        .expect("schemas/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.to_string_lossy().ends_with(".schema.json"))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                read_json(&p),
            )
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// Asserts `instance` is valid against `schemas/<name>` (cross-file `$ref`s resolved among
/// the repository's schemas; formats checked).
pub fn assert_valid(name: &str, instance: &Value, what: &str) {
    let all = schemas();
    let registry = jsonschema::Registry::new()
        .extend(all.iter().map(|(_, v)| {
            let id = v["$id"]
                .as_str()
                .expect("every schema has an $id")
                .to_owned();
            (id, jsonschema::Resource::from_contents(v.clone()))
        }))
        .expect("schema ids are URIs")
        .prepare()
        .expect("schemas resolve");
    let schema = &all
        .iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no schemas/{name}"))
        .1;
    let validator = jsonschema::options()
        .with_registry(&registry)
        .should_validate_formats(true)
        .build(schema)
        .unwrap_or_else(|e| panic!("schemas/{name} does not compile: {e}"));
    let errors: Vec<String> = validator
        .iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{what} does not match schemas/{name}:\n{}\n--- instance\n{}",
        errors.join("\n"),
        serde_json::to_string_pretty(instance).unwrap()
    );
}

/// The SARIF 2.1.0 JSON schema as the `serde-sarif` crate ships it: the source of the
/// version in `Cargo.lock`, in Cargo's registry (`$CARGO_HOME`, default `~/.cargo`), where
/// the build of this package unpacked it.
pub fn sarif_schema() -> Value {
    let lock = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.lock"))
        .expect("Cargo.lock");
    let version = lock
        .split("[[package]]")
        .find(|p| p.contains("name = \"serde-sarif\""))
        .and_then(|p| p.lines().find_map(|l| l.strip_prefix("version = ")))
        .map(|v| v.trim_matches('"').to_owned())
        .expect("serde-sarif is in Cargo.lock");
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")))
        .expect("CARGO_HOME or HOME");
    let src = home.join("registry").join("src");
    let path = std::fs::read_dir(&src)
        .unwrap_or_else(|e| panic!("{}: {e}", src.display()))
        .filter_map(|e| e.ok())
        .map(|e| {
            e.path()
                .join(format!("serde-sarif-{version}"))
                .join("src")
                .join("schema.json")
        })
        .find(|p| p.is_file())
        .unwrap_or_else(|| {
            panic!(
                "serde-sarif-{version}/src/schema.json not found under {}",
                src.display()
            )
        });
    let schema = read_json(&path);
    assert_eq!(
        schema["title"],
        "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema",
        "{}",
        path.display()
    );
    schema
}

/// Asserts `instance` is a valid SARIF 2.1.0 log.
///
/// One pattern of the published schema (the `language` properties: `…-[a-zA-Z]{2}]?$`, a
/// stray `]`) is not a valid regular expression in Unicode mode, and the validator checks the
/// schema itself before use; it is replaced by the pattern it means (kubectl-gc never writes
/// `language`). Everything else is the schema as published.
pub fn assert_valid_sarif(instance: &Value, what: &str) {
    const ERRATUM: &str = "^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$";
    fn fix(v: &mut Value) -> usize {
        match v {
            Value::Object(m) => {
                let mut n = 0;
                for (k, x) in m.iter_mut() {
                    if k == "pattern" && x.as_str() == Some(ERRATUM) {
                        *x = Value::from("^[a-zA-Z]{2}(-[a-zA-Z]{2})?$");
                        n += 1;
                    } else {
                        n += fix(x);
                    }
                }
                n
            }
            Value::Array(a) => a.iter_mut().map(fix).sum(),
            _ => 0,
        }
    }
    let mut schema = sarif_schema();
    assert!(
        fix(&mut schema) > 0,
        "the published schema changed: drop this fix"
    );
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("the SARIF schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{what} is not valid SARIF 2.1.0:\n{}",
        errors.join("\n")
    );
}
