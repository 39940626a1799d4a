//! Environment variables that steer which code gets loaded, read safely.
//!
//! Like the Khronos loader's `loader_secure_getenv`, such variables are refused in
//! setuid/setgid processes: the loader and the host driver run inside them too, and honouring
//! a variable there would let any user inject code into a privileged process.

use std::ffi::{OsStr, OsString};
use std::path::PathBuf;

/// The variable `name`, unless the process runs with elevated privileges (then `None`, with a
/// warning if it was set). Empty values count as unset.
pub fn trusted_env(name: &str) -> Option<OsString> {
    // SAFETY: the four id getters take no arguments and cannot fail.
    let elevated =
        unsafe { libc::getuid() != libc::geteuid() || libc::getgid() != libc::getegid() };
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
    fn empty_entries_are_dropped() {
        let parts = split_path_list(OsStr::new("/a::/b/c:"));
        assert_eq!(parts, vec![PathBuf::from("/a"), PathBuf::from("/b/c")]);
        assert!(split_path_list(OsStr::new("")).is_empty());
    }
}
