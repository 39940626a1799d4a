//! The bound state's data: what a command buffer has bound at each bind point, its vertex and
//! index buffers and rendering. Written by `bind.rs` (the bind commands) and read through
//! `BoundState`'s methods in `mod.rs`; it names neither.

use std::sync::Arc;

use vkgen_generated::vk;

use super::dynamic::DynamicState;
use super::graphics::GraphicsState;
use crate::kit::descriptor::{DescriptorStore, PipelineLayoutInfo};
use crate::util::slice;

/// A descriptor set bound with `vkCmdBindDescriptorSets{,2}`.
#[derive(Clone)]
pub struct BoundSet {
    pub set: vk::DescriptorSet,
    /// The layout it was bound with (for the disturbance rule).
    pub layout: Arc<PipelineLayoutInfo>,
    /// Its dynamic offsets, in binding then element order.
    pub dynamic_offsets: Vec<u32>,
}

/// What sits at one set number of a bind point.
pub enum SetBinding {
    Set(BoundSet),
    /// A push-descriptor set: the command buffer's own store.
    Push {
        store: DescriptorStore,
        layout: Arc<PipelineLayoutInfo>,
    },
}

impl SetBinding {
    pub fn layout(&self) -> &Arc<PipelineLayoutInfo> {
        match self {
            SetBinding::Set(s) => &s.layout,
            SetBinding::Push { layout, .. } => layout,
        }
    }
}

/// One bind point's state (graphics or compute).
#[derive(Default)]
pub struct BindPointState {
    pub pipeline: Option<vk::Pipeline>,
    pub sets: Vec<Option<SetBinding>>,
    /// Push-constant bytes by offset (grown as written).
    pub push_constants: Vec<u8>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VertexBinding {
    pub buffer: vk::Buffer,
    pub offset: u64,
    /// `vkCmdBindVertexBuffers2`'s size (`None`: to the end of the buffer).
    pub size: Option<u64>,
    /// `vkCmdBindVertexBuffers2`'s stride (`None`: the pipeline's).
    pub stride: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IndexBinding {
    pub buffer: vk::Buffer,
    pub offset: u64,
    /// `vkCmdBindIndexBuffer2`'s size (`None`: to the end of the buffer).
    pub size: Option<u64>,
    pub index_type: vk::IndexType,
}

/// The dynamic rendering begun with `vkCmdBeginRendering` (its attachments' pointers are the
/// recording's, valid during the replay).
#[derive(Clone, Debug)]
pub struct Rendering {
    pub flags: vk::RenderingFlags,
    pub render_area: vk::Rect2D,
    pub layer_count: u32,
    pub view_mask: u32,
    pub color_attachments: Vec<vk::RenderingAttachmentInfo<'static>>,
    pub depth_attachment: Option<vk::RenderingAttachmentInfo<'static>>,
    pub stencil_attachment: Option<vk::RenderingAttachmentInfo<'static>>,
}

/// A storage or uniform buffer descriptor (or an inline uniform block), resolved: its host
/// bytes start at `ptr`.
#[derive(Clone, Copy, Debug)]
pub struct BoundBuffer {
    pub buffer: vk::Buffer,
    /// The descriptor's offset plus its dynamic offset.
    pub offset: u64,
    pub range: u64,
    /// The host address of byte `offset` of the buffer (valid for `range` bytes).
    pub ptr: *mut u8,
}

/// Everything a command buffer has bound; see the [module docs](super).
#[derive(Default)]
pub struct BoundState {
    pub compute: BindPointState,
    pub graphics: BindPointState,
    pub vertex_buffers: Vec<Option<VertexBinding>>,
    pub index_buffer: Option<IndexBinding>,
    pub dynamic: DynamicState,
    /// The bound graphics pipeline's state with the dynamic values applied.
    pub(super) resolved: Option<GraphicsState>,
    pub rendering: Option<Rendering>,
}

/// `n` recorded elements at `p` (empty for null).
///
/// # Safety
/// `p` points at `n` elements or is null.
pub(super) unsafe fn recorded<'a, T>(p: *const T, n: u32) -> &'a [T] {
    // SAFETY: the caller's promise.
    unsafe { slice(p, n) }
}
