//! Android system properties, or a file standing in for them on Linux hosts.
//!
//! Android's loader reads a handful of properties (`ro.hardware.vulkan`, `ro.board.platform`,
//! `debug.vulkan.layers`, `debug.vulkan.layer.<N>`, `ro.debuggable`, ...). On Android they come from
//! bionic's `__system_property_get`. On a Linux host there is no property service, so the file named
//! by `VKGEN_PROPERTIES` (build.prop syntax) plays that role; without it every property is unset,
//! which makes the loader behave like a release device with no HAL driver properties.
//!
//! [`Properties::system`] is read once per process, like Android's loader caching its
//! configuration in `EnsureInitialized`. Tests build their own instance with [`Properties::parse`]
//! or [`Properties::from_file`], so they never depend on the environment.

use std::collections::HashMap;
use std::path::Path;
use std::sync::OnceLock;

/// Environment variable naming the build.prop-style file used on non-Android hosts.
pub const PROPERTIES_ENV: &str = "VKGEN_PROPERTIES";

/// Largest `VKGEN_PROPERTIES` file read (Android's build.prop files are a few KiB).
pub const MAX_PROPERTIES_BYTES: u64 = 1 << 20;

/// A read-only view of system properties.
#[derive(Debug, Default, Clone)]
pub struct Properties {
    source: Source,
}

#[derive(Debug)]
enum Source {
    Map(HashMap<String, String>),
    /// Values fetched lazily from bionic. They are leaked on first read so `get` can hand out
    /// `&str`; the loader reads a small, bounded set of keys, so the leak is a few hundred bytes.
    #[cfg(target_os = "android")]
    Android(std::sync::Mutex<HashMap<String, Option<&'static str>>>),
}

impl Clone for Source {
    fn clone(&self) -> Self {
        match self {
            Source::Map(map) => Source::Map(map.clone()),
            // The clone re-reads bionic lazily; the values are the same system-wide ones.
            #[cfg(target_os = "android")]
            Source::Android(_) => Source::Android(Default::default()),
        }
    }
}

impl Default for Source {
    fn default() -> Self {
        Source::Map(HashMap::new())
    }
}

impl Properties {
    /// An empty property set: every lookup returns `None`.
    pub fn empty() -> Self {
        Self::default()
    }

    /// Parses build.prop syntax: `key=value` lines, `#` comments, blank lines ignored, whitespace
    /// around keys and values trimmed, and a later duplicate overriding an earlier one (as init does
    /// when it loads several prop files). Lines without `=` or with an empty key are ignored with a
    /// log line, because a typo in a debug file should not make the loader unusable.
    pub fn parse(text: &str) -> Self {
        let mut map = HashMap::new();
        for (index, raw) in text.lines().enumerate() {
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            match line.split_once('=') {
                Some((key, value)) if !key.trim().is_empty() => {
                    map.insert(key.trim().to_owned(), value.trim().to_owned());
                }
                _ => log::warn!(
                    "properties line {}: ignored malformed line {raw:?}",
                    index + 1
                ),
            }
        }
        Self {
            source: Source::Map(map),
        }
    }

