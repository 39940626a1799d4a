//! Issue 33 part 3, a vendor's crate as a place other people and programs live in:
//!
//! - a re-run of `vkgen driver` (a spec bump, 1.3.239 → 1.4.359, which rewrites most of the
//!   vendored tables) writes only vkgen's files, each staged and renamed in place: directory
//!   modes (0700, setgid) and owners, the vendor's files, what other processes write during
//!   the run (an editor's saves, cargo's `target/`, `.git`) and a shell whose working
//!   directory is inside the crate all survive;
//! - `vkgen.toml` records its paths relative to the crate and the registry by SHA-256: a copy
//!   of the crate elsewhere, with the registry moved and renamed, passes `--check`;
//! - `cargo fmt` in the crate leaves every file vkgen owns as it was, and `--check` agrees.

mod common;

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use vkgen::record;
use vkgen::scaffold;

/// Scaffolds (or re-runs) driver `acme` in `out` from registry `version`.
fn scaffold_at(out: &Path, version: &str) -> scaffold::DriverScaffold {
    let run = record::resolve(
        common::options(version),
        Some("acme".into()),
        out,
        Some(common::workspace()),
        None,
        false,
    )
    .unwrap();
    scaffold::driver(&run).unwrap()
}

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o7777
}

fn set_mode(p: &Path, m: u32) {
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).unwrap();
}

fn ino(p: &Path) -> u64 {
    std::fs::symlink_metadata(p).unwrap().ino()
}

/// Every path under `dir` whose name marks one of vkgen's staging files.
fn leftovers(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if e.file_name().to_string_lossy().contains(".vkgen-") {
            found.push(p.clone());
        }
        if e.file_type().unwrap().is_dir() {
            found.extend(leftovers(&p));
        }
    }
    found
}

