//! The C half of the window (`csrc/`): the `perform` shim's argument block, the `system/window.h`
//! structs that `perform` arguments point to, and the `native_window_*` helper functions.
//!
//! `perform` is variadic; `csrc/perform.c` reads each operation's arguments with the types AOSP's
//! callers pass and calls the Rust dispatcher (`ffi.rs`) with a `PerformArgs`. The layouts here are
//! checked against the C compiler's by a unit test (`vkgen_window_c_layout`).

use std::ffi::{c_int, c_void};

use vkgen_abi::native_window::ANativeWindow;

/// `android_native_rect_t` (`system/window.h`): the argument of `SET_CROP` and the elements of
/// `SET_SURFACE_DAMAGE`. Android's libvulkan passes damage rects with a bottom-left origin
/// (`top` > `bottom`); they are stored as given.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct AndroidNativeRect {
    pub left: i32,
    pub top: i32,
    pub right: i32,
    pub bottom: i32,
}

/// `android_xy_color` (`system/graphics.h`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AndroidXyColor {
    pub x: f32,
    pub y: f32,
}

/// `android_smpte2086_metadata`: mastering display colour volume (`SetHdrMetadataEXT`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Smpte2086Metadata {
    pub display_primary_red: AndroidXyColor,
    pub display_primary_green: AndroidXyColor,
    pub display_primary_blue: AndroidXyColor,
    pub white_point: AndroidXyColor,
    pub max_luminance: f32,
    pub min_luminance: f32,
}

/// `android_cta861_3_metadata`: content light levels (`SetHdrMetadataEXT`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Cta8613Metadata {
    pub max_content_light_level: f32,
    pub max_frame_average_light_level: f32,
}

/// `struct vkgen_window_perform_args` (`csrc/vkgen_window.h`): the variadic arguments of one
/// `perform` call by kind, in call order; unused entries are zero.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct PerformArgs {
    /// `float` arguments (promoted to `double` by the caller).
    pub real: f64,
    /// `int` (also promoted `bool`/`int8_t`), `uint32_t`, `size_t`, `int64_t`, `uint64_t`.
    pub ints: [i64; 4],
    pub ptrs: [*mut c_void; 9],
}

/// Number of entries `vkgen_window_c_layout` writes.
#[cfg(test)]
pub(crate) const C_LAYOUT_LEN: usize = 10;

extern "C" {
    /// The `ANativeWindow::perform` of every window this crate makes (`csrc/perform.c`).
    pub(crate) fn vkgen_window_perform(window: *mut ANativeWindow, operation: c_int, ...) -> c_int;

    /// Writes the C compiler's sizes/offsets of the structs above (see `csrc/perform.c`).
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) fn vkgen_window_c_layout(out: *mut usize);
    /// Installs the handler `vkgen_window_perform` hands decoded calls to.
    pub(crate) fn vkgen_window_set_dispatch(
        dispatch: unsafe extern "C" fn(*mut ANativeWindow, c_int, *const PerformArgs) -> c_int,
    );
}

/// C copies of AOSP `system/window.h`'s `native_window_*` inline helpers (`csrc/
/// native_window_helpers.c`), for Rust code that wants to call `perform` with exactly the argument
/// types C passes. Each forwards to `window->perform(window, NATIVE_WINDOW_<OP>, args…)`.
///
/// # Safety
/// Every function requires `w` to be a valid `ANativeWindow*` (any implementation, not only this
/// crate's) and the pointer arguments to be what the operation expects (writable outputs,
/// readable inputs of the right size, or null where the operation allows it).
pub mod helpers {
    use super::{AndroidNativeRect, Cta8613Metadata, Smpte2086Metadata};
    use std::ffi::c_int;
    use vkgen_abi::native_window::ANativeWindow;

