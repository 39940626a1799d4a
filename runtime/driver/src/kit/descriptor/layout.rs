//! `VkDescriptorSetLayout`: the create info turned into a sorted, validated [`SetLayout`]
//! (Mesa's `vk_create_sorted_bindings`, binding flags, immutable samplers, mutable types), and
//! `vkGetDescriptorSetLayoutSupport` answered from the device's limits.
//!
//! Immutable samplers are read only for `SAMPLER` and `COMBINED_IMAGE_SAMPLER` bindings: the
//! spec says `pImmutableSamplers` is ignored for every other type (lavapipe, NVK and ANV read it
//! the same way), and applications do leave garbage there.

use std::sync::Arc;

use sha2::{Digest, Sha256};
use vkgen_generated::vk;

use super::super::tables::Properties;
use crate::handles::{Object, ObjectKind};
use crate::util::{find_in_chain, slice};

/// The result for invalid usage the kit detects (`VK_ERROR_VALIDATION_FAILED`, ash's `_EXT`
/// spelling so that any registry's tables have it).
pub(crate) const INVALID: vkgen_generated::vk::Result =
    vkgen_generated::vk::Result::ERROR_VALIDATION_FAILED_EXT;

/// One binding of a set layout.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SetLayoutBinding {
    pub binding: u32,
    pub descriptor_type: vk::DescriptorType,
    /// Array elements; bytes for an inline uniform block; the upper bound of a
    /// variable-count binding.
    pub count: u32,
    pub stages: vk::ShaderStageFlags,
    /// `VkDescriptorSetLayoutBindingFlagsCreateInfo`'s flags for this binding.
    pub flags: vk::DescriptorBindingFlags,
    /// `count` samplers for a `SAMPLER` / `COMBINED_IMAGE_SAMPLER` binding created with them,
    /// else empty.
    pub immutable_samplers: Vec<vk::Sampler>,
    /// `VK_EXT_mutable_descriptor_type`: the types a `MUTABLE_EXT` binding may hold.
    pub mutable_types: Vec<vk::DescriptorType>,
}

/// How a store resolves `VK_WHOLE_SIZE`: the buffer's size, or `None` when the kit cannot know
/// it (the range then stays `VK_WHOLE_SIZE` for the engine to resolve).
pub type BufferSize = fn(vk::Buffer) -> Option<u64>;

/// A set layout's definition (shared by its handle, sets, templates and pipeline layouts).
#[derive(Clone, Debug)]
pub struct SetLayout {
    pub flags: vk::DescriptorSetLayoutCreateFlags,
    /// Sorted by binding number, numbers unique.
    pub bindings: Vec<SetLayoutBinding>,
    /// How stores of this layout resolve `VK_WHOLE_SIZE` (the kit's
    /// [`Buffer`](crate::kit::resources::Buffer) sizes when the driver has
    /// [`Kit::RESOURCE_OBJECTS`](crate::kit::Kit::RESOURCE_OBJECTS) on; otherwise unknown).
    pub buffer_size: BufferSize,
}

impl Default for SetLayout {
    fn default() -> Self {
        Self::new(vk::DescriptorSetLayoutCreateFlags::empty(), Vec::new())
    }
}

fn unknown_buffer_size(_: vk::Buffer) -> Option<u64> {
    None
}

/// Whether `ty` takes a dynamic offset at bind time.
pub(super) fn is_dynamic(ty: vk::DescriptorType) -> bool {
    matches!(
        ty,
        vk::DescriptorType::UNIFORM_BUFFER_DYNAMIC | vk::DescriptorType::STORAGE_BUFFER_DYNAMIC
    )
}

impl SetLayout {
    /// A layout of `bindings`, sorted by binding number (stable), with unknown buffer sizes.
    pub fn new(
        flags: vk::DescriptorSetLayoutCreateFlags,
        mut bindings: Vec<SetLayoutBinding>,
    ) -> Self {
        bindings.sort_by_key(|b| b.binding);
        Self {
            flags,
            bindings,
            buffer_size: unknown_buffer_size,
        }
    }

