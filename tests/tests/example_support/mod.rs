//! The vendor examples under `docs/examples/` (the copy engine, the CPU compute device), built
//! the way a vendor builds them: the crate copied outside the checkout, its runtime vendored
//! by `vkgen driver`, built and packaged there; and the checks every client run through them
//! shares (the client exits 0, printed its summary, and the dynamic linker's log shows the loader
//! and the validation layer that ran).
//!
//! Every example builds into one target directory, `target/examples`: the crates.io
//! dependencies they share are built once (the vendored runtimes are separate copies).

#![allow(dead_code)] // each test binary uses part of it

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use vkgen_tests::env::{controlled_command, describe_status, output_with_timeout, Env};
use vkgen_tests::paths;

pub const VALIDATION: &str = "VK_LAYER_KHRONOS_validation";

/// A built example: its temporary copy (removed on drop), the driver library and the ICD
/// manifest `vkgen driver` wrote.
pub struct Example {
    pub dir: tempfile::TempDir,
    pub crate_dir: PathBuf,
    pub lib: PathBuf,
    pub manifest: PathBuf,
}

/// Copies `docs/examples/<name>` outside the checkout, vendors the runtime (`vkgen driver
/// --name <name> --api-version <api>`), and builds it (`extra_args` to cargo: `--release`).
pub fn build(name: &str, api: &str, extra_args: &[&str]) -> Example {
    let dir = tempfile::Builder::new()
        .prefix(&format!("vkgen-{name}-"))
        .tempdir_in(std::env::temp_dir())
        .unwrap();
    let crate_dir = dir.path().join(name);
    assert!(!crate_dir.starts_with(paths::workspace_root()));
    paths::copy_tree(
        &paths::workspace_root().join("docs/examples").join(name),
        &crate_dir,
    );
    let vkgen = paths::profile_dir().join("vkgen");
    assert!(vkgen.is_file(), "{} not built", vkgen.display());
    let out = Command::new(&vkgen)
        .args(["driver", "--name", name, "--api-version", api, "--out"])
        .arg(&crate_dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "vkgen driver: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let target = paths::target_dir().join("examples");
    let build = Command::new(env!("CARGO"))
        .args(["build", "--quiet", "--manifest-path"])
        .arg(crate_dir.join("Cargo.toml"))
        .args(extra_args)
        .env("CARGO_TARGET_DIR", &target)
        .env_remove("RUSTFLAGS")
        .output()
        .unwrap();
    assert!(
        build.status.success(),
        "{name} does not build outside the checkout:\n{}",
        String::from_utf8_lossy(&build.stderr)
    );
    packages(&crate_dir, &dir.path().join("package"));
    let profile = if extra_args.contains(&"--release") {
        "release"
    } else {
        "debug"
    };
    let lib = target
        .join(profile)
        .join(format!("libvulkan_{}.so", name.replace('-', "_")));
    let manifest = crate_dir.join(format!("{name}_icd.json"));
    assert!(
        manifest.is_file(),
        "vkgen driver wrote no {}",
        manifest.display()
    );
    Example {
        dir,
        crate_dir,
        lib,
        manifest,
    }
}

/// `cargo package --no-verify` of the copy (the build above already compiled it): a vendor crate
/// packages together with the runtime it builds on and its other path dependencies, which only
/// works when they are publishable members of its workspace with versions on the path lines
/// (issue 33, writing-a-driver.md "Distribution"). Its own target directory, in the copy's
/// temporary directory, so two examples never share `target/package`.
fn packages(crate_dir: &Path, target: &Path) {
    let out = Command::new(env!("CARGO"))
        .args([
            "package",
            "--no-verify",
            "--offline",
            "--allow-dirty",
            "--quiet",
        ])
        .arg("--manifest-path")
        .arg(crate_dir.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", target)
        .env_remove("RUSTFLAGS")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{} does not cargo package:\n{}",
        crate_dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `gcc -Wall -Wextra -Werror -O2` of `source` into `out`, with `-I include` and `-lvulkan`.
pub fn compile_c(source: &Path, include: &Path, out: &Path) {
    let cc = Command::new("gcc")
        .args(["-Wall", "-Wextra", "-Werror", "-O2", "-I"])
        .arg(include)
        .arg("-o")
        .arg(out)
        .arg(source)
        .arg("-lvulkan")
        .output()
        .unwrap();
    assert!(
        cc.status.success(),
        "gcc {}:\n{}",
        source.display(),
        String::from_utf8_lossy(&cc.stderr)
    );
}

/// The two ways to the example's driver, each with the validation layer enabled: Debian's
/// loader through the generated ICD manifest (installed beside a copy of the library, as the
/// guide says), and ours through a HAL root (`vulkan.<name>.so`).
pub struct Loaders {
    pub debian: Stack,
    pub ours: Stack,
    _dirs: Vec<tempfile::TempDir>,
}

/// One loader's environment: `env` (with `LD_LIBRARY_PATH` set), the validation layer's
/// variables, and the library that must be the `libvulkan` the dynamic linker initialises.
#[derive(Clone)]
pub struct Stack {
    pub name: &'static str,
    pub env: Env,
    pub layers: Env,
    pub loader: PathBuf,
}

pub fn loaders(example: &Example, name: &str) -> Loaders {
    let validation = vkgen_tests::require(paths::validation_layer_manifest());
    let layers = Env::new()
        .set("VK_LAYER_PATH", validation.parent().unwrap())
        .set("VK_INSTANCE_LAYERS", VALIDATION);
    let system = vkgen_tests::require(paths::system_loader());
    // The manifest where the Khronos loader looks on a desktop (`$XDG_DATA_DIRS/vulkan/icd.d`),
    // installed beside a copy of the library, and nothing else there: not named by
    // `VK_DRIVER_FILES`, which ncnn reads itself to load a driver past any loader.
    let install = tempfile::tempdir().unwrap();
    let icd_dir = install.path().join("share/vulkan/icd.d");
    std::fs::create_dir_all(&icd_dir).unwrap();
    std::fs::copy(&example.manifest, icd_dir.join(format!("{name}_icd.json"))).unwrap();
    std::fs::copy(&example.lib, icd_dir.join(example.lib.file_name().unwrap())).unwrap();
    let debian = Stack {
        name: "Debian's loader (ICD manifest)",
        env: Env::new()
            .set("XDG_DATA_DIRS", install.path().join("share"))
            .set("XDG_CONFIG_DIRS", install.path().join("xdg"))
            .set("XDG_DATA_HOME", install.path().join("data-home"))
            .set("XDG_CONFIG_HOME", install.path().join("config-home"))
            .set("LD_LIBRARY_PATH", paths::system_lib_dir()),
        layers: layers.clone(),
        loader: system,
    };
    let loader = vkgen_tests::require(paths::loader_under_test())
        .canonicalize()
        .unwrap();
    let shim = tempfile::tempdir().unwrap();
    for n in ["libvulkan.so", "libvulkan.so.1"] {
        std::os::unix::fs::symlink(&loader, shim.path().join(n)).unwrap();
    }
    let (hal, root) = crate::wsi_support::hal_env_for(&example.lib, name, "");
    let ours = Stack {
        name: "our loader (HAL root)",
        env: hal.set("LD_LIBRARY_PATH", shim.path()),
        layers,
        loader,
    };
    Loaders {
        debian,
        ours,
        _dirs: vec![install, shim, root],
    }
}

/// Whether a run enables the validation layer (and checks that it was loaded).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Validation {
    On,
    Off,
}

/// Runs `program args` on `stack` (plus `extra`) for at most `timeout` under the dynamic
/// linker's log; fails unless it exits 0 and the stack's loader (and, with
/// [`Validation::On`], the validation layer) was initialised. Returns its output.
pub fn run_on(
    stack: &Stack,
    validation: Validation,
    extra: &Env,
    program: &Path,
    args: &[&str],
    timeout: Duration,
) -> Output {
    let work = tempfile::tempdir().unwrap();
    let mut env = stack.env.clone().with(extra);
    if validation == Validation::On {
        env = env.with(&stack.layers);
    }
    let mut cmd = controlled_command(program, &env);
    cmd.args(args)
        .env("LD_DEBUG", "libs")
        .env("LD_DEBUG_OUTPUT", work.path().join("ld"));
    let out = output_with_timeout(&mut cmd, timeout).unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        out.status.success(),
        "{} on {} failed ({}):\n{stdout}\n{stderr}",
        program.display(),
        stack.name,
        describe_status(out.status)
    );
    let mut ld = String::new();
    for e in std::fs::read_dir(work.path()).unwrap().flatten() {
        ld.push_str(&std::fs::read_to_string(e.path()).unwrap_or_default());
    }
    let initialised: Vec<PathBuf> = ld
        .lines()
        .filter_map(|l| l.split("calling init: ").nth(1))
        .filter_map(|p| Path::new(p.trim()).canonicalize().ok())
        .collect();
    let expected = stack.loader.canonicalize().unwrap();
    assert!(
        initialised.contains(&expected),
        "{}: {} was not the loader (initialised: {initialised:?})",
        stack.name,
        expected.display()
    );
    let layer = initialised
        .iter()
        .any(|p| p.to_string_lossy().contains("VkLayer_khronos_validation"));
    assert_eq!(
        layer,
        validation == Validation::On,
        "{}: the validation layer's loading is not as asked: {initialised:?}",
        stack.name
    );
    out
}
