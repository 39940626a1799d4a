//! `VkShaderModule` and the `VK_EXT_shader_module_identifier` queries.
//!
//! A module holds its code behind an `Arc`: a pipeline keeps the code after the application
//! destroys the module (allowed right after pipeline creation), as Mesa ref-counts
//! `vk_shader_module`. Bad SPIR-V fails `vkCreateShaderModule` with a logged
//! `VK_ERROR_UNKNOWN`: the code must be valid SPIR-V (VUID-VkShaderModuleCreateInfo-pCode-08737)
//! and the core results are only out-of-memory ones; `VK_ERROR_UNKNOWN` is the spec's answer to
//! invalid input ("either the application has provided invalid input, or an implementation
//! failure has occurred"), listed for the command since 1.4's registry.
//!
//! The identifier is the SHA-256 of the code ([`SpirvModule::hash`]): 32 bytes, the
//! `VK_MAX_SHADER_MODULE_IDENTIFIER_SIZE_EXT` maximum, equal for equal code whether asked of a
//! module or of a create info (the spec requires both to match).

use std::sync::Arc;

use sha2::{Digest, Sha256};
use vkgen_abi::vk_error;
use vkgen_generated::entries::EntryTable;
use vkgen_generated::vk;

use super::spirv::SpirvModule;
use crate::handles::{create_object, destroy_object, Object, ObjectKind};
use crate::util::guard;

/// A `VkShaderModule` of the kit.
pub struct ShaderModule {
    pub code: Arc<SpirvModule>,
}

impl ObjectKind for ShaderModule {
    const OBJECT_TYPE: vk::ObjectType = vk::ObjectType::SHADER_MODULE;
}

impl ShaderModule {
    /// The module behind `h`.
    ///
    /// # Safety
    /// `h` is null or a live `VkShaderModule` of a driver with the component on.
    pub unsafe fn from_handle<'a>(h: vk::ShaderModule) -> Option<&'a ShaderModule> {
        // SAFETY: the caller promises a null or live handle; `from_handle` checks the type.
        unsafe { Object::<ShaderModule>::from_handle(h) }.map(|o| &**o)
    }
}

/// The code of a `VkShaderModuleCreateInfo`, as bytes.
///
/// # Safety
/// `pCode` is null or holds `codeSize` bytes.
unsafe fn code_bytes<'a>(info: &vk::ShaderModuleCreateInfo<'a>) -> &'a [u8] {
    if info.p_code.is_null() || info.code_size == 0 {
        return &[];
    }
    // SAFETY: `pCode` holds `codeSize` bytes (the caller's promise); u8 has no alignment.
    unsafe { std::slice::from_raw_parts(info.p_code.cast::<u8>(), info.code_size) }
}

/// Parses and validates a create info's code; the error is logged and is `VK_ERROR_UNKNOWN`.
///
/// # Safety
/// `pCode` is null or holds `codeSize` bytes.
pub(super) unsafe fn parse_create_info(
    info: &vk::ShaderModuleCreateInfo<'_>,
) -> Result<SpirvModule, vk::Result> {
    // SAFETY: the caller's promise.
    let bytes = unsafe { code_bytes(info) };
    SpirvModule::parse_bytes(bytes).map_err(|e| {
        vk_error!(
            vk::Result::ERROR_UNKNOWN,
            "invalid SPIR-V ({} bytes): {e}",
            bytes.len()
        )
    })
}

