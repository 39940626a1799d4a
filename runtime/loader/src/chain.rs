//! The layer call chains handed to layers through `pNext` (Android's `LayerChain`, Khronos'
//! `vk_layer.h` structs).
//!
//! For `n` active layers (index 0 nearest the application) the loader builds `n` link records,
//! link `i` describing what lies below layer `i`: layer `i + 1`, or the loader's terminator for
//! the last one. Two `VkLayer{Instance,Device}CreateInfo` nodes are prepended to the
//! application's `pNext` chain: first the `VK_LOADER_DATA_CALLBACK` node
//! (`vkSet{Instance,Device}LoaderData`), then the `VK_LAYER_LINK_INFO` node pointing at link 0.
//! Each layer takes its next `Get*ProcAddr` from the link node and advances it to the next
//! link before calling down, so the terminator sees a link node whose `pLayerInfo` is null. The
//! head's `vkCreateInstance` is fetched as `head_gipa(NULL, "vkCreateInstance")`; its
//! `vkCreateDevice` as `head_gipa(instance, "vkCreateDevice")`.
//!
//! Drivers never see these structs: [`skip_loader_structs`] drops the leading loader nodes
//! before the terminator passes `pNext` down (Android's `SanitizePNext`).
//!
//! The chain structs live in a [`InstanceChain`] / [`DeviceChain`] that must outlive the create
//! call (layers mutate the link node in place); nothing is kept afterwards.

use std::ffi::c_void;
use std::sync::Arc;

use vkgen_abi::layer::{
    LayerDeviceCreateInfo, LayerDeviceCreateInfoU, LayerDeviceLink, LayerFunction,
    LayerInstanceCreateInfo, LayerInstanceCreateInfoU, LayerInstanceLink,
    PFN_GetPhysicalDeviceProcAddr, LOADER_DEVICE_CREATE_INFO, LOADER_INSTANCE_CREATE_INFO,
};

use crate::dispatch_data::{set_device_loader_data, set_instance_loader_data};
use crate::layers::Layer;
use vkgen_generated::vk;

/// The instance chain for one `vkCreateInstance`.
pub struct InstanceChain {
    links: Box<[LayerInstanceLink]>,
    nodes: Box<[LayerInstanceCreateInfo; 2]>,
    head_gipa: vk::PFN_vkGetInstanceProcAddr,
}

impl InstanceChain {
    /// Links `layers` (index 0 nearest the application) above the terminator's
    /// `terminator_gipa` / `terminator_gpdpa`.
    pub fn new(
        layers: &[Arc<Layer>],
        terminator_gipa: vk::PFN_vkGetInstanceProcAddr,
        terminator_gpdpa: PFN_GetPhysicalDeviceProcAddr,
    ) -> Self {
        let mut links: Box<[LayerInstanceLink]> = (0..layers.len())
            .map(|i| {
                let below = layers.get(i + 1);
                LayerInstanceLink {
                    p_next: std::ptr::null_mut(),
                    pfn_next_get_instance_proc_addr: Some(
                        below.map_or(terminator_gipa, |l| l.get_instance_proc_addr()),
                    ),
                    pfn_next_get_physical_device_proc_addr: match below {
                        Some(l) => l.get_physical_device_proc_addr(),
                        None => Some(terminator_gpdpa),
                    },
                }
            })
            .collect();
        // The box's elements do not move when the box does, so these addresses stay valid.
        let base = links.as_mut_ptr();
        for i in 1..links.len() {
            // SAFETY: `i - 1` and `i` are in bounds of the same allocation.
            unsafe { (*base.add(i - 1)).p_next = base.add(i) };
        }
        let head_gipa = layers
            .first()
            .map_or(terminator_gipa, |l| l.get_instance_proc_addr());
        let first_link = if links.is_empty() {
            std::ptr::null_mut()
        } else {
            links.as_mut_ptr()
        };
        let mut nodes = Box::new([
            LayerInstanceCreateInfo {
                s_type: LOADER_INSTANCE_CREATE_INFO,
                p_next: std::ptr::null(),
                function: LayerFunction::LOADER_DATA_CALLBACK,
                u: LayerInstanceCreateInfoU {
                    pfn_set_instance_loader_data: Some(set_instance_loader_data),
                },
            },
            LayerInstanceCreateInfo {
                s_type: LOADER_INSTANCE_CREATE_INFO,
                p_next: std::ptr::null(),
                function: LayerFunction::LINK_INFO,
                u: LayerInstanceCreateInfoU {
                    p_layer_info: first_link,
                },
            },
        ]);
        nodes[0].p_next = std::ptr::from_ref(&nodes[1]).cast();
        Self {
            links,
            nodes,
            head_gipa,
        }
    }

