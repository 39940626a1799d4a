//! `VkDescriptorUpdateTemplate` (and `…KHR`): the entries (zero-count ones dropped, as Mesa's
//! `vk_descriptor_update_template` does), and what the template updates: a set layout for
//! `DESCRIPTOR_SET` templates, or for `PUSH_DESCRIPTORS` templates the pipeline layout, set
//! number and bind point the spec reads only there (Mesa keeps the set number only for the
//! other type; the kit keeps it where the spec says it matters). The layouts are `Arc`s, so a
//! template outlives the handles it was made from, and a secondary command buffer may use the
//! template after its handle is gone.

use std::sync::Arc;

use vkgen_abi::vk_error;
use vkgen_generated::entries::EntryTable;
use vkgen_generated::vk;

use super::super::resources::desc::store;
use super::layout::INVALID;
use super::layout::{DescriptorSetLayout, SetLayout};
use super::pipeline_layout::{PipelineLayout, PipelineLayoutInfo};
use super::set::DescriptorSet;
use crate::handles::{destroy_object, Object, ObjectKind};
use crate::util::{guard, slice};

/// One `VkDescriptorUpdateTemplateEntry`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TemplateEntry {
    pub binding: u32,
    /// First element (a byte offset for an inline uniform block).
    pub array_element: u32,
    /// Elements (bytes for an inline uniform block); never 0.
    pub count: u32,
    pub descriptor_type: vk::DescriptorType,
    /// Where element 0's record starts in the application's data.
    pub offset: usize,
    /// Bytes between records (ignored for an inline uniform block).
    pub stride: usize,
}

/// A template's definition.
#[derive(Clone, Debug)]
pub struct UpdateTemplate {
    pub template_type: vk::DescriptorUpdateTemplateType,
    pub entries: Vec<TemplateEntry>,
    /// The layout of the sets it updates: `descriptorSetLayout` for `DESCRIPTOR_SET`, set
    /// `set` of `pipeline_layout` for `PUSH_DESCRIPTORS`.
    pub set_layout: Option<Arc<SetLayout>>,
    /// `PUSH_DESCRIPTORS` only: the pipeline layout, bind point and set number pushed to.
    pub pipeline_layout: Option<Arc<PipelineLayoutInfo>>,
    pub bind_point: vk::PipelineBindPoint,
    pub set: u32,
}

impl UpdateTemplate {
    /// Bytes of application data one update reads (the recorder copies a push template's
    /// data this long at record time): the end of the furthest record of any entry.
    pub fn data_size(&self) -> usize {
        use std::mem::size_of;
        type T = vk::DescriptorType;
        self.entries
            .iter()
            .map(|e| {
                let count = e.count as usize;
                let (records, record) = match e.descriptor_type {
                    // An inline uniform block's count is its byte size, read in one piece.
                    T::INLINE_UNIFORM_BLOCK => (1, count),
                    T::UNIFORM_TEXEL_BUFFER | T::STORAGE_TEXEL_BUFFER => {
                        (count, size_of::<vk::BufferView>())
                    }
                    T::ACCELERATION_STRUCTURE_KHR => (count, size_of::<u64>()),
                    T::UNIFORM_BUFFER
                    | T::STORAGE_BUFFER
                    | T::UNIFORM_BUFFER_DYNAMIC
                    | T::STORAGE_BUFFER_DYNAMIC => (count, size_of::<vk::DescriptorBufferInfo>()),
                    _ => (count, size_of::<vk::DescriptorImageInfo>()),
                };
                e.offset + (records - 1) * e.stride + record
            })
            .max()
            .unwrap_or(0)
    }

    /// Whether this template pushes descriptors (`PUSH_DESCRIPTORS`, `_KHR` alike).
    pub fn is_push(&self) -> bool {
        self.template_type == vk::DescriptorUpdateTemplateType::PUSH_DESCRIPTORS_KHR
    }

    /// The template a create info describes.
    ///
    /// # Safety
    /// `info` is valid: its entry array holds its count, its handles are null or live.
    pub unsafe fn from_create_info(
        info: &vk::DescriptorUpdateTemplateCreateInfo<'_>,
    ) -> Result<UpdateTemplate, String> {
        // SAFETY: `pDescriptorUpdateEntries` holds `descriptorUpdateEntryCount` entries
        // (the caller's promise).
        let raw = unsafe {
            slice(
                info.p_descriptor_update_entries,
                info.descriptor_update_entry_count,
            )
        };
        let entries = raw
            .iter()
            .filter(|e| e.descriptor_count > 0)
            .map(|e| TemplateEntry {
                binding: e.dst_binding,
                array_element: e.dst_array_element,
                count: e.descriptor_count,
                descriptor_type: e.descriptor_type,
                offset: e.offset,
                stride: e.stride,
            })
            .collect();
        let mut t = UpdateTemplate {
            template_type: info.template_type,
            entries,
            set_layout: None,
            pipeline_layout: None,
            bind_point: info.pipeline_bind_point,
            set: info.set,
        };
        if t.is_push() {
            // SAFETY: a live pipeline layout for this type (VUID-VkDescriptorUpdateTemplateCreateInfo-templateType-00352);
            // `from_handle` checks the type.
            let layout = unsafe { PipelineLayout::from_handle(info.pipeline_layout) }
                .ok_or("a push-descriptor template without a pipeline layout of this driver")?;
            t.set_layout = layout
                .layout
                .set_layouts
                .get(info.set as usize)
                .cloned()
                .flatten();
            if !t
                .set_layout
                .as_ref()
                .is_some_and(|l| l.is_push_descriptor())
            {
                return Err(format!(
                    "set {} of the pipeline layout is not a push-descriptor layout",
                    info.set
                ));
            }
            t.pipeline_layout = Some(layout.layout.clone());
        } else {
            // SAFETY: a live set layout for this type (VUID-VkDescriptorUpdateTemplateCreateInfo-templateType-00350);
            // `from_handle` checks the type.
            let layout = unsafe { DescriptorSetLayout::from_handle(info.descriptor_set_layout) }
                .ok_or("a descriptor-set template without a set layout of this driver")?;
            t.set_layout = Some(layout.layout.clone());
        }
        Ok(t)
    }
}

