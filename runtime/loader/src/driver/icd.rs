//! Khronos ICDs, for Linux hosts that have no Android HAL.
//!
//! Follows the desktop loader's driver interface (`LoaderDriverInterface.md`): JSON manifests found
//! through `VK_DRIVER_FILES` / `VK_ICD_FILENAMES` or the XDG search path, libraries opened with
//! `RTLD_NOW | RTLD_LOCAL`, then `vk_icdNegotiateLoaderICDInterfaceVersion` and
//! `vk_icdGetInstanceProcAddr`. Only interface version 2 and newer is accepted: from 2 on, a driver
//! must leave word 0 of every dispatchable object for the loader (`ICD_LOADER_MAGIC`), and our
//! dispatch stores its table pointer there exactly as with a HAL driver. Older drivers may use that
//! word themselves.
//!
//! Manifest problems and load failures never abort the search: each is a typed error that is
//! logged with the manifest path and reason, and the next manifest is tried. A manifest that points
//! at a Vulkan loader (ours, or any `libvulkan.so*`) is refused, since loading it would recurse into
//! a loader.
//!
//! The search inputs are an explicit [`IcdSearchConfig`] (built from the environment once in
//! production) so tests never depend on process-global state.

use std::ffi::{c_void, CStr, OsStr};
use std::path::{Path, PathBuf};

use ash::vk;
use libloading::os::unix::Library;
use vkgen_abi::icd::{
    PFN_vk_icdGetInstanceProcAddr, PFN_vk_icdGetPhysicalDeviceProcAddr,
    PFN_vk_icdNegotiateLoaderICDInterfaceVersion, CURRENT_LOADER_ICD_INTERFACE_VERSION,
    ICD_GET_INSTANCE_PROC_ADDR_NAME, ICD_GET_PHYSICAL_DEVICE_PROC_ADDR_NAME,
    MIN_PHYS_DEV_EXTENSION_ICD_INTERFACE_VERSION, NEGOTIATE_LOADER_ICD_INTERFACE_VERSION_NAME,
};

use super::library::{as_fn, map_library_err, open_library, symbol_address, void_fn_as};
pub use vkgen_platform::icd_manifest::{IcdManifest, IcdSearchConfig, ManifestError};

/// The oldest ICD interface we accept: version 2 introduced the loader-magic word.
pub const MIN_ICD_INTERFACE_VERSION: u32 = 2;

/// Why an ICD could not be loaded. Every variant maps to `VK_ERROR_INCOMPATIBLE_DRIVER`.
#[derive(Debug, thiserror::Error)]
pub enum IcdError {
    /// The manifest itself was unusable.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
    /// The library is a Vulkan loader (this one or another `libvulkan.so*`).
    #[error("ICD {}: is a Vulkan loader, not a driver; refusing to recurse", .library.display())]
    LoaderRecursion { library: PathBuf },
    /// `dlopen` failed (missing file, missing dependency, wrong architecture, ...).
    #[error("ICD {}: dlopen failed: {source}", .library.display())]
    Open {
        library: PathBuf,
        source: libloading::Error,
    },
    /// Neither exported nor reachable through `vk_icdGetInstanceProcAddr`: an interface
    /// version 0/1 driver, which may not keep word 0 of dispatchable objects free for the loader.
    #[error("ICD {}: no vk_icdNegotiateLoaderICDInterfaceVersion (interface < 2 is unsupported: the loader needs ICD_LOADER_MAGIC dispatch)", .library.display())]
    NoNegotiate { library: PathBuf },
    /// The driver's negotiation call failed.
    #[error("ICD {}: interface negotiation failed: {result:?}", .library.display())]
    NegotiationFailed {
        library: PathBuf,
        result: vk::Result,
    },
    /// The negotiated version is outside 2..=7.
    #[error("ICD {}: negotiated interface version {version} (need {MIN_ICD_INTERFACE_VERSION}..={CURRENT_LOADER_ICD_INTERFACE_VERSION})", .library.display())]
    InterfaceVersion { library: PathBuf, version: u32 },
    /// `vk_icdGetInstanceProcAddr` is not exported.
    #[error("ICD {}: no vk_icdGetInstanceProcAddr", .library.display())]
    NoGetInstanceProcAddr { library: PathBuf },
}

