//! What both create paths (compute in `create.rs`, graphics in `graphics.rs`) share: the
//! 64-bit flags, the cache lookups and creation feedback, derivative bases. A leaf below both.

use std::time::Instant;

use vkgen_abi::vk_error;
use vkgen_generated::vk;

use super::object::Pipeline;
use crate::kit::shader::{PipelineCache, ShaderStage};
use crate::util::find_in_chain;

pub(super) type Flags2 = vk::PipelineCreateFlags2KHR;

/// An element's flags: `VkPipelineCreateFlags2CreateInfoKHR`'s when chained, else the
/// 32-bit ones widened.
///
/// # Safety
/// `p_next` is a valid chain.
pub(super) unsafe fn flags2(
    p_next: *const std::ffi::c_void,
    flags: vk::PipelineCreateFlags,
) -> Flags2 {
    // SAFETY: the caller's valid chain.
    let f2 = unsafe {
        find_in_chain::<vk::PipelineCreateFlags2CreateInfoKHR<'_>>(
            p_next,
            vk::StructureType::PIPELINE_CREATE_FLAGS_2_CREATE_INFO_KHR,
        )
    };
    f2.map_or(Flags2::from_raw(u64::from(flags.as_raw())), |f| f.flags)
}

/// What one element's build produced before it becomes an object.
pub(super) struct Built {
    pub pipeline: Pipeline,
    /// Per own stage: whether the cache had it.
    pub hits: Vec<bool>,
}

/// Looks every stage up in `cache` (inserting the misses); `Err(PIPELINE_COMPILE_REQUIRED)`
/// when `flags` asks to fail rather than compile and one missed.
pub(super) fn lookup(
    cache: Option<&PipelineCache>,
    stages: &[ShaderStage],
    flags: Flags2,
) -> Result<Vec<bool>, vk::Result> {
    let hits: Vec<bool> = stages
        .iter()
        .map(|s| cache.is_some_and(|c| c.lookup_or_insert(&s.key(), &[])))
        .collect();
    if flags.contains(Flags2::FAIL_ON_PIPELINE_COMPILE_REQUIRED) && hits.iter().any(|h| !h) {
        return Err(vk::Result::PIPELINE_COMPILE_REQUIRED);
    }
    Ok(hits)
}

/// Fills `VkPipelineCreationFeedbackCreateInfo` of `p_next`, if chained.
///
/// # Safety
/// `p_next` is a valid chain whose feedback pointers are valid for writes.
pub(super) unsafe fn feedback(p_next: *const std::ffi::c_void, hits: &[bool], started: Instant) {
    // SAFETY: the caller's valid chain.
    let Some(fb) = (unsafe {
        find_in_chain::<vk::PipelineCreationFeedbackCreateInfo<'_>>(
            p_next,
            vk::StructureType::PIPELINE_CREATION_FEEDBACK_CREATE_INFO,
        )
    }) else {
        return;
    };
    type F = vk::PipelineCreationFeedbackFlags;
    let hit = |h: bool| {
        if h {
            F::VALID | F::APPLICATION_PIPELINE_CACHE_HIT
        } else {
            F::VALID
        }
    };
    let all = !hits.is_empty() && hits.iter().all(|&h| h);
    let duration = u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX);
    // SAFETY: `pPipelineCreationFeedback` is valid for a write
    // (VUID-VkPipelineCreationFeedbackCreateInfo-pPipelineCreationFeedback-parameter).
    if let Some(p) = unsafe { fb.p_pipeline_creation_feedback.as_mut() } {
        *p = vk::PipelineCreationFeedback {
            flags: hit(all),
            duration,
        };
    }
    for i in 0..fb.pipeline_stage_creation_feedback_count as usize {
        let p = fb.p_pipeline_stage_creation_feedbacks;
        if p.is_null() {
            break;
        }
        let flags = hits.get(i).map_or(F::empty(), |&h| hit(h));
        // SAFETY: `pipelineStageCreationFeedbackCount` writable elements (the structure's
        // valid usage); a stage past the pipeline's own is reported not valid.
        unsafe {
            p.add(i)
                .write(vk::PipelineCreationFeedback { flags, duration: 0 })
        };
    }
}

/// The base of a derivative: the handle, or an earlier element of this call.
pub(super) fn base(
    flags: Flags2,
    handle: vk::Pipeline,
    index: i32,
    made: &[vk::Pipeline],
) -> Result<Option<vk::Pipeline>, vk::Result> {
    if !flags.contains(Flags2::DERIVATIVE) {
        return Ok(None);
    }
    if handle != vk::Pipeline::null() {
        return Ok(Some(handle));
    }
    match usize::try_from(index).ok().and_then(|i| made.get(i)) {
        Some(&p) => Ok(Some(p)),
        None => Err(vk_error!(
            vk::Result::ERROR_UNKNOWN,
            "derivative pipeline: basePipelineIndex {index} is not an earlier element"
        )),
    }
}
