//! Device tools: the commands that ask a real Vulkan implementation through a loader.
//!
//! * [`permissions`]: `vkgen features`, Android's `android.hardware.vulkan.*` permission XML files.
//! * [`vkjson`]: `vkgen vkjson`, a JSON dump of the instance and its devices (Android's vkjson role).
//! * [`profile`]: `vkgen profile check`, a device against a Khronos profiles-schema JSON file.
//!
//! All three open one instance through [`session::Session`], which loads the loader library with
//! `ash::Entry::load_from` (ours, `target/release/libvulkan.so`, by default; see [`resolve_loader`])
//! and reads structures generically through [`layout`], from the same registry model the generator
//! uses. Driver selection is the loader's business: the environment (`VK_DRIVER_FILES`,
//! `VKGEN_HAL_ROOT`, `VKGEN_PROPERTIES`, …) is read by the loader in this process, so callers that
//! want different drivers run separate processes.

pub mod layout;
pub mod permissions;
pub mod profile;
pub mod session;
pub mod vkjson;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use ash::vk;

/// Errors of the device tools. Exit codes: 2 for bad input (options, profile files, registry
/// files), 1 for everything the device or the loader caused (no device, a failing call).
#[derive(Debug, thiserror::Error)]
pub enum DeviceError {
    #[error(transparent)]
    Registry(#[from] crate::Error),
    #[error("cannot load the Vulkan loader `{loader}`: {message}")]
    Loader { loader: String, message: String },
    #[error("{call} failed with {result:?} (loader {loader})")]
    Vulkan {
        call: &'static str,
        result: vk::Result,
        loader: String,
    },
    #[error(
        "no Vulkan physical device found through {loader}; is a driver installed and visible \
         (VK_DRIVER_FILES, or VKGEN_HAL_ROOT + ro.hardware.vulkan in VKGEN_PROPERTIES)?"
    )]
    NoDevice { loader: String },
    #[error("device {index} does not exist: the loader reports {count} device(s)")]
    NoSuchDevice { index: usize, count: usize },
    /// A structure the query needs has no computable layout (an internal limitation).
    #[error("{0}")]
    Layout(String),
    #[error("{path}: {message}")]
    BadInput { path: PathBuf, message: String },
    #[error("invalid option: {0}")]
    Options(String),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl DeviceError {
    /// The process exit code for this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            DeviceError::Registry(e) => e.exit_code() as u8,
            DeviceError::BadInput { .. } | DeviceError::Options(_) | DeviceError::Io { .. } => 2,
            _ => 1,
        }
    }
}

impl From<layout::LayoutError> for DeviceError {
    fn from(e: layout::LayoutError) -> Self {
        DeviceError::Layout(e.0)
    }
}

/// What to open: the loader library and the registry that describes its structures.
#[derive(Debug, Clone, Default)]
pub struct DeviceOptions {
    /// `--loader`; `None` = [`resolve_loader`]'s default.
    pub loader: Option<PathBuf>,
    /// The registry (`--registry`, `--android-ext`); its version only limits what can be decoded.
    pub registry: crate::Options,
}

/// The loader to open, and how it was chosen (for messages).
#[derive(Debug, Clone)]
pub struct LoaderChoice {
    pub library: OsString,
    pub how: &'static str,
}

impl LoaderChoice {
    pub fn display(&self) -> String {
        self.library.to_string_lossy().into_owned()
    }
}

/// `--loader PATH` when given; else our loader beside the running `vkgen`'s target directory
/// (`<target>/release/libvulkan.so`, then `libvulkan.so` next to the binary); else the system's
/// `libvulkan.so.1` (found through the dynamic linker's search path).
pub fn resolve_loader(explicit: Option<&Path>) -> LoaderChoice {
    if let Some(p) = explicit {
        return LoaderChoice {
            library: p.as_os_str().to_owned(),
            how: "--loader",
        };
    }
    if let Some(p) = std::env::current_exe().ok().and_then(|exe| ours_near(&exe)) {
        return LoaderChoice {
            library: p.into_os_string(),
            how: "vkgen's own loader",
        };
    }
    LoaderChoice {
        library: OsString::from("libvulkan.so.1"),
        how: "the system loader",
    }
}

/// Our `libvulkan.so` for a `vkgen` binary at `exe` (`<target>/<profile>/vkgen`).
pub fn ours_near(exe: &Path) -> Option<PathBuf> {
    let dir = exe.parent()?;
    let mut candidates = Vec::new();
    if let Some(target) = dir.parent() {
        candidates.push(target.join("release/libvulkan.so"));
    }
    candidates.push(dir.join("libvulkan.so"));
    candidates.into_iter().find(|p| p.is_file())
}

/// `VK_MAKE_API_VERSION` components, `"1.3.239"`.
pub fn version_string(v: u32) -> String {
    format!(
        "{}.{}.{}",
        vk::api_version_major(v),
        vk::api_version_minor(v),
        vk::api_version_patch(v)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_loader_is_ours_beside_the_binary() {
        let t = tempfile::tempdir().unwrap();
        let debug = t.path().join("target/debug");
        let release = t.path().join("target/release");
        std::fs::create_dir_all(&debug).unwrap();
        std::fs::create_dir_all(&release).unwrap();
        let exe = debug.join("vkgen");
        assert_eq!(ours_near(&exe), None);
        std::fs::write(debug.join("libvulkan.so"), "").unwrap();
        assert_eq!(ours_near(&exe), Some(debug.join("libvulkan.so")));
        std::fs::write(release.join("libvulkan.so"), "").unwrap();
        assert_eq!(
            ours_near(&exe),
            Some(release.join("libvulkan.so")),
            "release first"
        );
        let explicit = resolve_loader(Some(Path::new("/x/libvulkan.so.1")));
        assert_eq!(
            (explicit.display().as_str(), explicit.how),
            ("/x/libvulkan.so.1", "--loader")
        );
    }

    #[test]
    fn exit_codes() {
        assert_eq!(DeviceError::NoDevice { loader: "l".into() }.exit_code(), 1);
        assert_eq!(DeviceError::Options("x".into()).exit_code(), 2);
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "gone");
        assert_eq!(
            DeviceError::Registry(crate::Error::io("/x", io)).exit_code(),
            2
        );
        assert_eq!(
            version_string(ash::vk::make_api_version(0, 1, 3, 239)),
            "1.3.239"
        );
    }
}
