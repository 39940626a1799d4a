//! What a command buffer has bound, resolved for the engine at every draw and dispatch (Mesa's
//! `vk_command_buffer` state plus `vk_dynamic_graphics_state`), with [`Kit::PIPELINE_OBJECTS`].
//!
//! **How the engine reaches it.** The kit replays a recording through a tracking pass: the
//! generated `Recording::replay_observed` calls an observer with each recorded [`Cmd`] just
//! before the engine's [`Execute`] method of that command runs. The observer updates a
//! [`BoundState`] that the *engine owns* (it implements [`Tracked`] to hand it over), so inside
//! `cmd_dispatch` the engine reads `self.bound.compute()` and finds the pipeline, its parsed
//! module and workgroup size, the descriptors with dynamic offsets applied, the buffers' host
//! addresses and the push constants — nothing to decode from the raw stream. Indirect draws
//! and dispatches see the same state (the observer runs before every command).
//!
//! ```ignore
//! #[derive(Default)]
//! struct Engine { bound: BoundState }
//! impl Tracked for Engine { fn bound(&mut self) -> &mut BoundState { &mut self.bound } }
//! #[vkgen_driver::execute]
//! impl Execute for Engine {
//!     unsafe fn cmd_dispatch(&mut self, x: u32, y: u32, z: u32) {
//!         let Some(c) = self.bound.compute() else { return };
//!         let [lx, ly, lz] = c.workgroup_size();
//!         let words = c.module().words();                   // the parsed SPIR-V
//!         let buf = c.buffer(0, 0, 0).unwrap();              // set 0, binding 0, element 0
//!         let push = c.push_constants();                     // bytes, by offset
//!         // … run the shader over (x·lx, y·ly, z·lz) invocations on `buf.ptr` …
//!     }
//! }
//! // in Kit::driver_submit, per command buffer of the batch:
//! CommandBuffer::<Self>::from_handle(cb).unwrap().replay_tracked(&mut Engine::default());
//! ```
//!
//! What is tracked: the pipeline per bind point; descriptor sets with their dynamic offsets and
//! the spec's disturbance rule (binding set N with a layout not compatible for a lower set
//! invalidates that set; one not compatible for set N invalidates every higher set);
//! push-descriptor sets (`vkCmdPushDescriptorSet{,2}` and their template forms, written into a
//! [`DescriptorStore`](crate::kit::descriptor::DescriptorStore) per bind point and set); push constants (bytes); vertex buffers with
//! the sizes and strides of `vkCmdBindVertexBuffers2`; the index buffer with
//! `vkCmdBindIndexBuffer2`'s size; every dynamic state ([`dynamic`]); and the current dynamic
//! rendering.

use std::sync::Arc;

use vkgen_generated::recorder::{Cmd, Execute};
use vkgen_generated::vk;

use super::api::Kit;
use super::command::CommandBuffer;
use super::descriptor::{Descriptor, DescriptorSet};
use super::pipeline::{ComputePipeline, GraphicsPipeline, Pipeline};
use super::shader::SpirvModule;

mod bind;
mod bound;
pub mod dynamic;
pub mod graphics;

pub use bound::{
    BindPointState, BoundBuffer, BoundSet, BoundState, IndexBinding, Rendering, SetBinding,
    VertexBinding,
};
pub use dynamic::DynamicState;
pub use graphics::GraphicsState;

/// An engine whose replay the kit tracks: it owns the [`BoundState`] it reads.
pub trait Tracked {
    fn bound(&mut self) -> &mut BoundState;
}

impl<D: Kit> CommandBuffer<D> {
    /// [`CommandBuffer::replay`] with bound-state tracking: `engine.bound()` starts empty and
    /// is updated before each command reaches the engine (see the [module docs](self)).
    pub fn replay_tracked<E: Execute + Tracked>(&self, engine: &mut E) {
        engine.bound().reset();
        self.recording().replay_observed(
            engine,
            &mut |cmd, e| {
                // SAFETY: the replay passes each recorded command, whose pointers point into the
                // recording (locked for the whole replay).
                unsafe { e.bound().observe(cmd) };
                // Events, timestamps and query resets the engine does not run: as in `replay`.
                super::command::applied::apply::<D, E>(cmd)
            },
            &mut |secondary, engine| {
                // SAFETY: as in `replay`: a secondary of this driver stays allocated while a
                // primary that executes it is pending, or `from_handle` refuses it.
                match unsafe { CommandBuffer::<D>::from_handle(secondary) } {
                    Some(cb) if cb.level == vk::CommandBufferLevel::SECONDARY => {
                        cb.replay_tracked(engine);
                    }
                    _ => log::warn!("vkCmdExecuteCommands names no secondary of this driver"),
                }
            },
        );
    }
}

impl BoundState {
    /// Back to nothing bound (a command buffer's replay starts here).
    pub fn reset(&mut self) {
        *self = BoundState::default();
    }

    pub fn point(&self, point: vk::PipelineBindPoint) -> &BindPointState {
        match point {
            vk::PipelineBindPoint::COMPUTE => &self.compute,
            _ => &self.graphics,
        }
    }

