//! Khronos ICD manifests: where they are and what they say, by the Khronos loader's rules
//! (`LoaderDriverInterface.md`): `VK_DRIVER_FILES` / `VK_ICD_FILENAMES` replace the search,
//! otherwise `$XDG_CONFIG_HOME`, `$XDG_CONFIG_DIRS`, `/etc`, `$XDG_DATA_HOME`, `$XDG_DATA_DIRS`,
//! each `+ vulkan/icd.d`; variables are ignored in setuid processes ([`crate::env`]).
//!
//! One set of rules for everyone who scans: the loader (its ICD drivers) and the host driver
//! (the ICD it serves on its own, as `vulkan.host.so`). Opening and negotiating a library is
//! the scanner's business, not this module's.

use std::collections::HashSet;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use ash::vk;
use serde::Deserialize;

use crate::env::{split_path_list, trusted_env, trusted_env_path};

/// Where to look for ICD manifests. `None` fields take the XDG / Khronos defaults.
#[derive(Debug, Clone, Default)]
pub struct IcdSearchConfig {
    /// `VK_DRIVER_FILES`: replaces the whole search (`:`-separated files or dirs).
    pub driver_files: Option<OsString>,
    /// `VK_ICD_FILENAMES`: the older name, used only when `VK_DRIVER_FILES` is unset.
    pub icd_filenames: Option<OsString>,
    /// `$HOME`, for the `~/.config` and `~/.local/share` defaults.
    pub home: Option<PathBuf>,
    /// `$XDG_CONFIG_HOME` (default `~/.config`).
    pub xdg_config_home: Option<PathBuf>,
    /// `$XDG_CONFIG_DIRS` (default `/etc/xdg`).
    pub xdg_config_dirs: Option<OsString>,
    /// `$XDG_DATA_HOME` (default `~/.local/share`).
    pub xdg_data_home: Option<PathBuf>,
    /// `$XDG_DATA_DIRS` (default `/usr/local/share:/usr/share`).
    pub xdg_data_dirs: Option<OsString>,
    /// The system config dir (default `/etc`), for `/etc/vulkan/icd.d`.
    pub sysconf_dir: Option<PathBuf>,
    /// Directories searched after the standard ones (a host driver adds its platform's, e.g.
    /// NVIDIA's container location); never used when an override list is set.
    pub extra_dirs: Vec<PathBuf>,
}

impl IcdSearchConfig {
    /// Reads the variables the Khronos loader reads (ignored in setuid processes).
    pub fn from_env() -> Self {
        Self {
            driver_files: trusted_env("VK_DRIVER_FILES"),
            icd_filenames: trusted_env("VK_ICD_FILENAMES"),
            home: trusted_env_path("HOME"),
            xdg_config_home: trusted_env_path("XDG_CONFIG_HOME"),
            xdg_config_dirs: trusted_env("XDG_CONFIG_DIRS"),
            xdg_data_home: trusted_env_path("XDG_DATA_HOME"),
            xdg_data_dirs: trusted_env("XDG_DATA_DIRS"),
            sysconf_dir: None,
            extra_dirs: Vec::new(),
        }
    }

    /// A search confined to `root` (`<root>/etc/...`, `<root>/usr/share/...`), with no home dir:
    /// the machine's real manifests stay invisible.
    pub fn isolated(root: &Path) -> Self {
        Self {
            xdg_config_dirs: Some(root.join("etc/xdg").into_os_string()),
            xdg_data_dirs: Some(root.join("usr/share").into_os_string()),
            sysconf_dir: Some(root.join("etc")),
            ..Self::default()
        }
    }

    /// The override list (`VK_DRIVER_FILES`, else `VK_ICD_FILENAMES`), if any.
    pub fn override_list(&self) -> Option<&OsStr> {
        self.driver_files
            .as_deref()
            .or(self.icd_filenames.as_deref())
            .filter(|v| !v.is_empty())
    }

