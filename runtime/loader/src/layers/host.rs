//! Layers from Khronos manifests (Linux hosts, [`super::manifest`]): found at loader start from
//! their JSON alone, their libraries opened only when an instance activates them (Debian's dirs
//! hold layers such as nullhw, overlay and device_select that most programs never use).
//!
//! A [`HostLayer`] answers the global queries (`vkEnumerateInstanceLayerProperties`, extension
//! lists) from its manifest, as the Khronos loader does. [`HostLayer::load`] opens the library
//! once per process and builds a [`Layer`]: `vkNegotiateLoaderLayerInterfaceVersion` (or its
//! `functions` rename) when exported, offered interface 2, whose entry points win; otherwise the
//! `functions` renames or the standard `vkGetInstanceProcAddr` / `vkGetDeviceProcAddr` exports.
//! A layer with a `vkGetDeviceProcAddr` is chained into devices.
//!
//! Precedence: a name Android discovery found shadows every manifest layer of that name; among
//! manifests the first found wins (implicit dirs, then explicit dirs, each in search order).
//! Every skipped manifest or layer is logged with its reason.
//!
//! Bounds (issue 36): a manifest is read only if it is a regular file of at most
//! [`MAX_LAYER_MANIFEST_BYTES`] (a 2 GB file cost every application 16.8 s and 2 GB at start),
//! and shadowing is decided with hash sets, so discovery stays linear in the number of layers
//! (50,000 took 14.9 s with a scan per layer).

use std::ffi::CStr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use ash::vk;
use libloading::os::unix::Library;
use vkgen_abi::layer::PFN_vkNegotiateLoaderLayerInterfaceVersion;

use super::entry_points::{negotiate_interface, typed};
use super::error::LayerError;
use super::filters::LayerFilters;
use super::library::{Layer, LayerLibrary};
use super::manifest::{manifest_files, parse, HostLayers, ManifestLayer, PreInstanceFunctions};
use crate::driver::open_library;

/// One manifest layer.
#[derive(Debug)]
pub struct HostLayer {
    manifest: PathBuf,
    layer: ManifestLayer,
    implicit: bool,
    loaded: OnceLock<Result<Arc<Layer>, String>>,
}

impl HostLayer {
    /// The layer's name.
    pub fn name(&self) -> &str {
        &self.layer.name
    }

    /// What the manifest says.
    pub fn manifest_layer(&self) -> &ManifestLayer {
        &self.layer
    }

    /// Whether it came from an implicit layer dir.
    pub fn is_implicit(&self) -> bool {
        self.implicit
    }

    /// Why `filters` (the `VK_LOADER_LAYERS_*` values of the moment) disable it, if they do.
    pub fn disabled_reason(&self, filters: &LayerFilters) -> Option<String> {
        filters.disabled_reason(&self.layer.name, self.implicit)
    }

    /// The layer's properties, from its manifest.
    pub fn properties(&self) -> &vk::LayerProperties {
        &self.layer.properties
    }

    /// The manifest's `instance_extensions`.
    pub fn instance_extensions(&self) -> &[vk::ExtensionProperties] {
        &self.layer.instance_extensions
    }

    /// The manifest's `device_extensions`.
    pub fn device_extensions(&self) -> &[vk::ExtensionProperties] {
        &self.layer.device_extensions
    }

    /// For an implicit layer that is not disabled: `None` when its environment activates it
    /// (read now, through [`crate::host_env::trusted_env`]), else why not.
    pub fn implicit_inactive_reason(&self, filters: &LayerFilters) -> Option<String> {
        #[cfg(not(target_os = "android"))]
        let env = &crate::host_env::trusted_env;
        // Android has no host layers (no manifests are read), and no environment to ask.
        #[cfg(target_os = "android")]
        let env = &|_: &str| None;
        self.layer.implicit_inactive_reason(filters, env)
    }

    /// The pre-instance function `pick` chooses from the manifest's `pre_instance_functions`, as
    /// `F`, the library loaded for it (once per process, kept loaded); `None` when the manifest
    /// names none or the library cannot be loaded or lacks the symbol (logged).
    ///
    /// # Safety
    /// `F` must be the chain function type of the command `pick` chooses.
    pub unsafe fn pre_instance<F: Copy>(
        &self,
        pick: fn(&PreInstanceFunctions) -> Option<&CStr>,
    ) -> Option<F> {
        let symbol = pick(&self.layer.pre_instance)?;
        let layer = match self.load() {
            Ok(layer) => layer,
            Err(e) => {
                log::warn!("{e}: its pre-instance function {symbol:?} is skipped");
                return None;
            }
        };
        // A host layer's library is always open (`_library` is `None` only for the closed
        // Android layers of the registry).
        let library = layer.library._library.as_ref()?;
        // SAFETY: the caller guarantees `F` is the pre-instance function type `symbol` names;
        // `layer.library` is kept loaded for the process's lifetime, so the function outlives every
        // call.
        let f = unsafe { super::pre_instance::symbol_as::<F>(library, symbol) };
        if f.is_none() {
            log::warn!(
                "layer {}: pre-instance function {symbol:?} not exported",
                self.name()
            );
        }
        f
    }

