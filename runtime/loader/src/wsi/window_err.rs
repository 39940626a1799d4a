//! The one mapper from a window's status (`0` = Android's `OK`, else a negative errno) to the
//! `VkResult` a WSI command gives, as AOSP's `swapchain.cpp` maps them (wgpu-hal's
//! `map_*_err` habit): each site names which window call failed ([`WindowCall`]), the mapper
//! decides the result and logs it there, with the caller's file and line.

use std::ffi::c_int;
use std::panic::Location;

use super::window::{strerror, INVALID_OPERATION, OK, TIMED_OUT};
use vkgen_generated::vk;

/// The window call a status came from: the few whose failures mean something other than a
/// lost surface.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WindowCall {
    /// A query, a `perform` setting, `queueBuffer`, any other call: a failure is a lost surface.
    Other,
    /// `dequeueBuffer` for a new swapchain's images: `-ENOMEM` is out of device memory.
    DequeueForImages,
    /// `dequeueBuffer` in `vkAcquireNextImage*KHR` with this timeout (ns): a timeout is not an
    /// error.
    DequeueForAcquire { timeout: u64 },
    /// `native_window_api_connect` for a new surface: the window has another producer.
    Connect,
}

/// The result of failed window status `err` of `call` (`command`: the Vulkan command, `what`:
/// the window call, both for the log), logged at the caller's line:
///
/// * `TIMED_OUT` or `INVALID_OPERATION` from [`WindowCall::DequeueForAcquire`] → `VK_TIMEOUT`,
///   or `VK_NOT_READY` when the timeout is 0 (not errors: logged at debug level);
/// * `-ENOMEM` from [`WindowCall::DequeueForImages`] → `VK_ERROR_OUT_OF_DEVICE_MEMORY`;
/// * any failure of [`WindowCall::Connect`] → `VK_ERROR_NATIVE_WINDOW_IN_USE_KHR`;
/// * anything else → `VK_ERROR_SURFACE_LOST_KHR`.
///
/// `err` is a failure (not `OK`); [`window_status`] takes any status.
#[track_caller]
pub fn map_window_err(err: c_int, call: WindowCall, command: &str, what: &str) -> vk::Result {
    let result = match call {
        WindowCall::DequeueForAcquire { timeout }
            if err == TIMED_OUT || err == INVALID_OPERATION =>
        {
            if timeout == 0 {
                vk::Result::NOT_READY
            } else {
                vk::Result::TIMEOUT
            }
        }
        WindowCall::DequeueForImages if err == -libc::ENOMEM => {
            vk::Result::ERROR_OUT_OF_DEVICE_MEMORY
        }
        WindowCall::Connect => vk::Result::ERROR_NATIVE_WINDOW_IN_USE_KHR,
        _ => vk::Result::ERROR_SURFACE_LOST_KHR,
    };
    let at = Location::caller();
    log::log!(
        vkgen_abi::error::level(result),
        "{result:?}: {command}: {what} failed: {} ({}:{})",
        strerror(err),
        at.file(),
        at.line()
    );
    result
}

/// `Ok(())` for `OK`, else [`map_window_err`]'s result.
#[track_caller]
pub fn window_status(
    err: c_int,
    call: WindowCall,
    command: &str,
    what: &str,
) -> Result<(), vk::Result> {
    if err == OK {
        Ok(())
    } else {
        Err(map_window_err(err, call, command, what))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_window_call_maps_as_aosp() {
        let enomem = -libc::ENOMEM;
        let acquire = |timeout| WindowCall::DequeueForAcquire { timeout };
        // (status, call, result, why)
        let rows = [
            (
                TIMED_OUT,
                acquire(1),
                vk::Result::TIMEOUT,
                "acquire timed out",
            ),
            (
                TIMED_OUT,
                acquire(0),
                vk::Result::NOT_READY,
                "a zero timeout polls",
            ),
            (
                INVALID_OPERATION,
                acquire(5),
                vk::Result::TIMEOUT,
                "no dequeue timeout support",
            ),
            (
                -libc::ENODEV,
                acquire(5),
                vk::Result::ERROR_SURFACE_LOST_KHR,
                "abandoned queue",
            ),
            (
                enomem,
                acquire(5),
                vk::Result::ERROR_SURFACE_LOST_KHR,
                "ENOMEM only at creation",
            ),
            (
                enomem,
                WindowCall::DequeueForImages,
                vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
                "buffers",
            ),
            (
                TIMED_OUT,
                WindowCall::DequeueForImages,
                vk::Result::ERROR_SURFACE_LOST_KHR,
                "creation",
            ),
            (
                -libc::EINVAL,
                WindowCall::Connect,
                vk::Result::ERROR_NATIVE_WINDOW_IN_USE_KHR,
                "connect",
            ),
            (
                enomem,
                WindowCall::Other,
                vk::Result::ERROR_SURFACE_LOST_KHR,
                "a query",
            ),
            (
                TIMED_OUT,
                WindowCall::Other,
                vk::Result::ERROR_SURFACE_LOST_KHR,
                "a perform",
            ),
        ];
        let wrong: Vec<String> = rows
            .iter()
            .filter(|(err, call, want, _)| map_window_err(*err, *call, "test", "call") != *want)
            .map(|(err, call, want, why)| format!("{err} {call:?}: want {want:?} ({why})"))
            .collect();
        assert!(wrong.is_empty(), "{wrong:#?}");
        assert_eq!(
            window_status(OK, WindowCall::Connect, "test", "call"),
            Ok(())
        );
        assert_eq!(
            window_status(-libc::EPIPE, WindowCall::Other, "test", "call"),
            Err(vk::Result::ERROR_SURFACE_LOST_KHR)
        );
    }
}
