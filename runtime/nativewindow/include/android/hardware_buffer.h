/*
 * android/hardware_buffer.h for Linux hosts: the NDK's AHardwareBuffer API as vkgen's
 * libnativewindow.so implements it (link with -lnativewindow). Declarations follow the NDK's;
 * layers must be 1; formats: the colour formats below, BLOB, Y8Cb8Cr8_420 (NV12 layout),
 * YCrCb_420_SP (NV21) and YV12.
 */
#ifndef VKGEN_ANDROID_HARDWARE_BUFFER_H
#define VKGEN_ANDROID_HARDWARE_BUFFER_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct AHardwareBuffer AHardwareBuffer;
typedef struct native_handle native_handle_t;
struct ANativeWindowBuffer;

typedef struct ARect {
    int32_t left, top, right, bottom;
} ARect;

enum AHardwareBuffer_Format {
    AHARDWAREBUFFER_FORMAT_R8G8B8A8_UNORM = 1,
    AHARDWAREBUFFER_FORMAT_R8G8B8X8_UNORM = 2,
    AHARDWAREBUFFER_FORMAT_R5G6B5_UNORM = 4,
    AHARDWAREBUFFER_FORMAT_R16G16B16A16_FLOAT = 0x16,
    AHARDWAREBUFFER_FORMAT_R10G10B10A2_UNORM = 0x2b,
    AHARDWAREBUFFER_FORMAT_BLOB = 0x21,
    AHARDWAREBUFFER_FORMAT_Y8Cb8Cr8_420 = 0x23,
    AHARDWAREBUFFER_FORMAT_YCrCb_420_SP = 0x11,
    AHARDWAREBUFFER_FORMAT_YV12 = 0x32315659,
    AHARDWAREBUFFER_FORMAT_R8_UNORM = 0x38,
};

enum AHardwareBuffer_UsageFlags {
    AHARDWAREBUFFER_USAGE_CPU_READ_RARELY = 2UL,
    AHARDWAREBUFFER_USAGE_CPU_READ_OFTEN = 3UL,
    AHARDWAREBUFFER_USAGE_CPU_READ_MASK = 0xFUL,
    AHARDWAREBUFFER_USAGE_CPU_WRITE_RARELY = 2UL << 4,
    AHARDWAREBUFFER_USAGE_CPU_WRITE_OFTEN = 3UL << 4,
    AHARDWAREBUFFER_USAGE_CPU_WRITE_MASK = 0xFUL << 4,
    AHARDWAREBUFFER_USAGE_GPU_SAMPLED_IMAGE = 1UL << 8,
    AHARDWAREBUFFER_USAGE_GPU_FRAMEBUFFER = 1UL << 9,
    AHARDWAREBUFFER_USAGE_GPU_COLOR_OUTPUT = 1UL << 9,
    AHARDWAREBUFFER_USAGE_COMPOSER_OVERLAY = 1UL << 11,
    AHARDWAREBUFFER_USAGE_PROTECTED_CONTENT = 1UL << 14,
    AHARDWAREBUFFER_USAGE_VIDEO_ENCODE = 1UL << 16,
    AHARDWAREBUFFER_USAGE_SENSOR_DIRECT_DATA = 1UL << 23,
    AHARDWAREBUFFER_USAGE_GPU_DATA_BUFFER = 1UL << 24,
    AHARDWAREBUFFER_USAGE_GPU_CUBE_MAP = 1UL << 25,
    AHARDWAREBUFFER_USAGE_GPU_MIPMAP_COMPLETE = 1UL << 26,
};
#define AHARDWAREBUFFER_USAGE_FRONT_BUFFER (1ULL << 32)

typedef struct AHardwareBuffer_Desc {
    uint32_t width;
    uint32_t height;
    uint32_t layers;
    uint32_t format;
    uint64_t usage;
    uint32_t stride;
    uint32_t rfu0;
    uint64_t rfu1;
} AHardwareBuffer_Desc;

typedef struct AHardwareBuffer_Plane {
    void *data;
    uint32_t pixelStride;
    uint32_t rowStride;
} AHardwareBuffer_Plane;

typedef struct AHardwareBuffer_Planes {
    uint32_t planeCount;
    AHardwareBuffer_Plane planes[4];
} AHardwareBuffer_Planes;

int AHardwareBuffer_allocate(const AHardwareBuffer_Desc *desc, AHardwareBuffer **outBuffer);
void AHardwareBuffer_acquire(AHardwareBuffer *buffer);
void AHardwareBuffer_release(AHardwareBuffer *buffer);
void AHardwareBuffer_describe(const AHardwareBuffer *buffer, AHardwareBuffer_Desc *outDesc);
int AHardwareBuffer_isSupported(const AHardwareBuffer_Desc *desc);
int AHardwareBuffer_lock(AHardwareBuffer *buffer, uint64_t usage, int32_t fence,
                         const ARect *rect, void **outVirtualAddress);
int AHardwareBuffer_lockAndGetInfo(AHardwareBuffer *buffer, uint64_t usage, int32_t fence,
                                   const ARect *rect, void **outVirtualAddress,
                                   int32_t *outBytesPerPixel, int32_t *outBytesPerStride);
int AHardwareBuffer_lockPlanes(AHardwareBuffer *buffer, uint64_t usage, int32_t fence,
                               const ARect *rect, AHardwareBuffer_Planes *outPlanes);
int AHardwareBuffer_unlock(AHardwareBuffer *buffer, int32_t *fence);
int AHardwareBuffer_getId(const AHardwareBuffer *buffer, uint64_t *outId);

/* vndk/hardware_buffer.h */
const native_handle_t *AHardwareBuffer_getNativeHandle(const AHardwareBuffer *buffer);
enum CreateFromHandleMethod {
    AHARDWAREBUFFER_CREATE_FROM_HANDLE_METHOD_REGISTER = 0,
    AHARDWAREBUFFER_CREATE_FROM_HANDLE_METHOD_CLONE = 1,
};
int AHardwareBuffer_createFromHandle(const AHardwareBuffer_Desc *desc,
                                     const native_handle_t *handle, int32_t method,
                                     AHardwareBuffer **outBuffer);
struct ANativeWindowBuffer *AHardwareBuffer_to_ANativeWindowBuffer(AHardwareBuffer *buffer);
AHardwareBuffer *ANativeWindowBuffer_getHardwareBuffer(struct ANativeWindowBuffer *buffer);

#ifdef __cplusplus
}
#endif

#endif
