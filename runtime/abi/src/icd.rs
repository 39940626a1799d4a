//! Khronos loader–driver (ICD) interface, `vk_icd.h`.
//!
//! The host backend opens desktop ICDs (lavapipe, NVIDIA) itself instead of going through the
//! system loader, so it needs the negotiation entry points and the rule that word 0 of every
//! dispatchable object belongs to the loader (`ICD_LOADER_MAGIC`).

use std::ffi::{c_char, c_void, CStr};

use ash::vk;

/// `ICD_LOADER_MAGIC`: what an ICD stores in word 0 of each dispatchable object it creates.
pub const ICD_LOADER_MAGIC: usize = 0x01CD_C0DE;

/// `CURRENT_LOADER_ICD_INTERFACE_VERSION`.
pub const CURRENT_LOADER_ICD_INTERFACE_VERSION: u32 = 7;
/// `MIN_SUPPORTED_LOADER_ICD_INTERFACE_VERSION`.
pub const MIN_SUPPORTED_LOADER_ICD_INTERFACE_VERSION: u32 = 0;
/// `MIN_PHYS_DEV_EXTENSION_ICD_INTERFACE_VERSION`: first version with
/// `vk_icdGetPhysicalDeviceProcAddr`.
pub const MIN_PHYS_DEV_EXTENSION_ICD_INTERFACE_VERSION: u32 = 4;

/// Symbol `vk_icdNegotiateLoaderICDInterfaceVersion`.
pub const NEGOTIATE_LOADER_ICD_INTERFACE_VERSION_NAME: &CStr =
    c"vk_icdNegotiateLoaderICDInterfaceVersion";
/// Symbol `vk_icdGetInstanceProcAddr`.
pub const ICD_GET_INSTANCE_PROC_ADDR_NAME: &CStr = c"vk_icdGetInstanceProcAddr";
/// Symbol `vk_icdGetPhysicalDeviceProcAddr`.
pub const ICD_GET_PHYSICAL_DEVICE_PROC_ADDR_NAME: &CStr = c"vk_icdGetPhysicalDeviceProcAddr";
/// Symbol `vkGetInstanceProcAddr`, exported by interface-version-0 ICDs.
pub const GET_INSTANCE_PROC_ADDR_NAME: &CStr = c"vkGetInstanceProcAddr";

/// `PFN_vk_icdNegotiateLoaderICDInterfaceVersion`: in/out version; the ICD answers
/// `min(loader, icd)` or `VK_ERROR_INCOMPATIBLE_DRIVER`.
#[allow(non_camel_case_types)]
pub type PFN_vk_icdNegotiateLoaderICDInterfaceVersion =
    unsafe extern "system" fn(p_version: *mut u32) -> vk::Result;

/// `PFN_vk_icdGetInstanceProcAddr`: global and instance commands; accepts a null instance for
/// global queries.
#[allow(non_camel_case_types)]
pub type PFN_vk_icdGetInstanceProcAddr = unsafe extern "system" fn(
    instance: vk::Instance,
    p_name: *const c_char,
) -> vk::PFN_vkVoidFunction;

/// `PFN_vk_icdGetPhysicalDeviceProcAddr`: physical-device commands only, null for anything else.
#[allow(non_camel_case_types)]
pub type PFN_vk_icdGetPhysicalDeviceProcAddr = unsafe extern "system" fn(
    instance: vk::Instance,
    p_name: *const c_char,
) -> vk::PFN_vkVoidFunction;

/// `VK_LOADER_DATA`: the view of word 0 of a dispatchable object.
#[doc(alias = "VK_LOADER_DATA")]
#[repr(C)]
#[derive(Clone, Copy)]
pub union LoaderData {
    pub loader_magic: usize,
    pub loader_data: *mut c_void,
}

/// `set_loader_magic_value`: marks a freshly created dispatchable object as the ICD's.
///
/// # Safety
/// `object` must point to writable memory at least one pointer wide and pointer-aligned.
pub unsafe fn set_loader_magic_value(object: *mut c_void) {
    // SAFETY: the caller guarantees a writable, aligned word.
    unsafe {
        object.cast::<LoaderData>().write(LoaderData {
            loader_magic: ICD_LOADER_MAGIC,
        })
    };
}

/// `valid_loader_magic_value`: compares only the low 32 bits, as the C helper does.
///
/// # Safety
/// `object` must point to readable memory at least one pointer wide and pointer-aligned.
pub unsafe fn valid_loader_magic_value(object: *const c_void) -> bool {
    // SAFETY: the caller guarantees a readable, aligned word; any bit pattern is a valid usize.
    let word = unsafe { object.cast::<LoaderData>().read().loader_magic };
    (word & 0xffff_ffff) == ICD_LOADER_MAGIC
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::size_of;

    #[test]
    fn constants_match_vk_icd_h() {
        assert_eq!(ICD_LOADER_MAGIC, 0x01CDC0DE);
        assert_eq!(CURRENT_LOADER_ICD_INTERFACE_VERSION, 7);
        assert_eq!(size_of::<LoaderData>(), size_of::<usize>());
        assert_eq!(
            NEGOTIATE_LOADER_ICD_INTERFACE_VERSION_NAME.to_bytes(),
            b"vk_icdNegotiateLoaderICDInterfaceVersion"
        );
    }

    #[test]
    fn loader_magic_helpers() {
        let mut word: usize = 0xdead_beef;
        let p = std::ptr::from_mut(&mut word).cast::<c_void>();
        // SAFETY: `p` points at a live, aligned usize.
        unsafe {
            assert!(!valid_loader_magic_value(p));
            set_loader_magic_value(p);
            assert!(valid_loader_magic_value(p));
        }
        // Only the low 32 bits are compared, as in vk_icd.h.
        // SAFETY: `p` still points at the live, aligned `word` (the writes above went through it
        // and `word` has not moved).
        unsafe {
            assert_eq!(p.cast::<usize>().read(), ICD_LOADER_MAGIC);
            p.cast::<usize>()
                .write(ICD_LOADER_MAGIC | !0xffff_ffff_usize);
            assert!(valid_loader_magic_value(p));
        }
    }
}
