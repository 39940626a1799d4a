//! The Debian package (issue 33; README, "Install on a Linux host"): `cargo deb -p vkgen-loader`
//! packages this build's `libvulkan.so` as the system's `libvulkan.so.1` (and `libvulkan.so`)
//! with the host driver beside it, in `/usr/lib/vkgen`, selected by
//! `/etc/ld.so.conf.d/00-vkgen.conf`. The test installs it with `dpkg -i`, runs Debian's
//! unmodified `vulkaninfo --summary` and `vkcube` (under Xvfb) through the installed layout,
//! checks in the dynamic linker's log (`LD_DEBUG=libs`) that ours was the libvulkan they
//! loaded, removes and purges the package, and checks that Debian's loader is selected again
//! and the system is byte for byte as it was.
//!
//! All of it happens in a private mount namespace, on an overlay of the machine's own `/`
//! (`unshare --mount`, then `chroot`): dpkg, ldconfig and the programs see the real system, but
//! every write lands in a scratch layer that vanishes with the namespace. The other tests
//! compare against Debian's loader while this one runs, and a failure (or a kill) midway must
//! not leave our loader installed: nothing outside the namespace ever changes, which the test
//! checks too. Needs root (or passwordless `sudo`) for the namespace; skips loudly only on a
//! host without dpkg.

mod x11_support;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use vkgen_tests::env::{check_child, child_scenario, describe_status, output_with_timeout};
use vkgen_tests::{paths, require};
use x11_support::{capture, which, Xvfb};

const SCENARIO: &str = "the_debian_package_replaces_libvulkan_and_removes_cleanly";
/// The `.deb` the namespace child installs.
const DEB_VAR: &str = "VKGEN_TEST_DEB";
const PACKAGE: &str = "vkgen-loader";
/// Where the package puts both libraries.
const LIB_DIR: &str = "/usr/lib/vkgen";
const TIMEOUT: Duration = Duration::from_secs(300);

#[test]
fn the_debian_package_replaces_libvulkan_and_removes_cleanly() {
    if child_scenario().as_deref() == Some(SCENARIO) {
        let deb = PathBuf::from(std::env::var_os(DEB_VAR).expect("the package's path"));
        in_scratch_system(&deb);
        println!("\n{} {SCENARIO}", vkgen_tests::env::DONE_MARKER);
        return;
    }
    if which("dpkg").is_none() {
        eprintln!("SKIPPED: not a Debian host (no dpkg)");
        return;
    }
    for (tool, package) in [
        ("unshare", "util-linux"),
        ("vulkaninfo", "vulkan-tools"),
        ("vkcube", "vulkan-tools"),
        ("Xvfb", "xvfb"),
    ] {
        assert!(
            which(tool).is_some(),
            "{tool} is missing: apt-get install {package} (.ci/setup does)"
        );
    }
    let work = tempfile::tempdir().unwrap();
    let deb = build_package(work.path());
    // The host's own state, compared after the run: the namespace must have kept every change.
    let host_before = host_state();
    let mut cmd = privileged();
    cmd.arg(format!("{}={SCENARIO}", vkgen_tests::env::CHILD_VAR))
        .arg(format!("{DEB_VAR}={}", deb.display()))
        .args(["unshare", "--mount", "--fork", "--"])
        .arg(std::env::current_exe().unwrap())
        .args(["--exact", SCENARIO, "--nocapture", "--test-threads=1"]);
    let out = output_with_timeout(&mut cmd, TIMEOUT).unwrap_or_else(|e| panic!("{e}"));
    let result = check_child(SCENARIO, &out);
    assert!(
        host_state() == host_before,
        "the machine's ld.so cache, ld.so.conf.d or dpkg status changed outside the namespace"
    );
    require(result);
}