/// [`vkCreateShaderModule`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkCreateShaderModule.html)
unsafe extern "system" fn create_shader_module(
    _device: vk::Device,
    p_info: *const vk::ShaderModuleCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_module: *mut vk::ShaderModule,
) -> vk::Result {
    guard(
        "vkCreateShaderModule",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: `pCreateInfo` is a valid structure (VUID-vkCreateShaderModule-pCreateInfo-parameter).
            let Some(info) = (unsafe { p_info.as_ref() }) else {
                return vk_error!(vk::Result::ERROR_UNKNOWN, "null pCreateInfo");
            };
            // SAFETY: `pCode` holds `codeSize` bytes (VUID-VkShaderModuleCreateInfo-pCode-parameter).
            let code = match unsafe { parse_create_info(info) } {
                Ok(c) => c,
                Err(e) => return e,
            };
            let module = ShaderModule {
                code: Arc::new(code),
            };
            // SAFETY: the application's allocator (VUID-vkCreateShaderModule-pAllocator-parameter).
            match unsafe { create_object(module, p_allocator) } {
                Ok(h) => {
                    // SAFETY: a valid output pointer (VUID-vkCreateShaderModule-pShaderModule-parameter).
                    unsafe { p_module.write(vk::Handle::from_raw(h)) };
                    vk::Result::SUCCESS
                }
                Err(e) => e,
            }
        },
    )
}

/// [`vkDestroyShaderModule`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkDestroyShaderModule.html)
unsafe extern "system" fn destroy_shader_module(
    _device: vk::Device,
    module: vk::ShaderModule,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    guard("vkDestroyShaderModule", (), || {
        // SAFETY: null or a module of this driver; pipelines hold their own `Arc` of the code.
        unsafe { destroy_object::<ShaderModule>(vk::Handle::as_raw(module)) };
    });
}

/// Writes a 32-byte identifier into `out`.
///
/// # Safety
/// `out` is null or a valid `VkShaderModuleIdentifierEXT`.
unsafe fn write_identifier(out: *mut vk::ShaderModuleIdentifierEXT<'_>, id: [u8; 32]) {
    // SAFETY: the caller's valid output structure.
    if let Some(out) = unsafe { out.as_mut() } {
        out.identifier_size = id.len() as u32;
        out.identifier = [0; vk::MAX_SHADER_MODULE_IDENTIFIER_SIZE_EXT];
        out.identifier[..id.len()].copy_from_slice(&id);
    }
}

/// [`vkGetShaderModuleIdentifierEXT`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetShaderModuleIdentifierEXT.html)
unsafe extern "system" fn get_shader_module_identifier(
    _device: vk::Device,
    module: vk::ShaderModule,
    p_identifier: *mut vk::ShaderModuleIdentifierEXT<'_>,
) {
    guard("vkGetShaderModuleIdentifierEXT", (), || {
        // SAFETY: a module handle of this driver (VUID-…-shaderModule-parameter), checked by type.
        if let Some(m) = unsafe { ShaderModule::from_handle(module) } {
            // SAFETY: a valid output structure (VUID-…-pIdentifier-parameter).
            unsafe { write_identifier(p_identifier, m.code.hash()) };
        }
    });
}

/// [`vkGetShaderModuleCreateInfoIdentifierEXT`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetShaderModuleCreateInfoIdentifierEXT.html):
/// the same SHA-256 as the module's, without parsing.
unsafe extern "system" fn get_shader_module_create_info_identifier(
    _device: vk::Device,
    p_info: *const vk::ShaderModuleCreateInfo<'_>,
    p_identifier: *mut vk::ShaderModuleIdentifierEXT<'_>,
) {
    guard("vkGetShaderModuleCreateInfoIdentifierEXT", (), || {
        // SAFETY: a valid create info whose `pCode` holds `codeSize` bytes.
        let Some(bytes) = (unsafe { p_info.as_ref() }).map(|i| unsafe { code_bytes(i) }) else {
            return;
        };
        let id: [u8; 32] = Sha256::digest(bytes).into();
        // SAFETY: a valid output structure.
        unsafe { write_identifier(p_identifier, id) };
    });
}

pub(super) fn entries() -> EntryTable {
    EntryTable {
        create_shader_module: Some(create_shader_module),
        destroy_shader_module: Some(destroy_shader_module),
        // Every registry the kit compiles against (1.3.239 and later) has the extension.
        get_shader_module_identifier_ext: Some(get_shader_module_identifier),
        get_shader_module_create_info_identifier_ext: Some(
            get_shader_module_create_info_identifier,
        ),
        ..EntryTable::EMPTY
    }
}
