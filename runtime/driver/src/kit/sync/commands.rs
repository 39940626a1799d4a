//! The fence and semaphore commands: creation with the semaphore's type, reset and status,
//! host waits over several objects (any/all, with the timeout), `vkSignalSemaphore` and
//! `vkGetSemaphoreCounterValue`.

// The `unsafe extern "system"` functions below are Vulkan commands: their safety contract is
// the command's valid usage.

use vkgen_generated::vk;

use super::object::{fence, semaphore, Fence, Semaphore};
use super::payload::{deadline, wait_until, Payload};
use crate::handles::{create_object, destroy_object, ObjectKind};
use crate::util::{find_in_chain, guard, slice};

/// Stores a new object's handle through `out`.
///
/// # Safety
/// `out` valid for a write; `p_allocator` as for [`create_object`].
pub(super) unsafe fn create<T: ObjectKind, H: vk::Handle>(
    value: T,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    out: *mut H,
) -> vk::Result {
    if out.is_null() {
        return vkgen_abi::vk_error!(
            vk::Result::ERROR_INITIALIZATION_FAILED,
            "no output pointer for the new {:?}",
            T::OBJECT_TYPE
        );
    }
    // SAFETY: `p_allocator` is the application's callbacks or null, as `create_object` takes.
    match unsafe { create_object(value, p_allocator) } {
        Ok(h) => {
            // SAFETY: `out` is non-null (checked) and the caller's output slot.
            unsafe { *out = H::from_raw(h) };
            vk::Result::SUCCESS
        }
        Err(e) => e,
    }
}

pub(super) unsafe extern "system" fn create_fence(
    _device: vk::Device,
    p_create_info: *const vk::FenceCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_fence: *mut vk::Fence,
) -> vk::Result {
    guard(
        "vkCreateFence",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: the create info is null or the application's valid structure.
            let signalled = unsafe { p_create_info.as_ref() }
                .is_some_and(|ci| ci.flags.contains(vk::FenceCreateFlags::SIGNALED));
            // SAFETY: the application's allocator and output slot, passed through.
            unsafe { create(Fence::new(signalled), p_allocator, p_fence) }
        },
    )
}

/// `vkDestroyFence` / `vkDestroySemaphore`: null or mistyped handles are ignored. A batch
/// still holding the object's state keeps it alive until it completes.
pub(super) unsafe extern "system" fn destroy<T: ObjectKind, H: vk::Handle>(
    _device: vk::Device,
    handle: H,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    // SAFETY: null or a live object the application is done with; the lookup checks the type.
    guard(concat!(module_path!(), "::destroy"), (), || unsafe {
        destroy_object::<T>(handle.as_raw());
    })
}

pub(super) unsafe extern "system" fn reset_fences(
    _device: vk::Device,
    count: u32,
    p_fences: *const vk::Fence,
) -> vk::Result {
    guard(
        "vkResetFences",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: `pFences` holds `fenceCount` fence handles (the command's valid usage).
            for &f in unsafe { slice(p_fences, count) } {
                // SAFETY: each is a live fence of this device or null.
                if let Some(f) = unsafe { fence(f) } {
                    f.reset();
                }
            }
            vk::Result::SUCCESS
        },
    )
}

pub(super) unsafe extern "system" fn get_fence_status(
    _device: vk::Device,
    f: vk::Fence,
) -> vk::Result {
    guard("vkGetFenceStatus", vk::Result::ERROR_DEVICE_LOST, || {
        // SAFETY: the application passes a live fence of this device.
        let Some(f) = (unsafe { fence(f) }) else {
            return vkgen_abi::vk_error!(vk::Result::ERROR_DEVICE_LOST, "not a fence: {f:?}");
        };
        match f.poll() {
            Ok(true) => vk::Result::SUCCESS,
            Ok(false) => vk::Result::NOT_READY,
            Err(e) => e,
        }
    })
}