    /// The bound compute pipeline with its bindings, if one is bound.
    pub fn compute(&self) -> Option<Bound<'_, ComputePipeline>> {
        // SAFETY: a bound pipeline outlives the pending command buffer that binds it
        // (VUID-vkDestroyPipeline-pipeline-00765), or `from_handle` refuses the handle.
        let p = unsafe { Pipeline::from_handle(self.compute.pipeline?) }?;
        Some(Bound {
            pipeline: p.compute()?,
            point: &self.compute,
        })
    }

    /// The bound graphics pipeline with its bindings, if one is bound.
    pub fn graphics(&self) -> Option<Bound<'_, GraphicsPipeline>> {
        // SAFETY: as in `compute`.
        let p = unsafe { Pipeline::from_handle(self.graphics.pipeline?) }?;
        Some(Bound {
            pipeline: p.graphics()?,
            point: &self.graphics,
        })
    }

    /// The graphics state a draw uses now: the bound pipeline's with every dynamic state's
    /// last value applied.
    pub fn graphics_state(&self) -> Option<&GraphicsState> {
        self.resolved.as_ref()
    }

    /// Updates the state with one recorded command (the replay's observer).
    ///
    /// # Safety
    /// `cmd` is a recorded command being replayed (its pointers are valid).
    pub unsafe fn observe(&mut self, cmd: &Cmd) {
        // SAFETY: the caller's valid command.
        unsafe {
            if !bind::observe(self, cmd) {
                self.dynamic.observe(cmd, self.resolved.as_mut());
            }
        }
    }
}

/// A bound pipeline with its bind point's sets and push constants: what a draw or dispatch
/// reads.
pub struct Bound<'a, P> {
    pub pipeline: &'a P,
    point: &'a BindPointState,
}

impl<P> Bound<'_, P> {
    /// The push-constant bytes (index = offset).
    pub fn push_constants(&self) -> &[u8] {
        &self.point.push_constants
    }

    /// Descriptor `element` of `binding` in set `set`, a dynamic buffer's dynamic offset
    /// added to its offset; `None` when nothing valid is bound there.
    pub fn descriptor(&self, set: u32, binding: u32, element: u32) -> Option<Descriptor> {
        match self.point.sets.get(set as usize)?.as_ref()? {
            SetBinding::Push { store, .. } => store.descriptor(binding, element),
            SetBinding::Set(b) => {
                // SAFETY: a bound set stays allocated while the command buffer is pending
                // (VUID-vkFreeDescriptorSets-pDescriptorSets-00309), or `from_handle` refuses it.
                let ds = unsafe { DescriptorSet::from_handle(b.set) }?;
                let d = ds.store.descriptor(binding, element)?;
                let dynamic = ds
                    .store
                    .layout()
                    .dynamic_offset_index(binding, element)
                    .and_then(|i| b.dynamic_offsets.get(i as usize));
                Some(match (d, dynamic) {
                    (
                        Descriptor::Buffer {
                            buffer,
                            offset,
                            range,
                        },
                        Some(&o),
                    ) => Descriptor::Buffer {
                        buffer,
                        offset: offset + u64::from(o),
                        range,
                    },
                    (d, _) => d,
                })
            }
        }
    }

    /// A buffer descriptor resolved to host memory ([`crate::kit::resources::Buffer::host_ptr`]),
    /// or for an inline uniform block its bytes in the set (`buffer` null, element 0: a block
    /// is one descriptor to the shader).
    pub fn buffer(&self, set: u32, binding: u32, element: u32) -> Option<BoundBuffer> {
        if let Some(block) = self.inline_uniform(set, binding) {
            return (element == 0).then_some(block);
        }
        let Descriptor::Buffer {
            buffer,
            offset,
            range,
        } = self.descriptor(set, binding, element)?
        else {
            return None;
        };
        // SAFETY: a buffer a bound descriptor names is alive while the command buffer is
        // pending (the spec's descriptor validity rules), or `from_handle` refuses it.
        let b = unsafe { crate::kit::resources::Buffer::from_handle(buffer) }?;
        if offset.checked_add(range)? > b.desc.size {
            return None;
        }
        // SAFETY: `offset + range` lies within the bound buffer (checked above).
        let ptr = unsafe { b.host_ptr()?.add(offset as usize) };
        Some(BoundBuffer {
            buffer,
            offset,
            range,
            ptr,
        })
    }
}

impl<P> Bound<'_, P> {
    /// The bytes of inline uniform block `binding` of set `set`, in place.
    fn inline_uniform(&self, set: u32, binding: u32) -> Option<BoundBuffer> {
        let (ptr, len) = match self.point.sets.get(set as usize)?.as_ref()? {
            SetBinding::Push { store, .. } => store.inline_uniform_bytes(binding)?,
            SetBinding::Set(b) => {
                // SAFETY: as in `descriptor`: a bound set outlives the pending command buffer.
                let ds = unsafe { DescriptorSet::from_handle(b.set) }?;
                ds.store.inline_uniform_bytes(binding)?
            }
        };
        Some(BoundBuffer {
            buffer: vk::Buffer::null(),
            offset: 0,
            range: len as u64,
            // Read-only to shaders (uniform); `*mut` only for the shared type.
            ptr: ptr.cast_mut(),
        })
    }
}

impl Bound<'_, ComputePipeline> {
    /// `LocalSize` (or `LocalSizeId`, specialization applied); `[1, 1, 1]` if the module
    /// states none.
    pub fn workgroup_size(&self) -> [u32; 3] {
        self.pipeline.stage.workgroup_size.unwrap_or([1, 1, 1])
    }

    /// The parsed SPIR-V of the compute stage.
    pub fn module(&self) -> &Arc<SpirvModule> {
        &self.pipeline.stage.module
    }
}
