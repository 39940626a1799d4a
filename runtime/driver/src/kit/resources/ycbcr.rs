//! `VkSamplerYcbcrConversion` (Mesa's `vk_ycbcr_conversion`): the conversion's whole state, and
//! the same state kept by every sampler that chains a `VkSamplerYcbcrConversionInfo`
//! ([`super::Sampler::ycbcr`]) — by value, as Mesa's samplers do, so a sampler never reads a
//! destroyed conversion.
//!
//! `VK_KHR_sampler_ycbcr_conversion`'s `…KHR` commands are aliases: they answer through these.

use vkgen_abi::vk_error;
use vkgen_generated::entries::EntryTable;
use vkgen_generated::vk;

use super::desc::{store, VendorData};
use crate::handles::{destroy_object, Object, ObjectKind};
use crate::util::guard;

/// What a `VkSamplerYcbcrConversionCreateInfo` says (the external format of an Android
/// hardware buffer, if chained, is the vendor's to read at creation).
#[derive(Clone, Copy, Debug)]
pub struct YcbcrState {
    pub format: vk::Format,
    pub model: vk::SamplerYcbcrModelConversion,
    pub range: vk::SamplerYcbcrRange,
    pub components: vk::ComponentMapping,
    pub x_chroma_offset: vk::ChromaLocation,
    pub y_chroma_offset: vk::ChromaLocation,
    pub chroma_filter: vk::Filter,
    pub force_explicit_reconstruction: bool,
}

impl YcbcrState {
    pub fn from_info(i: &vk::SamplerYcbcrConversionCreateInfo<'_>) -> Self {
        Self {
            format: i.format,
            model: i.ycbcr_model,
            range: i.ycbcr_range,
            components: i.components,
            x_chroma_offset: i.x_chroma_offset,
            y_chroma_offset: i.y_chroma_offset,
            chroma_filter: i.chroma_filter,
            force_explicit_reconstruction: i.force_explicit_reconstruction != vk::FALSE,
        }
    }
}

/// A `VkSamplerYcbcrConversion` of the kit.
pub struct SamplerYcbcrConversion {
    pub state: YcbcrState,
    pub vendor: VendorData,
}

impl ObjectKind for SamplerYcbcrConversion {
    const OBJECT_TYPE: vk::ObjectType = vk::ObjectType::SAMPLER_YCBCR_CONVERSION;
}

impl SamplerYcbcrConversion {
    /// The conversion behind `h`.
    ///
    /// # Safety
    /// `h` is null or a live `VkSamplerYcbcrConversion` of a driver with the component on.
    pub unsafe fn from_handle<'a>(h: vk::SamplerYcbcrConversion) -> Option<&'a Self> {
        // SAFETY: the caller promises a null or live handle; `from_handle` checks the type.
        unsafe { Object::<Self>::from_handle(h) }.map(|o| &**o)
    }
}

/// The conversion state a sampler's `pNext` chain names (`VkSamplerYcbcrConversionInfo`).
///
/// # Safety
/// `p_next` is null or a valid `pNext` chain of a `VkSamplerCreateInfo`.
pub(super) unsafe fn chained(p_next: *const std::ffi::c_void) -> Option<YcbcrState> {
    // SAFETY: a valid chain (this function's contract).
    for s in unsafe { crate::util::chain(p_next) } {
        if s.s_type == vk::StructureType::SAMPLER_YCBCR_CONVERSION_INFO {
            // SAFETY: the sType says this is a `VkSamplerYcbcrConversionInfo`.
            let info =
                unsafe { &*std::ptr::from_ref(s).cast::<vk::SamplerYcbcrConversionInfo<'_>>() };
            // SAFETY: the info names a live conversion (VUID-VkSamplerYcbcrConversionInfo-conversion-parameter).
            let c = unsafe { SamplerYcbcrConversion::from_handle(info.conversion) };
            if c.is_none() {
                log::error!("VkSamplerYcbcrConversionInfo names no conversion of this driver");
            }
            return c.map(|c| c.state);
        }
    }
    None
}

/// [`vkCreateSamplerYcbcrConversion`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkCreateSamplerYcbcrConversion.html)
unsafe extern "system" fn create_sampler_ycbcr_conversion(
    _device: vk::Device,
    p_info: *const vk::SamplerYcbcrConversionCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_conversion: *mut vk::SamplerYcbcrConversion,
) -> vk::Result {
    guard(
        "vkCreateSamplerYcbcrConversion",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: `pCreateInfo` is a valid structure
            // (VUID-vkCreateSamplerYcbcrConversion-pCreateInfo-parameter).
            let Some(i) = (unsafe { p_info.as_ref() }) else {
                return vk_error!(vk::Result::ERROR_OUT_OF_HOST_MEMORY, "null pCreateInfo");
            };
            let conversion = SamplerYcbcrConversion {
                state: YcbcrState::from_info(i),
                vendor: VendorData::default(),
            };
            // SAFETY: the application's allocator and output pointer (-pAllocator-, -pYcbcrConversion-parameter).
            unsafe { store(conversion, p_allocator, p_conversion) }
        },
    )
}

/// `vkDestroySamplerYcbcrConversion`: null or mistyped handles are ignored.
unsafe extern "system" fn destroy_sampler_ycbcr_conversion(
    _device: vk::Device,
    conversion: vk::SamplerYcbcrConversion,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    guard("vkDestroySamplerYcbcrConversion", (), || {
        // SAFETY: null or a conversion of this device; samplers keep their own copy of its
        // state, so nothing reads it after this.
        unsafe { destroy_object::<SamplerYcbcrConversion>(vk::Handle::as_raw(conversion)) };
    });
}

pub(super) fn entries() -> EntryTable {
    EntryTable {
        create_sampler_ycbcr_conversion: Some(create_sampler_ycbcr_conversion),
        destroy_sampler_ycbcr_conversion: Some(destroy_sampler_ycbcr_conversion),
        ..EntryTable::EMPTY
    }
}
