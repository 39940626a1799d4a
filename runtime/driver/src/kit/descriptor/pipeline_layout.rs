//! `VkPipelineLayout`: set layouts (`Arc`-held; null elements allowed, as
//! `INDEPENDENT_SETS` / graphics pipeline libraries use them), push-constant ranges, and the
//! compatibility identities the state tracker compares.
//!
//! The spec's rule ("Pipeline Layout Compatibility"): two pipeline layouts are *compatible for
//! set N* when they were created with identically defined set layouts for sets 0 through N,
//! both with or both without `VK_PIPELINE_LAYOUT_CREATE_INDEPENDENT_SETS_BIT_EXT`, and with
//! identical push-constant ranges; *compatible for push constants* when the ranges are
//! identical. The kit turns that into hashes:
//!
//! * `set_identities[n]` = SHA-256 of (the independent-sets bit, the push-constant ranges in
//!   order, [`SetLayout::hash`] of sets 0..=n): equal exactly when compatible for set n
//!   (up to hash collisions). A null set layout (only valid with graphics pipeline libraries)
//!   hashes as an empty layout: it stands for a set the layout does not describe, and linking
//!   treats it as one without bindings.
//! * `identity` = SHA-256 of the same over every set plus the set count: equal for layouts
//!   compatible for every set they have and for push constants (the layout as a whole).
//!
//! Other flags and the layouts' handles do not enter: two separately created but identically
//! defined layouts are compatible, as the spec requires.

use std::sync::Arc;

use sha2::{Digest, Sha256};
use vkgen_abi::vk_error;
use vkgen_generated::entries::EntryTable;
use vkgen_generated::vk;

use super::super::resources::desc::store;
use super::layout::INVALID;
use super::layout::{DescriptorSetLayout, SetLayout};
use crate::handles::{destroy_object, Object, ObjectKind};
use crate::util::{guard, slice};

/// A pipeline layout's definition.
#[derive(Clone, Debug)]
pub struct PipelineLayoutInfo {
    pub flags: vk::PipelineLayoutCreateFlags,
    pub set_layouts: Vec<Option<Arc<SetLayout>>>,
    pub push_constant_ranges: Vec<vk::PushConstantRange>,
    /// Equal identity = compatible layouts (see the module docs of
    /// `kit::descriptor::pipeline_layout`).
    pub identity: [u8; 32],
    /// Per set: equal = compatible for that set.
    pub set_identities: Vec<[u8; 32]>,
}

fn prefix_hasher(flags: vk::PipelineLayoutCreateFlags, ranges: &[vk::PushConstantRange]) -> Sha256 {
    let mut h = Sha256::new();
    h.update(b"vkgen pipeline layout\0");
    let independent = flags.contains(vk::PipelineLayoutCreateFlags::INDEPENDENT_SETS_EXT);
    h.update([u8::from(independent)]);
    h.update((ranges.len() as u64).to_le_bytes());
    for r in ranges {
        for w in [r.stage_flags.as_raw(), r.offset, r.size] {
            h.update(w.to_le_bytes());
        }
    }
    h
}

impl PipelineLayoutInfo {
    /// A layout of these parts, identities computed.
    pub fn new(
        flags: vk::PipelineLayoutCreateFlags,
        set_layouts: Vec<Option<Arc<SetLayout>>>,
        push_constant_ranges: Vec<vk::PushConstantRange>,
    ) -> Self {
        let empty = SetLayout::default().hash();
        let mut h = prefix_hasher(flags, &push_constant_ranges);
        let set_identities = set_layouts
            .iter()
            .map(|l| {
                h.update(l.as_ref().map_or(empty, |l| l.hash()));
                h.clone().finalize().into()
            })
            .collect();
        h.update(b"sets\0");
        h.update((set_layouts.len() as u64).to_le_bytes());
        Self {
            flags,
            set_layouts,
            push_constant_ranges,
            identity: h.finalize().into(),
            set_identities,
        }
    }

    /// The layout a create info describes (also what maintenance6's `VkPipelineLayoutCreateInfo`
    /// in a bind or push info's chain stands for).
    ///
    /// # Safety
    /// `info` is valid: its arrays hold their counts, each set layout is null or live.
    pub unsafe fn from_create_info(
        info: &vk::PipelineLayoutCreateInfo<'_>,
    ) -> Result<Self, String> {
        // SAFETY: the create info's arrays hold their counts (the caller's promise).
        let (handles, ranges) = unsafe {
            (
                slice(info.p_set_layouts, info.set_layout_count),
                slice(info.p_push_constant_ranges, info.push_constant_range_count),
            )
        };
        let mut sets = Vec::with_capacity(handles.len());
        for (n, &h) in handles.iter().enumerate() {
            // SAFETY: each element is null (graphicsPipelineLibrary) or a live set layout
            // (VUID-VkPipelineLayoutCreateInfo-pSetLayouts-parameter); checked by type.
            let layout = unsafe { DescriptorSetLayout::from_handle(h) };
            if layout.is_none() && h != vk::DescriptorSetLayout::null() {
                return Err(format!("set {n} is not a set layout of this driver"));
            }
            sets.push(layout.map(|l| l.layout.clone()));
        }
        let pushes = sets
            .iter()
            .flatten()
            .filter(|l| l.is_push_descriptor())
            .count();
        if pushes > 1 {
            return Err(format!(
                "{pushes} push-descriptor set layouts (one at most)"
            ));
        }
        Ok(Self::new(info.flags, sets, ranges.to_vec()))
    }

