//! The [`LayerRegistry`]: every layer discovery found ([`super::discovery`] fills it), Android's
//! and, on Linux hosts, the Khronos manifests' ([`super::host`]).

use std::ffi::CStr;
use std::sync::Arc;

use ash::vk;

use super::filters::LayerFilters;
use super::host::HostLayer;
use super::library::Layer;
use super::manifest;

/// Every layer discovery found: Android's, in discovery order (search dir order, then file name
/// order, then the library's own order), then on Linux hosts the Khronos manifests' (not loaded
/// until activated).
#[derive(Debug, Default, Clone)]
pub struct LayerRegistry {
    pub(super) layers: Vec<Arc<Layer>>,
    pub(super) host: Vec<Arc<HostLayer>>,
}

impl LayerRegistry {
    /// Android's layers (loaded at discovery).
    pub fn layers(&self) -> &[Arc<Layer>] {
        &self.layers
    }

    /// The Khronos manifest layers, including those `VK_LOADER_LAYERS_DISABLE` disables.
    pub fn host_layers(&self) -> &[Arc<HostLayer>] {
        &self.host
    }

    /// The Android layer named `name`, if discovered.
    pub fn find(&self, name: &CStr) -> Option<&Arc<Layer>> {
        self.layers.iter().find(|l| l.name() == name)
    }

    /// The manifest layer named `name` (disabled or not), if there is one and no Android layer
    /// shadows it.
    pub fn find_host(&self, name: &CStr) -> Option<&Arc<HostLayer>> {
        self.host
            .iter()
            .find(|l| l.name().as_bytes() == name.to_bytes())
    }

    /// What `vkEnumerateInstanceLayerProperties` lists: Android's layers, then the manifest
    /// layers `filters` do not disable.
    pub fn properties(&self, filters: &LayerFilters) -> Vec<vk::LayerProperties> {
        let android = self.layers.iter().map(|l| *l.properties());
        let host = self.available_host(filters).map(|l| *l.properties());
        android.chain(host).collect()
    }

    fn available_host<'a>(
        &'a self,
        filters: &'a LayerFilters,
    ) -> impl Iterator<Item = &'a Arc<HostLayer>> + 'a {
        self.host
            .iter()
            .filter(|l| l.disabled_reason(filters).is_none())
    }

    /// The instance extensions of the listed layer `name`, `None` if it is not listed.
    pub fn instance_extensions_of(
        &self,
        name: &CStr,
        filters: &LayerFilters,
    ) -> Option<Vec<vk::ExtensionProperties>> {
        if let Some(l) = self.find(name) {
            return Some(l.instance_extensions().to_vec());
        }
        let host = self
            .find_host(name)
            .filter(|l| l.disabled_reason(filters).is_none())?;
        Some(host.instance_extensions().to_vec())
    }

    /// The device extensions of the listed layer `name` (none for an Android layer that is not
    /// global), `None` if it is not listed.
    pub fn device_extensions_of(
        &self,
        name: &CStr,
        filters: &LayerFilters,
    ) -> Option<Vec<vk::ExtensionProperties>> {
        if let Some(l) = self.find(name) {
            let list = if l.is_global() {
                l.device_extensions()
            } else {
                &[]
            };
            return Some(list.to_vec());
        }
        let host = self
            .find_host(name)
            .filter(|l| l.disabled_reason(filters).is_none())?;
        Some(host.device_extensions().to_vec())
    }

    /// The implicit manifest layers active now (their environment and the filters allow them),
    /// in discovery order; each inactive one is logged with its reason.
    pub fn active_implicit_host<'a>(
        &'a self,
        filters: &'a LayerFilters,
    ) -> Vec<&'a Arc<HostLayer>> {
        self.available_host(filters)
            .filter(|l| l.is_implicit())
            .filter(|l| match l.implicit_inactive_reason(filters) {
                None => true,
                Some(why) => {
                    log::debug!("implicit layer {} inactive: {why}", l.name());
                    false
                }
            })
            .collect()
    }

    /// The pre-instance functions `pick` chooses of the implicit manifest layers active under
    /// `filters`, nearest the application first ([`HostLayer::pre_instance`]).
    ///
    /// # Safety
    /// `F` must be the chain function type of the command `pick` chooses.
    pub unsafe fn pre_instance_functions<F: Copy>(
        &self,
        filters: &LayerFilters,
        pick: fn(&manifest::PreInstanceFunctions) -> Option<&CStr>,
    ) -> Vec<F> {
        self.active_implicit_host(filters)
            .into_iter()
            // SAFETY: the caller guarantees `F` is the chain function type of `pick`'s command,
            // which is what `pre_instance` requires.
            .filter_map(|l| unsafe { l.pre_instance::<F>(pick) })
            .collect()
    }

    /// Number of layers discovered (manifest layers the filters disable included).
    pub fn len(&self) -> usize {
        self.layers.len() + self.host.len()
    }

    /// Whether no layer is listed.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
