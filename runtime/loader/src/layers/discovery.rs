//! Layer discovery, as `layers_extensions.cpp` does it.
//!
//! Search dirs, in order: `<root>/data/local/debug/vulkan` (only when GraphicsEnv says the
//! process is debuggable), then each entry of `GraphicsEnv::getLayerPaths()` (the GPU debug
//! layer apps' dirs, then the app's own: [`crate::graphics_env`]). Files named `libVkLayer*.so`
//! are candidates, in the order `readdir` gives within a dir (as AOSP: not sorted); a file name
//! already provided by a library that loaded is skipped, so a broken first copy lets a later one
//! load (AOSP compares with `g_layer_libraries`, the libraries that loaded). Each is opened as
//! `LayerLibrary::Open` does ([`linker::open_layer`]: the app's namespace, `apk!/` entries
//! included; plain `dlopen` for the debug dir) and interrogated:
//! * required exports `vkEnumerateInstanceLayerProperties` and
//!   `vkEnumerateInstanceExtensionProperties`; optional `vkEnumerateDeviceLayerProperties` and
//!   `vkEnumerateDeviceExtensionProperties` (called with a null physical device), which a layer
//!   that negotiated interface 2 may provide through its `vkGetInstanceProcAddr(NULL, ...)`
//!   instead of exporting them (Khronos-style layers such as Debian's validation layer);
//! * `vkNegotiateLoaderLayerInterfaceVersion` when exported, offered interface version 2 —
//!   on Linux hosts only (`entry_points::Negotiation`): AOSP's loader never negotiates, so on Android a
//!   layer is "global" only if it exports `vkEnumerateDeviceLayerProperties` and lists itself;
//! * per layer: instance extensions, "global" iff its `VkLayerProperties` are byte-identical to an
//!   entry of the device layer list (then its device extensions), and its GIPA/GDPA.
//!
//! A library that fails any required step is rejected as a whole (logged, like Android); a layer
//! without a usable GIPA is dropped on its own. A layer name already provided by an earlier
//! library is listed again (AOSP's `g_instance_layers`); activation by name finds the first. A dir inside an APK (`<apk>!/lib/<abi>`) lists its stored, page-aligned
//! entries ([`crate::apk`]).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::error::LayerError;
use super::library::{layers_of_library, Layer, Reopen};
use super::registry::LayerRegistry;
use super::settings::LayerSettings;
use crate::driver::linker::{self, Linker};

/// The debug layer dir relative to the root.
pub const DEBUG_LAYER_DIR: &str = "data/local/debug/vulkan";

/// The dirs searched for layer libraries, in priority order.
pub fn search_dirs(config: &LayerSettings) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if config.debuggable {
        dirs.push(config.hal_root.join(DEBUG_LAYER_DIR));
    }
    dirs.extend(config.app_layer_path.iter().cloned());
    dirs
}

fn is_layer_file_name(name: &str) -> bool {
    name.starts_with("libVkLayer") && name.ends_with(".so")
}

/// The layer library files to try, in order (a file name may repeat: a later copy is tried
/// when the earlier ones did not load).
pub fn layer_files(config: &LayerSettings) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in search_dirs(config) {
        // `<apk>!/lib/<abi>`: AOSP's `ForEachFileInZip` (stored, page-aligned entries).
        if let Some((zip, inner)) = crate::apk::split(&dir) {
            for entry in crate::apk::stored_entries(&zip, &inner) {
                if is_layer_file_name(&entry.name) {
                    files.push(dir.join(&entry.name));
                }
            }
            continue;
        }
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) => {
                log::debug!("layer dir {}: {e}", dir.display());
                continue;
            }
        };
        // `read_dir` is `readdir`: the order AOSP's `ForEachFileInDir` sees, unsorted (which
        // layer wins a name clash between two libraries of one dir depends on it, as there).
        let names = entries
            .filter_map(Result::ok)
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|n| is_layer_file_name(n));
        for name in names {
            let path = dir.join(&name);
            // Follows symlinks: a link to a real library is fine, a dangling one or a dir is not.
            if !path.is_file() {
                log::warn!("layer {}: not a regular file; skipped", path.display());
                continue;
            }
            files.push(path);
        }
    }
    files
}

