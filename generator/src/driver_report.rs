//! `vkgen driver`'s requirements side: the crate's requirements test, `--check --report`, and
//! the down-bump warning.
//!
//! A driver's device description is Rust, so only the crate itself can evaluate it: the
//! scaffold writes `tests/vkgen_requirements.rs` (the vendor's, written with a new crate), which
//! calls `vkgen_driver::testing::requirements::assert_requirements` on the driver type. It
//! creates an instance through the driver's own entry points, checks every device it
//! enumerates, prints the report and fails on mandatory gaps. `--report` runs that test with
//! cargo and passes its report and verdict on, so the check needs no second implementation.
//!
//! Lowering `--api-version` on an existing crate makes every feature of the higher versions
//! the description turns on invisible to applications (the kit cannot expose them). The run
//! says so, from the API version the crate's ICD manifest records; the report then lists each
//! such feature as dropped.

use std::path::Path;
use std::process::Command;

use askama::Template;

use crate::error::{Error, Result};
use crate::OutputFile;

/// The requirements test, relative to the crate.
pub const TEST: &str = "tests/vkgen_requirements.rs";

/// The build the report runs its test in: a profile of its own, given on cargo's command line
/// (the vendor's `Cargo.toml` needs no entry), so its artefacts live in `target/vkgen-report/`
/// and never invalidate the vendor's `dev` ones. It is `dev` without debug information: the
/// test only evaluates the device description, and most of a cold build is the kit's code
/// generation, which debug information triples (`vkgen-driver`: 34 s of codegen with it, 11 s
/// without, on the 2-core CI machine). Measured cold on that machine, `--check --report` of a
/// fresh scaffold went from 3 min 6 s (81 s CPU) to 2 min 6 s (60 s CPU) under the same load;
/// docs/writing-a-driver.md, "Requirements", has the numbers. Where the vendor's `dev` build
/// of the kit exists already, the report builds on it instead ([`dev_kit_built`]): after a
/// `cargo build` or `cargo test` (what CI runs first) the report is then seconds.
const PROFILE: [&str; 10] = [
    "--profile",
    "vkgen-report",
    "--config",
    "profile.vkgen-report.inherits=\"dev\"",
    "--config",
    "profile.vkgen-report.debug=0",
    "--config",
    "profile.vkgen-report.strip=\"debuginfo\"",
    "--config",
    "profile.vkgen-report.incremental=false",
];

#[derive(Template)]
#[template(path = "driver/vkgen_requirements.rs.j2", escape = "none")]
struct RequirementsTest<'a> {
    name: &'a str,
    crate_name: &'a str,
    type_name: &'a str,
}

/// The requirements test of driver `name` (crate `crate_name`, type `type_name`).
pub fn requirements_test(name: &str, crate_name: &str, type_name: &str) -> Result<OutputFile> {
    let mut contents = RequirementsTest {
        name,
        crate_name,
        type_name,
    }
    .render()
    .map_err(|e| Error::Template("driver".to_owned(), e.to_string()))?;
    if !contents.ends_with('\n') {
        contents.push('\n');
    }
    Ok(OutputFile {
        path: TEST.into(),
        contents,
    })
}

/// The API version the crate in `out` was last scaffolded at: its ICD manifest's
/// `api_version` (`"1.3.0"`), if the crate exists.
pub fn previous_api_version(out: &Path, name: &str) -> Option<(u32, u32)> {
    let text = std::fs::read_to_string(out.join(format!("{name}_icd.json"))).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    let mut parts = json["ICD"]["api_version"].as_str()?.split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((major, minor))
}

/// The warning for a run that lowers the crate's API version from what it was scaffolded at.
pub fn lowering_warning(out: &Path, name: &str, new: (u32, u32)) -> Option<String> {
    let old = previous_api_version(out, name)?;
    (new < old).then(|| {
        format!(
            "vkgen: warning: driver `{name}` goes down from Vulkan {}.{} to {}.{}: features of \
             the higher versions your description turns on can no longer be exposed (unless an \
             advertised extension carries them); `vkgen driver --check --report` lists each \
             as dropped",
            old.0, old.1, new.0, new.1
        )
    })
}

