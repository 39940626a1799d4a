/*
 * C copies of the static inline native_window_* helpers of AOSP's system/window.h (and the
 * ANativeWindow_* NDK calls built the same way), each with a vkgen_ prefix.
 *
 * They exist so Rust callers, the tests in particular, drive a window exactly as C does: through
 * ANativeWindow::perform with the argument types the real helpers pass (bool and int8_t promoted
 * to int, float to double, size_t and int64_t as such). Calling perform from Rust works too, but
 * then the argument types are whatever the Rust call spells.
 */
#include <stdbool.h>

#include "vkgen_window.h"
#include "vkgen_window_codes.h"

int vkgen_native_window_api_connect(struct ANativeWindow *w, int api) {
    return w->perform(w, NATIVE_WINDOW_API_CONNECT, api);
}

int vkgen_native_window_api_disconnect(struct ANativeWindow *w, int api) {
    return w->perform(w, NATIVE_WINDOW_API_DISCONNECT, api);
}

/* The deprecated no-argument forms. */
int vkgen_native_window_connect_deprecated(struct ANativeWindow *w) {
    return w->perform(w, NATIVE_WINDOW_CONNECT);
}

int vkgen_native_window_set_usage(struct ANativeWindow *w, uint64_t usage) {
    return w->perform(w, NATIVE_WINDOW_SET_USAGE64, usage);
}

/* Pre-Q native_window_set_usage(int). */
int vkgen_native_window_set_usage32(struct ANativeWindow *w, uint32_t usage) {
    return w->perform(w, NATIVE_WINDOW_SET_USAGE, usage);
}

int vkgen_native_window_get_consumer_usage(struct ANativeWindow *w, uint64_t *out) {
    return w->perform(w, NATIVE_WINDOW_GET_CONSUMER_USAGE64, out);
}

int vkgen_native_window_set_crop(struct ANativeWindow *w, const android_native_rect_t *crop) {
    return w->perform(w, NATIVE_WINDOW_SET_CROP, crop);
}

int vkgen_native_window_set_buffer_count(struct ANativeWindow *w, size_t count) {
    return w->perform(w, NATIVE_WINDOW_SET_BUFFER_COUNT, count);
}

int vkgen_native_window_set_buffers_geometry(struct ANativeWindow *w, int width, int height,
                                             int format) {
    return w->perform(w, NATIVE_WINDOW_SET_BUFFERS_GEOMETRY, width, height, format);
}

int vkgen_native_window_set_buffers_dimensions(struct ANativeWindow *w, int width, int height) {
    return w->perform(w, NATIVE_WINDOW_SET_BUFFERS_DIMENSIONS, width, height);
}

int vkgen_native_window_set_buffers_user_dimensions(struct ANativeWindow *w, int width,
                                                    int height) {
    return w->perform(w, NATIVE_WINDOW_SET_BUFFERS_USER_DIMENSIONS, width, height);
}

int vkgen_native_window_set_buffers_format(struct ANativeWindow *w, int format) {
    return w->perform(w, NATIVE_WINDOW_SET_BUFFERS_FORMAT, format);
}

/* android_dataspace is an enum, passed as int. */
int vkgen_native_window_set_buffers_data_space(struct ANativeWindow *w, int dataspace) {
    return w->perform(w, NATIVE_WINDOW_SET_BUFFERS_DATASPACE, dataspace);
}

int vkgen_native_window_set_buffers_transform(struct ANativeWindow *w, int transform) {
    return w->perform(w, NATIVE_WINDOW_SET_BUFFERS_TRANSFORM, transform);
}

int vkgen_native_window_set_buffers_sticky_transform(struct ANativeWindow *w, int transform) {
    return w->perform(w, NATIVE_WINDOW_SET_BUFFERS_STICKY_TRANSFORM, transform);
}

int vkgen_native_window_set_buffers_timestamp(struct ANativeWindow *w, int64_t timestamp) {
    return w->perform(w, NATIVE_WINDOW_SET_BUFFERS_TIMESTAMP, timestamp);
}

int vkgen_native_window_set_scaling_mode(struct ANativeWindow *w, int mode) {
    return w->perform(w, NATIVE_WINDOW_SET_SCALING_MODE, mode);
}

int vkgen_native_window_set_surface_damage(struct ANativeWindow *w,
                                           const android_native_rect_t *rects, size_t count) {
    return w->perform(w, NATIVE_WINDOW_SET_SURFACE_DAMAGE, rects, count);
}

int vkgen_native_window_set_shared_buffer_mode(struct ANativeWindow *w, bool shared) {
    return w->perform(w, NATIVE_WINDOW_SET_SHARED_BUFFER_MODE, shared);
}

