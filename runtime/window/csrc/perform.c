/*
 * ANativeWindow::perform for vkgen-window.
 *
 * perform() is variadic and stable Rust cannot define a variadic function, so this shim reads the
 * arguments of each operation with the types Android's callers pass (the native_window_* helpers
 * of system/window.h and libvulkan's direct calls) and hands them to Rust in a fixed struct.
 *
 * An operation the shim does not know is answered -EINVAL here, before any va_arg: reading
 * arguments that the caller did not pass is undefined behaviour.
 */
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "vkgen_window.h"
#include "vkgen_window_codes.h"

static vkgen_window_dispatch_fn dispatch_fn;

void vkgen_window_set_dispatch(vkgen_window_dispatch_fn dispatch) {
    __atomic_store_n(&dispatch_fn, dispatch, __ATOMIC_RELEASE);
}

int vkgen_window_perform(struct ANativeWindow *window, int operation, ...) {
    struct vkgen_window_perform_args a;
    memset(&a, 0, sizeof a);
    int known = 1;
    va_list ap;
    va_start(ap, operation);
    switch (operation) {
    /* No arguments. */
    case NATIVE_WINDOW_CONNECT:    /* deprecated: Surface answers NO_ERROR */
    case NATIVE_WINDOW_DISCONNECT: /* deprecated: Surface answers NO_ERROR */
    case NATIVE_WINDOW_ALLOCATE_BUFFERS:
        break;

    /* One int: enums, and bool / int8_t promoted to int. */
    case NATIVE_WINDOW_SET_BUFFERS_TRANSFORM:
    case NATIVE_WINDOW_SET_BUFFERS_STICKY_TRANSFORM:
    case NATIVE_WINDOW_SET_BUFFERS_FORMAT:
    case NATIVE_WINDOW_SET_SCALING_MODE:
    case NATIVE_WINDOW_API_CONNECT:
    case NATIVE_WINDOW_API_DISCONNECT:
    case NATIVE_WINDOW_SET_BUFFERS_DATASPACE:
    case NATIVE_WINDOW_SET_SHARED_BUFFER_MODE:
    case NATIVE_WINDOW_SET_AUTO_REFRESH:
    case NATIVE_WINDOW_ENABLE_FRAME_TIMESTAMPS:
    case NATIVE_WINDOW_SET_AUTO_PREROTATION:
        a.ints[0] = va_arg(ap, int);
        break;

    case NATIVE_WINDOW_SET_USAGE: /* legacy 32-bit usage */
        a.ints[0] = (int64_t)va_arg(ap, uint32_t);
        break;
    case NATIVE_WINDOW_SET_USAGE64:
        a.ints[0] = (int64_t)va_arg(ap, uint64_t);
        break;
    case NATIVE_WINDOW_SET_BUFFER_COUNT:
        a.ints[0] = (int64_t)va_arg(ap, size_t);
        break;
    case NATIVE_WINDOW_SET_BUFFERS_TIMESTAMP:
    case NATIVE_WINDOW_SET_DEQUEUE_TIMEOUT: /* nsecs_t */
        a.ints[0] = va_arg(ap, int64_t);
        break;

    /* Two or three ints. */
    case NATIVE_WINDOW_SET_BUFFERS_DIMENSIONS:
    case NATIVE_WINDOW_SET_BUFFERS_USER_DIMENSIONS:
        a.ints[0] = va_arg(ap, int);
        a.ints[1] = va_arg(ap, int);
        break;
    case NATIVE_WINDOW_SET_BUFFERS_GEOMETRY:
        a.ints[0] = va_arg(ap, int);
        a.ints[1] = va_arg(ap, int);
        a.ints[2] = va_arg(ap, int);
        break;

    /* One pointer. */
    case NATIVE_WINDOW_SET_CROP:                      /* const android_native_rect_t* */
    case NATIVE_WINDOW_GET_REFRESH_CYCLE_DURATION:    /* nsecs_t* */
    case NATIVE_WINDOW_GET_NEXT_FRAME_ID:             /* uint64_t* */
    case NATIVE_WINDOW_GET_CONSUMER_USAGE64:          /* uint64_t* */
    case NATIVE_WINDOW_SET_BUFFERS_SMPTE2086_METADATA: /* const android_smpte2086_metadata* */
    case NATIVE_WINDOW_SET_BUFFERS_CTA861_3_METADATA: /* const android_cta861_3_metadata* */
    case NATIVE_WINDOW_GET_LAST_DEQUEUE_START:        /* int64_t* */
    case NATIVE_WINDOW_GET_LAST_DEQUEUE_DURATION:     /* int64_t* */
    case NATIVE_WINDOW_GET_LAST_QUEUE_DURATION:       /* int64_t* */
        a.ptrs[0] = va_arg(ap, void *);
        break;

    case NATIVE_WINDOW_GET_COMPOSITOR_TIMING: /* 3 x nsecs_t* */
        for (int i = 0; i < 3; i++) {
            a.ptrs[i] = va_arg(ap, void *);
        }
        break;
    case NATIVE_WINDOW_SET_SURFACE_DAMAGE: /* const android_native_rect_t*, size_t */
        a.ptrs[0] = va_arg(ap, void *);
        a.ints[0] = (int64_t)va_arg(ap, size_t);
        break;
    case NATIVE_WINDOW_SET_BUFFERS_HDR10_PLUS_METADATA: /* size_t, const uint8_t* */
        a.ints[0] = (int64_t)va_arg(ap, size_t);
        a.ptrs[0] = va_arg(ap, void *);
        break;
    case NATIVE_WINDOW_GET_FRAME_TIMESTAMPS: /* uint64_t frameId, 9 x int64_t* */
        a.ints[0] = (int64_t)va_arg(ap, uint64_t);
        for (int i = 0; i < 9; i++) {
            a.ptrs[i] = va_arg(ap, void *);
        }
        break;
    case NATIVE_WINDOW_SET_FRAME_RATE: /* float (as double), int8_t, int8_t (as int) */
        a.real = va_arg(ap, double);
        a.ints[0] = va_arg(ap, int);
        a.ints[1] = va_arg(ap, int);
        break;

    default:
        known = 0;
        break;
    }
    va_end(ap);
    if (!known) {
        return -EINVAL;
    }
    vkgen_window_dispatch_fn dispatch = __atomic_load_n(&dispatch_fn, __ATOMIC_ACQUIRE);
    if (!dispatch) {
        return -EINVAL;
    }
    return dispatch(window, operation, &a);
}

/* Layout of the argument block and the window.h structs, for the Rust mirror's test:
 * [sizeof args, offsetof real, offsetof ints, offsetof ptrs, sizeof rect, sizeof smpte2086,
 *  offsetof smpte2086.maxLuminance, sizeof cta861_3, sizeof ANativeWindow,
 *  offsetof ANativeWindow.perform]. */
void vkgen_window_c_layout(size_t out[VKGEN_WINDOW_C_LAYOUT_LEN]) {
    out[0] = sizeof(struct vkgen_window_perform_args);
    out[1] = offsetof(struct vkgen_window_perform_args, real);
    out[2] = offsetof(struct vkgen_window_perform_args, ints);
    out[3] = offsetof(struct vkgen_window_perform_args, ptrs);
    out[4] = sizeof(android_native_rect_t);
    out[5] = sizeof(struct android_smpte2086_metadata);
    out[6] = offsetof(struct android_smpte2086_metadata, maxLuminance);
    out[7] = sizeof(struct android_cta861_3_metadata);
    out[8] = sizeof(struct ANativeWindow);
    out[9] = offsetof(struct ANativeWindow, perform);
}