    /// The index in [`SetLayout::bindings`] of binding number `binding`.
    pub fn binding_index(&self, binding: u32) -> Option<usize> {
        self.bindings
            .binary_search_by_key(&binding, |b| b.binding)
            .ok()
    }

    /// Binding number `binding`.
    pub fn binding(&self, binding: u32) -> Option<&SetLayoutBinding> {
        self.binding_index(binding).map(|i| &self.bindings[i])
    }

    /// Whether this is a push-descriptor layout (`PUSH_DESCRIPTOR_BIT`, `_KHR` alike).
    pub fn is_push_descriptor(&self) -> bool {
        self.flags
            .contains(vk::DescriptorSetLayoutCreateFlags::PUSH_DESCRIPTOR_KHR)
    }

    /// The variable-count binding (valid usage puts it last), if any.
    pub fn variable_binding(&self) -> Option<&SetLayoutBinding> {
        self.bindings.last().filter(|b| {
            b.flags
                .contains(vk::DescriptorBindingFlags::VARIABLE_DESCRIPTOR_COUNT)
        })
    }

    /// Binding `b`'s array size (bytes for an inline uniform block) in a set allocated with
    /// `variable_count`.
    pub fn effective_count(&self, b: &SetLayoutBinding, variable_count: u32) -> u32 {
        match self.variable_binding() {
            Some(v) if v.binding == b.binding => variable_count.min(b.count),
            _ => b.count,
        }
    }

    /// Dynamic uniform and storage buffers in the layout: how many dynamic offsets a bind of
    /// this set consumes.
    pub fn dynamic_descriptor_count(&self) -> u32 {
        self.bindings
            .iter()
            .filter(|b| is_dynamic(b.descriptor_type))
            .map(|b| b.count)
            .sum()
    }

    /// Which of a bind's dynamic offsets (0-based within this set) applies to `element` of
    /// `binding`: dynamic descriptors are ordered by binding number, then array element.
    pub fn dynamic_offset_index(&self, binding: u32, element: u32) -> Option<u32> {
        let mut index = 0;
        for b in &self.bindings {
            if b.binding == binding {
                return (is_dynamic(b.descriptor_type) && element < b.count)
                    .then_some(index + element);
            }
            if is_dynamic(b.descriptor_type) {
                index += b.count;
            }
        }
        None
    }

    /// A 32-byte identity of the definition: equal for layouts created with the same
    /// parameters (the spec's "identically defined"), the input of pipeline-layout
    /// compatibility. Covers the flags and every binding member, immutable sampler handles and
    /// mutable type lists included; not [`SetLayout::buffer_size`] (how the kit resolves, not
    /// what the application defined).
    pub fn hash(&self) -> [u8; 32] {
        let mut h = Sha256::new();
        h.update(b"vkgen set layout\0");
        h.update(self.flags.as_raw().to_le_bytes());
        h.update((self.bindings.len() as u64).to_le_bytes());
        for b in &self.bindings {
            for w in [
                b.binding,
                b.descriptor_type.as_raw() as u32,
                b.count,
                b.stages.as_raw(),
                b.flags.as_raw(),
                b.immutable_samplers.len() as u32,
                b.mutable_types.len() as u32,
            ] {
                h.update(w.to_le_bytes());
            }
            for s in &b.immutable_samplers {
                h.update(vk::Handle::as_raw(*s).to_le_bytes());
            }
            for t in &b.mutable_types {
                h.update(t.as_raw().to_le_bytes());
            }
        }
        h.finalize().into()
    }