    /// Whether `self` and `other` are compatible for set `set` (so sets 0..=`set` bound with
    /// one stay valid for the other). `false` when either has no set `set`.
    pub fn compatible_up_to(&self, other: &PipelineLayoutInfo, set: u32) -> bool {
        match (
            self.set_identities.get(set as usize),
            other.set_identities.get(set as usize),
        ) {
            (Some(a), Some(b)) => a == b,
            _ => false,
        }
    }

    /// Whether `self` and `other` are compatible for push constants (identical ranges).
    pub fn push_constants_compatible(&self, other: &PipelineLayoutInfo) -> bool {
        self.push_constant_ranges.len() == other.push_constant_ranges.len()
            && self
                .push_constant_ranges
                .iter()
                .zip(&other.push_constant_ranges)
                .all(|(a, b)| {
                    a.stage_flags == b.stage_flags && a.offset == b.offset && a.size == b.size
                })
    }

    /// The set layout of set `set` (`None` past the end or for a null element).
    pub fn set_layout(&self, set: u32) -> Option<&Arc<SetLayout>> {
        self.set_layouts.get(set as usize).and_then(Option::as_ref)
    }
}

/// A `VkPipelineLayout` of the kit.
pub struct PipelineLayout {
    pub layout: Arc<PipelineLayoutInfo>,
}

impl ObjectKind for PipelineLayout {
    const OBJECT_TYPE: vk::ObjectType = vk::ObjectType::PIPELINE_LAYOUT;
}

impl PipelineLayout {
    /// The pipeline layout behind `h`.
    ///
    /// # Safety
    /// `h` is null or a live `VkPipelineLayout` of a driver with the component on.
    pub unsafe fn from_handle<'a>(h: vk::PipelineLayout) -> Option<&'a Self> {
        // SAFETY: the caller promises a null or live handle; `from_handle` checks the type.
        unsafe { Object::<Self>::from_handle(h) }.map(|o| &**o)
    }
}

/// [`vkCreatePipelineLayout`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkCreatePipelineLayout.html)
unsafe extern "system" fn create_pipeline_layout(
    _device: vk::Device,
    p_info: *const vk::PipelineLayoutCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_layout: *mut vk::PipelineLayout,
) -> vk::Result {
    guard(
        "vkCreatePipelineLayout",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: `pCreateInfo` is a valid structure with valid arrays
            // (VUID-vkCreatePipelineLayout-pCreateInfo-parameter).
            let Some(info) = (unsafe { p_info.as_ref() }) else {
                return vk_error!(INVALID, "vkCreatePipelineLayout: null pCreateInfo");
            };
            // SAFETY: the application's valid create info.
            let layout = match unsafe { PipelineLayoutInfo::from_create_info(info) } {
                Ok(l) => l,
                Err(e) => return vk_error!(INVALID, "vkCreatePipelineLayout: {e}"),
            };
            let object = PipelineLayout {
                layout: Arc::new(layout),
            };
            // SAFETY: the application's allocator and output pointer (the command's
            // -pAllocator- and -pPipelineLayout-parameter VUIDs).
            unsafe { store(object, p_allocator, p_layout) }
        },
    )
}

/// [`vkDestroyPipelineLayout`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkDestroyPipelineLayout.html):
/// pipelines, templates and recorded commands keep the definition.
unsafe extern "system" fn destroy_pipeline_layout(
    _device: vk::Device,
    layout: vk::PipelineLayout,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    guard("vkDestroyPipelineLayout", (), || {
        // SAFETY: `layout` is null or a live pipeline layout of this device
        // (VUID-vkDestroyPipelineLayout-pipelineLayout-parameter).
        unsafe { destroy_object::<PipelineLayout>(vk::Handle::as_raw(layout)) };
    });
}

pub(super) fn entries() -> EntryTable {
    EntryTable {
        create_pipeline_layout: Some(create_pipeline_layout),
        destroy_pipeline_layout: Some(destroy_pipeline_layout),
        ..EntryTable::EMPTY
    }
}
