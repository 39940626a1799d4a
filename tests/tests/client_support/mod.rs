//! Shared by the real-client tests (`compute_clients.rs`, `python_clients.rs`, the desktop
//! tests' `vkcube` and zink runs): an unmodified
//! third-party program finds its Vulkan loader by library name (`libvulkan.so.1`, sometimes
//! `libvulkan.so`) at run time, so the only way to put ours under it without changing it is an
//! `LD_LIBRARY_PATH` directory where both names are ours. Nothing else proves the program did
//! not pick up Debian's loader some other way (a full path, an rpath, a bundled copy), so every
//! run records the dynamic linker's log and checks which loader and which driver were
//! initialised.
//!
//! The same client runs on the two ways our loader reaches a driver: lavapipe as a Khronos ICD
//! through its manifest (served through the loader's native-buffer adapter, so swapchains work
//! there too), and lavapipe behind `vulkan.host.so` as an Android HAL module.

#![allow(dead_code)]

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use tempfile::TempDir;
use vkgen_tests::env::{controlled_command, describe_status, output_with_timeout, Env};
use vkgen_tests::{paths, require, validation};

use crate::wsi_support;

/// Lavapipe's library, as its manifest names it.
const LAVAPIPE: &str = "libvulkan_lvp.so";

/// Which loader and driver a client runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stack {
    /// Our `libvulkan.so` with lavapipe as a Khronos ICD (its manifest alone in the standard
    /// search path, `$XDG_DATA_DIRS/vulkan/icd.d`) and an empty Android root, so that no HAL
    /// module is found.
    OursIcd,
    /// Our `libvulkan.so` with `vulkan.host.so` as the HAL module, lavapipe as its host ICD.
    OursHal,
    /// Debian's loader on lavapipe: the reference where the CPU cannot be one.
    Debian,
}

impl Stack {
    /// Both of our paths.
    pub const OURS: [Stack; 2] = [Stack::OursIcd, Stack::OursHal];

    /// What our loader's `VKGEN_LOG=info` prints when it took this path (none for Debian's).
    pub fn log_marker(self) -> &'static str {
        match self {
            Stack::OursIcd => "through the native-buffer adapter",
            Stack::OursHal => "driver HAL ",
            Stack::Debian => "",
        }
    }

    /// Its name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Stack::OursIcd => "our loader, lavapipe as ICD",
            Stack::OursHal => "our loader, vulkan.host.so (HAL) on lavapipe",
            Stack::Debian => "Debian's loader, lavapipe as ICD",
        }
    }
}

/// The environment of one [`Stack`]; keeps its temporary directories alive.
pub struct ClientEnv {
    pub stack: Stack,
    env: Env,
    /// The `LD_LIBRARY_PATH` directory of our loader's two names (none for Debian's).
    shim: Option<PathBuf>,
    work: TempDir,
    _root: TempDir,
}

impl ClientEnv {
    pub fn new(stack: Stack) -> ClientEnv {
        let work = tempfile::tempdir().expect("temporary directory");
        let (env, root) = match stack {
            Stack::OursIcd => {
                // The manifest is found where the Khronos loader looks on a desktop
                // (`$XDG_DATA_DIRS/vulkan/icd.d`), not named by `VK_DRIVER_FILES`: ncnn loads
                // the driver a set `VK_DRIVER_FILES`/`VK_ICD_FILENAMES` names by itself, past
                // any loader.
                let root = require(validation::empty_dir());
                let icd_dir = root.path().join("share/vulkan/icd.d");
                std::fs::create_dir_all(&icd_dir).unwrap();
                std::os::unix::fs::symlink(
                    require(paths::lavapipe_manifest()),
                    icd_dir.join("lvp_icd.json"),
                )
                .unwrap();
                let env = Env::new()
                    .set("VKGEN_HAL_ROOT", root.path())
                    .set("XDG_DATA_DIRS", root.path().join("share"))
                    .set("XDG_CONFIG_DIRS", root.path().join("xdg"))
                    .set("XDG_DATA_HOME", root.path().join("data-home"))
                    .set("XDG_CONFIG_HOME", root.path().join("config-home"));
                (env, root)
            }
            Stack::OursHal => wsi_support::hal_env("host", ""),
            Stack::Debian => (
                require(paths::lavapipe_env()),
                require(validation::empty_dir()),
            ),
        };
        let shim = (stack != Stack::Debian).then(|| {
            let loader = require(paths::loader_under_test()).canonicalize().unwrap();
            let shim = work.path().join("lib");
            std::fs::create_dir(&shim).unwrap();
            for name in ["libvulkan.so", "libvulkan.so.1"] {
                std::os::unix::fs::symlink(&loader, shim.join(name)).unwrap();
            }
            shim
        });
        let env = match &shim {
            Some(shim) => env.set("LD_LIBRARY_PATH", shim),
            None => env,
        };
        ClientEnv {
            stack,
            env,
            shim,
            work,
            _root: root,
        }
    }