/// Runs the crate's requirements test in `out` and prints its report; whether the crate
/// meets every mandatory requirement.
pub fn run(out: &Path) -> Result<bool> {
    if !out.join(TEST).is_file() {
        return Err(Error::Options(format!(
            "{} has no {TEST} (the scaffold writes it with a new crate): add one holding \
             `#[test] fn vkgen_requirements() {{ \
             vkgen_driver::testing::requirements::assert_requirements::<YourDriver>(None) }}`",
            out.display()
        )));
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let manifest = out.join("Cargo.toml");
    // A kit the vendor's own `cargo build`/`cargo test` compiled already is the one to use:
    // only what changed since is built. Else the report's lean profile.
    let profile: &[&str] = if dev_kit_built(&cargo, &manifest) {
        &[]
    } else {
        &PROFILE
    };
    let output = Command::new(cargo)
        .args(["test", "--quiet", "--manifest-path"])
        .arg(&manifest)
        .args(profile)
        .args(["--test", "vkgen_requirements", "--", "--nocapture"])
        .output()
        .map_err(|source| Error::Io {
            path: manifest.clone(),
            source,
        })?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let report: Vec<&str> = stdout
        .lines()
        .skip_while(|l| !l.starts_with("vkgen requirements report"))
        .take_while(|l| !l.is_empty())
        .collect();
    if report.is_empty() {
        // No report: the crate did not build, or the test died before printing.
        eprintln!("{}", String::from_utf8_lossy(&output.stderr));
        return Err(Error::Options(format!(
            "cargo test --test vkgen_requirements in {} printed no report",
            out.display()
        )));
    }
    println!("{}", report.join("\n"));
    Ok(output.status.success())
}

/// Whether the crate's target directory holds a `dev` build of the kit (`vkgen-driver`'s
/// fingerprint in `debug/`): cargo's own record of what it compiled, read without building.
fn dev_kit_built(cargo: &std::ffi::OsStr, manifest: &Path) -> bool {
    let target = match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => std::path::PathBuf::from(dir),
        None => {
            let Ok(o) = Command::new(cargo)
                .args([
                    "metadata",
                    "--no-deps",
                    "--format-version",
                    "1",
                    "--manifest-path",
                ])
                .arg(manifest)
                .output()
            else {
                return false;
            };
            let json: serde_json::Value =
                serde_json::from_slice(&o.stdout).unwrap_or(serde_json::Value::Null);
            match json["target_directory"].as_str() {
                Some(dir) => dir.into(),
                None => return false,
            }
        }
    };
    holds_dev_kit(&target)
}

/// Whether target directory `target` holds cargo's fingerprint of a `dev` `vkgen-driver`.
fn holds_dev_kit(target: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(target.join("debug/.fingerprint")) else {
        return false;
    };
    // `<package>-<hash>`: `vkgen-driver-macros-…` is another package.
    entries.flatten().any(|e| {
        e.file_name()
            .to_string_lossy()
            .strip_prefix("vkgen-driver-")
            .is_some_and(|hash| !hash.is_empty() && hash.chars().all(|c| c.is_ascii_hexdigit()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dev_build_of_the_kit_is_found_by_its_fingerprint() {
        let target = tempfile::tempdir().unwrap();
        assert!(!holds_dev_kit(target.path()));
        let prints = target.path().join("debug/.fingerprint");
        std::fs::create_dir_all(prints.join("vkgen-driver-macros-0123")).unwrap();
        assert!(!holds_dev_kit(target.path()), "another crate's");
        std::fs::create_dir_all(
            target
                .path()
                .join("vkgen-report/.fingerprint/vkgen-driver-1"),
        )
        .unwrap();
        assert!(!holds_dev_kit(target.path()), "the report's own profile");
        std::fs::create_dir_all(prints.join("vkgen-driver-89ab")).unwrap();
        assert!(holds_dev_kit(target.path()));
    }

    #[test]
    fn lowering_is_read_from_the_manifest() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(lowering_warning(dir.path(), "acme", (1, 1)), None);
        std::fs::write(
            dir.path().join("acme_icd.json"),
            r#"{"ICD": {"api_version": "1.3.0"}}"#,
        )
        .unwrap();
        assert_eq!(previous_api_version(dir.path(), "acme"), Some((1, 3)));
        let w = lowering_warning(dir.path(), "acme", (1, 1)).unwrap();
        assert!(w.contains("from Vulkan 1.3 to 1.1"), "{w}");
        assert_eq!(lowering_warning(dir.path(), "acme", (1, 3)), None);
        assert_eq!(lowering_warning(dir.path(), "acme", (1, 4)), None);
    }
}
