//! The one reader of environment variables for runtime code, setuid-safe.
//!
//! Like the Khronos loader's `loader_secure_getenv`, variables are refused in setuid/setgid
//! processes: the loader and the drivers run inside them too, and honouring a variable there
//! would let any user inject code into a privileged process (`VKGEN_HOST_ICD` names a library to
//! load, the app identity picks debug layers). Every variable goes through here, not only the
//! ones that obviously steer loading, because which ones do is easy to get wrong: the tidy test
//! `env_reads` refuses any other `std::env::var*` in runtime code.

use std::ffi::{OsStr, OsString};
use std::path::PathBuf;

/// The variable `name`, unless the process runs with elevated privileges (then `None`, with a
/// warning if it was set). Empty values count as unset.
pub fn trusted_env(name: &str) -> Option<OsString> {
    env_unless_elevated(name, elevated())
}

/// Whether the process runs with elevated privileges: the kernel's `AT_SECURE` (set for
/// setuid and setgid programs and for those given file capabilities), which glibc's
/// `secure_getenv` and bionic's `getauxval`-based checks use. It is read from the auxiliary
/// vector, with no system call: comparing the real and effective ids cost four per variable,
/// eight variables per instance, and missed file capabilities.
fn elevated() -> bool {
    // SAFETY: `getauxval` takes a key and cannot fail (0 for a missing entry: not secure).
    unsafe { libc::getauxval(libc::AT_SECURE) != 0 }
}

/// [`trusted_env`] with the privilege test's answer given (so that tests need no setuid binary).
fn env_unless_elevated(name: &str, elevated: bool) -> Option<OsString> {
    if elevated {
        if std::env::var_os(name).is_some() {
            log::warn!("{name} ignored: the process runs with elevated privileges");
        }
        return None;
    }
    std::env::var_os(name).filter(|v| !v.is_empty())
}

/// [`trusted_env`] for a single path.
pub fn trusted_env_path(name: &str) -> Option<PathBuf> {
    trusted_env(name).map(PathBuf::from)
}

/// Splits a `:`-separated list, dropping empty entries (`a::b`, a trailing `:`), which would
/// otherwise mean "the current directory" to naive code.
pub fn split_path_list(value: &OsStr) -> Vec<PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    value
        .as_bytes()
        .split(|&b| b == b':')
        .filter(|part| !part.is_empty())
        .map(|part| PathBuf::from(OsStr::from_bytes(part)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_test_binary_is_not_secure() {
        // Not setuid, no file capabilities: the kernel did not set AT_SECURE for it.
        assert!(!elevated());
        // A variable only this test sets, read through the real check.
        let name = "VKGEN_PLATFORM_ENV_TEST_TRUSTED";
        std::env::set_var(name, "yes");
        assert_eq!(trusted_env(name), Some(OsString::from("yes")));
    }

    #[test]
    fn elevated_processes_see_no_variable() {
        // A variable only this test sets (the test binary is not setuid; the flag stands in).
        let name = "VKGEN_PLATFORM_ENV_TEST_ICD";
        // No other test of this crate reads or writes this variable.
        std::env::set_var(name, "/tmp/evil.so");
        assert_eq!(env_unless_elevated(name, true), None);
        assert_eq!(
            env_unless_elevated(name, false),
            Some(OsString::from("/tmp/evil.so"))
        );
        std::env::set_var(name, "");
        assert_eq!(env_unless_elevated(name, false), None, "empty is unset");
        std::env::remove_var(name);
        assert_eq!(trusted_env(name), None);
    }

    #[test]
    fn empty_entries_are_dropped() {
        let parts = split_path_list(OsStr::new("/a::/b/c:"));
        assert_eq!(parts, vec![PathBuf::from("/a"), PathBuf::from("/b/c")]);
        assert!(split_path_list(OsStr::new("")).is_empty());
    }
}
