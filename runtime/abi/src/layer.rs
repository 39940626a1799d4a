//! Khronos loader–layer interface, `vk_layer.h`.
//!
//! The loader builds the instance and device call chains out of these structs, and layers (the
//! Khronos validation layer among them) walk them in `vkCreateInstance`/`vkCreateDevice`. Android's
//! `vk_layer_interface.h` declares a prefix of the same layout (layers there read only `sType`,
//! `pNext`, `function` and the first union members), so one set of types serves both.
//! C enums are `#[repr(transparent)]` newtypes, not Rust enums, because values come from foreign
//! code and an unknown value must not be undefined behaviour.

use std::ffi::{c_char, c_void};

use ash::vk;

/// `CURRENT_LOADER_LAYER_INTERFACE_VERSION`.
pub const CURRENT_LOADER_LAYER_INTERFACE_VERSION: u32 = 2;
/// `MIN_SUPPORTED_LOADER_LAYER_INTERFACE_VERSION`.
pub const MIN_SUPPORTED_LOADER_LAYER_INTERFACE_VERSION: u32 = 1;
/// `VK_CURRENT_CHAIN_VERSION`: version of the pre-instance chain structs.
pub const VK_CURRENT_CHAIN_VERSION: u32 = 1;
/// `MAX_NUM_UNKNOWN_EXTS`: the Khronos loader's limit on unknown commands.
pub const MAX_NUM_UNKNOWN_EXTS: usize = 250;

/// `VkStructureType` of [`LayerInstanceCreateInfo`] (`VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO`).
pub const LOADER_INSTANCE_CREATE_INFO: vk::StructureType =
    vk::StructureType::LOADER_INSTANCE_CREATE_INFO;
/// `VkStructureType` of [`LayerDeviceCreateInfo`] (`VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO`).
pub const LOADER_DEVICE_CREATE_INFO: vk::StructureType =
    vk::StructureType::LOADER_DEVICE_CREATE_INFO;

/// `PFN_GetPhysicalDeviceProcAddr` (`vk_layerGetPhysicalDeviceProcAddr`, layer interface ≥ 2).
#[allow(non_camel_case_types)]
pub type PFN_GetPhysicalDeviceProcAddr = unsafe extern "system" fn(
    instance: vk::Instance,
    p_name: *const c_char,
) -> vk::PFN_vkVoidFunction;

/// `PFN_vkSetInstanceLoaderData`: lets a layer stamp the loader's dispatch pointer into a
/// dispatchable object it created itself.
#[allow(non_camel_case_types)]
pub type PFN_vkSetInstanceLoaderData =
    unsafe extern "system" fn(instance: vk::Instance, object: *mut c_void) -> vk::Result;

/// `PFN_vkSetDeviceLoaderData`: device-level counterpart of [`PFN_vkSetInstanceLoaderData`].
#[allow(non_camel_case_types)]
pub type PFN_vkSetDeviceLoaderData =
    unsafe extern "system" fn(device: vk::Device, object: *mut c_void) -> vk::Result;

/// `PFN_vkLayerCreateDevice`: loader callback that lets an instance layer create a device chain.
#[allow(non_camel_case_types)]
pub type PFN_vkLayerCreateDevice = unsafe extern "system" fn(
    instance: vk::Instance,
    physical_device: vk::PhysicalDevice,
    p_create_info: *const vk::DeviceCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_device: *mut vk::Device,
    layer_gipa: Option<vk::PFN_vkGetInstanceProcAddr>,
    next_gdpa: *mut Option<vk::PFN_vkGetDeviceProcAddr>,
) -> vk::Result;

/// `PFN_vkLayerDestroyDevice`.
#[allow(non_camel_case_types)]
pub type PFN_vkLayerDestroyDevice = unsafe extern "system" fn(
    device: vk::Device,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    destroy_function: Option<vk::PFN_vkDestroyDevice>,
);

/// `PFN_vkNegotiateLoaderLayerInterfaceVersion`.
#[allow(non_camel_case_types)]
pub type PFN_vkNegotiateLoaderLayerInterfaceVersion =
    unsafe extern "system" fn(p_version_struct: *mut NegotiateLayerInterface) -> vk::Result;

/// `VkNegotiateLayerStructType`.
#[doc(alias = "VkNegotiateLayerStructType")]
#[repr(transparent)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct NegotiateLayerStructType(pub i32);

impl NegotiateLayerStructType {
    /// `LAYER_NEGOTIATE_UNINTIALIZED` (sic).
    pub const UNINITIALIZED: Self = Self(0);
    /// `LAYER_NEGOTIATE_INTERFACE_STRUCT`.
    pub const INTERFACE_STRUCT: Self = Self(1);
}