pub(super) unsafe extern "system" fn wait_for_fences(
    _device: vk::Device,
    count: u32,
    p_fences: *const vk::Fence,
    wait_all: vk::Bool32,
    timeout: u64,
) -> vk::Result {
    guard("vkWaitForFences", vk::Result::ERROR_DEVICE_LOST, || {
        // SAFETY: `pFences` holds `fenceCount` handles of live fences (the command's valid
        // usage), which stay alive for the call.
        let fences: Vec<&Fence> = unsafe { slice(p_fences, count) }
            .iter()
            // SAFETY: each is a live fence of this device.
            .filter_map(|&f| unsafe { fence(f) })
            .collect();
        wait_until(deadline(timeout), |polls| {
            let mut ready = 0;
            for f in &fences {
                if f.poll()? {
                    ready += 1;
                } else {
                    *polls |= !f.notifies();
                }
            }
            Ok(if wait_all != vk::FALSE {
                ready == fences.len()
            } else {
                ready > 0 || fences.is_empty()
            })
        })
    })
}

pub(super) unsafe extern "system" fn create_semaphore(
    _device: vk::Device,
    p_create_info: *const vk::SemaphoreCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_semaphore: *mut vk::Semaphore,
) -> vk::Result {
    guard(
        "vkCreateSemaphore",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: the create info is null or the application's valid structure, whose
            // chain is valid too.
            let ty = unsafe {
                p_create_info.as_ref().and_then(|ci| {
                    find_in_chain::<vk::SemaphoreTypeCreateInfo<'_>>(
                        ci.p_next,
                        vk::StructureType::SEMAPHORE_TYPE_CREATE_INFO,
                    )
                })
            };
            let timeline = ty.is_some_and(|t| t.semaphore_type == vk::SemaphoreType::TIMELINE);
            let sem = Semaphore::new(timeline, ty.map_or(0, |t| t.initial_value));
            // SAFETY: the application's allocator and output slot, passed through.
            unsafe { create(sem, p_allocator, p_semaphore) }
        },
    )
}

pub(super) unsafe extern "system" fn get_semaphore_counter_value(
    _device: vk::Device,
    s: vk::Semaphore,
    p_value: *mut u64,
) -> vk::Result {
    guard(
        "vkGetSemaphoreCounterValue",
        vk::Result::ERROR_DEVICE_LOST,
        || {
            // SAFETY: a live semaphore of this device and the application's output slot.
            let (Some(s), Some(out)) = (unsafe { (semaphore(s), p_value.as_mut()) }) else {
                return vk::Result::SUCCESS;
            };
            match s.value() {
                Ok(v) => {
                    *out = v;
                    vk::Result::SUCCESS
                }
                Err(e) => e,
            }
        },
    )
}

pub(super) unsafe extern "system" fn signal_semaphore(
    _device: vk::Device,
    p_info: *const vk::SemaphoreSignalInfo<'_>,
) -> vk::Result {
    guard(
        "vkSignalSemaphore",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: the signal info is null or the application's valid structure naming a
            // live timeline semaphore of this device.
            if let Some(s) = unsafe { p_info.as_ref().and_then(|i| semaphore(i.semaphore)) } {
                // SAFETY: checked non-null just above (the same pointer).
                let value = unsafe { (*p_info).value };
                // Wakes every queue with a batch waiting for this value.
                s.signal(value);
            }
            vk::Result::SUCCESS
        },
    )
}

pub(super) unsafe extern "system" fn wait_semaphores(
    _device: vk::Device,
    p_info: *const vk::SemaphoreWaitInfo<'_>,
    timeout: u64,
) -> vk::Result {
    guard("vkWaitSemaphores", vk::Result::ERROR_DEVICE_LOST, || {
        // SAFETY: the wait info is null or the application's valid structure.
        let Some(info) = (unsafe { p_info.as_ref() }) else {
            return vk::Result::SUCCESS;
        };
        // SAFETY: both arrays hold `semaphoreCount` elements (the structure's valid usage).
        let (sems, values) = unsafe {
            (
                slice(info.p_semaphores, info.semaphore_count),
                slice(info.p_values, info.semaphore_count),
            )
        };
        // SAFETY: each handle is a live timeline semaphore of this device for the call.
        let sems: Vec<Option<&Semaphore>> = sems.iter().map(|&s| unsafe { semaphore(s) }).collect();
        let any = info.flags.contains(vk::SemaphoreWaitFlags::ANY);
        wait_until(deadline(timeout), |_| {
            let mut reached = 0;
            for (s, &v) in sems.iter().zip(values) {
                if s.map_or(Ok(true), |s| Ok(s.value()? >= v))? {
                    reached += 1;
                }
            }
            Ok(if any {
                reached > 0 || sems.is_empty()
            } else {
                reached == sems.len()
            })
        })
    })
}
