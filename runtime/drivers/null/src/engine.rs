//! The null driver's engine: the kit records every `vkCmd*` (`Kit::RECORD_COMMANDS`) and
//! `Kit::driver_submit` replays each submitted command buffer, tracking bound state
//! (`CommandBuffer::replay_tracked`), into [`NullEngine`], which renders nothing.
//!
//! Why replay at all, when nothing runs: so that every program on the null driver (vkcube,
//! the compute and WSI clients) drives the recorder's deep copies and its replay, secondaries
//! included, the path every kit vendor's engine takes; a recording the replay misreads then
//! fails here first, on a machine without a GPU.
//!
//! What the engine does run is what the host can observe of "work done": query results. A
//! query ended (or a timestamp written) in a submitted command buffer becomes available with
//! the value 0 (every value of a pipeline-statistics query), as nulldrv answers, so
//! `vkGetQueryPoolResults` with `VK_QUERY_RESULT_WAIT_BIT` returns instead of waiting for a
//! result no hardware will write. (A query in a multiview render pass makes only its first
//! query available.) Everything else, `vkCmdSetEvent` included, is a no-op.

use vkgen_driver::generated::vk;
use vkgen_driver::kit::command::Execute;
use vkgen_driver::kit::resources::QueryPool;
use vkgen_driver::kit::state::{BoundState, Tracked};

/// See the [module docs](self). It keeps the bound state the tracked replay resolves (and
/// reads none of it): so every draw and dispatch of every program on the null driver runs the
/// state tracker too.
#[derive(Default)]
pub(crate) struct NullEngine {
    bound: BoundState,
}

impl Tracked for NullEngine {
    fn bound(&mut self) -> &mut BoundState {
        &mut self.bound
    }
}

impl NullEngine {
    fn complete(pool: vk::QueryPool, query: u32) {
        // SAFETY: the recorded pool handle: a query pool stays alive while a command buffer
        // that uses it is pending (VUID-vkDestroyQueryPool-queryPool-00793); `from_handle`
        // checks the type.
        if let Some(p) = unsafe { QueryPool::from_handle(pool) } {
            p.write(query, &[]);
        }
    }
}

#[vkgen_driver::execute]
impl Execute for NullEngine {
    unsafe fn cmd_reset_query_pool(
        &mut self,
        query_pool: vk::QueryPool,
        first_query: u32,
        query_count: u32,
    ) {
        // SAFETY: the recorded pool, alive while the command buffer is pending; type-checked.
        if let Some(p) = unsafe { QueryPool::from_handle(query_pool) } {
            p.reset(first_query, query_count);
        }
    }

    unsafe fn cmd_end_query(&mut self, query_pool: vk::QueryPool, query: u32) {
        Self::complete(query_pool, query);
    }

    unsafe fn cmd_end_query_indexed_ext(
        &mut self,
        query_pool: vk::QueryPool,
        query: u32,
        _index: u32,
    ) {
        Self::complete(query_pool, query);
    }

    unsafe fn cmd_write_timestamp2(
        &mut self,
        _stage: vk::PipelineStageFlags2,
        query_pool: vk::QueryPool,
        query: u32,
    ) {
        Self::complete(query_pool, query);
    }
}