impl LayerRegistry {
    /// Discovers every layer the config allows. Rejected libraries and layers are logged.
    pub fn discover(config: &LayerSettings) -> Self {
        let mut layers: Vec<Arc<Layer>> = Vec::new();
        let linker = Arc::clone(&config.linker);
        // File names of the libraries that loaded (AOSP's `g_layer_libraries`).
        let mut loaded: HashSet<std::ffi::OsString> = HashSet::new();
        for path in layer_files(config) {
            let file_name = path.file_name().unwrap_or_default().to_owned();
            if loaded.contains(&file_name) {
                log::debug!(
                    "layer library {} skipped: a library of that name already loaded",
                    path.display()
                );
                continue;
            }
            match open_layer_library(config, &linker, &path) {
                Ok(found) => {
                    loaded.insert(file_name);
                    // A name another library already provides is listed again, as AOSP's
                    // `g_instance_layers` does; `find` (AOSP's `FindLayer`) gives the first.
                    for layer in found {
                        log::debug!("layer {:?} found in {}", layer.name(), path.display());
                        layers.push(Arc::new(layer.closed()));
                    }
                }
                Err(e) => log::warn!("rejected {e}"),
            }
        }
        // Linux hosts: Khronos manifests after Android's (which win on a name clash); their
        // libraries are opened only when an instance activates them.
        let host = super::host::discover(&config.host_layers, &layers);
        Self { layers, host }
    }
}

/// Opens one layer library as AOSP's `LayerLibrary::Open` does (the app's namespace, an
/// `apk!/` entry included, or `dlopen` for `/data/local/debug/vulkan`) and returns the
/// layers it provides, each able to reopen its library the same way.
fn open_layer_library(
    config: &LayerSettings,
    linker: &Arc<dyn Linker>,
    path: &Path,
) -> Result<Vec<Layer>, LayerError> {
    let (linker, root) = (Arc::clone(linker), config.hal_root.clone());
    let reopen: Reopen = Arc::new(move |path: &Path| {
        linker::open_layer(&*linker, &root, path).map_err(|source| LayerError::Open {
            path: path.to_path_buf(),
            source,
        })
    });
    let library = reopen(path)?;
    layers_of_library(path, library, Some(reopen), config.negotiation, true)
}

#[cfg(test)]
pub(crate) mod tests {
    use std::ffi::CStr;

    use super::*;
    use crate::driver::open_library;
    use crate::driver::symbol_address;
    use crate::layers::library::load_layer_library;
    use crate::layers::{LayerSettings, Negotiation};
    use crate::testutil::{compile_so, isolated_layers, VK_DECLS};
    use ash::vk;

    const VALIDATION_LAYER: &str = "/usr/lib/x86_64-linux-gnu/libVkLayer_khronos_validation.so";