    /// `vkGetInstanceProcAddr` of the head of the chain.
    pub fn head_gipa(&self) -> vk::PFN_vkGetInstanceProcAddr {
        self.head_gipa
    }

    /// A copy of `info` whose `pNext` starts with the chain nodes, then the application's chain.
    /// The result borrows `self` mutably: layers write to the link node through it.
    pub fn attach<'a>(
        &'a mut self,
        info: &vk::InstanceCreateInfo<'a>,
    ) -> vk::InstanceCreateInfo<'a> {
        self.nodes[1].p_next = info.p_next;
        let mut out = *info;
        out.p_next = std::ptr::from_mut(&mut self.nodes[0]).cast::<c_void>();
        out
    }

    /// Number of layers linked.
    pub fn len(&self) -> usize {
        self.links.len()
    }

    /// Whether no layer is linked (the terminator is the head).
    pub fn is_empty(&self) -> bool {
        self.links.is_empty()
    }
}

/// The device chain for one `vkCreateDevice`.
pub struct DeviceChain {
    links: Box<[LayerDeviceLink]>,
    nodes: Box<[LayerDeviceCreateInfo; 2]>,
    head_gipa: vk::PFN_vkGetInstanceProcAddr,
    head_gdpa: vk::PFN_vkGetDeviceProcAddr,
}

impl DeviceChain {
    /// Links `layers` (the instance's global layers, index 0 nearest the application) above
    /// the terminator's procs.
    pub fn new(
        layers: &[Arc<Layer>],
        terminator_gipa: vk::PFN_vkGetInstanceProcAddr,
        terminator_gdpa: vk::PFN_vkGetDeviceProcAddr,
    ) -> Self {
        let gdpa_of = |l: &Arc<Layer>| l.get_device_proc_addr().unwrap_or(terminator_gdpa);
        let mut links: Box<[LayerDeviceLink]> = (0..layers.len())
            .map(|i| {
                let below = layers.get(i + 1);
                LayerDeviceLink {
                    p_next: std::ptr::null_mut(),
                    pfn_next_get_instance_proc_addr: Some(
                        below.map_or(terminator_gipa, |l| l.get_instance_proc_addr()),
                    ),
                    pfn_next_get_device_proc_addr: Some(below.map_or(terminator_gdpa, gdpa_of)),
                }
            })
            .collect();
        let base = links.as_mut_ptr();
        for i in 1..links.len() {
            // SAFETY: `i - 1` and `i` are in bounds of the same allocation.
            unsafe { (*base.add(i - 1)).p_next = base.add(i) };
        }
        let head_gipa = layers
            .first()
            .map_or(terminator_gipa, |l| l.get_instance_proc_addr());
        let head_gdpa = layers.first().map_or(terminator_gdpa, gdpa_of);
        let first_link = if links.is_empty() {
            std::ptr::null_mut()
        } else {
            links.as_mut_ptr()
        };
        let mut nodes = Box::new([
            LayerDeviceCreateInfo {
                s_type: LOADER_DEVICE_CREATE_INFO,
                p_next: std::ptr::null(),
                function: LayerFunction::LOADER_DATA_CALLBACK,
                u: LayerDeviceCreateInfoU {
                    pfn_set_device_loader_data: Some(set_device_loader_data),
                },
            },
            LayerDeviceCreateInfo {
                s_type: LOADER_DEVICE_CREATE_INFO,
                p_next: std::ptr::null(),
                function: LayerFunction::LINK_INFO,
                u: LayerDeviceCreateInfoU {
                    p_layer_info: first_link,
                },
            },
        ]);
        nodes[0].p_next = std::ptr::from_ref(&nodes[1]).cast();
        Self {
            links,
            nodes,
            head_gipa,
            head_gdpa,
        }
    }

    /// `vkGetInstanceProcAddr` of the head of the device chain.
    pub fn head_gipa(&self) -> vk::PFN_vkGetInstanceProcAddr {
        self.head_gipa
    }

