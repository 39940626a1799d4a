//! `VK_KHR_swapchain_mutable_format` (AOSP `CreateSwapchainKHR`): the application's view formats
//! and where they go.
//!
//! A swapchain created with `VK_SWAPCHAIN_CREATE_MUTABLE_FORMAT_BIT_KHR` must chain a
//! `VkImageFormatListCreateInfo` with at least one format and a non-null `pViewFormats`; AOSP
//! fails creation with `VK_ERROR_INITIALIZATION_FAILED` when the list is empty or its array
//! null, after the window was configured and before the gralloc usage is asked — vkgen fails at
//! the same step. The list (a copy, so the application may free its array) is chained onto
//! every swapchain image's `vkCreateImage`, the unbound images of a
//! `VK_SWAPCHAIN_CREATE_DEFERRED_MEMORY_ALLOCATION_BIT_EXT` swapchain included (AOSP chains it
//! after their `VkImageSwapchainCreateInfoKHR`). Without the flag a chained list is ignored.
//!
//! **Divergence.** With the flag and *no* list in the chain, AOSP goes on and reads an
//! uninitialised pointer (`extra_mutable_formats_ptr`) when creating the images — undefined
//! behaviour, which on its builds usually means a list-less or corrupt chain. vkgen answers that
//! case as AOSP answers an empty list (`VK_ERROR_INITIALIZATION_FAILED`, as
//! VUID-VkSwapchainCreateInfoKHR-flags-03168 requires the list), never touching the driver.

use std::ffi::c_void;

use vkgen_abi::vk_error;

use vkgen_generated::chain::find_in_chain;
use vkgen_generated::vk;

/// The view formats of a mutable-format swapchain (`None` for other swapchains).
///
/// # Safety
/// `info`'s chain and the arrays it points to must be valid (the application's create info).
pub(super) unsafe fn view_formats(
    info: &vk::SwapchainCreateInfoKHR<'_>,
) -> Result<Option<Vec<vk::Format>>, vk::Result> {
    if !info
        .flags
        .contains(vk::SwapchainCreateFlagsKHR::MUTABLE_FORMAT)
    {
        return Ok(None);
    }
    // SAFETY: the caller guarantees `info.p_next` is a valid chain; the structure is cast only
    // after its sType said what it is.
    let list = unsafe {
        find_in_chain::<vk::ImageFormatListCreateInfo<'_>>(
            info.p_next,
            vk::StructureType::IMAGE_FORMAT_LIST_CREATE_INFO,
        )
    };
    let Some(list) = list else {
        return Err(vk_error!(
            vk::Result::ERROR_INITIALIZATION_FAILED,
            "vkCreateSwapchainKHR: MUTABLE_FORMAT without a VkImageFormatListCreateInfo \
             (VUID-VkSwapchainCreateInfoKHR-flags-03168)"
        ));
    };
    if list.view_format_count == 0 || list.p_view_formats.is_null() {
        return Err(vk_error!(
            vk::Result::ERROR_INITIALIZATION_FAILED,
            "vkCreateSwapchainKHR: MUTABLE_FORMAT with an empty VkImageFormatListCreateInfo \
             ({} formats at {:p})",
            list.view_format_count,
            list.p_view_formats
        ));
    }
    // SAFETY: `p_view_formats` was checked non-null and holds `view_format_count` formats
    // (VUID-VkImageFormatListCreateInfo-pViewFormats-parameter), valid during this call.
    let formats =
        unsafe { std::slice::from_raw_parts(list.p_view_formats, list.view_format_count as usize) };
    Ok(Some(formats.to_vec()))
}

/// The `VkImageFormatListCreateInfo` for the images of a swapchain with `formats`, chained
/// before `next`; `None` when the swapchain is not mutable-format.
pub(super) fn list_info(
    formats: Option<&[vk::Format]>,
    next: *const c_void,
) -> Option<vk::ImageFormatListCreateInfo<'_>> {
    formats.map(|formats| vk::ImageFormatListCreateInfo {
        p_next: next,
        view_format_count: formats.len() as u32,
        p_view_formats: formats.as_ptr(),
        ..Default::default()
    })
}

/// The first link of a chain that starts with `list` (or `next` without one).
pub(super) fn head(
    list: Option<&vk::ImageFormatListCreateInfo<'_>>,
    next: *const c_void,
) -> *const c_void {
    list.map_or(next, |l| std::ptr::from_ref(l).cast())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(
        flags: vk::SwapchainCreateFlagsKHR,
        next: *const c_void,
    ) -> vk::SwapchainCreateInfoKHR<'static> {
        vk::SwapchainCreateInfoKHR {
            p_next: next,
            flags,
            ..Default::default()
        }
    }

    #[test]
    fn mutable_format_needs_a_non_empty_list() {
        let mutable = vk::SwapchainCreateFlagsKHR::MUTABLE_FORMAT;
        let formats = [vk::Format::R8G8B8A8_UNORM, vk::Format::R8G8B8A8_SRGB];
        let full = vk::ImageFormatListCreateInfo::default().view_formats(&formats);
        let empty = vk::ImageFormatListCreateInfo::default();
        let null_array = vk::ImageFormatListCreateInfo {
            view_format_count: 2,
            ..Default::default()
        };
        let ptr = |l: &vk::ImageFormatListCreateInfo<'_>| std::ptr::from_ref(l).cast::<c_void>();
        // SAFETY: every call gets a create info on this frame whose chain is null or one list
        // that outlives the call.
        unsafe {
            assert_eq!(
                view_formats(&info(mutable, ptr(&full))),
                Ok(Some(formats.to_vec()))
            );
            for chain in [std::ptr::null(), ptr(&empty), ptr(&null_array)] {
                assert_eq!(
                    view_formats(&info(mutable, chain)),
                    Err(vk::Result::ERROR_INITIALIZATION_FAILED)
                );
            }
            // Without the flag any list is ignored, an empty one included.
            assert_eq!(
                view_formats(&info(vk::SwapchainCreateFlagsKHR::empty(), ptr(&empty))),
                Ok(None)
            );
        }
    }

    #[test]
    fn the_list_is_chained_before_next() {
        let formats = [vk::Format::R8G8B8A8_UNORM];
        let next = 0x1000usize as *const c_void;
        let list = list_info(Some(&formats), next).unwrap();
        assert_eq!((list.p_next, list.view_format_count), (next, 1));
        assert_eq!(head(Some(&list), next), std::ptr::from_ref(&list).cast());
        assert!(list_info(None, next).is_none());
        assert_eq!(head(None, next), next);
    }
}
