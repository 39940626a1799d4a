//! Child processes with a controlled environment.
//!
//! Loader configuration (`VK_DRIVER_FILES`, `VK_LAYER_PATH`, `VKGEN_APP_LAYER_PATH`,
//! `VKGEN_HAL_ROOT`, `VKGEN_PROPERTIES`, ...) is process-global and tests run on threads,
//! so a test that needs such variables runs its body in a child: the test binary
//! re-executes itself with `--exact <test name>` and `VKGEN_TEST_CHILD=<test name>`.
//!
//! ```no_run
//! use vkgen_tests::env::{in_child, Env};
//!
//! #[test]
//! fn my_scenario() {
//!     // The scenario name is the test's full path as libtest prints it.
//!     in_child("my_scenario", &Env::new().set("VK_DRIVER_FILES", "/x.json"), || {
//!         // Runs only in the child, with exactly the requested loader environment.
//!     });
//! }
//! ```
//!
//! Every child starts from the parent's environment minus all `VK_*` and `VKGEN_*`
//! variables (except [`LOADER_OVERRIDE_VAR`]) and minus `DISPLAY` /
//! `WAYLAND_DISPLAY`; then [`BASE_ENV`] and the test's own variables are applied.

use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::process::{Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

/// The variable that tells a re-executed test binary which scenario it is the child for.
pub const CHILD_VAR: &str = "VKGEN_TEST_CHILD";

/// Printed by the child after its body returned; the parent requires it, so a child that
/// ran no test at all (a misspelt scenario name) fails instead of passing.
pub const DONE_MARKER: &str = "VKGEN_TEST_CHILD_DONE";

/// Set in the test run's environment, becomes `VKGEN_LOG` in every child (unless the test sets
/// `VKGEN_LOG` itself).
pub const CHILD_LOG_VAR: &str = "VKGEN_TEST_CHILD_LOG";

/// How long a child (or vulkaninfo) may run before it is killed and the test fails.
pub const CHILD_TIMEOUT: Duration = Duration::from_secs(300);

/// Set in every child unless the test overrides it, for Debian's loader and ours alike (both
/// read the host's Khronos layer manifests): keep the implicit layers of the machine's standard
/// dirs (on Debian, `VK_LAYER_MESA_device_select`; vkBasalt where installed) out, and replace the
/// standard explicit dirs (Debian's validation, overlay and nullhw layers) by a dir that does not
/// exist, so a child sees no explicit layer manifest unless its test sets `VK_LAYER_PATH` (or
/// `VK_ADD_LAYER_PATH`) itself. A test that wants the machine's layers sets these variables.
pub const BASE_ENV: &[(&str, &str)] = &[
    ("VK_LOADER_LAYERS_DISABLE", "~implicit~"),
    ("VK_LAYER_PATH", NO_LAYER_MANIFESTS),
];

/// The `VK_LAYER_PATH` of [`BASE_ENV`]: a path that never exists.
pub const NO_LAYER_MANIFESTS: &str = "/nonexistent/vkgen-tests/no-layer-manifests";

/// Environment variable that points [`crate::paths::loader_under_test`] at another loader
/// library instead of ours (for instance Debian's `libvulkan.so.1`, to check the tests
/// themselves); the one `VKGEN_*` variable every child keeps.
pub const LOADER_OVERRIDE_VAR: &str = "VKGEN_TEST_LOADER";

/// Variables removed from every child besides the `VK_*` / `VKGEN_*` families.
const REMOVED_VARS: &[&str] = &["DISPLAY", "WAYLAND_DISPLAY"];

/// A set of environment variables for a child, applied in order (later wins).
#[derive(Clone, Debug, Default)]
pub struct Env {
    vars: Vec<(OsString, OsString)>,
}

impl Env {
    /// No variables.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `key=value`.
    #[must_use]
    pub fn set(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Self {
        self.vars
            .push((key.as_ref().to_owned(), value.as_ref().to_owned()));
        self
    }

    /// Adds every variable of `other` after those of `self`.
    #[must_use]
    pub fn with(mut self, other: &Env) -> Self {
        self.vars.extend(other.vars.iter().cloned());
        self
    }

    /// The variables, in order.
    pub fn vars(&self) -> &[(OsString, OsString)] {
        &self.vars
    }
}

/// Whether a variable of the parent's environment is left out of children.
fn removed_from_children(name: &OsStr) -> bool {
    let Some(name) = name.to_str() else {
        return false;
    };
    // Where the registry matrix lives is the test run's configuration, read by no loader or
    // driver: a child scaffolding from the matrix needs it as much as its parent.
    if name == LOADER_OVERRIDE_VAR || name == "VKGEN_REGISTRY_DIR" {
        return false;
    }
    name.starts_with("VK_") || name.starts_with("VKGEN_") || REMOVED_VARS.contains(&name)
}

/// A command for `program` with the controlled environment described in the module docs.
pub fn controlled_command(program: impl AsRef<OsStr>, env: &Env) -> Command {
    let mut cmd = Command::new(program);
    for (name, _) in std::env::vars_os() {
        if removed_from_children(&name) {
            cmd.env_remove(name);
        }
    }
    for (key, value) in BASE_ENV {
        cmd.env(key, value);
    }
    // Diagnosing a failure elsewhere (the GPU machine) needs the stack's log in the child's
    // output without changing the test: the one variable that reaches children on purpose.
    if let Some(level) = std::env::var_os(CHILD_LOG_VAR) {
        cmd.env("VKGEN_LOG", level);
    }
    for (key, value) in env.vars() {
        cmd.env(key, value);
    }
    cmd
}

/// The scenario this process is the child for, when it is one.
pub fn child_scenario() -> Option<String> {
    std::env::var_os(CHILD_VAR).map(|s| s.to_string_lossy().into_owned())
}

/// Re-executes the running test binary for the single test `scenario` (its full libtest
/// name) with the controlled environment plus `env`, and returns its output.
///
/// # Panics
/// When the child cannot be started or runs past [`CHILD_TIMEOUT`].
pub fn run_child(scenario: &str, env: &Env) -> Output {
    let exe = std::env::current_exe().expect("cannot find the running test binary");
    let mut cmd = controlled_command(&exe, env);
    cmd.args([
        "--exact",
        scenario,
        "--nocapture",
        "--include-ignored",
        "--test-threads=1",
    ])
    .env(CHILD_VAR, scenario);
    output_with_timeout(&mut cmd, CHILD_TIMEOUT)
        .unwrap_or_else(|e| panic!("child for scenario {scenario}: {e}"))
}

/// Checks that a child from [`run_child`] ran `scenario`'s body to the end and passed.
/// The error carries the child's panic message first, then its full output.
pub fn check_child(scenario: &str, output: &Output) -> Result<(), String> {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let marker = format!("{DONE_MARKER} {scenario}");
    let finished = stdout.lines().any(|line| line.trim() == marker);
    // With --nocapture the body's output can split libtest's "test x ... ok" line.
    let passed = stdout.contains("test result: ok. 1 passed");
    if output.status.success() && finished && passed {
        return Ok(());
    }
    let headline = panic_message(&stderr)
        .or_else(|| panic_message(&stdout))
        .unwrap_or_else(|| {
            if output.status.success() {
                format!(
                    "the child exited successfully but did not run scenario {scenario} \
                     (is the scenario name the test's exact libtest name?)"
                )
            } else {
                "no panic message (crashed?)".to_owned()
            }
        });
    Err(format!(
        "child for scenario {scenario} failed ({}): {headline}\n\
         --- child stdout ---\n{stdout}\n--- child stderr ---\n{stderr}--- end of child output ---",
        describe_status(output.status)
    ))
}

/// Runs `body` when this process is the child for `scenario`; otherwise runs `scenario` in a
/// child with `env` and fails the test, with the child's message, if the child failed.
///
/// `scenario` must be the calling test's full libtest name (the function name for a test at
/// the top level of an integration-test file).
#[track_caller]
pub fn in_child(scenario: &str, env: &Env, body: impl FnOnce()) {
    match child_scenario() {
        Some(current) if current == scenario => {
            body();
            // On a line of its own: with --nocapture libtest has printed "test x ... " already.
            println!("\n{DONE_MARKER} {scenario}");
        }
        Some(current) => panic!(
            "{CHILD_VAR}={current} is set, but scenario {scenario} is running: \
             unset {CHILD_VAR} to run the tests"
        ),
        None => {
            let output = run_child(scenario, env);
            if let Err(message) = check_child(scenario, &output) {
                panic!("{message}");
            }
            // Captured by libtest; shown with --nocapture.
            print!("{}", String::from_utf8_lossy(&output.stdout));
            eprint!("{}", String::from_utf8_lossy(&output.stderr));
        }
    }
}

/// Runs `cmd` (stdin closed, stdout and stderr captured) and waits for it at most `timeout`;
/// a command still running then is killed and reported as an error with what it printed.
pub fn output_with_timeout(cmd: &mut Command, timeout: Duration) -> Result<Output, String> {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {:?}: {e}", cmd.get_program()))?;
    let stdout = child.stdout.take().expect("piped stdout");
    let stderr = child.stderr.take().expect("piped stderr");
    let read_all = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            // A read error only truncates the captured output; the exit status still decides.
            let _ = pipe.read_to_end(&mut buf);
            buf
        })
    };
    let stdout = read_all(Box::new(stdout));
    let stderr = read_all(Box::new(stderr));
    let deadline = Instant::now() + timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Ok(status),
            Ok(None) if Instant::now() >= deadline => {
                // Kill only the child we started, by its handle.
                let _ = child.kill();
                let _ = child.wait();
                break Err(format!("timed out after {timeout:?} and was killed"));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => break Err(format!("cannot wait for it: {e}")),
        }
    };
    let stdout = stdout.join().expect("stdout reader thread");
    let stderr = stderr.join().expect("stderr reader thread");
    match status {
        Ok(status) => Ok(Output {
            status,
            stdout,
            stderr,
        }),
        Err(e) => Err(format!(
            "{:?} {e}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            cmd.get_program(),
            String::from_utf8_lossy(&stdout),
            String::from_utf8_lossy(&stderr)
        )),
    }
}