    /// `vkGetDeviceProcAddr` of the head of the device chain.
    pub fn head_gdpa(&self) -> vk::PFN_vkGetDeviceProcAddr {
        self.head_gdpa
    }

    /// A copy of `info` whose `pNext` starts with the chain nodes.
    pub fn attach<'a>(&'a mut self, info: &vk::DeviceCreateInfo<'a>) -> vk::DeviceCreateInfo<'a> {
        self.nodes[1].p_next = info.p_next;
        let mut out = *info;
        out.p_next = std::ptr::from_mut(&mut self.nodes[0]).cast::<c_void>();
        out
    }

    /// Number of layers linked.
    pub fn len(&self) -> usize {
        self.links.len()
    }

    /// Whether no layer is linked.
    pub fn is_empty(&self) -> bool {
        self.links.is_empty()
    }
}

/// The first structure of a `pNext` chain that is not one of the loader's chain nodes of type
/// `s_type` (Android's `SanitizePNext`: the nodes the loader prepended are leading).
///
/// # Safety
/// `p_next` must be null or a valid Vulkan structure chain.
pub unsafe fn skip_loader_structs(
    p_next: *const c_void,
    s_type: vk::StructureType,
) -> *const c_void {
    // SAFETY: `p_next` is null or a valid chain (this function's contract).
    unsafe { vkgen_generated::chain::chain(p_next) }
        .find(|s| s.s_type != s_type)
        .map_or(std::ptr::null(), |s| std::ptr::from_ref(s).cast())
}

/// Whether a chain still contains a loader node of `s_type` after the leading ones (logged:
/// the driver would see it).
///
/// # Safety
/// As [`skip_loader_structs`].
pub unsafe fn has_loader_struct(p_next: *const c_void, s_type: vk::StructureType) -> bool {
    // SAFETY: `p_next` is null or a valid chain (this function's contract).
    unsafe { vkgen_generated::chain::chain(p_next) }.any(|s| s.s_type == s_type)
}

#[cfg(test)]
mod tests {
    use super::*;

    unsafe extern "system" fn gipa(
        _: vk::Instance,
        _: *const std::ffi::c_char,
    ) -> vk::PFN_vkVoidFunction {
        None
    }
    unsafe extern "system" fn gpdpa(
        _: vk::Instance,
        _: *const std::ffi::c_char,
    ) -> vk::PFN_vkVoidFunction {
        None
    }
    unsafe extern "system" fn gdpa(
        _: vk::Device,
        _: *const std::ffi::c_char,
    ) -> vk::PFN_vkVoidFunction {
        None
    }

    #[test]
    fn no_layers_means_the_terminator_is_the_head_and_the_link_is_empty() {
        let mut chain = InstanceChain::new(&[], gipa, gpdpa);
        assert!(chain.is_empty());
        assert_eq!(chain.head_gipa() as usize, gipa as *const () as usize);
        let app_next = vk::ValidationFeaturesEXT::default();
        let info = vk::InstanceCreateInfo {
            p_next: std::ptr::from_ref(&app_next).cast(),
            ..Default::default()
        };
        let attached = chain.attach(&info);
        // SAFETY: the chain is made of live structs.
        unsafe {
            let first = &*attached.p_next.cast::<LayerInstanceCreateInfo>();
            assert_eq!(first.s_type, LOADER_INSTANCE_CREATE_INFO);
            assert_eq!(first.function, LayerFunction::LOADER_DATA_CALLBACK);
            let second = &*first.p_next.cast::<LayerInstanceCreateInfo>();
            assert_eq!(second.function, LayerFunction::LINK_INFO);
            assert!(second.u.p_layer_info.is_null());
            let rest = skip_loader_structs(attached.p_next, LOADER_INSTANCE_CREATE_INFO);
            assert_eq!(rest, std::ptr::from_ref(&app_next).cast());
            assert!(!has_loader_struct(rest, LOADER_INSTANCE_CREATE_INFO));
        }
    }

    #[test]
    fn device_chain_without_layers() {
        let mut chain = DeviceChain::new(&[], gipa, gdpa);
        assert_eq!(chain.head_gdpa() as usize, gdpa as *const () as usize);
        let info = vk::DeviceCreateInfo::default();
        let attached = chain.attach(&info);
        // SAFETY: the chain is made of live structs.
        unsafe {
            let rest = skip_loader_structs(attached.p_next, LOADER_DEVICE_CREATE_INFO);
            assert!(rest.is_null());
        }
    }
}