/// `VkNegotiateLayerInterface`: in/out argument of `vkNegotiateLoaderLayerInterfaceVersion`.
#[doc(alias = "VkNegotiateLayerInterface")]
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct NegotiateLayerInterface {
    pub s_type: NegotiateLayerStructType,
    pub p_next: *mut c_void,
    pub loader_layer_interface_version: u32,
    pub pfn_get_instance_proc_addr: Option<vk::PFN_vkGetInstanceProcAddr>,
    pub pfn_get_device_proc_addr: Option<vk::PFN_vkGetDeviceProcAddr>,
    pub pfn_get_physical_device_proc_addr: Option<PFN_GetPhysicalDeviceProcAddr>,
}

impl Default for NegotiateLayerInterface {
    /// What the loader passes in: the struct tag and its own version, no entry points yet.
    fn default() -> Self {
        Self {
            s_type: NegotiateLayerStructType::INTERFACE_STRUCT,
            p_next: std::ptr::null_mut(),
            loader_layer_interface_version: CURRENT_LOADER_LAYER_INTERFACE_VERSION,
            pfn_get_instance_proc_addr: None,
            pfn_get_device_proc_addr: None,
            pfn_get_physical_device_proc_addr: None,
        }
    }
}

/// `VkLayerFunction`: which union member of a chain-info node is meaningful.
#[doc(alias = "VkLayerFunction")]
#[repr(transparent)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct LayerFunction(pub i32);

impl LayerFunction {
    /// `VK_LAYER_LINK_INFO`: `u.pLayerInfo`.
    pub const LINK_INFO: Self = Self(0);
    /// `VK_LOADER_DATA_CALLBACK`: `u.pfnSetInstanceLoaderData` / `u.pfnSetDeviceLoaderData`.
    pub const LOADER_DATA_CALLBACK: Self = Self(1);
    /// `VK_LOADER_LAYER_CREATE_DEVICE_CALLBACK`: `u.layerDevice` (instance chain only).
    pub const LOADER_LAYER_CREATE_DEVICE_CALLBACK: Self = Self(2);
    /// `VK_LOADER_FEATURES`: `u.loaderFeatures` (instance chain only).
    pub const LOADER_FEATURES: Self = Self(3);
}

/// `VkLoaderFeatureFlags` bit `VK_LOADER_FEATURE_PHYSICAL_DEVICE_SORTING`.
pub const LOADER_FEATURE_PHYSICAL_DEVICE_SORTING: vk::Flags = 0x1;

/// `VkLayerInstanceLink`: one element of the instance call chain, seen from the layer above it.
#[doc(alias = "VkLayerInstanceLink")]
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct LayerInstanceLink {
    pub p_next: *mut LayerInstanceLink,
    pub pfn_next_get_instance_proc_addr: Option<vk::PFN_vkGetInstanceProcAddr>,
    pub pfn_next_get_physical_device_proc_addr: Option<PFN_GetPhysicalDeviceProcAddr>,
}

/// `VkLayerDeviceInfo` (legacy, unused by current loaders but still in the header).
#[doc(alias = "VkLayerDeviceInfo")]
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct LayerDeviceInfo {
    pub device_info: *mut c_void,
    pub pfn_next_get_instance_proc_addr: Option<vk::PFN_vkGetInstanceProcAddr>,
}

/// The `layerDevice` member of [`LayerInstanceCreateInfoU`].
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct LayerDeviceCallbacks {
    pub pfn_layer_create_device: Option<PFN_vkLayerCreateDevice>,
    pub pfn_layer_destroy_device: Option<PFN_vkLayerDestroyDevice>,
}

/// The anonymous union `u` of `VkLayerInstanceCreateInfo`; read the member [`LayerFunction`]
/// names.
#[repr(C)]
#[derive(Clone, Copy)]
pub union LayerInstanceCreateInfoU {
    pub p_layer_info: *mut LayerInstanceLink,
    pub pfn_set_instance_loader_data: Option<PFN_vkSetInstanceLoaderData>,
    pub layer_device: LayerDeviceCallbacks,
    pub loader_features: vk::Flags,
}

/// `VkLayerInstanceCreateInfo` (`sType` = [`LOADER_INSTANCE_CREATE_INFO`]), found in the
/// `pNext` chain of `VkInstanceCreateInfo`.
#[doc(alias = "VkLayerInstanceCreateInfo")]
#[repr(C)]
#[derive(Clone, Copy)]
pub struct LayerInstanceCreateInfo {
    pub s_type: vk::StructureType,
    pub p_next: *const c_void,
    pub function: LayerFunction,
    pub u: LayerInstanceCreateInfoU,
}