/// "exit status 1" or "killed by signal 11 (SIGSEGV)".
pub fn describe_status(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exit status {code}"),
        (None, Some(signal)) => {
            let name = match signal {
                libc::SIGSEGV => " (SIGSEGV)",
                libc::SIGABRT => " (SIGABRT)",
                libc::SIGBUS => " (SIGBUS)",
                libc::SIGILL => " (SIGILL)",
                libc::SIGKILL => " (SIGKILL)",
                libc::SIGFPE => " (SIGFPE)",
                _ => "",
            };
            format!("killed by signal {signal}{name}")
        }
        (None, None) => format!("{status}"),
    }
}

/// The message of the first Rust panic in `text` (the lines after "panicked at ...:").
fn panic_message(text: &str) -> Option<String> {
    let mut lines = text.lines();
    let first = lines.by_ref().find(|line| line.contains("panicked at"))?;
    let mut message: Vec<&str> = Vec::new();
    // Rust >= 1.73 prints the location line, then the message on the following lines.
    if let Some((_, rest)) = first.split_once("panicked at") {
        let rest = rest.trim().trim_end_matches(':');
        message.push(rest);
    }
    for line in lines {
        if line.starts_with("note:") || line.starts_with("stack backtrace:") || line.is_empty() {
            break;
        }
        message.push(line);
    }
    Some(message.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removed_variables() {
        assert!(removed_from_children(OsStr::new("VK_DRIVER_FILES")));
        assert!(removed_from_children(OsStr::new("VK_LAYER_PATH")));
        assert!(removed_from_children(OsStr::new("VKGEN_HAL_ROOT")));
        assert!(removed_from_children(OsStr::new(CHILD_VAR)));
        assert!(removed_from_children(OsStr::new("DISPLAY")));
        assert!(!removed_from_children(OsStr::new(LOADER_OVERRIDE_VAR)));
        assert!(!removed_from_children(OsStr::new("PATH")));
        assert!(!removed_from_children(OsStr::new("LD_LIBRARY_PATH")));
    }

    #[test]
    fn panic_message_is_extracted() {
        let stderr =
            "running 1 test\nthread 'x' panicked at tests/a.rs:3:5:\nour loader not built\n\
                      second line\nnote: run with `RUST_BACKTRACE=1`\n";
        assert_eq!(
            panic_message(stderr).unwrap(),
            "tests/a.rs:3:5\nour loader not built\nsecond line"
        );
        assert_eq!(panic_message("all fine\n"), None);
    }

    #[test]
    fn timeout_kills() {
        let mut cmd = Command::new("sleep");
        cmd.arg("30");
        let start = Instant::now();
        let err = output_with_timeout(&mut cmd, Duration::from_millis(200)).unwrap_err();
        assert!(err.contains("timed out"), "{err}");
        assert!(start.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn controlled_command_sets_and_removes() {
        let env = Env::new().set("VKGEN_SOMETHING", "1").set("A_B", "x y");
        let mut cmd = controlled_command("env", &env);
        let out = output_with_timeout(&mut cmd, CHILD_TIMEOUT).unwrap();
        assert!(out.status.success());
        let text = String::from_utf8(out.stdout).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines.contains(&"VKGEN_SOMETHING=1"), "{text}");
        assert!(lines.contains(&"A_B=x y"), "{text}");
        assert!(
            lines.contains(&"VK_LOADER_LAYERS_DISABLE=~implicit~"),
            "{text}"
        );
        for (name, value) in BASE_ENV {
            assert!(
                lines.contains(&format!("{name}={value}").as_str()),
                "{text}"
            );
        }
        for line in &lines {
            let name = line.split('=').next().unwrap();
            let base = BASE_ENV.iter().any(|(n, _)| *n == name);
            if !base && name != "VKGEN_SOMETHING" {
                assert!(!removed_from_children(OsStr::new(name)), "{line} leaked");
            }
        }
    }
}