/// The ICD error mapper (wgpu-hal's `map_*_err`): why an ICD could not be loaded, as a
/// `VkResult`. Every cause gives `VK_ERROR_INCOMPATIBLE_DRIVER`, the code `vkCreateInstance`
/// reports when no usable driver exists:
///
/// * an unusable manifest (`Manifest`: unreadable, too large, not JSON, an unknown
///   `file_format_version`, a bad `api_version`, an empty `library_path`, another
///   `library_arch`) or a library that is a loader (`LoaderRecursion`);
/// * a library that does not load: `map_library_err` (`Open`);
/// * a failed or out-of-range interface negotiation (`NoNegotiate`, `NegotiationFailed`,
///   `InterfaceVersion`) or a missing `vk_icdGetInstanceProcAddr` (`NoGetInstanceProcAddr`).
///
/// It does not log: [`load_all`] logs each skipped ICD with its manifest.
pub fn map_icd_err(err: &IcdError) -> vk::Result {
    match err {
        IcdError::Open { source, .. } => map_library_err(source),
        IcdError::Manifest(_)
        | IcdError::LoaderRecursion { .. }
        | IcdError::NoNegotiate { .. }
        | IcdError::NegotiationFailed { .. }
        | IcdError::InterfaceVersion { .. }
        | IcdError::NoGetInstanceProcAddr { .. } => vk::Result::ERROR_INCOMPATIBLE_DRIVER,
    }
}

/// A loaded, negotiated ICD.
pub struct IcdDriver {
    manifest: IcdManifest,
    interface_version: u32,
    get_instance_proc_addr: PFN_vk_icdGetInstanceProcAddr,
    get_physical_device_proc_addr: Option<PFN_vk_icdGetPhysicalDeviceProcAddr>,
    /// What serves the ICD's entry points instead of the ICD itself (the native-buffer adapter).
    served_by: Option<&'static str>,
    /// Kept last so the entry points above stay mapped for the driver's lifetime.
    _library: Library,
}

impl std::fmt::Debug for IcdDriver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IcdDriver")
            .field("manifest", &self.manifest)
            .field("interface_version", &self.interface_version)
            .finish_non_exhaustive()
    }
}