    /// The loaded layer: the library is opened at the first call, and the outcome (layer or
    /// failure) kept for the process's lifetime.
    pub fn load(&self) -> Result<Arc<Layer>, LayerError> {
        let outcome = self.loaded.get_or_init(|| {
            load(&self.layer, self.implicit)
                .map(|layer| {
                    log::info!(
                        "layer {} loaded from {} (manifest {})",
                        self.layer.name,
                        self.layer.library.display(),
                        self.manifest.display()
                    );
                    Arc::new(layer)
                })
                .map_err(|e| e.to_string())
        });
        outcome.clone().map_err(|reason| LayerError::HostLoad {
            name: self.layer.name.clone(),
            reason,
        })
    }
}

/// The symbol `name` (or the manifest's rename) as `F`.
///
/// # Safety
/// `F` must be the type the layer interface gives `standard`.
unsafe fn renamed<F: Copy>(library: &Library, rename: Option<&CStr>, standard: &CStr) -> Option<F> {
    // SAFETY: the caller guarantees `F` is `standard`'s type, and a manifest rename names a
    // function of the standard one's type (the layer manifest's `functions` contract).
    unsafe { typed(library, rename.unwrap_or(standard)) }
}

/// Opens a manifest layer's library and builds its [`Layer`].
fn load(m: &ManifestLayer, implicit: bool) -> Result<Layer, LayerError> {
    let path: &Path = &m.library;
    let library = open_library(path).map_err(|source| LayerError::Open {
        path: path.to_path_buf(),
        source: source.into(),
    })?;
    let f = &m.functions;
    let negotiate: Option<PFN_vkNegotiateLoaderLayerInterfaceVersion> =
        // SAFETY: the layer interface fixes this function's type.
        unsafe { renamed(&library, f.negotiate.as_deref(), c"vkNegotiateLoaderLayerInterfaceVersion") };
    let negotiated = match negotiate {
        Some(n) => Some(negotiate_interface(path, n)?),
        None => None,
    };
    let procs = negotiated.filter(|n| n.loader_layer_interface_version >= 2);
    let gipa: Option<vk::PFN_vkGetInstanceProcAddr> = procs
        .and_then(|n| n.pfn_get_instance_proc_addr)
        // SAFETY: the symbol (standard or renamed) is the layer's vkGetInstanceProcAddr.
        .or_else(|| unsafe {
            renamed(
                &library,
                f.get_instance_proc_addr.as_deref(),
                c"vkGetInstanceProcAddr",
            )
        });
    let gdpa: Option<vk::PFN_vkGetDeviceProcAddr> = procs
        .and_then(|n| n.pfn_get_device_proc_addr)
        // SAFETY: the symbol (standard or renamed) is the layer's vkGetDeviceProcAddr.
        .or_else(|| unsafe {
            renamed(
                &library,
                f.get_device_proc_addr.as_deref(),
                c"vkGetDeviceProcAddr",
            )
        });
    let Some(gipa) = gipa else {
        return Err(LayerError::NoGetInstanceProcAddr {
            path: path.to_path_buf(),
            layer: m.name.clone(),
        });
    };
    Ok(Layer {
        properties: m.properties,
        instance_extensions: m.instance_extensions.clone(),
        device_extensions: m.device_extensions.clone(),
        is_global: gdpa.is_some(),
        get_instance_proc_addr: gipa,
        get_device_proc_addr: gdpa,
        get_physical_device_proc_addr: procs.and_then(|n| n.pfn_get_physical_device_proc_addr),
        library: Arc::new(LayerLibrary {
            path: path.to_path_buf(),
            interface_version: negotiated.map(|n| n.loader_layer_interface_version),
            _library: Some(library),
            reopen: None,
            // Manifest layers are Khronos': they always negotiate, Android or not.
            negotiation: super::entry_points::Negotiation::WhenExported,
        }),
        host_implicit: implicit,
    })
}

/// The largest layer manifest read; Khronos' own are a few KiB.
pub const MAX_LAYER_MANIFEST_BYTES: u64 = 1 << 20;

/// A manifest's text: a regular file (opened without blocking, so a FIFO named `*.json` cannot
/// hang the loader) of at most [`MAX_LAYER_MANIFEST_BYTES`], else why not.
fn read_manifest(path: &Path) -> Result<String, String> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| e.to_string())?;
    let meta = file.metadata().map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("not a regular file".into());
    }
    let too_big = || format!("larger than {MAX_LAYER_MANIFEST_BYTES} bytes; refused");
    if meta.len() > MAX_LAYER_MANIFEST_BYTES {
        return Err(too_big());
    }
    let mut text = String::new();
    file.take(MAX_LAYER_MANIFEST_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(|e| e.to_string())?;
    if text.len() as u64 > MAX_LAYER_MANIFEST_BYTES {
        return Err(too_big());
    }
    Ok(text)
}