    /// The layout a create info describes, validated (the error says what is wrong).
    ///
    /// # Safety
    /// `info` is a valid `VkDescriptorSetLayoutCreateInfo` with a valid chain and arrays.
    pub unsafe fn from_create_info(
        info: &vk::DescriptorSetLayoutCreateInfo<'_>,
    ) -> Result<SetLayout, String> {
        // SAFETY: `pBindings` holds `bindingCount` structures (the caller's promise).
        let raw = unsafe { slice(info.p_bindings, info.binding_count) };
        // SAFETY: the caller's valid chain; the sTypes name these structures.
        let (flags_info, mutable) = unsafe {
            (
                find_in_chain::<vk::DescriptorSetLayoutBindingFlagsCreateInfo<'_>>(
                    info.p_next,
                    vk::StructureType::DESCRIPTOR_SET_LAYOUT_BINDING_FLAGS_CREATE_INFO,
                ),
                find_in_chain::<vk::MutableDescriptorTypeCreateInfoEXT<'_>>(
                    info.p_next,
                    vk::StructureType::MUTABLE_DESCRIPTOR_TYPE_CREATE_INFO_EXT,
                ),
            )
        };
        // SAFETY: the chained structures' arrays hold their counts (the caller's promise).
        let binding_flags = flags_info.map_or(&[][..], |f| unsafe {
            slice(f.p_binding_flags, f.binding_count)
        });
        if !binding_flags.is_empty() && binding_flags.len() != raw.len() {
            return Err(format!(
                "VkDescriptorSetLayoutBindingFlagsCreateInfo has {} flags for {} bindings",
                binding_flags.len(),
                raw.len()
            ));
        }
        // SAFETY: the caller's valid chain: its mutable type lists hold their counts.
        let lists = mutable.map_or(&[][..], |m| unsafe {
            slice(
                m.p_mutable_descriptor_type_lists,
                m.mutable_descriptor_type_list_count,
            )
        });
        let bindings = raw
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let samplers = matches!(
                    b.descriptor_type,
                    vk::DescriptorType::SAMPLER | vk::DescriptorType::COMBINED_IMAGE_SAMPLER
                );
                SetLayoutBinding {
                    binding: b.binding,
                    descriptor_type: b.descriptor_type,
                    count: b.descriptor_count,
                    stages: b.stage_flags,
                    flags: binding_flags.get(i).copied().unwrap_or_default(),
                    immutable_samplers: if samplers {
                        // SAFETY: for these two types a non-null `pImmutableSamplers` holds
                        // `descriptorCount` handles (VUID-VkDescriptorSetLayoutBinding-descriptorType-00282).
                        unsafe { slice(b.p_immutable_samplers, b.descriptor_count) }.to_vec()
                    } else {
                        Vec::new()
                    },
                    // SAFETY: a list holds `descriptorTypeCount` types (the caller's chain).
                    mutable_types: lists.get(i).map_or_else(Vec::new, |l| unsafe {
                        slice(l.p_descriptor_types, l.descriptor_type_count).to_vec()
                    }),
                }
            })
            .collect();
        let layout = SetLayout::new(info.flags, bindings);
        layout.validate()?;
        Ok(layout)
    }

    /// The valid-usage rules the store and the pool rely on.
    fn validate(&self) -> Result<(), String> {
        if let Some(w) = self
            .bindings
            .windows(2)
            .find(|w| w[0].binding == w[1].binding)
        {
            return Err(format!("binding {} appears twice", w[0].binding));
        }
        let variable = vk::DescriptorBindingFlags::VARIABLE_DESCRIPTOR_COUNT;
        let last = self.bindings.len().saturating_sub(1);
        for (i, b) in self.bindings.iter().enumerate() {
            if b.flags.contains(variable) {
                if i != last {
                    return Err(format!(
                        "binding {} has a variable count but is not the highest-numbered",
                        b.binding
                    ));
                }
                if is_dynamic(b.descriptor_type) || self.is_push_descriptor() {
                    return Err(format!(
                        "binding {}: a variable count on a dynamic buffer or in a push-descriptor layout",
                        b.binding
                    ));
                }
            }
            if self.is_push_descriptor() && is_dynamic(b.descriptor_type) {
                return Err(format!(
                    "binding {}: dynamic buffers in a push-descriptor layout",
                    b.binding
                ));
            }
            if b.descriptor_type == vk::DescriptorType::INLINE_UNIFORM_BLOCK && b.count % 4 != 0 {
                return Err(format!(
                    "inline uniform block binding {} of {} bytes (a multiple of 4 is required)",
                    b.binding, b.count
                ));
            }
        }
        Ok(())
    }
}