impl IcdDriver {
    /// Opens the manifest's library and negotiates the interface.
    pub fn load(manifest: IcdManifest) -> Result<Self, IcdError> {
        let library_path = manifest.library.clone();
        if is_loader_library(&library_path) {
            return Err(IcdError::LoaderRecursion {
                library: library_path,
            });
        }
        let library = open_library(&library_path).map_err(|source| IcdError::Open {
            library: library_path.clone(),
            source,
        })?;
        // From here on an early return drops `library`, i.e. dlcloses it.
        let gipa: Option<PFN_vk_icdGetInstanceProcAddr> =
            symbol_address(&library, ICD_GET_INSTANCE_PROC_ADDR_NAME)
                // SAFETY: the ICD interface defines this symbol's type.
                .map(|p| unsafe { as_fn(p) });
        // Interface 7 lets a driver hide its vk_icd* functions behind vk_icdGetInstanceProcAddr.
        let lookup_hidden = |name: &CStr| -> vk::PFN_vkVoidFunction {
            // SAFETY: a null instance is the documented way to query the vk_icd* functions.
            gipa.and_then(|g| unsafe { g(vk::Instance::null(), name.as_ptr()) })
        };
        let negotiate: Option<PFN_vk_icdNegotiateLoaderICDInterfaceVersion> =
            match symbol_address(&library, NEGOTIATE_LOADER_ICD_INTERFACE_VERSION_NAME) {
                // SAFETY: the ICD interface defines this symbol's type.
                Some(p) => Some(unsafe { as_fn(p) }),
                // SAFETY: a driver answers this name with the negotiation function.
                None => unsafe {
                    void_fn_as(lookup_hidden(NEGOTIATE_LOADER_ICD_INTERFACE_VERSION_NAME))
                },
            };
        let Some(negotiate) = negotiate else {
            return Err(IcdError::NoNegotiate {
                library: library_path,
            });
        };
        // We offer the newest version we speak; the driver answers min(ours, its own).
        let mut version = CURRENT_LOADER_ICD_INTERFACE_VERSION;
        // SAFETY: `version` is a valid in/out pointer; the library is loaded.
        let result = unsafe { negotiate(&mut version) };
        if result != vk::Result::SUCCESS {
            return Err(IcdError::NegotiationFailed {
                library: library_path,
                result,
            });
        }
        if !(MIN_ICD_INTERFACE_VERSION..=CURRENT_LOADER_ICD_INTERFACE_VERSION).contains(&version) {
            return Err(IcdError::InterfaceVersion {
                library: library_path,
                version,
            });
        }
        let Some(gipa) = gipa else {
            return Err(IcdError::NoGetInstanceProcAddr {
                library: library_path,
            });
        };
        let gpdpa = if version >= MIN_PHYS_DEV_EXTENSION_ICD_INTERFACE_VERSION {
            match symbol_address(&library, ICD_GET_PHYSICAL_DEVICE_PROC_ADDR_NAME) {
                // SAFETY: the ICD interface defines this symbol's type.
                Some(p) => Some(unsafe { as_fn(p) }),
                // SAFETY: a driver answers this name with its GPDPA.
                None => unsafe {
                    void_fn_as(lookup_hidden(ICD_GET_PHYSICAL_DEVICE_PROC_ADDR_NAME))
                },
            }
        } else {
            None
        };
        log::info!(
            "ICD {} ({}) loaded, interface version {version}",
            library_path.display(),
            manifest.manifest_path.display()
        );
        Ok(Self {
            manifest,
            interface_version: version,
            get_instance_proc_addr: gipa,
            get_physical_device_proc_addr: gpdpa,
            served_by: None,
            _library: library,
        })
    }

    /// Routes the driver's entry points through `by` (which itself calls the ICD); the library
    /// stays loaded for as long as `self` lives.
    pub fn serve_through(
        &mut self,
        by: &'static str,
        gipa: PFN_vk_icdGetInstanceProcAddr,
        gpdpa: PFN_vk_icdGetPhysicalDeviceProcAddr,
    ) {
        self.served_by = Some(by);
        self.get_instance_proc_addr = gipa;
        self.get_physical_device_proc_addr = Some(gpdpa);
    }

    /// What serves the ICD's entry points when not the ICD itself.
    pub fn served_by(&self) -> Option<&'static str> {
        self.served_by
    }

    /// The manifest the driver was loaded from.
    pub fn manifest(&self) -> &IcdManifest {
        &self.manifest
    }

    /// Whether the library is a vkgen driver (it exports the HAL module `HMI` too): such a
    /// driver has `VK_ANDROID_native_buffer` of its own and needs no adapter.
    pub fn is_vkgen_driver(&self) -> bool {
        symbol_address(&self._library, c"HMI").is_some()
    }

    /// The negotiated loader–ICD interface version (2..=7).
    pub fn interface_version(&self) -> u32 {
        self.interface_version
    }

    /// `vk_icdGetInstanceProcAddr` (same signature as `vkGetInstanceProcAddr`).
    pub fn get_instance_proc_addr_fn(&self) -> vk::PFN_vkGetInstanceProcAddr {
        self.get_instance_proc_addr
    }

    /// `vk_icdGetPhysicalDeviceProcAddr`, present from interface version 4 if the driver has it.
    pub fn get_physical_device_proc_addr_fn(&self) -> Option<PFN_vk_icdGetPhysicalDeviceProcAddr> {
        self.get_physical_device_proc_addr
    }
}