#[test]
fn a_rerun_writes_vkgens_files_in_place_and_nothing_else() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("acme");
    scaffold_at(&out, "1.3.239");
    let features = out.join("vendor/vkgen/generated/src/features.rs");
    assert!(!std::fs::read_to_string(&features)
        .unwrap()
        .contains("Vulkan14"));

    // The vendor's directory, as they keep it: modes, a group-shared directory, their files.
    let (src, generated_src) = (out.join("src"), out.join("vendor/vkgen/generated/src"));
    set_mode(&out, 0o700);
    set_mode(&src, 0o2775);
    set_mode(&generated_src, 0o2750);
    set_mode(&features, 0o600);
    std::fs::create_dir_all(out.join("target/debug")).unwrap();
    std::fs::create_dir_all(out.join(".git/objects")).unwrap();
    std::fs::write(out.join("NOTES.md"), "the vendor's\n").unwrap();
    // Under root (sudo): files and directories of another user keep their owner, and a file
    // vkgen makes anew takes its directory's.
    let root = rustix::process::geteuid().is_root();
    let other = 4242;
    if root {
        for p in [&out, &src, &out.join("src/vkgen.rs")] {
            std::os::unix::fs::chown(p, Some(other), Some(other)).unwrap();
        }
        std::fs::remove_file(out.join("acme_icd.json")).unwrap();
    }
    let dirs = [
        out.clone(),
        src.clone(),
        out.join("vendor"),
        out.join("vendor/vkgen"),
        generated_src.clone(),
        out.join("target"),
    ];
    let inodes: Vec<u64> = dirs.iter().map(|d| ino(d)).collect();
    let manifest = std::fs::metadata(out.join("Cargo.toml")).unwrap();
    let unchanged = out.join("vendor/vkgen/runtime/driver/src/lib.rs");
    let unchanged_ino = ino(&unchanged);

    // A shell inside the crate, and processes writing into it while the run goes.
    let mut shell = Command::new("sleep")
        .arg("120")
        .current_dir(&src)
        .spawn()
        .unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let (out, stop) = (out.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut n = 0u32;
            while !stop.load(Ordering::Relaxed) || n < 20 {
                std::fs::write(out.join(format!("target/debug/unit-{n}")), n.to_string()).unwrap();
                std::fs::write(out.join(format!(".git/objects/o-{n}")), n.to_string()).unwrap();
                // An editor's save: a temporary file renamed over the original.
                let swap = out.join("src/.lib.rs.swp");
                let text = format!("// save {n}\n");
                std::fs::write(&swap, &text).unwrap();
                std::fs::rename(&swap, out.join("src/lib.rs")).unwrap();
                n += 1;
            }
            n
        })
    };
    let bumped = scaffold_at(&out, "1.4.359");
    stop.store(true, Ordering::Relaxed);
    let writes = writer.join().unwrap();

    // The bump happened, and the crate is what the run says.
    assert!(std::fs::read_to_string(&features)
        .unwrap()
        .contains("Vulkan14Features"));
    let stale = vkgen::check(
        &bumped
            .files
            .iter()
            .filter(|f| f.path != "src/lib.rs")
            .cloned()
            .collect::<Vec<_>>(),
        &out,
    );
    assert!(stale.is_fresh(), "{stale:?}");
    // Nothing another process wrote is lost.
    for n in 0..writes {
        for p in [
            format!("target/debug/unit-{n}"),
            format!(".git/objects/o-{n}"),
        ] {
            assert_eq!(
                std::fs::read_to_string(out.join(&p)).unwrap(),
                n.to_string()
            );
        }
    }
    assert_eq!(
        std::fs::read_to_string(out.join("src/lib.rs")).unwrap(),
        format!("// save {}\n", writes - 1),
        "the editor's last save"
    );
    assert_eq!(
        std::fs::read_to_string(out.join("NOTES.md")).unwrap(),
        "the vendor's\n"
    );
    // Directories are the same directories, with their modes; vkgen's rewritten file keeps
    // its mode; the vendor's manifest and unchanged files are not touched.
    let after: Vec<u64> = dirs.iter().map(|d| ino(d)).collect();
    assert_eq!(after, inodes, "a directory was replaced");
    assert_eq!(
        (mode(&out), mode(&src), mode(&generated_src)),
        (0o700, 0o2775, 0o2750)
    );
    assert_eq!(mode(&features), 0o600);
    let now = std::fs::metadata(out.join("Cargo.toml")).unwrap();
    assert_eq!(
        (now.ino(), now.mtime(), now.mtime_nsec()),
        (manifest.ino(), manifest.mtime(), manifest.mtime_nsec())
    );
    assert_eq!(
        ino(&unchanged),
        unchanged_ino,
        "an unchanged file was rewritten"
    );
    if root {
        let owner = |p: &Path| {
            let m = std::fs::metadata(p).unwrap();
            (m.uid(), m.gid())
        };
        for p in [
            &out,
            &src,
            &out.join("src/vkgen.rs"),
            &out.join("acme_icd.json"),
        ] {
            assert_eq!(owner(p), (other, other), "{}", p.display());
        }
    }
    // The shell's working directory is still the crate's src/, not a deleted directory.
    let cwd = std::fs::read_link(format!("/proc/{}/cwd", shell.id())).unwrap();
    let _ = shell.kill();
    let _ = shell.wait();
    assert_eq!(cwd, src.canonicalize().unwrap());
    assert_eq!(leftovers(&out), Vec::<PathBuf>::new());
}

/// A symlink where one of vkgen's directories belongs is refused, and nothing is written
/// through it; a read-only directory fails the run before anything is written.
#[test]
fn a_rerun_refuses_symlinked_and_read_only_directories_up_front() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("acme");
    scaffold_at(&out, "1.3.239");
    let elsewhere = tmp.path().join("elsewhere");
    std::fs::rename(out.join("vendor"), &elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, out.join("vendor")).unwrap();
    let run = |version: &str| {
        let run = record::resolve(
            common::options(version),
            Some("acme".into()),
            &out,
            Some(common::workspace()),
            None,
            false,
        )
        .unwrap();
        scaffold::driver(&run).map_err(|e| e.to_string())
    };
    let vkgen_rs = std::fs::read(out.join("src/vkgen.rs")).unwrap();
    let e = run("1.4.359").unwrap_err();
    assert!(e.contains("is a symlink"), "{e}");
    assert_eq!(std::fs::read(out.join("src/vkgen.rs")).unwrap(), vkgen_rs);
    assert!(
        !std::fs::read_to_string(elsewhere.join("vkgen/generated/src/features.rs"))
            .unwrap()
            .contains("Vulkan14")
    );
    std::fs::remove_file(out.join("vendor")).unwrap();
    std::fs::rename(&elsewhere, out.join("vendor")).unwrap();

    // Refused by its mode even for root, who could write it anyway (as `vkgen generate` does).
    set_mode(&out.join("vendor/vkgen/generated/src"), 0o555);
    let e = run("1.4.359").unwrap_err();
    assert!(e.contains("read-only"), "{e}");
    assert_eq!(std::fs::read(out.join("src/vkgen.rs")).unwrap(), vkgen_rs);
    set_mode(&out.join("vendor/vkgen/generated/src"), 0o755);
    run("1.4.359").unwrap();
}