    /// The `LD_LIBRARY_PATH` directory holding our loader's two names (none for Debian's).
    pub fn shim(&self) -> Option<&Path> {
        self.shim.as_deref()
    }

    /// A scratch directory that lives as long as `self`.
    pub fn work_dir(&self) -> &Path {
        self.work.path()
    }

    /// `program` with this stack's controlled environment plus `extra`.
    pub fn command(&self, program: impl AsRef<OsStr>, extra: &Env) -> Command {
        controlled_command(program, &self.env.clone().with(extra))
    }

    /// Runs `cmd` (from [`ClientEnv::command`]) for at most `timeout` under the dynamic linker's
    /// log; fails unless it exits 0, initialised this stack's loader (and never the other one)
    /// and its driver. Returns the output and how long it ran.
    pub fn run(&self, what: &str, mut cmd: Command, timeout: Duration) -> (Output, Duration) {
        let ld = tempfile::tempdir_in(self.work.path()).unwrap();
        cmd.env("LD_DEBUG", "libs")
            .env("LD_DEBUG_OUTPUT", ld.path().join("ld"));
        let start = Instant::now();
        let out = output_with_timeout(&mut cmd, timeout)
            .unwrap_or_else(|e| panic!("{what} on {}: {e}", self.stack.name()));
        let took = start.elapsed();
        assert!(
            out.status.success(),
            "{what} on {}: {}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.stack.name(),
            describe_status(out.status),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let mut log = String::new();
        for e in std::fs::read_dir(ld.path()).unwrap().flatten() {
            log.push_str(&std::fs::read_to_string(e.path()).unwrap_or_default());
        }
        let inits: Vec<&str> = log
            .lines()
            .filter_map(|l| l.split_once("calling init: ").map(|(_, lib)| lib.trim()))
            .collect();
        let debian = require(paths::system_loader());
        let is_debian =
            |lib: &&str| Path::new(lib).canonicalize().ok() == debian.canonicalize().ok();
        match &self.shim {
            Some(shim) => {
                assert!(
                    inits.iter().any(|l| Path::new(l).parent() == Some(shim)),
                    "{what} on {}: our loader ({}) was never initialised; libraries: {inits:?}",
                    self.stack.name(),
                    shim.display()
                );
                assert!(
                    !inits.iter().any(is_debian),
                    "{what} on {}: Debian's loader was initialised too: {inits:?}",
                    self.stack.name()
                );
            }
            None => assert!(
                inits.iter().any(is_debian),
                "{what} on {}: Debian's loader was never initialised: {inits:?}",
                self.stack.name()
            ),
        }
        // On the ICD path our loader hands lavapipe to the host driver it ships beside itself
        // (the native-buffer adapter, through its C entry point): that library is expected.
        let adapter = (self.stack == Stack::OursIcd).then(|| {
            paths::our_loader()
                .with_file_name("libvulkan_host.so")
                .canonicalize()
                .ok()
        });
        let is_adapter = |l: &&&str| {
            adapter
                .as_ref()
                .is_some_and(|a| Path::new(l).canonicalize().ok() == *a)
        };
        let others: Vec<&&str> = inits
            .iter()
            .filter(|l| l.contains("/libvulkan_") && !l.ends_with(LAVAPIPE) && !is_adapter(l))
            .collect();
        assert!(
            others.is_empty(),
            "{what} on {}: drivers other than lavapipe were loaded: {others:?}",
            self.stack.name()
        );
        let mut drivers = vec![LAVAPIPE];
        match self.stack {
            Stack::OursHal => drivers.push("vulkan.host.so"),
            Stack::OursIcd => drivers.push("/libvulkan_host.so"),
            Stack::Debian => {}
        }
        for driver in drivers {
            assert!(
                inits.iter().any(|l| l.ends_with(driver)),
                "{what} on {}: {driver} was never initialised: {inits:?}",
                self.stack.name()
            );
        }
        (out, took)
    }
}

/// `name` on `PATH`.
pub fn which(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")?
        .to_str()?
        .split(':')
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file())
}