    /// The standard manifest dirs, in search order.
    pub fn standard_dirs(&self) -> Vec<PathBuf> {
        let mut dirs = self.standard_vulkan_dirs("vulkan/icd.d");
        dirs.extend(self.extra_dirs.iter().cloned());
        dirs
    }

    /// `<base>/<sub>` for every standard base dir (`$XDG_CONFIG_HOME`, `$XDG_CONFIG_DIRS`,
    /// `/etc`, `$XDG_DATA_HOME`, `$XDG_DATA_DIRS`), in search order: the Khronos loader's order
    /// for ICD manifests (`vulkan/icd.d`) and layer manifests (`vulkan/explicit_layer.d`,
    /// `vulkan/implicit_layer.d`) alike. [`Self::extra_dirs`] are not included.
    pub fn standard_vulkan_dirs(&self, sub: &str) -> Vec<PathBuf> {
        let home_rel = |rel: &str| self.home.as_ref().map(|h| h.join(rel));
        // Per the XDG spec, relative entries are invalid and ignored.
        let absolute = |list: Vec<PathBuf>| -> Vec<PathBuf> {
            list.into_iter().filter(|p| p.is_absolute()).collect()
        };
        let config_home = self.xdg_config_home.clone().or_else(|| home_rel(".config"));
        let config_dirs = match &self.xdg_config_dirs {
            Some(v) if !v.is_empty() => split_path_list(v),
            _ => vec![PathBuf::from("/etc/xdg")],
        };
        let sysconf = self
            .sysconf_dir
            .clone()
            .unwrap_or_else(|| PathBuf::from("/etc"));
        let data_home = self
            .xdg_data_home
            .clone()
            .or_else(|| home_rel(".local/share"));
        let data_dirs = match &self.xdg_data_dirs {
            Some(v) if !v.is_empty() => split_path_list(v),
            _ => vec![
                PathBuf::from("/usr/local/share"),
                PathBuf::from("/usr/share"),
            ],
        };
        let mut bases = Vec::new();
        bases.extend(config_home);
        bases.extend(absolute(config_dirs));
        bases.push(sysconf);
        bases.extend(data_home);
        bases.extend(absolute(data_dirs));
        bases
            .into_iter()
            .filter(|b| b.is_absolute())
            .map(|b| b.join(sub))
            .collect()
    }

    /// Every manifest file to consider, in order, without duplicates.
    pub fn manifest_files(&self) -> Vec<PathBuf> {
        let mut files = Vec::new();
        if let Some(list) = self.override_list() {
            for entry in split_path_list(list) {
                if entry.is_dir() {
                    files.extend(json_files_in(&entry));
                } else if entry.is_file() {
                    files.push(entry);
                } else {
                    log::warn!(
                        "ICD manifest {}: no such file or directory",
                        entry.display()
                    );
                }
            }
        } else {
            for dir in self.standard_dirs() {
                files.extend(json_files_in(&dir));
            }
        }
        // The same dir can appear twice (XDG lists, symlinks); loading a driver twice would
        // duplicate its physical devices.
        let mut seen = HashSet::new();
        files.retain(|f| seen.insert(std::fs::canonicalize(f).unwrap_or_else(|_| f.clone())));
        files
    }
}

/// `*.json` regular files in `dir`, sorted by name; a missing dir is simply empty.
fn json_files_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension() == Some(OsStr::new("json")) && p.is_file())
        .collect();
    files.sort();
    files
}