fn vkgen_cli(args: &[&str], out: &Path, registry_dir: Option<&Path>) -> (Option<i32>, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_vkgen"));
    cmd.args(["driver", "--out"])
        .arg(out)
        .args(args)
        .env_remove("VKGEN_REGISTRY")
        .env_remove("VKGEN_REGISTRY_DIR");
    if let Some(d) = registry_dir {
        cmd.env("VKGEN_REGISTRY_DIR", d);
    }
    let o = cmd.output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    (o.status.code(), text)
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let (s, d) = (e.path(), to.join(e.file_name()));
        if s.is_dir() {
            copy_tree(&s, &d);
        } else {
            std::fs::copy(&s, &d).unwrap();
        }
    }
}

#[test]
fn check_passes_on_a_copy_elsewhere_with_the_registry_moved() {
    let tmp = tempfile::tempdir().unwrap();
    let registries = tmp.path().join("registries");
    std::fs::create_dir(&registries).unwrap();
    let registry = registries.join("vk-1.3.239.xml");
    std::fs::copy(common::registry("1.3.239"), &registry).unwrap();
    let out = tmp.path().join("work/acme");
    let root = common::workspace();
    let (code, text) = vkgen_cli(
        &[
            "--name",
            "acme",
            "--registry",
            registry.to_str().unwrap(),
            "--vkgen-root",
            root.to_str().unwrap(),
        ],
        &out,
        None,
    );
    assert_eq!(code, Some(0), "{text}");
    let rec = record::Record::read(&out).unwrap().unwrap();
    assert_eq!(rec.registry_path, "../../registries/vk-1.3.239.xml");
    let recorded_root = rec.vkgen_root.clone().unwrap();
    assert!(!recorded_root.starts_with('/'), "{recorded_root}");
    assert_eq!(
        out.join(&recorded_root).canonicalize().unwrap(),
        root.canonicalize().unwrap()
    );

    // A colleague's machine: the crate somewhere else (another depth), the registry under
    // another directory and name, the recorded checkout path leading nowhere.
    let copy = tmp.path().join("colleague/src/drivers/acme");
    copy_tree(&out, &copy);
    let moved = tmp.path().join("khronos");
    std::fs::create_dir(&moved).unwrap();
    std::fs::rename(&registry, moved.join("vk.xml")).unwrap();
    assert!(!copy.join(&recorded_root).exists());
    let record_text = std::fs::read_to_string(copy.join("vkgen.toml")).unwrap();
    let (code, text) = vkgen_cli(&["--check"], &copy, Some(&moved));
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("up to date"), "{text}");
    // A re-run there keeps the record as it was: nothing goes stale between machines.
    let (code, text) = vkgen_cli(&[], &copy, Some(&moved));
    assert_eq!(code, Some(0), "{text}");
    assert_eq!(
        std::fs::read_to_string(copy.join("vkgen.toml")).unwrap(),
        record_text
    );
    // A record of an older vkgen, with the absolute path it wrote: a re-run makes it relative.
    let original = std::fs::read_to_string(out.join("vkgen.toml")).unwrap();
    let absolute = original.replace(
        "path = \"../../registries/vk-1.3.239.xml\"",
        &format!("path = {:?}", registry.to_str().unwrap()),
    );
    assert_ne!(absolute, original);
    std::fs::write(out.join("vkgen.toml"), absolute).unwrap();
    let (code, text) = vkgen_cli(&[], &out, Some(&moved));
    assert_eq!(code, Some(0), "{text}");
    assert_eq!(
        std::fs::read_to_string(out.join("vkgen.toml")).unwrap(),
        original
    );

    // Nowhere to be found (no file has the recorded SHA-256, none the recorded name): a
    // message that says what it looked for and what to pass.
    let sha = &rec.registry_sha256;
    std::fs::write(
        copy.join("vkgen.toml"),
        record_text.replace(sha.as_str(), &"0".repeat(64)),
    )
    .unwrap();
    let (code, text) = vkgen_cli(&["--check"], &copy, Some(&moved));
    assert_eq!(code, Some(2), "{text}");
    assert!(
        text.contains("SHA-256") && text.contains("pass --registry"),
        "{text}"
    );
}