int vkgen_native_window_set_auto_refresh(struct ANativeWindow *w, bool auto_refresh) {
    return w->perform(w, NATIVE_WINDOW_SET_AUTO_REFRESH, auto_refresh);
}

int vkgen_native_window_get_refresh_cycle_duration(struct ANativeWindow *w, int64_t *out) {
    return w->perform(w, NATIVE_WINDOW_GET_REFRESH_CYCLE_DURATION, out);
}

int vkgen_native_window_get_next_frame_id(struct ANativeWindow *w, uint64_t *out) {
    return w->perform(w, NATIVE_WINDOW_GET_NEXT_FRAME_ID, out);
}

int vkgen_native_window_enable_frame_timestamps(struct ANativeWindow *w, bool enable) {
    return w->perform(w, NATIVE_WINDOW_ENABLE_FRAME_TIMESTAMPS, enable);
}

int vkgen_native_window_get_compositor_timing(struct ANativeWindow *w, int64_t *deadline,
                                              int64_t *interval, int64_t *present_latency) {
    return w->perform(w, NATIVE_WINDOW_GET_COMPOSITOR_TIMING, deadline, interval,
                      present_latency);
}

int vkgen_native_window_get_frame_timestamps(struct ANativeWindow *w, uint64_t frame_id,
                                             int64_t *requested_present, int64_t *acquire,
                                             int64_t *latch, int64_t *first_refresh_start,
                                             int64_t *last_refresh_start,
                                             int64_t *gpu_composition_done,
                                             int64_t *display_present, int64_t *dequeue_ready,
                                             int64_t *release) {
    return w->perform(w, NATIVE_WINDOW_GET_FRAME_TIMESTAMPS, frame_id, requested_present,
                      acquire, latch, first_refresh_start, last_refresh_start,
                      gpu_composition_done, display_present, dequeue_ready, release);
}

int vkgen_native_window_set_buffers_smpte2086_metadata(
    struct ANativeWindow *w, const struct android_smpte2086_metadata *metadata) {
    return w->perform(w, NATIVE_WINDOW_SET_BUFFERS_SMPTE2086_METADATA, metadata);
}

int vkgen_native_window_set_buffers_cta861_3_metadata(
    struct ANativeWindow *w, const struct android_cta861_3_metadata *metadata) {
    return w->perform(w, NATIVE_WINDOW_SET_BUFFERS_CTA861_3_METADATA, metadata);
}

int vkgen_native_window_set_buffers_hdr10_plus_metadata(struct ANativeWindow *w, size_t size,
                                                        const uint8_t *metadata) {
    return w->perform(w, NATIVE_WINDOW_SET_BUFFERS_HDR10_PLUS_METADATA, size, metadata);
}

int vkgen_native_window_set_auto_prerotation(struct ANativeWindow *w, bool enable) {
    return w->perform(w, NATIVE_WINDOW_SET_AUTO_PREROTATION, enable);
}

/* libvulkan calls this one directly: window->perform(window, SET_DEQUEUE_TIMEOUT, nsecs_t). */
int vkgen_native_window_set_dequeue_timeout(struct ANativeWindow *w, int64_t timeout_ns) {
    return w->perform(w, NATIVE_WINDOW_SET_DEQUEUE_TIMEOUT, timeout_ns);
}

int vkgen_native_window_get_last_dequeue_start(struct ANativeWindow *w, int64_t *out) {
    return w->perform(w, NATIVE_WINDOW_GET_LAST_DEQUEUE_START, out);
}

int vkgen_native_window_get_last_dequeue_duration(struct ANativeWindow *w, int64_t *out) {
    return w->perform(w, NATIVE_WINDOW_GET_LAST_DEQUEUE_DURATION, out);
}

int vkgen_native_window_get_last_queue_duration(struct ANativeWindow *w, int64_t *out) {
    return w->perform(w, NATIVE_WINDOW_GET_LAST_QUEUE_DURATION, out);
}

/* ANativeWindow_setFrameRateWithChangeStrategy. */
int vkgen_native_window_set_frame_rate(struct ANativeWindow *w, float frame_rate,
                                       int8_t compatibility, int8_t change_strategy) {
    return w->perform(w, NATIVE_WINDOW_SET_FRAME_RATE, (double)frame_rate, (int)compatibility,
                      (int)change_strategy);
}

/* ANativeWindow_allocateBuffers. */
int vkgen_native_window_allocate_buffers(struct ANativeWindow *w) {
    return w->perform(w, NATIVE_WINDOW_ALLOCATE_BUFFERS);
}

/* An operation with no arguments at all, for probing codes the window does not support. */
int vkgen_native_window_perform_no_args(struct ANativeWindow *w, int operation) {
    return w->perform(w, operation);
}