    /// Reads and parses a build.prop-style file. Only a regular file of at most
    /// [`MAX_PROPERTIES_BYTES`] is read: a FIFO would block the first Vulkan call forever and
    /// `/dev/zero` would read until memory runs out.
    pub fn from_file(path: &Path) -> std::io::Result<Self> {
        use std::io::Read;
        // O_NONBLOCK: opening a FIFO for reading would otherwise block until a writer appears.
        // It has no effect on the regular file this then insists on (checked on the open file,
        // so a rename in between cannot swap a FIFO in).
        #[cfg(unix)]
        let file = {
            use std::os::unix::fs::OpenOptionsExt;
            std::fs::OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_NONBLOCK)
                .open(path)?
        };
        #[cfg(not(unix))]
        let file = std::fs::File::open(path)?;
        let meta = file.metadata()?;
        if !meta.is_file() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "not a regular file",
            ));
        }
        if meta.len() > MAX_PROPERTIES_BYTES {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("{} bytes; larger than {MAX_PROPERTIES_BYTES}", meta.len()),
            ));
        }
        // The file may grow after the check: read no more than the cap (+1 to notice).
        let mut text = Vec::new();
        file.take(MAX_PROPERTIES_BYTES + 1).read_to_end(&mut text)?;
        if text.len() as u64 > MAX_PROPERTIES_BYTES {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("larger than {MAX_PROPERTIES_BYTES} bytes"),
            ));
        }
        Ok(Self::parse(&String::from_utf8_lossy(&text)))
    }

    /// Builds the pairs directly (tests, embedders).
    pub fn from_pairs<K: Into<String>, V: Into<String>>(
        pairs: impl IntoIterator<Item = (K, V)>,
    ) -> Self {
        Self {
            source: Source::Map(
                pairs
                    .into_iter()
                    .map(|(k, v)| (k.into(), v.into()))
                    .collect(),
            ),
        }
    }

    /// The process-wide properties: bionic's on Android, otherwise the `VKGEN_PROPERTIES` file
    /// (read once; an unreadable file is logged and treated as empty).
    pub fn system() -> &'static Properties {
        static SYSTEM: OnceLock<Properties> = OnceLock::new();
        SYSTEM.get_or_init(Self::load_system)
    }

    /// The properties as they are now, for values that must not be cached for the process's
    /// life (`debug.vulkan.*` at `vkCreateInstance`): the `VKGEN_PROPERTIES` file read again, or
    /// on Android a fresh view of the property service.
    pub fn current() -> Properties {
        Self::load_system()
    }

    #[cfg(target_os = "android")]
    fn load_system() -> Properties {
        Properties {
            source: Source::Android(Default::default()),
        }
    }

    #[cfg(not(target_os = "android"))]
    fn load_system() -> Properties {
        let Some(path) = crate::host_env::trusted_env_path(PROPERTIES_ENV) else {
            return Properties::empty();
        };
        match Properties::from_file(&path) {
            Ok(props) => {
                log::debug!("system properties read from {}", path.display());
                props
            }
            Err(err) => {
                log::warn!(
                    "{PROPERTIES_ENV}={}: cannot read ({err}); using no properties",
                    path.display()
                );
                Properties::empty()
            }
        }
    }

    /// The value of `key`, if set. An empty value counts as set (callers that need a non-empty
    /// value, like the HAL name lookup, filter it themselves, as Android does).
    pub fn get(&self, key: &str) -> Option<&str> {
        match &self.source {
            Source::Map(map) => map.get(key).map(String::as_str),
            #[cfg(target_os = "android")]
            Source::Android(cache) => {
                // A poisoned cache only means another thread panicked mid-insert; the map itself
                // is still consistent, so keep using it rather than failing every lookup.
                let mut cache = cache.lock().unwrap_or_else(|p| p.into_inner());
                *cache
                    .entry(key.to_owned())
                    .or_insert_with(|| android::get(key).map(|v| &*Box::leak(v.into_boxed_str())))
            }
        }
    }

    /// Interprets a property as a boolean the way `android::base::GetBoolProperty` does:
    /// `1 y yes on true` → true, `0 n no off false` → false, anything else (or unset) → `default`.
    pub fn get_bool(&self, key: &str, default: bool) -> bool {
        match self.get(key) {
            Some("1" | "y" | "yes" | "on" | "true") => true,
            Some("0" | "n" | "no" | "off" | "false") => false,
            _ => default,
        }
    }

    /// `ro.debuggable == "1"`: a userdebug/eng build, which unlocks debug layers and properties.
    pub fn is_debuggable(&self) -> bool {
        self.get("ro.debuggable") == Some("1")
    }
}

#[cfg(target_os = "android")]
pub(crate) mod android {
    use std::ffi::{c_char, CString};

    /// `PROP_VALUE_MAX` from `<sys/system_properties.h>`.
    const PROP_VALUE_MAX: usize = 92;

    extern "C" {
        fn __system_property_get(name: *const c_char, value: *mut c_char) -> i32;
    }