/// A `VkDescriptorUpdateTemplate` of the kit.
pub struct DescriptorUpdateTemplate {
    pub template: Arc<UpdateTemplate>,
}

impl ObjectKind for DescriptorUpdateTemplate {
    const OBJECT_TYPE: vk::ObjectType = vk::ObjectType::DESCRIPTOR_UPDATE_TEMPLATE;
}

impl DescriptorUpdateTemplate {
    /// The template behind `h`.
    ///
    /// # Safety
    /// `h` is null or a live `VkDescriptorUpdateTemplate` of a driver with the component on.
    pub unsafe fn from_handle<'a>(h: vk::DescriptorUpdateTemplate) -> Option<&'a Self> {
        // SAFETY: the caller promises a null or live handle; `from_handle` checks the type.
        unsafe { Object::<Self>::from_handle(h) }.map(|o| &**o)
    }
}

/// [`vkCreateDescriptorUpdateTemplate`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkCreateDescriptorUpdateTemplate.html)
unsafe extern "system" fn create_descriptor_update_template(
    _device: vk::Device,
    p_info: *const vk::DescriptorUpdateTemplateCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_template: *mut vk::DescriptorUpdateTemplate,
) -> vk::Result {
    guard(
        "vkCreateDescriptorUpdateTemplate",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: `pCreateInfo` is a valid structure
            // (VUID-vkCreateDescriptorUpdateTemplate-pCreateInfo-parameter).
            let Some(info) = (unsafe { p_info.as_ref() }) else {
                return vk_error!(
                    INVALID,
                    "vkCreateDescriptorUpdateTemplate: null pCreateInfo"
                );
            };
            // SAFETY: the application's valid create info.
            let template = match unsafe { UpdateTemplate::from_create_info(info) } {
                Ok(t) => t,
                Err(e) => return vk_error!(INVALID, "vkCreateDescriptorUpdateTemplate: {e}"),
            };
            let object = DescriptorUpdateTemplate {
                template: Arc::new(template),
            };
            // SAFETY: the application's allocator and output pointer (the command's
            // -pAllocator- and -pDescriptorUpdateTemplate-parameter VUIDs).
            unsafe { store(object, p_allocator, p_template) }
        },
    )
}

/// [`vkDestroyDescriptorUpdateTemplate`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkDestroyDescriptorUpdateTemplate.html)
unsafe extern "system" fn destroy_descriptor_update_template(
    _device: vk::Device,
    template: vk::DescriptorUpdateTemplate,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    guard("vkDestroyDescriptorUpdateTemplate", (), || {
        // SAFETY: `template` is null or a live template of this device
        // (VUID-vkDestroyDescriptorUpdateTemplate-descriptorUpdateTemplate-parameter).
        unsafe { destroy_object::<DescriptorUpdateTemplate>(vk::Handle::as_raw(template)) };
    });
}

/// [`vkUpdateDescriptorSetWithTemplate`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkUpdateDescriptorSetWithTemplate.html)
unsafe extern "system" fn update_descriptor_set_with_template(
    _device: vk::Device,
    set: vk::DescriptorSet,
    template: vk::DescriptorUpdateTemplate,
    p_data: *const std::ffi::c_void,
) {
    guard("vkUpdateDescriptorSetWithTemplate", (), || {
        // SAFETY: the application's live set and template handles (the command's -parameter
        // VUIDs); `from_handle` checks their types.
        let (Some(s), Some(t)) = (unsafe { DescriptorSet::from_handle(set) }, unsafe {
            DescriptorUpdateTemplate::from_handle(template)
        }) else {
            log::error!(
                "vkUpdateDescriptorSetWithTemplate: not a set and a template of this driver"
            );
            return;
        };
        // SAFETY: `pData` holds the records the template addresses
        // (VUID-vkUpdateDescriptorSetWithTemplate-pData-01685).
        unsafe { s.store.write_with_template(&t.template, p_data) };
    });
}

pub(super) fn entries() -> EntryTable {
    EntryTable {
        create_descriptor_update_template: Some(create_descriptor_update_template),
        destroy_descriptor_update_template: Some(destroy_descriptor_update_template),
        update_descriptor_set_with_template: Some(update_descriptor_set_with_template),
        ..EntryTable::EMPTY
    }
}