impl std::fmt::Debug for LayerInstanceCreateInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The union is deliberately not printed: which member is live depends on `function`,
        // and a foreign value may name none of them.
        f.debug_struct("LayerInstanceCreateInfo")
            .field("s_type", &self.s_type)
            .field("p_next", &self.p_next)
            .field("function", &self.function)
            .finish_non_exhaustive()
    }
}

/// `VkLayerDeviceLink`: one element of the device call chain.
#[doc(alias = "VkLayerDeviceLink")]
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct LayerDeviceLink {
    pub p_next: *mut LayerDeviceLink,
    pub pfn_next_get_instance_proc_addr: Option<vk::PFN_vkGetInstanceProcAddr>,
    pub pfn_next_get_device_proc_addr: Option<vk::PFN_vkGetDeviceProcAddr>,
}

/// The anonymous union `u` of `VkLayerDeviceCreateInfo`.
#[repr(C)]
#[derive(Clone, Copy)]
pub union LayerDeviceCreateInfoU {
    pub p_layer_info: *mut LayerDeviceLink,
    pub pfn_set_device_loader_data: Option<PFN_vkSetDeviceLoaderData>,
}

/// `VkLayerDeviceCreateInfo` (`sType` = [`LOADER_DEVICE_CREATE_INFO`]), found in the `pNext`
/// chain of `VkDeviceCreateInfo`.
#[doc(alias = "VkLayerDeviceCreateInfo")]
#[repr(C)]
#[derive(Clone, Copy)]
pub struct LayerDeviceCreateInfo {
    pub s_type: vk::StructureType,
    pub p_next: *const c_void,
    pub function: LayerFunction,
    pub u: LayerDeviceCreateInfoU,
}

impl std::fmt::Debug for LayerDeviceCreateInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // See `LayerInstanceCreateInfo`'s Debug for why the union is skipped.
        f.debug_struct("LayerDeviceCreateInfo")
            .field("s_type", &self.s_type)
            .field("p_next", &self.p_next)
            .field("function", &self.function)
            .finish_non_exhaustive()
    }
}

/// `VkChainType`: which pre-instance command a [`ChainHeader`] belongs to.
#[doc(alias = "VkChainType")]
#[repr(transparent)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ChainType(pub i32);

impl ChainType {
    pub const UNKNOWN: Self = Self(0);
    pub const ENUMERATE_INSTANCE_EXTENSION_PROPERTIES: Self = Self(1);
    pub const ENUMERATE_INSTANCE_LAYER_PROPERTIES: Self = Self(2);
    pub const ENUMERATE_INSTANCE_VERSION: Self = Self(3);
}

/// `VkChainHeader`: header of the chains implicit layers use to intercept the three pre-instance
/// commands.
#[doc(alias = "VkChainHeader")]
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ChainHeader {
    pub type_: ChainType,
    pub version: u32,
    pub size: u32,
}

/// `VkEnumerateInstanceExtensionPropertiesChain`.
#[doc(alias = "VkEnumerateInstanceExtensionPropertiesChain")]
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct EnumerateInstanceExtensionPropertiesChain {
    pub header: ChainHeader,
    pub pfn_next_layer: Option<
        unsafe extern "system" fn(
            chain: *const EnumerateInstanceExtensionPropertiesChain,
            p_layer_name: *const c_char,
            p_property_count: *mut u32,
            p_properties: *mut vk::ExtensionProperties,
        ) -> vk::Result,
    >,
    pub p_next_link: *const EnumerateInstanceExtensionPropertiesChain,
}

/// `VkEnumerateInstanceLayerPropertiesChain`.
#[doc(alias = "VkEnumerateInstanceLayerPropertiesChain")]
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct EnumerateInstanceLayerPropertiesChain {
    pub header: ChainHeader,
    pub pfn_next_layer: Option<
        unsafe extern "system" fn(
            chain: *const EnumerateInstanceLayerPropertiesChain,
            p_property_count: *mut u32,
            p_properties: *mut vk::LayerProperties,
        ) -> vk::Result,
    >,
    pub p_next_link: *const EnumerateInstanceLayerPropertiesChain,
}

