//! [`DescriptorStore`]: a descriptor set's host-side content, the thing an engine reads at
//! execution time (and the command buffer's push-descriptor set).
//!
//! Every binding owns a run of slots: array elements for descriptors, bytes for an inline
//! uniform block, its count being the layout's (the allocation's variable count for the
//! variable binding). A slot keeps the type it holds beside the [`Descriptor`], which is what a
//! `MUTABLE_EXT` binding needs (the last write's type) and costs nothing elsewhere. The content
//! sits behind one `RwLock`: writes come from host threads (update-after-bind allows that while
//! a queue reads), reads from the engine's; neither holds it across calls.

use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

use vkgen_generated::vk;

use super::layout::{SetLayout, SetLayoutBinding};

/// One descriptor as the engine reads it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Descriptor {
    Empty,
    Sampler(vk::Sampler),
    /// Sampled, storage and input-attachment images (`sampler` null), combined image samplers
    /// (`sampler` the written or immutable one).
    Image {
        view: vk::ImageView,
        layout: vk::ImageLayout,
        sampler: vk::Sampler,
    },
    /// Uniform and storage buffers (dynamic ones without their bind-time offset). `range` is
    /// resolved: never `VK_WHOLE_SIZE` when the kit knows the buffer's size (see
    /// [`SetLayout::buffer_size`]).
    Buffer {
        buffer: vk::Buffer,
        offset: u64,
        range: u64,
    },
    TexelBuffer(vk::BufferView),
    /// A `VkAccelerationStructureKHR` (or `…NV`) handle.
    AccelerationStructure(u64),
}

/// The slots and bytes of a store.
#[derive(Clone, Debug)]
pub(super) struct Content {
    pub(super) slots: Vec<(vk::DescriptorType, Descriptor)>,
    pub(super) bytes: Vec<u8>,
}

/// A set's content. See the module docs of `kit::descriptor::store`.
#[derive(Debug)]
pub struct DescriptorStore {
    layout: Arc<SetLayout>,
    variable_count: u32,
    /// Per binding (index of `layout.bindings`): first slot (or byte) and count.
    pub(super) runs: Vec<(usize, u32)>,
    pub(super) content: RwLock<Content>,
}

/// Whether a binding of type `ty` lives in bytes rather than slots.
pub(super) fn is_inline(ty: vk::DescriptorType) -> bool {
    ty == vk::DescriptorType::INLINE_UNIFORM_BLOCK
}

/// What a fresh slot of `b` holds: its immutable sampler, else nothing.
fn initial(b: &SetLayoutBinding, element: usize) -> Descriptor {
    match (b.descriptor_type, b.immutable_samplers.get(element)) {
        (vk::DescriptorType::SAMPLER, Some(&s)) => Descriptor::Sampler(s),
        (vk::DescriptorType::COMBINED_IMAGE_SAMPLER, Some(&s)) => Descriptor::Image {
            view: vk::ImageView::null(),
            layout: vk::ImageLayout::UNDEFINED,
            sampler: s,
        },
        _ => Descriptor::Empty,
    }
}

impl DescriptorStore {
    /// An empty store of `layout` (immutable samplers in place); `variable_count` is the
    /// variable-count binding's size (clamped to the layout's), ignored without one.
    pub fn new(layout: Arc<SetLayout>, variable_count: u32) -> Self {
        let mut runs = Vec::with_capacity(layout.bindings.len());
        let (mut slots, mut bytes) = (Vec::new(), 0usize);
        for b in &layout.bindings {
            let n = layout.effective_count(b, variable_count);
            if is_inline(b.descriptor_type) {
                runs.push((bytes, n));
                bytes += n as usize;
            } else {
                runs.push((slots.len(), n));
                slots.extend((0..n as usize).map(|e| (b.descriptor_type, initial(b, e))));
            }
        }
        Self {
            variable_count: layout
                .variable_binding()
                .map_or(0, |v| variable_count.min(v.count)),
            layout,
            runs,
            content: RwLock::new(Content {
                slots,
                bytes: vec![0; bytes],
            }),
        }
    }