    /// What a fixture layer library contains.
    #[derive(Default)]
    pub(crate) struct Fixture<'a> {
        /// Instance layer names.
        pub layers: &'a [&'a str],
        /// Names also listed as device layers (global), if device exports exist.
        pub device_layers: Option<&'a [&'a str]>,
        /// Export `vkEnumerateInstanceExtensionProperties`.
        pub no_instance_extensions_export: bool,
        /// Export `vkNegotiateLoaderLayerInterfaceVersion`.
        pub negotiate: bool,
        /// Export `<name>GetInstanceProcAddr` for these layers.
        pub named_gipa: &'a [&'a str],
        /// Export a generic `vkGetInstanceProcAddr`/`vkGetDeviceProcAddr`.
        pub generic_gpa: bool,
    }

    fn c_list(names: &[&str]) -> String {
        if names.is_empty() {
            // Zero-length arrays are a GNU extension; keep a dummy entry and count separately.
            return "\"\"".to_owned();
        }
        names
            .iter()
            .map(|n| format!("{n:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    pub(crate) fn build_layer(dir: &Path, file: &str, f: &Fixture<'_>) -> PathBuf {
        let mut src = String::from(VK_DECLS);
        src.push_str(&format!(
            "static const char* names[] = {{ {} }};\nstatic const uint32_t num_names = {};\n",
            c_list(f.layers),
            f.layers.len()
        ));
        src.push_str(r#"
static void fill(VkLayerProperties* p, const char* name) {
    memset(p, 0, sizeof *p);
    strncpy(p->layerName, name, sizeof p->layerName - 1);
    p->specVersion = VK_MAKE_API_VERSION(0, 1, 3, 0);
    p->implementationVersion = 7;
    strcpy(p->description, "fixture layer");
}
static VkResult list_layers(const char* const* list, uint32_t n, uint32_t* count, VkLayerProperties* props) {
    if (!props) { *count = n; return VK_SUCCESS; }
    uint32_t k = *count < n ? *count : n;
    for (uint32_t i = 0; i < k; i++) fill(&props[i], list[i]);
    *count = k;
    return k < n ? VK_INCOMPLETE : VK_SUCCESS;
}
static int known(const char* layer) {
    for (uint32_t i = 0; i < num_names; i++) if (!strcmp(layer, names[i])) return 1;
    return 0;
}
static VkResult one_extension(const char* ext, uint32_t* count, VkExtensionProperties* props) {
    if (!props) { *count = 1; return VK_SUCCESS; }
    if (*count < 1) return VK_INCOMPLETE;
    memset(props, 0, sizeof *props);
    strcpy(props->extensionName, ext);
    props->specVersion = 3;
    *count = 1;
    return VK_SUCCESS;
}
EXPORT VkResult vkEnumerateInstanceLayerProperties(uint32_t* count, VkLayerProperties* props) {
    return list_layers(names, num_names, count, props);
}
static PFN_vkVoidFunction generic_gipa(VkInstance i, const char* n) { (void)i; (void)n; return NULL; }
static PFN_vkVoidFunction negotiated_gipa(VkInstance i, const char* n) { (void)i; (void)n; return NULL; }
static PFN_vkVoidFunction negotiated_gdpa(void* d, const char* n) { (void)d; (void)n; return NULL; }
static PFN_vkVoidFunction negotiated_gpdpa(VkInstance i, const char* n) { (void)i; (void)n; return NULL; }
static PFN_vkVoidFunction named_gipa(VkInstance i, const char* n) { (void)i; (void)n; return NULL; }
typedef struct { int32_t sType; void* pNext; uint32_t loaderLayerInterfaceVersion; void* gipa; void* gdpa; void* gpdpa; } VkNegotiateLayerInterface;
"#);
        if !f.no_instance_extensions_export {
            src.push_str(r#"
EXPORT VkResult vkEnumerateInstanceExtensionProperties(const char* layer, uint32_t* count, VkExtensionProperties* props) {
    if (!layer || !known(layer)) return VK_ERROR_LAYER_NOT_PRESENT;
    return one_extension("VK_EXT_fixture_instance", count, props);
}
"#);
        }
        if let Some(device) = f.device_layers {
            src.push_str(&format!(
                "static const char* device_names[] = {{ {} }};\nstatic const uint32_t num_device = {};\n",
                c_list(device),
                device.len()
            ));
            src.push_str(r#"
EXPORT VkResult vkEnumerateDeviceLayerProperties(void* pd, uint32_t* count, VkLayerProperties* props) {
    if (pd) return VK_ERROR_INITIALIZATION_FAILED;
    return list_layers(device_names, num_device, count, props);
}
EXPORT VkResult vkEnumerateDeviceExtensionProperties(void* pd, const char* layer, uint32_t* count, VkExtensionProperties* props) {
    if (pd || !layer || !known(layer)) return VK_ERROR_LAYER_NOT_PRESENT;
    return one_extension("VK_EXT_fixture_device", count, props);
}
EXPORT PFN_vkVoidFunction vkGetDeviceProcAddr(void* d, const char* n) { (void)d; (void)n; return NULL; }
"#);
        }
        if f.negotiate {
            src.push_str(
                r#"
EXPORT VkResult vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface* s) {
    if (s->sType != 1 || s->loaderLayerInterfaceVersion < 2) return VK_ERROR_INITIALIZATION_FAILED;
    s->loaderLayerInterfaceVersion = 2;
    s->gipa = (void*)negotiated_gipa;
    s->gdpa = (void*)negotiated_gdpa;
    s->gpdpa = (void*)negotiated_gpdpa;
    return VK_SUCCESS;
}
"#,
            );
        }
        for name in f.named_gipa {
            src.push_str(&format!(
                "EXPORT PFN_vkVoidFunction {name}GetInstanceProcAddr(VkInstance i, const char* n) {{ return named_gipa(i, n); }}\n"
            ));
        }
        if f.generic_gpa {
            src.push_str(
                "EXPORT PFN_vkVoidFunction vkGetInstanceProcAddr(VkInstance i, const char* n) { return generic_gipa(i, n); }\n",
            );
        }
        compile_so(dir, file, &src)
    }

    pub(crate) fn app_config(dirs: &[&Path]) -> LayerSettings {
        LayerSettings {
            app_layer_path: dirs.iter().map(|d| d.to_path_buf()).collect(),
            ..isolated_layers(Path::new("/nonexistent-root"))
        }
    }

    fn address<T>(f: T) -> usize {
        assert_eq!(std::mem::size_of::<T>(), std::mem::size_of::<usize>());
        // SAFETY: a function pointer is one pointer-sized word.
        unsafe { std::mem::transmute_copy(&f) }
    }

    fn symbol(path: &Path, name: &CStr) -> usize {
        let lib = open_library(path).unwrap();
        symbol_address(&lib, name).unwrap().as_ptr() as usize
    }

    #[test]
    fn finds_layers_with_their_properties_and_procs() {
        let dir = tempfile::tempdir().unwrap();
        let path = build_layer(
            dir.path(),
            "libVkLayer_multi.so",
            &Fixture {
                layers: &["VK_LAYER_test_a", "VK_LAYER_test_b"],
                device_layers: Some(&["VK_LAYER_test_b"]),
                named_gipa: &["VK_LAYER_test_a"],
                generic_gpa: true,
                ..Fixture::default()
            },
        );
        // Not matching the pattern: never opened.
        std::fs::write(dir.path().join("libOther.so"), b"junk").unwrap();
        std::fs::write(dir.path().join("libVkLayer_notes.txt"), b"junk").unwrap();
        let registry = LayerRegistry::discover(&app_config(&[dir.path()]));
        assert_eq!(registry.len(), 2);
        let a = registry.find(c"VK_LAYER_test_a").unwrap();
        let b = registry.find(c"VK_LAYER_test_b").unwrap();
        assert_eq!(
            a.properties().spec_version,
            vk::make_api_version(0, 1, 3, 0)
        );
        assert_eq!(a.properties().implementation_version, 7);
        assert_eq!(
            a.properties().description_as_c_str().unwrap(),
            c"fixture layer"
        );
        assert_eq!(a.instance_extensions().len(), 1);
        assert_eq!(
            a.instance_extensions()[0]
                .extension_name_as_c_str()
                .unwrap(),
            c"VK_EXT_fixture_instance"
        );
        // Only b is in the device list, so only b is global and has device extensions.
        assert!(!a.is_global());
        assert!(a.device_extensions().is_empty());
        assert!(b.is_global());
        assert_eq!(
            b.device_extensions()[0].extension_name_as_c_str().unwrap(),
            c"VK_EXT_fixture_device"
        );
        // Closed in the registry; opened (and mapped) for an instance.
        assert!(!a.library().is_open() && !b.library().is_open());
        let (a, b) = (a.open().unwrap(), b.open().unwrap());
        assert!(a.library().is_open() && b.library().is_open());
        // a has its own named GIPA; b falls back to the exported vkGetInstanceProcAddr.
        assert_eq!(
            address(a.get_instance_proc_addr()),
            symbol(&path, c"VK_LAYER_test_aGetInstanceProcAddr")
        );
        assert_eq!(
            address(b.get_instance_proc_addr()),
            symbol(&path, c"vkGetInstanceProcAddr")
        );
        assert_eq!(
            address(b.get_device_proc_addr().unwrap()),
            symbol(&path, c"vkGetDeviceProcAddr")
        );
        assert!(a.library().interface_version().is_none());
        assert_eq!(a.library().path(), path);
    }

    #[test]
    fn negotiated_entry_points_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = build_layer(
            dir.path(),
            "libVkLayer_neg.so",
            &Fixture {
                layers: &["VK_LAYER_test_neg"],
                negotiate: true,
                generic_gpa: true,
                ..Fixture::default()
            },
        );
        let layers = load_layer_library(&path).unwrap();
        assert_eq!(layers.len(), 1);
        let l = &layers[0];
        assert_eq!(l.library().interface_version(), Some(2));
        assert!(l.get_physical_device_proc_addr().is_some());
        assert!(l.get_device_proc_addr().is_some());
        // The negotiated GIPA wins over the generic export.
        assert_ne!(
            address(l.get_instance_proc_addr()),
            symbol(&path, c"vkGetInstanceProcAddr")
        );
    }

    /// AOSP's rule ([`Negotiation::Never`], Android's): the library is never asked to
    /// negotiate, its GIPA is its export, and it is global only by exporting
    /// `vkEnumerateDeviceLayerProperties` and listing itself there. The same library under
    /// Khronos' rule negotiates and takes the negotiated entry points. Reopening keeps the rule.
    #[test]
    fn without_negotiation_a_layer_is_what_its_exports_say() {
        let dir = tempfile::tempdir().unwrap();
        let fixture = |device_layers| Fixture {
            layers: &["VK_LAYER_test_neg"],
            device_layers,
            negotiate: true,
            generic_gpa: true,
            ..Fixture::default()
        };
        let global = build_layer(
            dir.path(),
            "libVkLayer_neg.so",
            &fixture(Some(&["VK_LAYER_test_neg"])),
        );
        let aosp = LayerSettings {
            negotiation: Negotiation::Never,
            ..app_config(&[dir.path()])
        };
        let registry = LayerRegistry::discover(&aosp);
        let layer = registry.find(c"VK_LAYER_test_neg").unwrap().open().unwrap();
        assert_eq!(
            layer.library().interface_version(),
            None,
            "negotiated under AOSP's rule"
        );
        assert!(layer.get_physical_device_proc_addr().is_none());
        assert_eq!(
            address(layer.get_instance_proc_addr()),
            symbol(&global, c"vkGetInstanceProcAddr")
        );
        assert_eq!(
            address(layer.get_device_proc_addr().unwrap()),
            symbol(&global, c"vkGetDeviceProcAddr")
        );
        assert!(layer.is_global());

        let khronos = LayerRegistry::discover(&app_config(&[dir.path()]));
        let layer = khronos.find(c"VK_LAYER_test_neg").unwrap().open().unwrap();
        assert_eq!(layer.library().interface_version(), Some(2));
        assert_ne!(
            address(layer.get_instance_proc_addr()),
            symbol(&global, c"vkGetInstanceProcAddr")
        );

        // Without device exports it is instance-only under AOSP's rule.
        let dir = tempfile::tempdir().unwrap();
        build_layer(dir.path(), "libVkLayer_neg.so", &fixture(None));
        let aosp = LayerSettings {
            negotiation: Negotiation::Never,
            ..app_config(&[dir.path()])
        };
        let registry = LayerRegistry::discover(&aosp);
        let layer = registry.find(c"VK_LAYER_test_neg").unwrap();
        assert!(!layer.is_global());
        assert!(layer.device_extensions().is_empty());
    }

    #[test]
    fn libraries_missing_required_exports_are_rejected() {
        let dir = tempfile::tempdir().unwrap();
        let path = build_layer(
            dir.path(),
            "libVkLayer_broken.so",
            &Fixture {
                layers: &["VK_LAYER_test_broken"],
                no_instance_extensions_export: true,
                generic_gpa: true,
                ..Fixture::default()
            },
        );
        let e = load_layer_library(&path).unwrap_err();
        match &e {
            LayerError::MissingExport { symbol, .. } => {
                assert_eq!(*symbol, "vkEnumerateInstanceExtensionProperties")
            }
            other => panic!("unexpected {other}"),
        }
        assert_eq!(
            crate::layers::map_layer_err(&e),
            vk::Result::ERROR_LAYER_NOT_PRESENT
        );
        // A layer without any GIPA is dropped; an empty library is rejected; neither appears.
        build_layer(
            dir.path(),
            "libVkLayer_nogipa.so",
            &Fixture {
                layers: &["VK_LAYER_test_nogipa"],
                ..Fixture::default()
            },
        );
        build_layer(
            dir.path(),
            "libVkLayer_empty.so",
            &Fixture {
                layers: &[],
                generic_gpa: true,
                ..Fixture::default()
            },
        );
        std::fs::write(dir.path().join("libVkLayer_garbage.so"), b"not ELF").unwrap();
        assert!(load_layer_library(&dir.path().join("libVkLayer_nogipa.so"))
            .unwrap()
            .is_empty());
        assert!(matches!(
            load_layer_library(&dir.path().join("libVkLayer_empty.so")).unwrap_err(),
            LayerError::NoLayers { .. }
        ));
        assert!(matches!(
            load_layer_library(&dir.path().join("libVkLayer_garbage.so")).unwrap_err(),
            LayerError::Open { .. }
        ));
        // AOSP lists a layer without a GIPA (only its enumeration exports are required) and
        // refuses it when an instance activates it (`LayerChain::LoadLayer`:
        // VK_ERROR_LAYER_NOT_PRESENT); the broken libraries list nothing.
        let registry = LayerRegistry::discover(&app_config(&[dir.path()]));
        let names: Vec<&CStr> = registry.layers().iter().map(|l| l.name()).collect();
        assert_eq!(names, [c"VK_LAYER_test_nogipa"]);
        let refused = registry
            .find(c"VK_LAYER_test_nogipa")
            .unwrap()
            .open()
            .unwrap_err();
        assert_eq!(
            crate::layers::map_layer_err(&refused),
            vk::Result::ERROR_LAYER_NOT_PRESENT
        );
    }

    /// AOSP's `DiscoverLayersInPathList`: a file name is skipped once a library of that name has
    /// loaded (a broken first copy does not shadow a later one), and a layer name two libraries
    /// provide is listed twice, the first one found by name.
    #[test]
    fn first_file_name_and_first_layer_name_win() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        let first = build_layer(
            a.path(),
            "libVkLayer_same.so",
            &Fixture {
                layers: &["VK_LAYER_test_x"],
                generic_gpa: true,
                ..Fixture::default()
            },
        );
        build_layer(
            b.path(),
            "libVkLayer_same.so",
            &Fixture {
                layers: &["VK_LAYER_test_y"],
                generic_gpa: true,
                ..Fixture::default()
            },
        );
        // Same layer name from a different file: listed again after the earlier library's.
        build_layer(
            b.path(),
            "libVkLayer_other.so",
            &Fixture {
                layers: &["VK_LAYER_test_x", "VK_LAYER_test_z"],
                generic_gpa: true,
                ..Fixture::default()
            },
        );
        // A first copy that does not load: the later copy of its name does.
        std::fs::write(a.path().join("libVkLayer_fixed.so"), b"not ELF").unwrap();
        let fixed = build_layer(
            b.path(),
            "libVkLayer_fixed.so",
            &Fixture {
                layers: &["VK_LAYER_test_fixed"],
                generic_gpa: true,
                ..Fixture::default()
            },
        );
        let config = app_config(&[a.path(), b.path()]);
        // Every candidate is listed; which load is discovery's business.
        assert_eq!(layer_files(&config).len(), 5);
        let registry = LayerRegistry::discover(&config);
        let mut names: Vec<&CStr> = registry.layers().iter().map(|l| l.name()).collect();
        // readdir order within a dir is unspecified: compare as sets, with the repeat counted.
        names.sort();
        assert_eq!(
            names,
            [
                c"VK_LAYER_test_fixed",
                c"VK_LAYER_test_x",
                c"VK_LAYER_test_x",
                c"VK_LAYER_test_z"
            ]
        );
        assert_eq!(
            registry.find(c"VK_LAYER_test_x").unwrap().library().path(),
            first
        );
        assert_eq!(
            registry
                .find(c"VK_LAYER_test_fixed")
                .unwrap()
                .library()
                .path(),
            fixed
        );
        assert!(registry.find(c"VK_LAYER_test_y").is_none());
    }

    /// AOSP's `ForEachFileInDir`: a dir's files in the order `readdir` returns them, not sorted.
    #[test]
    fn layer_files_follow_readdir_order() {
        let dir = tempfile::tempdir().unwrap();
        for name in [
            "libVkLayer_c.so",
            "libVkLayer_a.so",
            "libVkLayer_b.so",
            "notalayer.so",
        ] {
            std::fs::write(dir.path().join(name), b"").unwrap();
        }
        let readdir: Vec<PathBuf> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.file_name().unwrap() != "notalayer.so")
            .collect();
        assert_eq!(layer_files(&app_config(&[dir.path()])), readdir);
    }

    #[test]
    fn debug_dir_only_when_debuggable_and_searched_first() {
        let root = tempfile::tempdir().unwrap();
        let app = tempfile::tempdir().unwrap();
        let debug_dir = root.path().join(DEBUG_LAYER_DIR);
        std::fs::create_dir_all(&debug_dir).unwrap();
        build_layer(
            &debug_dir,
            "libVkLayer_dbg.so",
            &Fixture {
                layers: &["VK_LAYER_test_debug"],
                generic_gpa: true,
                ..Fixture::default()
            },
        );
        build_layer(
            app.path(),
            "libVkLayer_dbg.so",
            &Fixture {
                layers: &["VK_LAYER_test_app"],
                generic_gpa: true,
                ..Fixture::default()
            },
        );
        let release = LayerSettings {
            app_layer_path: vec![app.path().to_path_buf()],
            ..isolated_layers(root.path())
        };
        let registry = LayerRegistry::discover(&release);
        assert!(registry.find(c"VK_LAYER_test_debug").is_none());
        assert!(registry.find(c"VK_LAYER_test_app").is_some());
        let debuggable = LayerSettings {
            debuggable: true,
            ..release.clone()
        };
        assert_eq!(search_dirs(&debuggable)[0], debug_dir);
        let registry = LayerRegistry::discover(&debuggable);
        // Same file name: the debug dir's copy shadows the app's.
        assert!(registry.find(c"VK_LAYER_test_debug").is_some());
        assert!(registry.find(c"VK_LAYER_test_app").is_none());
    }

    /// Debian's Khronos validation layer, reached through a symlink in an app layer dir.
    #[test]
    fn khronos_validation_layer_via_symlink() {
        if !Path::new(VALIDATION_LAYER).exists() {
            eprintln!(
                "SKIPPED: {VALIDATION_LAYER} not installed (apt install vulkan-validationlayers)"
            );
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(
            VALIDATION_LAYER,
            dir.path().join("libVkLayer_khronos_validation.so"),
        )
        .unwrap();
        let registry = LayerRegistry::discover(&app_config(&[dir.path()]));
        let layer = registry
            .find(c"VK_LAYER_KHRONOS_validation")
            .expect("validation layer found");
        assert_eq!(layer.library().interface_version(), Some(2));
        assert!(layer.get_device_proc_addr().is_some());
        let exts: Vec<&CStr> = layer
            .instance_extensions()
            .iter()
            .map(|e| e.extension_name_as_c_str().unwrap())
            .collect();
        assert!(exts.contains(&c"VK_EXT_debug_utils"), "{exts:?}");
        // Debian's build exports no vkEnumerateDeviceLayerProperties, but answers it through its
        // negotiated GIPA, which lists it as a device layer: it is global.
        assert!(layer.is_global());
        let device_exts: Vec<&CStr> = layer
            .device_extensions()
            .iter()
            .map(|e| e.extension_name_as_c_str().unwrap())
            .collect();
        assert!(
            device_exts.contains(&c"VK_EXT_validation_cache"),
            "{device_exts:?}"
        );
        // Under AOSP's rule the same library is not negotiated with, so it is instance-only:
        // it exports no vkEnumerateDeviceLayerProperties (the documented host divergence).
        let aosp = LayerRegistry::discover(&LayerSettings {
            negotiation: Negotiation::Never,
            ..app_config(&[dir.path()])
        });
        let instance_only = aosp.find(c"VK_LAYER_KHRONOS_validation").unwrap();
        assert!(!instance_only.is_global());
        assert_eq!(instance_only.library().interface_version(), None);
        // Its GIPA, once opened, answers a global query.
        let layer = layer.open().unwrap();
        // SAFETY: global lookup through the opened layer's own GIPA.
        let f = unsafe {
            (layer.get_instance_proc_addr())(vk::Instance::null(), c"vkCreateInstance".as_ptr())
        };
        assert!(f.is_some());
    }
}