/// `VkEnumerateInstanceVersionChain`.
#[doc(alias = "VkEnumerateInstanceVersionChain")]
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct EnumerateInstanceVersionChain {
    pub header: ChainHeader,
    pub pfn_next_layer: Option<
        unsafe extern "system" fn(
            chain: *const EnumerateInstanceVersionChain,
            p_api_version: *mut u32,
        ) -> vk::Result,
    >,
    pub p_next_link: *const EnumerateInstanceVersionChain,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    #[test]
    fn enum_values_match_vk_layer_h() {
        assert_eq!(LOADER_INSTANCE_CREATE_INFO.as_raw(), 47);
        assert_eq!(LOADER_DEVICE_CREATE_INFO.as_raw(), 48);
        assert_eq!(NegotiateLayerStructType::INTERFACE_STRUCT.0, 1);
        assert_eq!(LayerFunction::LINK_INFO.0, 0);
        assert_eq!(LayerFunction::LOADER_DATA_CALLBACK.0, 1);
        assert_eq!(LayerFunction::LOADER_LAYER_CREATE_DEVICE_CALLBACK.0, 2);
        assert_eq!(LayerFunction::LOADER_FEATURES.0, 3);
        assert_eq!(CURRENT_LOADER_LAYER_INTERFACE_VERSION, 2);
    }

    /// Offsets printed by gcc 12 from Debian's `/usr/include/vulkan/vk_layer.h` (1.3.239) on
    /// x86-64.
    #[cfg(target_pointer_width = "64")]
    #[test]
    fn lp64_layouts_match_gcc() {
        assert_eq!(size_of::<NegotiateLayerInterface>(), 48);
        assert_eq!(offset_of!(NegotiateLayerInterface, p_next), 8);
        assert_eq!(
            offset_of!(NegotiateLayerInterface, loader_layer_interface_version),
            16
        );
        assert_eq!(
            offset_of!(NegotiateLayerInterface, pfn_get_instance_proc_addr),
            24
        );
        assert_eq!(
            offset_of!(NegotiateLayerInterface, pfn_get_device_proc_addr),
            32
        );
        assert_eq!(
            offset_of!(NegotiateLayerInterface, pfn_get_physical_device_proc_addr),
            40
        );

        assert_eq!(size_of::<LayerInstanceLink>(), 24);
        assert_eq!(
            offset_of!(LayerInstanceLink, pfn_next_get_instance_proc_addr),
            8
        );
        assert_eq!(
            offset_of!(LayerInstanceLink, pfn_next_get_physical_device_proc_addr),
            16
        );
        assert_eq!(size_of::<LayerDeviceLink>(), 24);
        assert_eq!(
            offset_of!(LayerDeviceLink, pfn_next_get_device_proc_addr),
            16
        );
        assert_eq!(size_of::<LayerDeviceInfo>(), 16);

        assert_eq!(size_of::<LayerInstanceCreateInfo>(), 40);
        assert_eq!(offset_of!(LayerInstanceCreateInfo, p_next), 8);
        assert_eq!(offset_of!(LayerInstanceCreateInfo, function), 16);
        assert_eq!(offset_of!(LayerInstanceCreateInfo, u), 24);
        assert_eq!(size_of::<LayerInstanceCreateInfoU>(), 16);
        assert_eq!(
            offset_of!(LayerDeviceCallbacks, pfn_layer_destroy_device),
            8
        );

        assert_eq!(size_of::<LayerDeviceCreateInfo>(), 32);
        assert_eq!(offset_of!(LayerDeviceCreateInfo, function), 16);
        assert_eq!(offset_of!(LayerDeviceCreateInfo, u), 24);

        assert_eq!(size_of::<ChainHeader>(), 12);
        assert_eq!(size_of::<EnumerateInstanceExtensionPropertiesChain>(), 32);
        assert_eq!(
            offset_of!(EnumerateInstanceExtensionPropertiesChain, pfn_next_layer),
            16
        );
        assert_eq!(
            offset_of!(EnumerateInstanceExtensionPropertiesChain, p_next_link),
            24
        );
    }

    unsafe extern "system" fn set_data(_i: vk::Instance, object: *mut c_void) -> vk::Result {
        // SAFETY: the test passes a pointer to a live usize.
        unsafe { *object.cast::<usize>() = 7 };
        vk::Result::SUCCESS
    }

    #[test]
    fn union_members_alias_the_same_word() {
        let info = LayerInstanceCreateInfo {
            s_type: LOADER_INSTANCE_CREATE_INFO,
            p_next: std::ptr::null(),
            function: LayerFunction::LOADER_DATA_CALLBACK,
            u: LayerInstanceCreateInfoU {
                pfn_set_instance_loader_data: Some(set_data),
            },
        };
        // SAFETY: `function` says the callback member is live.
        let cb = unsafe { info.u.pfn_set_instance_loader_data }.expect("set");
        let mut word = 0usize;
        // SAFETY: `set_data` writes one usize through the pointer we own.
        let r = unsafe { cb(vk::Instance::null(), std::ptr::from_mut(&mut word).cast()) };
        assert_eq!(r, vk::Result::SUCCESS);
        assert_eq!(word, 7);
        // SAFETY: the first word of the union is the same storage for every pointer member.
        let as_link = unsafe { info.u.p_layer_info };
        assert_eq!(as_link as usize, set_data as *const () as usize);
        let dbg = format!("{info:?}");
        assert!(dbg.contains("LayerFunction(1)"), "{dbg}");
    }
}