    /// The layout the store was made for.
    pub fn layout(&self) -> &Arc<SetLayout> {
        &self.layout
    }

    /// The variable-count binding's size in this store (0 without one).
    pub fn variable_count(&self) -> u32 {
        self.variable_count
    }

    /// Binding `binding`'s array size (bytes for an inline uniform block) in this store.
    pub fn binding_count(&self, binding: u32) -> Option<u32> {
        self.layout.binding_index(binding).map(|i| self.runs[i].1)
    }

    pub(super) fn read(&self) -> RwLockReadGuard<'_, Content> {
        self.content.read().unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn write_lock(&self) -> RwLockWriteGuard<'_, Content> {
        self.content.write().unwrap_or_else(|e| e.into_inner())
    }

    /// The slot of `element` of `binding` (a descriptor binding, not an inline block).
    fn slot(&self, binding: u32, element: u32) -> Option<usize> {
        let i = self.layout.binding_index(binding)?;
        let (first, n) = self.runs[i];
        (!is_inline(self.layout.bindings[i].descriptor_type) && element < n)
            .then_some(first + element as usize)
    }

    /// Element `element` of `binding` (`None` past the binding's size, for an unknown binding or
    /// an inline uniform block).
    pub fn descriptor(&self, binding: u32, element: u32) -> Option<Descriptor> {
        let s = self.slot(binding, element)?;
        Some(self.read().slots[s].1)
    }

    /// The type element `element` of `binding` holds: the layout's, or for a `MUTABLE_EXT`
    /// binding the last write's (`MUTABLE_EXT` until the first).
    pub fn descriptor_type(&self, binding: u32, element: u32) -> Option<vk::DescriptorType> {
        let s = self.slot(binding, element)?;
        Some(self.read().slots[s].0)
    }

    /// Every element of `binding`, in order.
    pub fn descriptors(&self, binding: u32) -> Option<Vec<Descriptor>> {
        let i = self.layout.binding_index(binding)?;
        if is_inline(self.layout.bindings[i].descriptor_type) {
            return None;
        }
        let (first, n) = self.runs[i];
        Some(
            self.read().slots[first..first + n as usize]
                .iter()
                .map(|s| s.1)
                .collect(),
        )
    }

    /// The bytes of inline uniform block `binding`.
    pub fn inline_uniform(&self, binding: u32) -> Option<Vec<u8>> {
        let i = self.layout.binding_index(binding)?;
        if !is_inline(self.layout.bindings[i].descriptor_type) {
            return None;
        }
        let (first, n) = self.runs[i];
        Some(self.read().bytes[first..first + n as usize].to_vec())
    }

    /// Where the bytes of inline uniform block `binding` live, and how many there are: what an
    /// engine reads in place at a dispatch. Valid while the store lives and its content is not
    /// rewritten: updating a set that a pending command buffer uses is invalid usage (unless
    /// the binding is update-unused-while-pending, and then the shader does not read it).
    pub fn inline_uniform_bytes(&self, binding: u32) -> Option<(*const u8, usize)> {
        let i = self.layout.binding_index(binding)?;
        if !is_inline(self.layout.bindings[i].descriptor_type) {
            return None;
        }
        let (first, n) = self.runs[i];
        let content = self.read();
        let bytes = content.bytes.get(first..first + n as usize)?;
        Some((bytes.as_ptr(), bytes.len()))
    }

    /// Back to a fresh store's content (immutable samplers kept), for a push-descriptor set
    /// the state tracker reuses.
    pub fn clear(&self) {
        let fresh = Self::new(self.layout.clone(), self.variable_count);
        let content = fresh.read().clone();
        *self.write_lock() = content;
    }
}

impl Clone for DescriptorStore {
    /// A snapshot: the same layout, the content as it is now (what a recorded push-descriptor
    /// command keeps).
    fn clone(&self) -> Self {
        Self {
            layout: self.layout.clone(),
            variable_count: self.variable_count,
            runs: self.runs.clone(),
            content: RwLock::new(self.read().clone()),
        }
    }
}
