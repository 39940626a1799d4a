//! The loader ↔ host-driver seam on Linux hosts: how `libvulkan.so` hands a Khronos ICD it has
//! already found and negotiated to `vulkan.host.so` (shipped beside it as `libvulkan_host.so`),
//! which serves the ICD with `VK_ANDROID_native_buffer` added.
//!
//! Why a C ABI and not a Rust dependency: the loader and drivers meet only at C entry points,
//! as on Android; the loader links no driver code, and the host driver can be replaced or
//! left out (then ICDs are used as they are). The loader scans ICD manifests once (the Khronos
//! `loader_icd_scan` rules) and passes each ICD's entry points here; the host driver never
//! searches or opens an ICD library of its own on this path.
//!
//! ```c
//! VkResult vkgen_host_adapt_icd(const VkgenHostIcdInfo* icd, VkgenHostIcdEntry* out);
//! ```
//! Returns `VK_SUCCESS` and fills `out` when the ICD is served (each call for an ICD not yet
//! served takes one of a fixed number of slots; asking again for the same ICD returns the same
//! entry points), `VK_ERROR_INCOMPATIBLE_DRIVER` when the host driver adds nothing to it (a 1.0
//! instance, no `VK_EXT_external_memory_host`, its own native buffers, a broken ICD) and
//! `VK_ERROR_TOO_MANY_OBJECTS` when every slot is taken. `out` is written only on success.

use std::ffi::c_char;

use ash::vk;

use crate::icd::{PFN_vk_icdGetInstanceProcAddr, PFN_vk_icdGetPhysicalDeviceProcAddr};

/// The exported symbol's name.
pub const ADAPT_ICD_NAME: &std::ffi::CStr = c"vkgen_host_adapt_icd";

/// [`HostIcdInfo::struct_version`] of this layout.
pub const HOST_ICD_INFO_VERSION: u32 = 1;

/// An ICD the loader has opened and negotiated.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct HostIcdInfo {
    /// [`HOST_ICD_INFO_VERSION`].
    pub struct_version: u32,
    /// The negotiated loader–ICD interface version (≥ 2).
    pub interface_version: u32,
    /// The manifest's path, for logs (a C string, valid during the call).
    pub manifest_path: *const c_char,
    /// The library's path, for logs (a C string, valid during the call).
    pub library_path: *const c_char,
    /// The ICD's `vk_icdGetInstanceProcAddr`; valid while the loader keeps the library open,
    /// which is the life of the process.
    pub get_instance_proc_addr: Option<PFN_vk_icdGetInstanceProcAddr>,
    /// The ICD's `vk_icdGetPhysicalDeviceProcAddr`, if it has one.
    pub get_physical_device_proc_addr: Option<PFN_vk_icdGetPhysicalDeviceProcAddr>,
}

/// The entry points that serve an adapted ICD, used by the loader in place of the ICD's own.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct HostIcdEntry {
    pub get_instance_proc_addr: Option<PFN_vk_icdGetInstanceProcAddr>,
    pub get_physical_device_proc_addr: Option<PFN_vk_icdGetPhysicalDeviceProcAddr>,
}

/// `vkgen_host_adapt_icd`.
#[allow(non_camel_case_types)]
pub type PFN_vkgen_host_adapt_icd =
    unsafe extern "C" fn(icd: *const HostIcdInfo, out: *mut HostIcdEntry) -> vk::Result;