/// `cargo deb --no-build` of this build's libraries (the profile the tests were built with).
fn build_package(out_dir: &Path) -> PathBuf {
    let profile_dir = paths::profile_dir();
    let profile = match profile_dir.file_name().and_then(OsStr::to_str) {
        Some("debug") => "dev",
        Some(other) => other,
        None => "release",
    };
    for lib in ["libvulkan.so", "libvulkan_host.so"] {
        assert!(
            profile_dir.join(lib).is_file(),
            "{} is not built: cargo build --release --workspace",
            profile_dir.join(lib).display()
        );
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(paths::workspace_root())
        .env("CARGO_TARGET_DIR", paths::target_dir())
        .args([
            "deb",
            "-p",
            PACKAGE,
            "--no-build",
            "--profile",
            profile,
            "-o",
        ])
        .arg(out_dir)
        .output()
        .expect("run cargo deb");
    assert!(
        out.status.success(),
        "cargo deb failed ({}); is cargo-deb installed? (`cargo install cargo-deb`, as .ci/setup \
         does)\n{}",
        describe_status(out.status),
        String::from_utf8_lossy(&out.stderr)
    );
    let debs: Vec<PathBuf> = std::fs::read_dir(out_dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension() == Some(OsStr::new("deb")))
        .collect();
    assert_eq!(debs.len(), 1, "cargo deb wrote {debs:?}");
    debs.into_iter().next().unwrap()
}

/// `env`, run as root (directly when the tests are, else through `sudo -n`), to which the
/// caller adds the variables and the command.
fn privileged() -> Command {
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } == 0 {
        return Command::new("/usr/bin/env");
    }
    let ok = Command::new("sudo")
        .args(["-n", "true"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        ok,
        "the package test needs root for its mount namespace: run the tests as root or with \
         passwordless sudo"
    );
    let mut cmd = Command::new("sudo");
    cmd.args(["-n", "/usr/bin/env"]);
    cmd
}

/// What an install on the host itself would change.
fn host_state() -> Vec<Vec<u8>> {
    let conf_d: Vec<String> = std::fs::read_dir("/etc/ld.so.conf.d")
        .map(|d| {
            let mut v: Vec<String> = d
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect();
            v.sort();
            v
        })
        .unwrap_or_default();
    vec![
        std::fs::read("/etc/ld.so.cache").unwrap_or_default(),
        std::fs::read("/var/lib/dpkg/status").unwrap_or_default(),
        conf_d.join("\n").into_bytes(),
        Path::new(LIB_DIR).exists().to_string().into_bytes(),
    ]
}

/// Runs `program args`, failing the test with its output unless it succeeds.
fn sh<S: AsRef<OsStr>>(program: &str, args: &[S]) {
    let out = Command::new(program).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{program} {:?}: {}\n{}",
        args.iter().map(|a| a.as_ref()).collect::<Vec<_>>(),
        describe_status(out.status),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The machine's `/` as an overlay whose writes go to a tmpfs of this mount namespace, and
/// the programs run in it through `chroot`. Never removed recursively: below its root are
/// the machine's own `/dev`, `/proc` and `/sys`. The mounts end with the namespace, and the
/// mount point is a directory of the parent test's temporary directory, which removes it then.
struct Scratch {
    root: PathBuf,
    upper: PathBuf,
    /// Bound at the same path inside: the package, the linker logs, a home directory.
    shared: PathBuf,
}

impl Scratch {
    fn new(shared: &Path) -> Scratch {
        // Nothing mounted from here on propagates back to the machine's namespace.
        sh("mount", &["--make-rprivate", "/"]);
        let dir = shared.join("scratch");
        std::fs::create_dir(&dir).unwrap();
        sh(
            "mount",
            &[
                OsStr::new("-t"),
                "tmpfs".as_ref(),
                "tmpfs".as_ref(),
                dir.as_os_str(),
            ],
        );
        let (upper, work, root) = (dir.join("u"), dir.join("w"), dir.join("m"));
        for d in [&upper, &work, &root] {
            std::fs::create_dir(d).unwrap();
        }
        let options = format!(
            "lowerdir=/,upperdir={},workdir={}",
            upper.display(),
            work.display()
        );
        sh(
            "mount",
            &[
                OsStr::new("-t"),
                "overlay".as_ref(),
                "overlay".as_ref(),
                "-o".as_ref(),
                options.as_ref(),
                root.as_os_str(),
            ],
        );
        // The overlay does not cross mount points: the kernel's file systems are bound in.
        for fs in ["proc", "sys", "dev"] {
            sh(
                "mount",
                &[
                    OsStr::new("--rbind"),
                    format!("/{fs}").as_ref(),
                    root.join(fs).as_os_str(),
                ],
            );
        }
        // X11 clients inside reach Xvfb (started outside, before) through its socket
        // directory: the overlay's view of a directory that changes below it is not reliable.
        let x11 = Path::new("/tmp/.X11-unix");
        if x11.is_dir() {
            let inside = root.join("tmp/.X11-unix");
            std::fs::create_dir_all(&inside).unwrap();
            sh(
                "mount",
                &[OsStr::new("--bind"), x11.as_os_str(), inside.as_os_str()],
            );
        }
        // Not recursive: the scratch tmpfs below `shared` stays out of the chroot.
        let inside = root.join(shared.strip_prefix("/").unwrap());
        std::fs::create_dir_all(&inside).unwrap();
        sh(
            "mount",
            &[OsStr::new("--bind"), shared.as_os_str(), inside.as_os_str()],
        );
        Scratch {
            root,
            upper,
            shared: shared.to_owned(),
        }
    }

    /// `path` inside with every link resolved inside (Debian's `/lib` is a link to `usr/lib`).
    fn canonical(&self, path: &str) -> PathBuf {
        let real = std::fs::canonicalize(self.root.join(path.trim_start_matches('/')))
            .unwrap_or_else(|e| panic!("{path}: {e}"));
        Path::new("/").join(real.strip_prefix(&self.root).unwrap())
    }

    /// `program args` inside, with only `env` in its environment (not the test's: cargo's
    /// `LD_LIBRARY_PATH` would put this build's `target/` loader first).
    fn command(&self, program: &str, args: &[&str], env: &[(String, String)]) -> Command {
        let mut cmd = Command::new("chroot");
        cmd.arg(&self.root)
            .args(["/usr/bin/env", "-i", "PATH=/usr/sbin:/usr/bin:/sbin:/bin"])
            .arg(format!("HOME={}", self.shared.display()))
            .arg(format!(
                "XDG_CACHE_HOME={}",
                self.shared.join("cache").display()
            ));
        for (k, v) in env {
            cmd.arg(format!("{k}={v}"));
        }
        cmd.arg(program).args(args);
        cmd
    }

    fn run(&self, program: &str, args: &[&str]) -> String {
        let out = output_with_timeout(&mut self.command(program, args, &[]), TIMEOUT).unwrap();
        assert_success(&format!("{program} {args:?}"), &out);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn read(&self, path: &str) -> Vec<u8> {
        std::fs::read(self.root.join(path.trim_start_matches('/'))).unwrap_or_default()
    }

    /// Where the dynamic linker's cache maps `name` first: the library a program that opens
    /// `name` gets.
    fn resolves(&self, name: &str) -> String {
        let listing = self.run("ldconfig", &["-p"]);
        let prefix = format!("{name} (");
        listing
            .lines()
            .map(str::trim)
            .find(|l| l.starts_with(&prefix))
            .and_then(|l| l.split_once("=> "))
            .map(|(_, path)| path.trim().to_owned())
            .unwrap_or_else(|| panic!("ldconfig -p has no {name}:\n{listing}"))
    }

    /// A Vulkan program inside under the dynamic linker's log (`LD_DEBUG=libs`) and the
    /// loader's (`VKGEN_LOG=info`), on lavapipe alone (`VK_DRIVER_FILES`: the machine's other
    /// ICD manifests, for hardware it may not have, are not what this test is about), and the
    /// directory its linker log goes to ([`initialised`]).
    fn traced(&self, program: &str, args: &[&str], extra: &[(&str, &str)]) -> (Command, PathBuf) {
        let log = self.shared.join(format!("ld-{program}"));
        let _ = std::fs::remove_dir_all(&log);
        std::fs::create_dir(&log).unwrap();
        let lavapipe = require(paths::lavapipe_manifest());
        let mut env: Vec<(String, String)> = vec![
            ("LD_DEBUG".into(), "libs".into()),
            (
                "LD_DEBUG_OUTPUT".into(),
                log.join("ld").display().to_string(),
            ),
            ("VKGEN_LOG".into(), "info".into()),
            ("VK_DRIVER_FILES".into(), lavapipe.display().to_string()),
        ];
        env.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        (self.command(program, args, &env), log)
    }

    /// Files the scratch layer holds now, relative to `/`.
    fn changed_files(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut stack = vec![self.upper.clone()];
        while let Some(dir) = stack.pop() {
            for e in std::fs::read_dir(&dir).unwrap().flatten() {
                let p = e.path();
                if e.file_type().unwrap().is_dir() {
                    stack.push(p);
                } else {
                    out.push(p.strip_prefix(&self.upper).unwrap().display().to_string());
                }
            }
        }
        out.sort();
        out
    }
}

fn assert_success(what: &str, out: &Output) {
    assert!(
        out.status.success(),
        "{what}: {}\n--- stdout ---\n{}\n--- stderr ---\n{}",
        describe_status(out.status),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The libraries whose initialisers ran, from the `LD_DEBUG=libs` logs in `log`.
fn initialised(log: &Path) -> Vec<String> {
    let mut text = String::new();
    for e in std::fs::read_dir(log).unwrap().flatten() {
        text.push_str(&std::fs::read_to_string(e.path()).unwrap_or_default());
    }
    text.lines()
        .filter_map(|l| {
            l.split_once("calling init: ")
                .map(|(_, lib)| lib.trim().to_owned())
        })
        .collect()
}

/// The `libvulkan` files among `inits`.
fn loaders(inits: &[String]) -> Vec<&str> {
    inits
        .iter()
        .map(String::as_str)
        .filter(|l| {
            Path::new(l)
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("libvulkan.so"))
        })
        .collect()
}

/// What the system looks like to a program: the linker cache, dpkg's database, Debian's
/// loader files.
#[derive(Debug, PartialEq)]
struct Snapshot {
    ld_cache: Vec<u8>,
    dpkg_status: Vec<u8>,
    debian_loader_link: Option<PathBuf>,
    debian_loader: Vec<u8>,
}

fn snapshot(sys: &Scratch) -> Snapshot {
    let link = paths::system_lib_dir().join("libvulkan.so.1");
    let inside = sys.root.join(link.strip_prefix("/").unwrap());
    Snapshot {
        ld_cache: sys.read("/etc/ld.so.cache"),
        dpkg_status: sys.read("/var/lib/dpkg/status"),
        debian_loader_link: std::fs::read_link(&inside).ok(),
        debian_loader: std::fs::read(&inside).unwrap_or_default(),
    }
}

/// The whole check, in the namespace child (root, a mount namespace of its own).
fn in_scratch_system(deb: &Path) {
    let xvfb = Xvfb::start().expect("start Xvfb");
    let sys = Scratch::new(deb.parent().unwrap());
    let debian = sys.canonical(&format!(
        "{}/libvulkan.so.1",
        paths::system_lib_dir().display()
    ));
    let before = snapshot(&sys);
    assert!(
        !before.debian_loader.is_empty(),
        "Debian's libvulkan1 is not installed"
    );
    let selected = sys.resolves("libvulkan.so.1");
    assert_eq!(sys.canonical(&selected), debian, "before the install");

    sys.run("dpkg", &["-i", &deb.display().to_string()]);
    for name in ["libvulkan.so.1", "libvulkan.so"] {
        assert_eq!(
            sys.resolves(name),
            format!("{LIB_DIR}/{name}"),
            "after dpkg -i"
        );
    }
    // Debian's package is installed beside ours, its files as dpkg unpacked them.
    let verify = sys.run("dpkg", &["--verify", "libvulkan1"]);
    assert!(verify.is_empty(), "dpkg --verify libvulkan1:\n{verify}");
    vulkaninfo_summary(&sys, true);
    vkcube_under_xvfb(&sys, &xvfb);

    // A plain remove already gives the system Debian's loader back (the conffile that stays
    // names a directory that is gone); the purge removes the rest.
    sys.run("dpkg", &["-r", PACKAGE]);
    assert_eq!(sys.resolves("libvulkan.so.1"), selected, "after dpkg -r");
    vulkaninfo_summary(&sys, false);
    sys.run("dpkg", &["--purge", PACKAGE]);
    let after = snapshot(&sys);
    assert!(
        after == before,
        "the system differs after the purge: {:?} vs {:?}",
        after.debian_loader_link,
        before.debian_loader_link
    );
    // What is left in the scratch layer is dpkg's and ldconfig's bookkeeping only.
    let bookkeeping = [
        "etc/ld.so.cache",
        "var/cache/ldconfig/",
        "var/lib/dpkg/",
        "var/log/dpkg.log",
    ];
    let left: Vec<String> = sys
        .changed_files()
        .into_iter()
        .filter(|f| !bookkeeping.iter().any(|b| f.starts_with(b)))
        .collect();
    assert!(
        left.is_empty(),
        "files left behind after the purge: {left:?}"
    );
}

/// `vulkaninfo --summary` inside: lavapipe listed, and the libvulkan it loaded (it opens
/// `libvulkan.so` before `libvulkan.so.1`) ours from `/usr/lib/vkgen` with the host driver
/// beside it, or Debian's.
fn vulkaninfo_summary(sys: &Scratch, ours: bool) {
    let (mut cmd, log) = sys.traced("vulkaninfo", &["--summary"], &[]);
    let out = output_with_timeout(&mut cmd, TIMEOUT).unwrap();
    assert_success("vulkaninfo --summary", &out);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stdout.contains("llvmpipe"), "{stdout}");
    let inits = initialised(&log);
    let loaded = loaders(&inits);
    assert!(!loaded.is_empty(), "no libvulkan initialised: {inits:?}");
    let expected = if ours {
        format!("{LIB_DIR}/libvulkan.so")
    } else {
        format!("{}/libvulkan.so", paths::system_lib_dir().display())
    };
    assert!(
        loaded
            .iter()
            .all(|l| sys.canonical(l) == sys.canonical(&expected)),
        "vulkaninfo loaded {loaded:?}, expected only {expected}"
    );
    let host = format!("{LIB_DIR}/libvulkan_host.so");
    if ours {
        assert!(
            inits.contains(&host),
            "the host driver was not loaded: {inits:?}"
        );
        assert!(
            stderr.contains("served through the native-buffer adapter") && stderr.contains(&host),
            "lavapipe was not served through {host}:\n{stderr}"
        );
    } else {
        assert!(!inits.contains(&host), "{inits:?}");
    }
}

/// Debian's `vkcube` under Xvfb (outside the chroot, in the namespace; its socket directory
/// is bound in) through the installed loader: it exits 0 after
/// its frames, the loader's X11 presenter drew them into the window, and ours was the loader.
fn vkcube_under_xvfb(sys: &Scratch, xvfb: &Xvfb) {
    let (mut cmd, log) = sys.traced("vkcube", &["--c", "300"], &[("DISPLAY", &xvfb.display)]);
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start vkcube");
    let started = Instant::now();
    let mut colours = 0;
    while started.elapsed() < Duration::from_secs(60) && colours <= 50 {
        std::thread::sleep(Duration::from_millis(300));
        if child.try_wait().unwrap().is_some() {
            break;
        }
        colours = distinct_colours(&capture(&xvfb.display).2);
    }
    let out = child.wait_with_output().unwrap();
    assert_success("vkcube", &out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        colours > 50,
        "no frame with more than 50 colours reached the window:\n{stderr}"
    );
    assert!(stderr.contains("presented by the X11"), "{stderr}");
    let inits = initialised(&log);
    let loaded = loaders(&inits);
    assert!(
        !loaded.is_empty() && loaded.iter().all(|l| l.starts_with(LIB_DIR)),
        "vkcube loaded {loaded:?}"
    );
}

fn distinct_colours(rgba: &[u8]) -> usize {
    let mut seen = std::collections::HashSet::new();
    for p in rgba.chunks_exact(4).step_by(7) {
        seen.insert([p[0], p[1], p[2]]);
        if seen.len() > 1000 {
            break;
        }
    }
    seen.len()
}