/// Every usable manifest layer of `config` (implicit dirs first, then explicit), none of whose
/// libraries is opened; names in `android` or earlier manifests shadow later ones.
pub fn discover(config: &HostLayers, android: &[Arc<Layer>]) -> Vec<Arc<HostLayer>> {
    let mut found: Vec<Arc<HostLayer>> = Vec::new();
    let android_names: std::collections::HashSet<&[u8]> =
        android.iter().map(|l| l.name().to_bytes()).collect();
    let mut found_names: std::collections::HashSet<String> = std::collections::HashSet::new();
    let groups = [
        (&config.implicit_paths, true),
        (&config.manifest_paths, false),
    ];
    for (paths, implicit) in groups {
        for manifest in manifest_files(paths) {
            let parsed = read_manifest(&manifest).and_then(|text| parse(&manifest, &text));
            let entries = match parsed {
                Ok(entries) => entries,
                Err(why) => {
                    log::warn!("layer manifest {} skipped: {why}", manifest.display());
                    continue;
                }
            };
            for layer in entries {
                let skip = |why: &str| {
                    log::info!(
                        "layer {} of manifest {} skipped: {why}",
                        layer.name,
                        manifest.display()
                    );
                };
                if android_names.contains(layer.name.as_bytes()) {
                    skip("Android discovery found a layer of that name (it is preferred)");
                    continue;
                }
                if found_names.contains(&layer.name) {
                    skip("an earlier manifest has a layer of that name");
                    continue;
                }
                if implicit && layer.disable_environment.is_none() {
                    skip("an implicit layer without disable_environment");
                    continue;
                }
                // The `VK_LOADER_LAYERS_*` filters apply per query and per instance, not here.
                log::debug!(
                    "{} layer {} found through manifest {} (library {}, opened on activation)",
                    if implicit { "implicit" } else { "explicit" },
                    layer.name,
                    manifest.display(),
                    layer.library.display()
                );
                found_names.insert(layer.name.clone());
                found.push(Arc::new(HostLayer {
                    manifest: manifest.clone(),
                    layer,
                    implicit,
                    loaded: OnceLock::new(),
                }));
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layer_json(name: &str) -> String {
        format!(
            r#"{{"name":"{name}","type":"GLOBAL","library_path":"libVkLayer_x.so","api_version":"1.3.0","implementation_version":"1","description":"x"}}"#
        )
    }

    fn explicit(dir: &Path) -> HostLayers {
        HostLayers {
            manifest_paths: vec![dir.to_path_buf()],
            implicit_paths: Vec::new(),
        }
    }

    /// Issue 36: a 2 GB manifest (sparse here) is refused from its size, beside a good one.
    #[test]
    fn oversized_manifests_are_skipped_without_being_read() {
        let dir = tempfile::tempdir().unwrap();
        let big = std::fs::File::create(dir.path().join("a_big.json")).unwrap();
        big.set_len(2 << 30).unwrap();
        let good = format!(
            r#"{{"file_format_version":"1.2.0","layer":{}}}"#,
            layer_json("VK_LAYER_good")
        );
        std::fs::write(dir.path().join("b_good.json"), good).unwrap();
        assert!(read_manifest(&dir.path().join("a_big.json"))
            .unwrap_err()
            .contains("larger than"));
        let t = std::time::Instant::now();
        let found = discover(&explicit(dir.path()), &[]);
        assert!(
            t.elapsed() < std::time::Duration::from_secs(2),
            "{:?}",
            t.elapsed()
        );
        let names: Vec<&str> = found.iter().map(|l| l.name()).collect();
        assert_eq!(names, ["VK_LAYER_good"]);
    }

    /// Issue 36: 50,000 layers (50 manifests of 1,000; the last repeats the first's names) are
    /// found in linear time, the first of each name winning.
    #[test]
    fn fifty_thousand_layers_are_discovered_in_linear_time() {
        let dir = tempfile::tempdir().unwrap();
        for f in 0..50 {
            // Manifest 49 repeats manifest 0's names: shadowed.
            let base = if f == 49 { 0 } else { f };
            let layers: Vec<String> = (0..1000)
                .map(|i| layer_json(&format!("VK_LAYER_{}_{i}", base)))
                .collect();
            let text = format!(
                r#"{{"file_format_version":"1.2.0","layers":[{}]}}"#,
                layers.join(",")
            );
            std::fs::write(dir.path().join(format!("m{f:02}.json")), text).unwrap();
        }
        let t = std::time::Instant::now();
        let found = discover(&explicit(dir.path()), &[]);
        assert!(
            t.elapsed() < std::time::Duration::from_secs(5),
            "{:?}",
            t.elapsed()
        );
        assert_eq!(found.len(), 49_000);
        assert!(found.iter().all(|l| !l.manifest.ends_with("m49.json")));
    }
}