/// A `VkDescriptorSetLayout` of the kit.
pub struct DescriptorSetLayout {
    pub layout: Arc<SetLayout>,
}

impl ObjectKind for DescriptorSetLayout {
    const OBJECT_TYPE: vk::ObjectType = vk::ObjectType::DESCRIPTOR_SET_LAYOUT;
}

impl DescriptorSetLayout {
    /// The set layout behind `h`.
    ///
    /// # Safety
    /// `h` is null or a live `VkDescriptorSetLayout` of a driver with the component on.
    pub unsafe fn from_handle<'a>(h: vk::DescriptorSetLayout) -> Option<&'a Self> {
        // SAFETY: the caller promises a null or live handle; `from_handle` checks the type.
        unsafe { Object::<Self>::from_handle(h) }.map(|o| &**o)
    }
}

/// `vkGetDescriptorSetLayoutSupport`'s answer: whether `layout` can be created on a device with
/// `limits`, and the largest variable count its variable binding can have (0 without one, or
/// when unsupported). The rule: at most `maxPerSetDescriptors` descriptors (an inline uniform
/// block counts as one; `maxPushDescriptors` for a push-descriptor layout), each inline uniform
/// block within `maxInlineUniformBlockSize` bytes and at most
/// `maxDescriptorSetInlineUniformBlocks` of them (the update-after-bind limits for an
/// update-after-bind layout). The per-type set limits bound pipeline layouts, not set layouts,
/// so they are not asked here.
pub fn layout_support(layout: &SetLayout, limits: &Properties) -> (bool, u32) {
    let inline =
        |b: &&SetLayoutBinding| b.descriptor_type == vk::DescriptorType::INLINE_UNIFORM_BLOCK;
    let size = |b: &SetLayoutBinding| if inline(&b) { 1 } else { u64::from(b.count) };
    let total: u64 = layout.bindings.iter().map(size).sum();
    let update_after_bind = layout
        .flags
        .contains(vk::DescriptorSetLayoutCreateFlags::UPDATE_AFTER_BIND_POOL);
    let (max_total, max_blocks) = match (layout.is_push_descriptor(), update_after_bind) {
        (true, _) => (
            limits.max_push_descriptors,
            limits.max_descriptor_set_inline_uniform_blocks,
        ),
        (false, false) => (
            limits.max_per_set_descriptors,
            limits.max_descriptor_set_inline_uniform_blocks,
        ),
        (false, true) => (
            limits.max_per_set_descriptors,
            limits.max_descriptor_set_update_after_bind_inline_uniform_blocks,
        ),
    };
    let blocks: Vec<&SetLayoutBinding> = layout.bindings.iter().filter(inline).collect();
    let supported = total <= u64::from(max_total)
        && blocks.len() as u64 <= u64::from(max_blocks)
        && blocks
            .iter()
            .all(|b| b.count <= limits.max_inline_uniform_block_size);
    let variable = match layout.variable_binding() {
        Some(v) if supported && inline(&v) => limits.max_inline_uniform_block_size,
        Some(v) if supported => {
            let others = total - size(v);
            u32::try_from(u64::from(max_total).saturating_sub(others)).unwrap_or(u32::MAX)
        }
        _ => 0,
    };
    (supported, variable)
}
