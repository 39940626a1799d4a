//! The render-pass object commands: both create forms (1.0 read as its `…2` form, see
//! [`super::convert`]), destruction, and the render-area granularity — 1×1, since the pass
//! runs as dynamic rendering, which has no tile alignment to ask for (Mesa answers the same).

use std::sync::Arc;

use vkgen_abi::vk_error;
use vkgen_generated::vk;

use super::convert::pass_from_create_info;
use super::pass::{Pass, RenderPass};
use crate::handles::destroy_object;
use crate::util::guard;

/// Stores `pass` as a `VkRenderPass` through `out`.
///
/// # Safety
/// `p_allocator` is null or valid callbacks; `out` is valid for a write.
unsafe fn store(
    pass: Result<Pass, vk::Result>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    out: *mut vk::RenderPass,
) -> vk::Result {
    match pass {
        // SAFETY: the caller's allocator and output pointer.
        Ok(pass) => unsafe {
            super::super::resources::desc::store(
                RenderPass {
                    pass: Arc::new(pass),
                },
                p_allocator,
                out,
            )
        },
        Err(e) => e,
    }
}

/// [`vkCreateRenderPass`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkCreateRenderPass.html)
pub(super) unsafe extern "system" fn create_render_pass(
    _device: vk::Device,
    p_info: *const vk::RenderPassCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_pass: *mut vk::RenderPass,
) -> vk::Result {
    guard(
        "vkCreateRenderPass",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: `pCreateInfo` is a valid structure (VUID-vkCreateRenderPass-pCreateInfo-parameter).
            let Some(info) = (unsafe { p_info.as_ref() }) else {
                return vk_error!(vk::Result::ERROR_OUT_OF_HOST_MEMORY, "null pCreateInfo");
            };
            // SAFETY: its arrays and chain are valid with it; the allocator and output
            // pointer are the application's (-pAllocator-, -pRenderPass-parameter).
            unsafe { store(pass_from_create_info(info), p_allocator, p_pass) }
        },
    )
}

/// [`vkCreateRenderPass2`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkCreateRenderPass2.html)
pub(super) unsafe extern "system" fn create_render_pass2(
    _device: vk::Device,
    p_info: *const vk::RenderPassCreateInfo2<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_pass: *mut vk::RenderPass,
) -> vk::Result {
    guard(
        "vkCreateRenderPass2",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: `pCreateInfo` is a valid structure (VUID-vkCreateRenderPass2-pCreateInfo-parameter).
            let Some(info) = (unsafe { p_info.as_ref() }) else {
                return vk_error!(vk::Result::ERROR_OUT_OF_HOST_MEMORY, "null pCreateInfo");
            };
            // SAFETY: its arrays and chain are valid with it; the allocator and output
            // pointer are the application's (-pAllocator-, -pRenderPass-parameter).
            unsafe { store(Pass::from_create_info2(info), p_allocator, p_pass) }
        },
    )
}

/// [`vkDestroyRenderPass`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkDestroyRenderPass.html):
/// command buffers recording inside the pass keep its content (an `Arc`).
pub(super) unsafe extern "system" fn destroy_render_pass(
    _device: vk::Device,
    pass: vk::RenderPass,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    guard("vkDestroyRenderPass", (), || {
        // SAFETY: null or a render pass no pending work uses (VUID-vkDestroyRenderPass-renderPass-00873).
        unsafe { destroy_object::<RenderPass>(vk::Handle::as_raw(pass)) };
    });
}

/// [`vkGetRenderAreaGranularity`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetRenderAreaGranularity.html)
pub(super) unsafe extern "system" fn get_render_area_granularity(
    _device: vk::Device,
    _pass: vk::RenderPass,
    p_granularity: *mut vk::Extent2D,
) {
    guard("vkGetRenderAreaGranularity", (), || {
        // SAFETY: null (refused by `as_mut`) or the application's output (-pGranularity-parameter).
        if let Some(out) = unsafe { p_granularity.as_mut() } {
            *out = vk::Extent2D {
                width: 1,
                height: 1,
            };
        }
    });
}

/// [`vkGetRenderingAreaGranularity`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetRenderingAreaGranularity.html)
/// (`VK_KHR_maintenance5`, core in 1.4): 1×1 as well.
#[cfg(vk_1_4)]
pub(super) unsafe extern "system" fn get_rendering_area_granularity(
    _device: vk::Device,
    _info: *const vk::RenderingAreaInfo,
    p_granularity: *mut vk::Extent2D,
) {
    guard("vkGetRenderingAreaGranularity", (), || {
        // SAFETY: null (refused by `as_mut`) or the application's output (-pGranularity-parameter).
        if let Some(out) = unsafe { p_granularity.as_mut() } {
            *out = vk::Extent2D {
                width: 1,
                height: 1,
            };
        }
    });
}
