/*
 * C side of vkgen-window: the argument block the variadic `perform` shim hands to Rust, and the
 * system/window.h structs that `perform` arguments point to. Mirrored in src/c_abi.rs; a Rust test
 * compares the layouts through vkgen_window_c_layout().
 */
#ifndef VKGEN_WINDOW_H
#define VKGEN_WINDOW_H

#include <stddef.h>
#include <stdint.h>

/* nativebase/nativebase.h and system/window.h, as far as C callers here need them (the Rust
 * mirror is runtime/abi's native_window.rs; the layout test compares offsets). */
typedef struct android_native_base_t {
    int magic;
    int version;
    void *reserved[4];
    void (*incRef)(struct android_native_base_t *base);
    void (*decRef)(struct android_native_base_t *base);
} android_native_base_t;

struct ANativeWindowBuffer;

struct ANativeWindow {
    struct android_native_base_t common;
    const uint32_t flags;
    const int minSwapInterval;
    const int maxSwapInterval;
    const float xdpi;
    const float ydpi;
    intptr_t oem[4];
    int (*setSwapInterval)(struct ANativeWindow *window, int interval);
    int (*dequeueBuffer_DEPRECATED)(struct ANativeWindow *window,
                                    struct ANativeWindowBuffer **buffer);
    int (*lockBuffer_DEPRECATED)(struct ANativeWindow *window, struct ANativeWindowBuffer *buffer);
    int (*queueBuffer_DEPRECATED)(struct ANativeWindow *window,
                                  struct ANativeWindowBuffer *buffer);
    int (*query)(const struct ANativeWindow *window, int what, int *value);
    int (*perform)(struct ANativeWindow *window, int operation, ...);
    int (*cancelBuffer_DEPRECATED)(struct ANativeWindow *window,
                                   struct ANativeWindowBuffer *buffer);
    int (*dequeueBuffer)(struct ANativeWindow *window, struct ANativeWindowBuffer **buffer,
                         int *fenceFd);
    int (*queueBuffer)(struct ANativeWindow *window, struct ANativeWindowBuffer *buffer,
                       int fenceFd);
    int (*cancelBuffer)(struct ANativeWindow *window, struct ANativeWindowBuffer *buffer,
                        int fenceFd);
};

/* Every variadic argument of one perform() call, by kind, in call order. `real` first so that the
 * layout is the same under every ABI (i386 aligns double and int64_t to 4 inside structs). */
struct vkgen_window_perform_args {
    double real;       /* float arguments (promoted to double by the caller) */
    int64_t ints[4];   /* int (incl. promoted bool/int8_t), uint32_t, size_t, int64_t, uint64_t */
    void *ptrs[9];     /* pointer arguments */
};

/* system/window.h android_native_rect_t */
typedef struct android_native_rect_t {
    int32_t left;
    int32_t top;
    int32_t right;
    int32_t bottom;
} android_native_rect_t;

/* system/graphics.h */
struct android_xy_color {
    float x;
    float y;
};

struct android_smpte2086_metadata {
    struct android_xy_color displayPrimaryRed;
    struct android_xy_color displayPrimaryGreen;
    struct android_xy_color displayPrimaryBlue;
    struct android_xy_color whitePoint;
    float maxLuminance;
    float minLuminance;
};

struct android_cta861_3_metadata {
    float maxContentLightLevel;
    float maxFrameAverageLightLevel;
};

/* The shim itself: the function stored in ANativeWindow::perform. */
int vkgen_window_perform(struct ANativeWindow *window, int operation, ...);

/* The handler is implemented in Rust (src/ffi.rs); it never unwinds. */
/* The Rust side's handler for decoded perform() calls, installed once by Rust through
 * vkgen_window_set_dispatch (a function pointer rather than a named symbol, so that no Rust
 * function needs a C name that a cdylib using this crate would export). */
typedef int (*vkgen_window_dispatch_fn)(struct ANativeWindow *window, int operation,
                                        const struct vkgen_window_perform_args *args);
void vkgen_window_set_dispatch(vkgen_window_dispatch_fn dispatch);

/* Layout of the structs above, for the Rust mirror's test (see perform.c). */
#define VKGEN_WINDOW_C_LAYOUT_LEN 10
void vkgen_window_c_layout(size_t out[VKGEN_WINDOW_C_LAYOUT_LEN]);

#endif