/// Loads every ICD the search finds, in order; failures are logged and skipped. Two manifests
/// naming the same library load it once.
pub fn load_all(search: &IcdSearchConfig) -> Vec<IcdDriver> {
    let mut drivers: Vec<IcdDriver> = Vec::new();
    for path in search.manifest_files() {
        let manifest = match IcdManifest::read(&path) {
            Ok(m) => m,
            Err(e) => {
                log::warn!("skipping {e}");
                continue;
            }
        };
        if let Some(first) = drivers
            .iter()
            .find(|d| d.manifest.library == manifest.library)
        {
            log::warn!(
                "skipping ICD manifest {}: library {} already loaded from {}",
                path.display(),
                manifest.library.display(),
                first.manifest.manifest_path.display()
            );
            continue;
        }
        match IcdDriver::load(manifest) {
            Ok(d) => drivers.push(d),
            Err(e) => log::warn!("skipping ({}): {e}", path.display()),
        }
    }
    drivers
}

/// Whether `library` is a Vulkan loader: named `libvulkan.so` / `libvulkan.so.*` (Mesa's
/// `libvulkan_<name>.so` drivers are fine), or the very file this code runs from.
fn is_loader_library(library: &Path) -> bool {
    let name = library.file_name().map(|n| n.to_string_lossy());
    if let Some(name) = name {
        if name == "libvulkan.so" || name.starts_with("libvulkan.so.") {
            return true;
        }
    }
    if library.components().count() > 1 {
        if let (Some(own), Ok(target)) = (own_object_path(), std::fs::metadata(library)) {
            if let Ok(own) = std::fs::metadata(own) {
                use std::os::unix::fs::MetadataExt;
                return own.dev() == target.dev() && own.ino() == target.ino();
            }
        }
    }
    false
}

/// The file this code was loaded from (`libvulkan.so`, or a test binary), via `dladdr`.
pub(crate) fn own_object_path() -> Option<&'static Path> {
    static OWN: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    OWN.get_or_init(|| {
        // SAFETY: Dl_info is plain data; all-zero is a valid initial value.
        let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
        let address = own_object_path as fn() -> Option<&'static Path> as *const c_void;
        // SAFETY: `address` is code in this object and `info` a valid out-pointer.
        if unsafe { libc::dladdr(address, &mut info) } == 0 || info.dli_fname.is_null() {
            return None;
        }
        // SAFETY: dladdr returned a NUL-terminated path owned by the dynamic linker.
        let name = unsafe { CStr::from_ptr(info.dli_fname) };
        use std::os::unix::ffi::OsStrExt;
        Some(PathBuf::from(OsStr::from_bytes(name.to_bytes())))
    })
    .as_deref()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{compile_so, VK_DECLS};
    use std::ffi::OsString;

    const LAVAPIPE_MANIFEST: &str = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json";

    const ICD_SOURCE: &str = r#"
