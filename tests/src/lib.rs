//! Integration-test harness for vkgen: real programs through a real Vulkan loader.
//!
//! Every test is written against a loader *library path*, so the same test runs against
//! Debian's loader (`libvulkan.so.1`, the baseline that validates the harness itself) and
//! against ours (`target/<profile>/libvulkan.so`, built by `vkgen-loader`):
//!
//! * in-process Vulkan work goes through an [`ash::Entry`] loaded from that path
//!   ([`compute::load_entry`]);
//! * `vulkaninfo` is pointed at it through a temporary `LD_LIBRARY_PATH` directory of
//!   symlinks ([`vulkaninfo::run_vulkaninfo`]), and the dynamic linker's own log proves which
//!   library it loaded.
//!
//! Loader configuration lives in environment variables (`VK_DRIVER_FILES`, `VK_LAYER_PATH`,
//! `VKGEN_APP_LAYER_PATH`, `VKGEN_HAL_ROOT`, `VKGEN_PROPERTIES`, ...), which are process-wide
//! while tests run on threads, so every test that touches Vulkan runs its body in a child
//! process with a controlled environment ([`env::in_child`]): the test binary re-executes
//! itself filtered to that one test.
//!
//! Modules:
//! * [`paths`]: workspace, target dir, the loaders, lavapipe, the validation layer, shaders;
//! * [`env`](mod@env): child processes with a controlled environment;
//! * [`compute`]: the `fill.comp` compute round trip and its reference result;
//! * [`validation`]: the Khronos validation layer through `VK_EXT_debug_utils`;
//! * [`vulkaninfo`]: `vulkaninfo --json` through a chosen loader, and report diffs;
//! * [`scenarios`]: test bodies shared by the baseline and our-loader tests.
//!
//! A missing prerequisite (lavapipe, the validation layer, vulkaninfo, glslangValidator, our
//! loader not built) is an error naming what to install or build, never a silent pass.

pub mod compute;
pub mod env;
pub mod paths;
pub mod scenarios;
pub mod trace;
pub mod validation;
pub mod vulkaninfo;

/// Panics with the error's text (not its `Debug` form) when `result` is an error.
///
/// The harness reports problems as `Result<_, String>` whose messages say what is missing
/// and how to get it; this keeps them readable in a test failure.
#[track_caller]
pub fn require<T>(result: Result<T, String>) -> T {
    match result {
        Ok(value) => value,
        Err(message) => panic!("{message}"),
    }
}
