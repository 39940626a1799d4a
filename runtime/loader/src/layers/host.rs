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

use std::ffi::CStr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use ash::vk;
use libloading::os::unix::Library;
use vkgen_abi::layer::PFN_vkNegotiateLoaderLayerInterfaceVersion;

use super::entry_points::{negotiate_interface, typed};
use super::filters::LayerFilters;
use super::manifest::{manifest_files, parse, HostLayers, ManifestLayer, PreInstanceFunctions};
use super::{Layer, LayerError, LayerLibrary};
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
    pub fn disabled_reason(&self, filters: &LayerFilters) -> Option<&'static str> {
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
    /// (read now, through [`crate::trusted_env`]), else why not.
    pub fn implicit_inactive_reason(&self, filters: &LayerFilters) -> Option<String> {
        self.layer
            .implicit_inactive_reason(filters, &crate::trusted_env)
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
            negotiation: super::Negotiation::WhenExported,
        }),
        host_implicit: implicit,
    })
}

/// Every usable manifest layer of `config` (implicit dirs first, then explicit), none of whose
/// libraries is opened; names in `android` or earlier manifests shadow later ones.
pub fn discover(config: &HostLayers, android: &[Arc<Layer>]) -> Vec<Arc<HostLayer>> {
    let mut found: Vec<Arc<HostLayer>> = Vec::new();
    let groups = [
        (&config.implicit_paths, true),
        (&config.manifest_paths, false),
    ];
    for (paths, implicit) in groups {
        for manifest in manifest_files(paths) {
            let parsed = std::fs::read_to_string(&manifest)
                .map_err(|e| e.to_string())
                .and_then(|text| parse(&manifest, &text));
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
                let name = layer.name.as_bytes();
                if android.iter().any(|l| l.name().to_bytes() == name) {
                    skip("Android discovery found a layer of that name (it is preferred)");
                    continue;
                }
                if found.iter().any(|l| l.name().as_bytes() == name) {
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
