//! Errors logged where they are made (Mesa's `vk_errorf`).
//!
//! Every `VkResult` error the runtime *makes* (as opposed to passes on from a driver or layer
//! that already said why) goes through [`vk_error!`](crate::vk_error): the site names the
//! cause once, the log line carries the site's module and line, and the value returned is the
//! one the spec requires there. Errors that are the ordinary answer of a query
//! (`VK_ERROR_EXTENSION_NOT_PRESENT` for an unknown name, `VK_ERROR_OUT_OF_DATE_KHR` after a
//! resize) are logged at debug level, so that a healthy application's log stays quiet; errors
//! that mean something went wrong below the API (no memory, a lost device, a driver that
//! failed to load) at warn level.
//!
//! Errors from outside Vulkan are turned into a `VkResult` by the one mapper of their source,
//! each documented by the results it gives: [`map_io_err`] here for the operating system;
//! the loader's and drivers' own sources (a HAL `open`, an ICD manifest) keep their mapper
//! beside the code that speaks to them.

use ash::vk;

/// Whether `result` is the ordinary answer of a query rather than a failure (see the module
/// notes): those are logged at debug level.
pub fn is_expected(result: vk::Result) -> bool {
    matches!(
        result,
        vk::Result::ERROR_LAYER_NOT_PRESENT
            | vk::Result::ERROR_EXTENSION_NOT_PRESENT
            | vk::Result::ERROR_FEATURE_NOT_PRESENT
            | vk::Result::ERROR_FORMAT_NOT_SUPPORTED
            | vk::Result::ERROR_INCOMPATIBLE_DRIVER
            | vk::Result::ERROR_OUT_OF_DATE_KHR
            | vk::Result::ERROR_SURFACE_LOST_KHR
            | vk::Result::ERROR_NATIVE_WINDOW_IN_USE_KHR
            | vk::Result::ERROR_IMAGE_USAGE_NOT_SUPPORTED_KHR
            | vk::Result::ERROR_INVALID_EXTERNAL_HANDLE
            | vk::Result::NOT_READY
            | vk::Result::TIMEOUT
            | vk::Result::INCOMPLETE
            | vk::Result::SUBOPTIMAL_KHR
    )
}

/// The level [`vk_error!`](crate::vk_error) logs `result` at.
pub fn level(result: vk::Result) -> log::Level {
    if is_expected(result) {
        log::Level::Debug
    } else {
        log::Level::Warn
    }
}

/// Makes the error `$result` at this site: logs `$result` with the reason (a format string
/// and its arguments) under the caller's module path, and evaluates to `$result`.
///
/// ```
/// # use ash::vk;
/// fn open(n: u32) -> Result<(), vk::Result> {
///     if n > 4 {
///         return Err(vkgen_abi::vk_error!(vk::Result::ERROR_TOO_MANY_OBJECTS, "{n} > 4 queues"));
///     }
///     Ok(())
/// }
/// assert_eq!(open(5), Err(vk::Result::ERROR_TOO_MANY_OBJECTS));
/// ```
#[macro_export]
macro_rules! vk_error {
    ($result:expr, $($reason:tt)+) => {{
        let result: $crate::error::Result = $result;
        $crate::error::__log!(
            $crate::error::level(result),
            "{:?}: {} ({}:{})",
            result,
            format_args!($($reason)+),
            file!(),
            line!()
        );
        result
    }};
}

#[doc(hidden)]
pub use log::log as __log;
/// `VkResult`, as the macro names it.
pub use vk::Result;

/// [`std::io::Error`] (a system call's `errno`) as a `VkResult`:
///
/// * `ENOMEM` → `VK_ERROR_OUT_OF_HOST_MEMORY`;
/// * `EMFILE`, `ENFILE` (no file descriptor left) → `VK_ERROR_TOO_MANY_OBJECTS`;
/// * anything else → `otherwise`, the result the calling command gives for a failure it
///   cannot name better (`VK_ERROR_INITIALIZATION_FAILED` at creation, `VK_ERROR_DEVICE_LOST`
///   on a queue, `VK_ERROR_INVALID_EXTERNAL_HANDLE` on an import).
///
/// The error is logged here with `what` (the operation that failed), so callers need not.
pub fn map_io_err(what: &str, err: &std::io::Error, otherwise: vk::Result) -> vk::Result {
    const ENOMEM: i32 = 12;
    const ENFILE: i32 = 23;
    const EMFILE: i32 = 24;
    let result = match err.raw_os_error() {
        Some(ENOMEM) => vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        Some(ENFILE | EMFILE) => vk::Result::ERROR_TOO_MANY_OBJECTS,
        _ => otherwise,
    };
    log::log!(level(result), "{result:?}: {what}: {err}");
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_macro_returns_its_result() {
        let r = crate::vk_error!(vk::Result::ERROR_DEVICE_LOST, "queue {} hung", 3);
        assert_eq!(r, vk::Result::ERROR_DEVICE_LOST);
    }

    #[test]
    fn io_errors_map_by_errno() {
        let e = |n| std::io::Error::from_raw_os_error(n);
        let other = vk::Result::ERROR_INITIALIZATION_FAILED;
        assert_eq!(
            map_io_err("x", &e(12), other),
            vk::Result::ERROR_OUT_OF_HOST_MEMORY
        );
        assert_eq!(
            map_io_err("x", &e(24), other),
            vk::Result::ERROR_TOO_MANY_OBJECTS
        );
        assert_eq!(
            map_io_err("x", &e(23), other),
            vk::Result::ERROR_TOO_MANY_OBJECTS
        );
        assert_eq!(map_io_err("x", &e(2), other), other);
    }

    #[test]
    fn query_answers_are_quiet_failures_are_not() {
        assert_eq!(
            level(vk::Result::ERROR_EXTENSION_NOT_PRESENT),
            log::Level::Debug
        );
        assert_eq!(
            level(vk::Result::ERROR_OUT_OF_HOST_MEMORY),
            log::Level::Warn
        );
    }
}