#[test]
fn cargo_fmt_leaves_vkgens_files_and_check_agrees() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("acme");
    let s = scaffold_at(&out, "1.3.239");
    // With rustfmt's defaults the fresh scaffold is formatted already, the vendor's files too.
    let check = Command::new("cargo")
        .args(["fmt", "--all", "--check", "--manifest-path"])
        .arg(out.join("Cargo.toml"))
        .output()
        .unwrap();
    assert!(
        check.status.success(),
        "a fresh scaffold is not rustfmt-clean:\n{}",
        String::from_utf8_lossy(&check.stdout)
    );
    // A vendor style that differs from rustfmt's defaults, in the crate's root.
    std::fs::write(
        out.join("rustfmt.toml"),
        "max_width = 60\nhard_tabs = true\n",
    )
    .unwrap();
    let fmt = Command::new("cargo")
        .args(["fmt", "--all", "--manifest-path"])
        .arg(out.join("Cargo.toml"))
        .output()
        .unwrap();
    assert!(
        fmt.status.success(),
        "{}",
        String::from_utf8_lossy(&fmt.stderr)
    );
    // The vendor's own sources follow their style; vkgen's are as vkgen wrote them.
    assert!(std::fs::read_to_string(out.join("src/lib.rs"))
        .unwrap()
        .contains('\t'));
    // Every file vkgen rewrites (src/lib.rs and the requirements test are the vendor's).
    let vkgens: Vec<_> = s
        .files
        .iter()
        .filter(|f| f.path != "src/lib.rs" && f.path != "tests/vkgen_requirements.rs")
        .cloned()
        .collect();
    assert!(vkgens.iter().any(|f| f.path == "src/vkgen.rs"));
    assert!(vkgens
        .iter()
        .any(|f| f.path.ends_with("generated/src/lib.rs")));
    let stale = vkgen::check(&vkgens, &out);
    assert!(stale.is_fresh(), "cargo fmt changed {stale:?}");
}

/// `cargo package` and `cargo package --no-verify` in a fresh scaffold package the crate with
/// the runtime it builds on, one `.crate` each, every one verified against the others — no
/// registry holds vkgen. Its own target directory under the checkout's, so the verification
/// build is incremental across runs.
#[test]
fn scaffold_packages_with_its_vendored_runtime() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("acme");
    scaffold_at(&out, "1.3.239");
    let target = common::workspace().join("target/scaffold-package");
    let package = |extra: &[&str]| {
        let o = Command::new(env!("CARGO"))
            .args(["package", "--offline", "--allow-dirty", "--manifest-path"])
            .arg(out.join("Cargo.toml"))
            .args(extra)
            .env("CARGO_TARGET_DIR", &target)
            .env_remove("RUSTFLAGS")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&o.stderr).into_owned();
        assert!(o.status.success(), "cargo package {extra:?}:\n{text}");
        text
    };
    let crates = [
        "vulkan-acme",
        "vkgen-abi",
        "vkgen-platform",
        "vkgen-driver-macros",
        "vkgen-driver",
        "vkgen-generated",
    ];
    let version = env!("CARGO_PKG_VERSION");
    for extra in [&["--no-verify"][..], &[]] {
        let _ = std::fs::remove_dir_all(target.join("package"));
        let text = package(extra);
        for c in crates {
            // The scaffold's own version is 0.1.0; the runtime's is vkgen's.
            let v = if c == "vulkan-acme" { "0.1.0" } else { version };
            let file = target.join(format!("package/{c}-{v}.crate"));
            assert!(file.is_file(), "{} not packaged:\n{text}", file.display());
        }
        if extra.is_empty() {
            assert!(text.contains("Verifying vulkan-acme"), "{text}");
        }
    }
}