    /// One property from bionic; `None` when unset or empty (bionic cannot tell them apart).
    pub(crate) fn get(key: &str) -> Option<String> {
        let key = CString::new(key).ok()?;
        // Bytes, not `c_char`: that is `u8` on aarch64 and `i8` on x86_64 Android.
        let mut buf = [0u8; PROP_VALUE_MAX];
        // SAFETY: `key` is NUL-terminated and `buf` has the PROP_VALUE_MAX bytes bionic may write,
        // including the terminating NUL.
        let len = unsafe { __system_property_get(key.as_ptr(), buf.as_mut_ptr().cast::<c_char>()) };
        let len = usize::try_from(len)
            .ok()
            .filter(|&l| l > 0 && l < PROP_VALUE_MAX)?;
        Some(String::from_utf8_lossy(&buf[..len]).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_build_prop_syntax() {
        let p = Properties::parse(
            "# comment\n\n  ro.hardware.vulkan = pastel \nro.board.platform=gs101\n\
             weird line without equals\n=novalue\nro.debuggable=0\nro.debuggable=1\n\
             empty.value=\nwith.equals=a=b\n   # indented comment\n",
        );
        assert_eq!(p.get("ro.hardware.vulkan"), Some("pastel"));
        assert_eq!(p.get("ro.board.platform"), Some("gs101"));
        // Later duplicates win.
        assert_eq!(p.get("ro.debuggable"), Some("1"));
        assert!(p.is_debuggable());
        assert_eq!(p.get("empty.value"), Some(""));
        // Only the first '=' separates key and value.
        assert_eq!(p.get("with.equals"), Some("a=b"));
        assert_eq!(p.get("weird line without equals"), None);
        assert_eq!(p.get(""), None);
        assert_eq!(p.get("missing"), None);
    }

    #[test]
    fn bools_follow_android_base() {
        let p = Properties::from_pairs([
            ("a", "1"),
            ("b", "true"),
            ("c", "off"),
            ("d", "maybe"),
            ("e", "N"),
        ]);
        assert!(p.get_bool("a", false));
        assert!(p.get_bool("b", false));
        assert!(!p.get_bool("c", true));
        assert!(p.get_bool("d", true));
        assert!(!p.get_bool("d", false));
        // Case-sensitive, like android::base.
        assert!(p.get_bool("e", true));
        assert!(!p.get_bool("missing", false));
    }

    #[test]
    fn debuggable_needs_exactly_one() {
        assert!(!Properties::empty().is_debuggable());
        assert!(!Properties::from_pairs([("ro.debuggable", "true")]).is_debuggable());
        assert!(!Properties::from_pairs([("ro.debuggable", "0")]).is_debuggable());
        assert!(Properties::from_pairs([("ro.debuggable", "1")]).is_debuggable());
    }

    #[test]
    fn reads_files_and_reports_missing_ones() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("build.prop");
        std::fs::write(&path, b"ro.debuggable=1\n\xff\xfe=binary junk\n").unwrap();
        let p = Properties::from_file(&path).unwrap();
        assert!(p.is_debuggable());
        assert!(Properties::from_file(&dir.path().join("nope")).is_err());
    }

    #[test]
    fn vkgen_properties_regular_files_only_with_a_size_cap() {
        let dir = tempfile::tempdir().unwrap();
        // A FIFO with no writer: refused at once instead of blocking in open(2) or read(2).
        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: `c` is a valid NUL-terminated path; mkfifo only creates a file system node.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let err = Properties::from_file(&fifo).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput, "{err}");
        // A character device that never ends.
        let err = Properties::from_file(Path::new("/dev/zero")).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput, "{err}");
        // A directory.
        assert!(Properties::from_file(dir.path()).is_err());
        // Over the cap.
        let big = dir.path().join("big.prop");
        std::fs::write(&big, vec![b'#'; MAX_PROPERTIES_BYTES as usize + 1]).unwrap();
        assert_eq!(
            Properties::from_file(&big).unwrap_err().kind(),
            std::io::ErrorKind::InvalidData
        );
        // At the cap: read.
        std::fs::write(&big, vec![b'#'; MAX_PROPERTIES_BYTES as usize]).unwrap();
        assert!(Properties::from_file(&big).is_ok());
    }
}