    extern "C" {
        pub fn vkgen_native_window_api_connect(w: *mut ANativeWindow, api: c_int) -> c_int;
        pub fn vkgen_native_window_api_disconnect(w: *mut ANativeWindow, api: c_int) -> c_int;
        /// `perform(NATIVE_WINDOW_CONNECT)` with no argument (deprecated; answers 0).
        pub fn vkgen_native_window_connect_deprecated(w: *mut ANativeWindow) -> c_int;
        /// `perform(NATIVE_WINDOW_SET_USAGE64, uint64_t)`.
        pub fn vkgen_native_window_set_usage(w: *mut ANativeWindow, usage: u64) -> c_int;
        /// `perform(NATIVE_WINDOW_SET_USAGE, uint32_t)` (pre-Android-Q helper).
        pub fn vkgen_native_window_set_usage32(w: *mut ANativeWindow, usage: u32) -> c_int;
        pub fn vkgen_native_window_get_consumer_usage(
            w: *mut ANativeWindow,
            out: *mut u64,
        ) -> c_int;
        pub fn vkgen_native_window_set_crop(
            w: *mut ANativeWindow,
            crop: *const AndroidNativeRect,
        ) -> c_int;
        pub fn vkgen_native_window_set_buffer_count(w: *mut ANativeWindow, count: usize) -> c_int;
        pub fn vkgen_native_window_set_buffers_geometry(
            w: *mut ANativeWindow,
            width: c_int,
            height: c_int,
            format: c_int,
        ) -> c_int;
        pub fn vkgen_native_window_set_buffers_dimensions(
            w: *mut ANativeWindow,
            width: c_int,
            height: c_int,
        ) -> c_int;
        pub fn vkgen_native_window_set_buffers_user_dimensions(
            w: *mut ANativeWindow,
            width: c_int,
            height: c_int,
        ) -> c_int;
        pub fn vkgen_native_window_set_buffers_format(
            w: *mut ANativeWindow,
            format: c_int,
        ) -> c_int;
        pub fn vkgen_native_window_set_buffers_data_space(
            w: *mut ANativeWindow,
            dataspace: c_int,
        ) -> c_int;
        pub fn vkgen_native_window_set_buffers_transform(
            w: *mut ANativeWindow,
            transform: c_int,
        ) -> c_int;
        pub fn vkgen_native_window_set_buffers_sticky_transform(
            w: *mut ANativeWindow,
            transform: c_int,
        ) -> c_int;
        pub fn vkgen_native_window_set_buffers_timestamp(
            w: *mut ANativeWindow,
            timestamp: i64,
        ) -> c_int;
        pub fn vkgen_native_window_set_scaling_mode(w: *mut ANativeWindow, mode: c_int) -> c_int;
        pub fn vkgen_native_window_set_surface_damage(
            w: *mut ANativeWindow,
            rects: *const AndroidNativeRect,
            count: usize,
        ) -> c_int;
        pub fn vkgen_native_window_set_shared_buffer_mode(
            w: *mut ANativeWindow,
            shared: bool,
        ) -> c_int;
        pub fn vkgen_native_window_set_auto_refresh(w: *mut ANativeWindow, auto: bool) -> c_int;
        pub fn vkgen_native_window_get_refresh_cycle_duration(
            w: *mut ANativeWindow,
            out: *mut i64,
        ) -> c_int;
        pub fn vkgen_native_window_get_next_frame_id(w: *mut ANativeWindow, out: *mut u64)
            -> c_int;
        pub fn vkgen_native_window_enable_frame_timestamps(
            w: *mut ANativeWindow,
            enable: bool,
        ) -> c_int;
        pub fn vkgen_native_window_get_compositor_timing(
            w: *mut ANativeWindow,
            deadline: *mut i64,
            interval: *mut i64,
            present_latency: *mut i64,
        ) -> c_int;
        #[allow(clippy::too_many_arguments)]
        pub fn vkgen_native_window_get_frame_timestamps(
            w: *mut ANativeWindow,
            frame_id: u64,
            requested_present: *mut i64,
            acquire: *mut i64,
            latch: *mut i64,
            first_refresh_start: *mut i64,
            last_refresh_start: *mut i64,
            gpu_composition_done: *mut i64,
            display_present: *mut i64,
            dequeue_ready: *mut i64,
            release: *mut i64,
        ) -> c_int;
        pub fn vkgen_native_window_set_buffers_smpte2086_metadata(
            w: *mut ANativeWindow,
            metadata: *const Smpte2086Metadata,
        ) -> c_int;
        pub fn vkgen_native_window_set_buffers_cta861_3_metadata(
            w: *mut ANativeWindow,
            metadata: *const Cta8613Metadata,
        ) -> c_int;
        pub fn vkgen_native_window_set_buffers_hdr10_plus_metadata(
            w: *mut ANativeWindow,
            size: usize,
            metadata: *const u8,
        ) -> c_int;
        pub fn vkgen_native_window_set_auto_prerotation(
            w: *mut ANativeWindow,
            enable: bool,
        ) -> c_int;
        /// `perform(NATIVE_WINDOW_SET_DEQUEUE_TIMEOUT, nsecs_t)`, as libvulkan calls it.
        pub fn vkgen_native_window_set_dequeue_timeout(
            w: *mut ANativeWindow,
            timeout_ns: i64,
        ) -> c_int;
        pub fn vkgen_native_window_get_last_dequeue_start(
            w: *mut ANativeWindow,
            out: *mut i64,
        ) -> c_int;
        pub fn vkgen_native_window_get_last_dequeue_duration(
            w: *mut ANativeWindow,
            out: *mut i64,
        ) -> c_int;
        pub fn vkgen_native_window_get_last_queue_duration(
            w: *mut ANativeWindow,
            out: *mut i64,
        ) -> c_int;
        /// `ANativeWindow_setFrameRateWithChangeStrategy`.
        pub fn vkgen_native_window_set_frame_rate(
            w: *mut ANativeWindow,
            frame_rate: f32,
            compatibility: i8,
            change_strategy: i8,
        ) -> c_int;
        /// `ANativeWindow_allocateBuffers`.
        pub fn vkgen_native_window_allocate_buffers(w: *mut ANativeWindow) -> c_int;
        /// `perform(operation)` with no further arguments, for probing unsupported codes.
        pub fn vkgen_native_window_perform_no_args(
            w: *mut ANativeWindow,
            operation: c_int,
        ) -> c_int;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    #[test]
    fn layouts_match_the_c_compiler() {
        let mut c = [0usize; C_LAYOUT_LEN];
        // SAFETY: the C function writes exactly C_LAYOUT_LEN entries.
        unsafe { vkgen_window_c_layout(c.as_mut_ptr()) };
        let rust = [
            size_of::<PerformArgs>(),
            offset_of!(PerformArgs, real),
            offset_of!(PerformArgs, ints),
            offset_of!(PerformArgs, ptrs),
            size_of::<AndroidNativeRect>(),
            size_of::<Smpte2086Metadata>(),
            offset_of!(Smpte2086Metadata, max_luminance),
            size_of::<Cta8613Metadata>(),
            size_of::<ANativeWindow>(),
            offset_of!(ANativeWindow, perform),
        ];
        assert_eq!(c, rust);
    }
}