/// Why a manifest was skipped. Every variant maps to `VK_ERROR_INCOMPATIBLE_DRIVER`: the driver it
/// describes cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    /// The file could not be read.
    #[error("ICD manifest {}: cannot read: {source}", .path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Not JSON, or a required field (`file_format_version`, `ICD`, `ICD.library_path`) is
    /// missing or has the wrong type.
    #[error("ICD manifest {}: invalid: {source}", .path.display())]
    Json {
        path: PathBuf,
        source: serde_json::Error,
    },
    /// `file_format_version` is not `1.x.y`.
    #[error("ICD manifest {}: unsupported file_format_version {version:?}", .path.display())]
    FormatVersion { path: PathBuf, version: String },
    /// `ICD.api_version` is not a `major.minor.patch` version.
    #[error("ICD manifest {}: bad api_version {version:?}", .path.display())]
    ApiVersion { path: PathBuf, version: String },
    /// `ICD.library_path` is empty.
    #[error("ICD manifest {}: empty library_path", .path.display())]
    EmptyLibraryPath { path: PathBuf },
    /// `ICD.library_arch` names a different word size than this process.
    #[error("ICD manifest {}: library_arch {arch:?} does not match this {}-bit process", .path.display(), usize::BITS)]
    WrongArch { path: PathBuf, arch: String },
    /// The file is larger than [`MAX_MANIFEST_BYTES`]; it is refused without being read whole.
    #[error("ICD manifest {}: larger than {} bytes; refused", .path.display(), MAX_MANIFEST_BYTES)]
    TooLarge { path: PathBuf },
}

/// The largest ICD manifest read: real ones are a few hundred bytes, and every application
/// reads every manifest, so a huge file must not cost each of them its size in time and memory.
pub const MAX_MANIFEST_BYTES: u64 = 1 << 20;

/// The one mapper of ICD-manifest errors: every [`ManifestError`] (unreadable, malformed,
/// wrong architecture, too large) is `VK_ERROR_INCOMPATIBLE_DRIVER` — the manifest names no
/// driver this process can use. Logged here.
pub fn map_manifest_err(err: &ManifestError) -> vk::Result {
    vkgen_abi::vk_error!(vk::Result::ERROR_INCOMPATIBLE_DRIVER, "{err}")
}

/// A parsed ICD manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IcdManifest {
    /// The JSON file this came from.
    pub manifest_path: PathBuf,
    /// `file_format_version` as `(major, minor, patch)`.
    pub file_format_version: (u32, u32, u32),
    /// What to `dlopen`: an absolute path, a path resolved against the manifest's dir, or a plain
    /// file name left to the dynamic linker's search.
    pub library: PathBuf,
    /// `ICD.api_version`, encoded with `vk::make_api_version`, if present.
    pub api_version: Option<u32>,
    /// `ICD.is_portability_driver` (such drivers are only enumerated for apps that opt in).
    pub is_portability_driver: bool,
}

#[derive(Deserialize)]
struct RawManifest {
    file_format_version: String,
    #[serde(rename = "ICD")]
    icd: RawIcd,
}

#[derive(Deserialize)]
struct RawIcd {
    library_path: String,
    #[serde(default)]
    api_version: Option<String>,
    #[serde(default)]
    is_portability_driver: bool,
    #[serde(default)]
    library_arch: Option<String>,
}

/// Parses `major[.minor[.patch]]` (missing parts are 0, as the Khronos loader reads them).
fn parse_version(text: &str) -> Option<(u32, u32, u32)> {
    let mut parts = [0u32; 3];
    for (index, part) in text.trim().split('.').enumerate() {
        if index == 3 || part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        parts[index] = part.parse().ok()?;
    }
    Some((parts[0], parts[1], parts[2]))
}

impl IcdManifest {
    /// Reads and parses a manifest file; at most [`MAX_MANIFEST_BYTES`] are read.
    pub fn read(path: &Path) -> Result<Self, ManifestError> {
        use std::io::Read;
        let read_error = |source| ManifestError::Read {
            path: path.to_path_buf(),
            source,
        };
        let file = std::fs::File::open(path).map_err(read_error)?;
        let mut text = Vec::new();
        // One byte more than the cap tells an over-long file from one exactly at it.
        file.take(MAX_MANIFEST_BYTES + 1)
            .read_to_end(&mut text)
            .map_err(read_error)?;
        if text.len() as u64 > MAX_MANIFEST_BYTES {
            return Err(ManifestError::TooLarge {
                path: path.to_path_buf(),
            });
        }
        Self::parse(path, &text)
    }