#ifndef ICD_VERSION
#define ICD_VERSION 5
#endif
#define HIDDEN __attribute__((used)) static
#ifdef HIDE_NEGOTIATE
#define NEGOTIATE_LINKAGE HIDDEN
#else
#define NEGOTIATE_LINKAGE EXPORT
#endif
#ifdef NO_GIPA
#define GIPA_LINKAGE HIDDEN
#else
#define GIPA_LINKAGE EXPORT
#endif
static VkResult enumerate_version(uint32_t* v) { *v = VK_MAKE_API_VERSION(0, 1, 2, 7); return VK_SUCCESS; }
NEGOTIATE_LINKAGE VkResult vk_icdNegotiateLoaderICDInterfaceVersion(uint32_t* v) {
#ifdef NEGOTIATE_FAIL
    (void)v;
    return VK_ERROR_INCOMPATIBLE_DRIVER;
#else
    if (*v > ICD_VERSION) *v = ICD_VERSION;
    return VK_SUCCESS;
#endif
}
EXPORT PFN_vkVoidFunction vk_icdGetPhysicalDeviceProcAddr(VkInstance i, const char* n) { (void)i; (void)n; return NULL; }
GIPA_LINKAGE PFN_vkVoidFunction vk_icdGetInstanceProcAddr(VkInstance i, const char* name) {
    (void)i;
    if (!strcmp(name, "vkEnumerateInstanceVersion")) return (PFN_vkVoidFunction)enumerate_version;
#ifndef GIPA_HIDES_NEGOTIATE
    if (!strcmp(name, "vk_icdNegotiateLoaderICDInterfaceVersion")) return (PFN_vkVoidFunction)vk_icdNegotiateLoaderICDInterfaceVersion;
#endif
    return NULL;
}
"#;

    fn build_icd(dir: &Path, name: &str, defines: &[&str]) -> PathBuf {
        let mut src = String::new();
        for d in defines {
            src.push_str(&format!("#define {d}\n"));
        }
        src.push_str(VK_DECLS);
        src.push_str(ICD_SOURCE);
        compile_so(dir, name, &src)
    }

    fn write_manifest(dir: &Path, file: &str, library: &str, api: &str) -> PathBuf {
        let path = dir.join(file);
        let json = format!(
            r#"{{"file_format_version": "1.0.0", "ICD": {{"library_path": {library:?}, "api_version": {api:?}}}}}"#
        );
        std::fs::write(&path, json).unwrap();
        path
    }

    #[test]
    fn parses_a_full_manifest() {
        let m = IcdManifest::parse(
            Path::new("/x/icd.d/a.json"),
            br#"{"file_format_version": "1.0.1", "ICD": {"library_path": "/usr/lib/libvulkan_lvp.so",
                "api_version": "1.3.230", "is_portability_driver": true, "extra": [1, 2]}}"#,
        )
        .unwrap();
        assert_eq!(m.file_format_version, (1, 0, 1));
        assert_eq!(m.library, PathBuf::from("/usr/lib/libvulkan_lvp.so"));
        assert_eq!(m.api_version, Some(vk::make_api_version(0, 1, 3, 230)));
        assert!(m.is_portability_driver);
    }

    #[test]
    fn resolves_relative_and_plain_library_paths() {
        let parse = |lib: &str| {
            IcdManifest::parse(
                Path::new("/etc/vulkan/icd.d/x.json"),
                format!(
                    r#"{{"file_format_version": "1.0.0", "ICD": {{"library_path": "{lib}"}}}}"#
                )
                .as_bytes(),
            )
            .unwrap()
            .library
        };
        assert_eq!(
            parse("./libfoo.so"),
            PathBuf::from("/etc/vulkan/icd.d/./libfoo.so")
        );
        assert_eq!(
            parse("sub/libfoo.so"),
            PathBuf::from("/etc/vulkan/icd.d/sub/libfoo.so")
        );
        // No separator: a name for dlopen's own search, never joined to the manifest dir.
        assert_eq!(parse("libfoo.so"), PathBuf::from("libfoo.so"));
        assert_eq!(parse("/abs/libfoo.so"), PathBuf::from("/abs/libfoo.so"));
    }

    #[test]
    fn rejects_bad_manifests_with_the_reason() {
        let path = Path::new("/m.json");
        let err = |text: &str| IcdManifest::parse(path, text.as_bytes()).unwrap_err();
        assert!(matches!(err("{not json"), ManifestError::Json { .. }));
        assert!(matches!(err("[]"), ManifestError::Json { .. }));
        assert!(matches!(
            err(r#"{"file_format_version": "1.0.0"}"#),
            ManifestError::Json { .. }
        ));
        let e = err(r#"{"file_format_version": "1.0.0", "ICD": {"api_version": "1.0.0"}}"#);
        assert!(e.to_string().contains("library_path"), "{e}");
        assert!(e.to_string().contains("/m.json"), "{e}");
        assert!(matches!(
            err(r#"{"file_format_version": "2.0.0", "ICD": {"library_path": "a.so"}}"#),
            ManifestError::FormatVersion { .. }
        ));
        assert!(matches!(
            err(
                r#"{"file_format_version": "1.0.0", "ICD": {"library_path": "a.so", "api_version": "1.x"}}"#
            ),
            ManifestError::ApiVersion { .. }
        ));
        assert!(matches!(
            err(r#"{"file_format_version": "1.0.0", "ICD": {"library_path": " "}}"#),
            ManifestError::EmptyLibraryPath { .. }
        ));
        let other_arch = if usize::BITS == 64 { "32" } else { "64" };
        assert!(matches!(
            err(&format!(
                r#"{{"file_format_version": "1.0.0", "ICD": {{"library_path": "a.so", "library_arch": "{other_arch}"}}}}"#
            )),
            ManifestError::WrongArch { .. }
        ));
        assert_eq!(
            map_icd_err(&IcdError::Manifest(err("{"))),
            vk::Result::ERROR_INCOMPATIBLE_DRIVER
        );
    }

    #[test]
    fn standard_search_order_and_sorting() {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        let mk = |dir: &str, files: &[&str]| {
            let d = r.join(dir).join("vulkan/icd.d");
            std::fs::create_dir_all(&d).unwrap();
            for f in files {
                std::fs::write(d.join(f), b"{}").unwrap();
            }
        };
        mk("home/.config", &["b.json", "a.json", "ignored.txt"]);
        mk("xdg1", &["c.json"]);
        mk("xdg2", &["d.json"]);
        mk("etc", &["e.json"]);
        mk("home/.local/share", &["f.json"]);
        mk("data1", &["h.json", "g.json"]);
        let search = IcdSearchConfig {
            home: Some(r.join("home")),
            xdg_config_dirs: Some(
                format!(
                    "{}:relative/dir:{}",
                    r.join("xdg1").display(),
                    r.join("xdg2").display()
                )
                .into(),
            ),
            sysconf_dir: Some(r.join("etc")),
            // The same dir twice must not load its drivers twice.
            xdg_data_dirs: Some(
                format!(
                    "{}:{}",
                    r.join("data1").display(),
                    r.join("data1").display()
                )
                .into(),
            ),
            ..IcdSearchConfig::default()
        };
        let names: Vec<String> = search
            .manifest_files()
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names,
            ["a.json", "b.json", "c.json", "d.json", "e.json", "f.json", "g.json", "h.json"]
        );
        // XDG_CONFIG_HOME replaces ~/.config.
        let search = IcdSearchConfig {
            xdg_config_home: Some(r.join("xdg2")),
            ..IcdSearchConfig::isolated(r)
        };
        let files = search.manifest_files();
        assert_eq!(files.len(), 2, "{files:?}");
        assert!(files[0].ends_with("xdg2/vulkan/icd.d/d.json"));
        assert!(files[1].ends_with("etc/vulkan/icd.d/e.json"));
    }

    #[test]
    fn override_variables_replace_the_search() {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        let d = r.join("dir");
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("z.json"), b"{}").unwrap();
        std::fs::write(d.join("y.json"), b"{}").unwrap();
        std::fs::write(r.join("single.manifest"), b"{}").unwrap();
        let list: OsString = format!(
            "{}:{}:{}",
            r.join("single.manifest").display(),
            r.join("missing.json").display(),
            d.display()
        )
        .into();
        let search = IcdSearchConfig {
            icd_filenames: Some(list.clone()),
            ..IcdSearchConfig::isolated(r)
        };
        let files = search.manifest_files();
        assert_eq!(
            files,
            vec![
                r.join("single.manifest"),
                d.join("y.json"),
                d.join("z.json")
            ]
        );
        // VK_DRIVER_FILES wins over VK_ICD_FILENAMES.
        let search = IcdSearchConfig {
            driver_files: Some(d.join("z.json").into_os_string()),
            icd_filenames: Some(list),
            ..IcdSearchConfig::isolated(r)
        };
        assert_eq!(search.manifest_files(), vec![d.join("z.json")]);
    }

    #[test]
    fn loads_and_negotiates_a_fixture_icd() {
        let dir = tempfile::tempdir().unwrap();
        build_icd(dir.path(), "libicd_good.so", &[]);
        // Relative library path: resolved against the manifest's directory.
        let m = write_manifest(dir.path(), "good.json", "./libicd_good.so", "1.2.0");
        let icd = IcdDriver::load(IcdManifest::read(&m).unwrap()).unwrap();
        assert_eq!(icd.interface_version(), 5);
        assert!(icd.get_physical_device_proc_addr_fn().is_some());
        let driver = super::super::Driver::new(super::super::DriverSource::Icd(icd));
        assert_eq!(driver.api_version(), vk::make_api_version(0, 1, 2, 0));
    }

    #[test]
    fn version_7_driver_may_hide_its_negotiate_export() {
        let dir = tempfile::tempdir().unwrap();
        build_icd(
            dir.path(),
            "libicd_v7.so",
            &["HIDE_NEGOTIATE", "ICD_VERSION 7"],
        );
        let m = write_manifest(dir.path(), "v7.json", "./libicd_v7.so", "1.2.0");
        let icd = IcdDriver::load(IcdManifest::read(&m).unwrap()).unwrap();
        assert_eq!(icd.interface_version(), 7);
    }

    #[test]
    fn old_or_failing_negotiation_is_rejected() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        build_icd(
            d,
            "libicd_v1.so",
            &["HIDE_NEGOTIATE", "GIPA_HIDES_NEGOTIATE"],
        );
        build_icd(d, "libicd_low.so", &["ICD_VERSION 1"]);
        build_icd(d, "libicd_fail.so", &["NEGOTIATE_FAIL"]);
        let load = |lib: &str| {
            let m = write_manifest(d, &format!("{lib}.json"), &format!("./{lib}"), "1.0.0");
            IcdDriver::load(IcdManifest::read(&m).unwrap()).unwrap_err()
        };
        assert!(matches!(load("libicd_v1.so"), IcdError::NoNegotiate { .. }));
        assert!(matches!(
            load("libicd_low.so"),
            IcdError::InterfaceVersion { version: 1, .. }
        ));
        let e = load("libicd_fail.so");
        assert!(
            matches!(
                e,
                IcdError::NegotiationFailed {
                    result: vk::Result::ERROR_INCOMPATIBLE_DRIVER,
                    ..
                }
            ),
            "{e}"
        );
    }

    #[test]
    fn icd_without_gipa_is_incompatible() {
        let dir = tempfile::tempdir().unwrap();
        build_icd(dir.path(), "libicd_nogipa.so", &["NO_GIPA"]);
        let m = write_manifest(dir.path(), "nogipa.json", "./libicd_nogipa.so", "1.0.0");
        let e = IcdDriver::load(IcdManifest::read(&m).unwrap()).unwrap_err();
        assert!(matches!(e, IcdError::NoGetInstanceProcAddr { .. }), "{e}");
        assert_eq!(map_icd_err(&e), vk::Result::ERROR_INCOMPATIBLE_DRIVER);
    }

    #[test]
    fn missing_library_and_loader_recursion_are_rejected() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let m = write_manifest(d, "missing.json", "./libnothere.so", "1.0.0");
        let e = IcdDriver::load(IcdManifest::read(&m).unwrap()).unwrap_err();
        assert!(matches!(e, IcdError::Open { .. }), "{e}");
        assert!(e.to_string().contains("libnothere.so"), "{e}");
        for lib in ["libvulkan.so.1", "/usr/lib/x86_64-linux-gnu/libvulkan.so"] {
            let m = write_manifest(d, "loader.json", lib, "1.0.0");
            let e = IcdDriver::load(IcdManifest::read(&m).unwrap()).unwrap_err();
            assert!(matches!(e, IcdError::LoaderRecursion { .. }), "{e}");
        }
        // The file this code runs from (here: the test binary) is refused by identity.
        let own = std::env::current_exe().unwrap();
        let m = write_manifest(d, "self.json", own.to_str().unwrap(), "1.0.0");
        let e = IcdDriver::load(IcdManifest::read(&m).unwrap()).unwrap_err();
        assert!(matches!(e, IcdError::LoaderRecursion { .. }), "{e}");
        // Mesa's drivers share the prefix but are not loaders.
        assert!(!is_loader_library(Path::new("libvulkan_lvp.so")));
    }

    #[test]
    fn load_all_skips_bad_manifests_and_duplicates() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let icd_dir = d.join("etc/vulkan/icd.d");
        std::fs::create_dir_all(&icd_dir).unwrap();
        build_icd(&icd_dir, "libicd_good.so", &[]);
        build_icd(&icd_dir, "libicd_nogipa.so", &["NO_GIPA"]);
        write_manifest(&icd_dir, "10_good.json", "./libicd_good.so", "1.0.0");
        write_manifest(&icd_dir, "20_dup.json", "./libicd_good.so", "1.0.0");
        write_manifest(&icd_dir, "30_missing.json", "./libnothere.so", "1.0.0");
        write_manifest(&icd_dir, "40_nogipa.json", "./libicd_nogipa.so", "1.0.0");
        std::fs::write(icd_dir.join("50_garbage.json"), b"\x00\x01garbage").unwrap();
        let drivers = load_all(&IcdSearchConfig::isolated(d));
        assert_eq!(drivers.len(), 1);
        assert!(drivers[0]
            .manifest()
            .manifest_path
            .ends_with("10_good.json"));
        // A 1.0 manifest pins the driver to 1.0 even though it reports 1.2.
        let config = crate::testutil::isolated_driver(d);
        let all = super::super::load_drivers(&config).unwrap();
        assert_eq!(all.len(), 1);
        assert_eq!(all[0].api_version(), vk::API_VERSION_1_0);
    }

    /// The real lavapipe from mesa-vulkan-drivers: negotiates, and can create an instance and
    /// enumerate its CPU device through nothing but `vk_icdGetInstanceProcAddr`.
    #[test]
    fn lavapipe_loads_negotiates_and_enumerates() {
        if !Path::new(LAVAPIPE_MANIFEST).exists() {
            eprintln!(
                "SKIPPED: {LAVAPIPE_MANIFEST} not installed (apt install mesa-vulkan-drivers)"
            );
            return;
        }
        let search = IcdSearchConfig {
            driver_files: Some(LAVAPIPE_MANIFEST.into()),
            ..IcdSearchConfig::default()
        };
        let drivers = load_all(&search);
        assert_eq!(drivers.len(), 1);
        let icd = &drivers[0];
        assert!(icd.interface_version() >= 5, "{}", icd.interface_version());
        assert!(icd.get_physical_device_proc_addr_fn().is_some());
        let gipa = icd.get_instance_proc_addr_fn();

        let driver = super::super::Driver::new(super::super::DriverSource::Icd(
            load_all(&search).pop().unwrap(),
        ));
        assert!(
            driver.api_version() >= vk::API_VERSION_1_1,
            "{:#x}",
            driver.api_version()
        );
        assert_eq!(driver.api_version() & 0xfff, 0);

        // SAFETY: global query through the live driver.
        let create: vk::PFN_vkCreateInstance = unsafe {
            void_fn_as(gipa(vk::Instance::null(), c"vkCreateInstance".as_ptr())).unwrap()
        };
        let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_1);
        let info = vk::InstanceCreateInfo::default().application_info(&app);
        let mut instance = vk::Instance::null();
        // SAFETY: valid create info and out-pointer.
        let r = unsafe { create(&info, std::ptr::null(), &mut instance) };
        assert_eq!(r, vk::Result::SUCCESS);
        // SAFETY: `instance` is live; the names are instance-level commands.
        let (enumerate, destroy): (
            vk::PFN_vkEnumeratePhysicalDevices,
            vk::PFN_vkDestroyInstance,
        ) = unsafe {
            (
                void_fn_as(gipa(instance, c"vkEnumeratePhysicalDevices".as_ptr())).unwrap(),
                void_fn_as(gipa(instance, c"vkDestroyInstance".as_ptr())).unwrap(),
            )
        };
        let mut count = 0;
        // SAFETY: count query with a valid out-pointer.
        let r = unsafe { enumerate(instance, &mut count, std::ptr::null_mut()) };
        assert_eq!(r, vk::Result::SUCCESS);
        assert!(count >= 1);
        // The ICD left word 0 of its instance for the loader, as interface >= 2 requires.
        // SAFETY: a dispatchable handle points at the driver's object, whose first word is
        // readable.
        let word = unsafe { *(vk::Handle::as_raw(instance) as *const usize) };
        assert_eq!(word & 0xffff_ffff, vkgen_abi::icd::ICD_LOADER_MAGIC);
        // SAFETY: destroying the instance we created.
        unsafe { destroy(instance, std::ptr::null()) };
    }
}