    /// Parses manifest `text` as if read from `path` (which anchors relative library paths).
    pub fn parse(path: &Path, text: &[u8]) -> Result<Self, ManifestError> {
        let raw: RawManifest =
            serde_json::from_slice(text).map_err(|source| ManifestError::Json {
                path: path.to_path_buf(),
                source,
            })?;
        let file_format_version = parse_version(&raw.file_format_version)
            .filter(|v| v.0 == 1)
            .ok_or_else(|| ManifestError::FormatVersion {
                path: path.to_path_buf(),
                version: raw.file_format_version.clone(),
            })?;
        if file_format_version > (1, 0, 1) {
            log::warn!(
                "ICD manifest {}: file_format_version {} is newer than 1.0.1; reading it anyway",
                path.display(),
                raw.file_format_version
            );
        }
        let api_version = match &raw.icd.api_version {
            None => None,
            Some(text) => Some(
                parse_version(text)
                    .filter(|&(major, minor, patch)| major < 128 && minor < 1024 && patch < 4096)
                    .map(|(major, minor, patch)| vk::make_api_version(0, major, minor, patch))
                    .ok_or_else(|| ManifestError::ApiVersion {
                        path: path.to_path_buf(),
                        version: text.clone(),
                    })?,
            ),
        };
        if let Some(arch) = &raw.icd.library_arch {
            if arch.trim() != usize::BITS.to_string() {
                return Err(ManifestError::WrongArch {
                    path: path.to_path_buf(),
                    arch: arch.clone(),
                });
            }
        }
        let library_path = raw.icd.library_path.trim();
        if library_path.is_empty() {
            return Err(ManifestError::EmptyLibraryPath {
                path: path.to_path_buf(),
            });
        }
        // A path with a separator is a file (relative ones are relative to the manifest); a bare
        // name is left to dlopen's search, as the Khronos loader does.
        let library = PathBuf::from(library_path);
        let library = if library_path.contains('/') && library.is_relative() {
            path.parent().unwrap_or(Path::new(".")).join(library)
        } else {
            library
        };
        Ok(Self {
            manifest_path: path.to_path_buf(),
            file_format_version,
            library,
            api_version,
            is_portability_driver: raw.icd.is_portability_driver,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse_like_the_khronos_loader() {
        assert_eq!(parse_version("1.3.230"), Some((1, 3, 230)));
        assert_eq!(parse_version("1.1"), Some((1, 1, 0)));
        assert_eq!(parse_version(" 1 "), Some((1, 0, 0)));
        assert_eq!(parse_version("1.2.3.4"), None);
        assert_eq!(parse_version("1..2"), None);
        assert_eq!(parse_version("-1.0.0"), None);
        assert_eq!(parse_version(""), None);
    }

    #[test]
    fn oversized_manifest_is_refused_without_reading_it_whole() {
        let path =
            std::env::temp_dir().join(format!("vkgen-huge-manifest-{}.json", std::process::id()));
        let json = br#"{"file_format_version": "1.0.0", "ICD": {"library_path": "libx.so"}}"#;
        let file = std::fs::File::create(&path).unwrap();
        // A sparse 2 GiB file: refused after reading the cap, not 2 GiB.
        file.set_len(2 << 30).unwrap();
        drop(file);
        let started = std::time::Instant::now();
        assert!(matches!(
            IcdManifest::read(&path),
            Err(ManifestError::TooLarge { .. })
        ));
        assert!(started.elapsed() < std::time::Duration::from_secs(2));
        // Exactly at the cap (JSON padded with whitespace) is still read.
        let mut text = json.to_vec();
        text.resize(MAX_MANIFEST_BYTES as usize, b' ');
        std::fs::write(&path, &text).unwrap();
        assert_eq!(
            IcdManifest::read(&path).unwrap().library,
            PathBuf::from("libx.so")
        );
        text.push(b' ');
        std::fs::write(&path, &text).unwrap();
        assert!(matches!(
            IcdManifest::read(&path),
            Err(ManifestError::TooLarge { .. })
        ));
        let _ = std::fs::remove_file(&path);
    }
}
