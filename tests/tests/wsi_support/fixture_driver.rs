//! The configurable C HAL driver of the WSI fixture tests (`wsi_fixture.rs`,
//! `wsi_aosp_formats.rs`): its `VK_ANDROID_native_buffer` side is switched by defines and
//! observed through exported counters, for what vkgen's own drivers cannot show.

#![allow(dead_code)] // each test file uses a different part

use std::path::{Path, PathBuf};

use crate::common::{compile_fixture, fixture_counter};

/// The driver. Switches: `GPDIFP2_OK` (the AHB usage query succeeds with usage `0x10000000`),
/// `GRALLOC1`..`GRALLOC4` (which `vkGetSwapchainGrallocUsage*ANDROID` exist; each answers
/// `0x<n>0000000 | GPU bits` and records its version), `GRALLOC_FAILS`, `FENCE_FD`
/// (`VK_KHR_external_fence_fd` with importable `SYNC_FD` fences), `RELEASE_FD` (release fences
/// are signalled eventfds), `SHARED_IMAGE` (`sharedImage = TRUE`), `ANB_SPEC=<n>` (the
/// `VK_ANDROID_native_buffer` spec version, default 8), `COMPRESSION` (the
/// `imageCompressionControl` feature, with `imageCompressionControlSwapchain` FALSE; the
/// GrallocUsage3/4 queries map a chained `VkImageCompressionControlEXT` to vendor usage bits as
/// a vendor driver does: `DISABLED` → `1 << 29`, `FIXED_RATE_DEFAULT` → `1 << 28`,
/// `FIXED_RATE_EXPLICIT` → the first plane's rate bits `<< 48`; `vkCreateImage` records the
/// structure it receives), `RGBA10X6` (`VK_EXT_rgba10x6_formats` in the device extension list;
/// `vkCreateImage` counts `R10X6G10X6B10X6A10X6_UNORM_4PACK16` images).
pub const WSI_DRIVER: &str = r#"
#include <unistd.h>
#include <sys/eventfd.h>
typedef struct { uintptr_t loader_data; } Object;
typedef struct { uintptr_t loader_data; Object physical_device; } Instance;
typedef struct { uintptr_t loader_data; Object queue; } Device;
static uint64_t next_handle = 0x1000;

#define STAT(x) static int x; EXPORT int fixture_##x(void) { return x; }
STAT(images_created) STAT(images_destroyed) STAT(anb_images) STAT(swapchain_images)
STAT(anb_binds) STAT(anb_bimsi_binds) STAT(anb_null_handles) STAT(acquires) STAT(releases)
STAT(imports) STAT(import_temporary) STAT(import_sync_fd) STAT(import_fd_valid)
STAT(gralloc_version) STAT(saw_anb) STAT(saw_fence_fd) STAT(saw_maintenance1) STAT(fds_closed)
STAT(gpdifp2_calls) STAT(release_waits) STAT(mutable_images) STAT(format_list_formats)
STAT(compressed_images) STAT(image_compression_flags) STAT(image_compression_rate)
STAT(gralloc_compression_flags) STAT(gpdifp2_compression_flags) STAT(r10x6_images)
#ifndef ANB_SPEC
#define ANB_SPEC 8
#endif
static const VkImageCompressionControlEXT* find_compression(const void* p) {
    for (const VkBaseInStructure* s = p; s; s = s->pNext)
        if (s->sType == VK_STRUCTURE_TYPE_IMAGE_COMPRESSION_CONTROL_EXT)
            return (const VkImageCompressionControlEXT*)s;
    return NULL;
}
static uint64_t compression_usage(const void* p) {
    const VkImageCompressionControlEXT* c = find_compression(p);
    if (!c) return 0;
    gralloc_compression_flags = (int)c->flags;
    if (c->flags == VK_IMAGE_COMPRESSION_DISABLED_EXT) return 1ull << 29;
    if (c->flags == VK_IMAGE_COMPRESSION_FIXED_RATE_DEFAULT_EXT) return 1ull << 28;
    if (c->flags == VK_IMAGE_COMPRESSION_FIXED_RATE_EXPLICIT_EXT && c->compressionControlPlaneCount > 0 && c->pFixedRateFlags)
        return (uint64_t)(c->pFixedRateFlags[0] & 0xffff) << 48;
    return 0;
}

static VkResult EnumerateInstanceVersion(uint32_t* v) { *v = VK_MAKE_API_VERSION(0, 1, 1, 0); return VK_SUCCESS; }
static VkResult EnumerateInstanceExtensionProperties(const char* l, uint32_t* c, VkExtensionProperties* p) {
    (void)l; (void)p; *c = 0; return VK_SUCCESS;
}
static VkResult CreateInstance(const VkInstanceCreateInfo* info, const VkAllocationCallbacks* a, VkInstance* out) {
    (void)info; (void)a;
    Instance* i = calloc(1, sizeof *i);
    i->loader_data = MAGIC;
    i->physical_device.loader_data = MAGIC;
    *out = (VkInstance)i;
    return VK_SUCCESS;
}
static void DestroyInstance(VkInstance i, const VkAllocationCallbacks* a) { (void)a; free(i); }
static VkResult EnumeratePhysicalDevices(VkInstance i, uint32_t* c, VkPhysicalDevice* out) {
    if (!out) { *c = 1; return VK_SUCCESS; }
    if (*c < 1) return VK_INCOMPLETE;
    out[0] = (VkPhysicalDevice)&((Instance*)i)->physical_device;
    *c = 1;
    return VK_SUCCESS;
}
static void GetPhysicalDeviceProperties(VkPhysicalDevice pd, VkPhysicalDeviceProperties* p) {
    (void)pd;
    memset(p, 0, sizeof *p);
#ifdef API_1_2
    p->apiVersion = VK_MAKE_API_VERSION(0, 1, 2, 0);
#else
    p->apiVersion = VK_MAKE_API_VERSION(0, 1, 1, 0);
#endif
    p->deviceType = VK_PHYSICAL_DEVICE_TYPE_CPU;
    strcpy(p->deviceName, "vkgen WSI fixture");
}
static void GetPhysicalDeviceProperties2(VkPhysicalDevice pd, VkPhysicalDeviceProperties2* p) {
    GetPhysicalDeviceProperties(pd, &p->properties);
    for (VkBaseOutStructure* s = p->pNext; s; s = s->pNext)
        if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENTATION_PROPERTIES_ANDROID) {
#ifdef SHARED_IMAGE
            ((VkPhysicalDevicePresentationPropertiesANDROID*)s)->sharedImage = VK_TRUE;
#endif
        }
}
static void GetPhysicalDeviceFeatures2(VkPhysicalDevice pd, VkPhysicalDeviceFeatures2* f) {
    (void)pd; memset(&f->features, 0, sizeof f->features);
    for (VkBaseOutStructure* s = f->pNext; s; s = s->pNext) {
        if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_COMPRESSION_CONTROL_FEATURES_EXT) {
#ifdef COMPRESSION
            ((VkPhysicalDeviceImageCompressionControlFeaturesEXT*)s)->imageCompressionControl = VK_TRUE;
#else
            ((VkPhysicalDeviceImageCompressionControlFeaturesEXT*)s)->imageCompressionControl = VK_FALSE;
#endif
        }
        if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_COMPRESSION_CONTROL_SWAPCHAIN_FEATURES_EXT)
            ((VkPhysicalDeviceImageCompressionControlSwapchainFeaturesEXT*)s)->imageCompressionControlSwapchain = VK_FALSE;
    }
}
static void GetPhysicalDeviceQueueFamilyProperties(VkPhysicalDevice pd, uint32_t* c, VkQueueFamilyProperties* p) {
    (void)pd;
    if (!p) { *c = 1; return; }
    if (*c < 1) return;
    memset(p, 0, sizeof *p);
    p->queueFlags = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT | VK_QUEUE_TRANSFER_BIT;
    p->queueCount = 1;
    *c = 1;
}
static void GetPhysicalDeviceFormatProperties(VkPhysicalDevice pd, VkFormat f, VkFormatProperties* p) {
    (void)pd; memset(p, 0, sizeof *p);
    if (f == VK_FORMAT_R8G8B8A8_UNORM || f == VK_FORMAT_R8G8B8A8_SRGB)
        p->optimalTilingFeatures = VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT | VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT;
}
static VkResult GetPhysicalDeviceImageFormatProperties2(VkPhysicalDevice pd, const VkPhysicalDeviceImageFormatInfo2* info, VkImageFormatProperties2* p) {
    (void)pd; gpdifp2_calls++;
    const VkImageCompressionControlEXT* c = find_compression(info->pNext);
    if (c) gpdifp2_compression_flags = (int)c->flags;
#ifdef GPDIFP2_OK
    for (VkBaseOutStructure* s = p->pNext; s; s = s->pNext)
        if (s->sType == VK_STRUCTURE_TYPE_ANDROID_HARDWARE_BUFFER_USAGE_ANDROID)
            ((VkAndroidHardwareBufferUsageANDROID*)s)->androidHardwareBufferUsage = 0x10000000ull | 0x300;
    return VK_SUCCESS;
#else
    (void)p;
    return VK_ERROR_FORMAT_NOT_SUPPORTED;
#endif
}
static void GetPhysicalDeviceExternalFenceProperties(VkPhysicalDevice pd, const VkPhysicalDeviceExternalFenceInfo* i, VkExternalFenceProperties* p) {
    (void)pd;
    p->exportFromImportedHandleTypes = 0; p->compatibleHandleTypes = 0; p->externalFenceFeatures = 0;
#ifdef FENCE_FD
    if (i->handleType == VK_EXTERNAL_FENCE_HANDLE_TYPE_SYNC_FD_BIT) {
        p->compatibleHandleTypes = VK_EXTERNAL_FENCE_HANDLE_TYPE_SYNC_FD_BIT;
        p->externalFenceFeatures = VK_EXTERNAL_FENCE_FEATURE_IMPORTABLE_BIT;
    }
#else
    (void)i;
#endif
}
static VkResult EnumerateDeviceExtensionProperties(VkPhysicalDevice pd, const char* l, uint32_t* c, VkExtensionProperties* p) {
    (void)pd; (void)l;
    VkExtensionProperties all[3];
    uint32_t n = 0;
    memset(all, 0, sizeof all);
    strcpy(all[n].extensionName, "VK_ANDROID_native_buffer"); all[n++].specVersion = ANB_SPEC;
#ifdef FENCE_FD
    strcpy(all[n].extensionName, "VK_KHR_external_fence_fd"); all[n++].specVersion = 1;
#endif
#ifdef RGBA10X6
    strcpy(all[n].extensionName, "VK_EXT_rgba10x6_formats"); all[n++].specVersion = 1;
#endif
    if (!p) { *c = n; return VK_SUCCESS; }
    uint32_t w = *c < n ? *c : n;
    memcpy(p, all, w * sizeof *p);
    *c = w;
    return w < n ? VK_INCOMPLETE : VK_SUCCESS;
}

static void DestroyDevice(VkDevice d, const VkAllocationCallbacks* a) { (void)a; free(d); }
static void GetDeviceQueue(VkDevice d, uint32_t f, uint32_t i, VkQueue* q) { (void)f; (void)i; *q = (VkQueue)&((Device*)d)->queue; }
static VkResult AllocateCommandBuffers(VkDevice d, const VkCommandBufferAllocateInfo* info, VkCommandBuffer* out) {
    (void)d; (void)info; (void)out; return VK_ERROR_OUT_OF_HOST_MEMORY;
}
static void FreeCommandBuffers(VkDevice d, VkCommandPool p, uint32_t n, const VkCommandBuffer* cbs) { (void)d; (void)p; (void)n; (void)cbs; }
static VkResult DeviceWaitIdle(VkDevice d) { (void)d; return VK_SUCCESS; }
static VkResult QueueWaitIdle(VkQueue q) { (void)q; return VK_SUCCESS; }
static VkResult CreateFence(VkDevice d, const VkFenceCreateInfo* i, const VkAllocationCallbacks* a, VkFence* f) {
    (void)d; (void)i; (void)a; *f = (VkFence)(++next_handle); return VK_SUCCESS;
}
static void DestroyFence(VkDevice d, VkFence f, const VkAllocationCallbacks* a) { (void)d; (void)f; (void)a; }
static VkResult WaitForFences(VkDevice d, uint32_t n, const VkFence* f, VkBool32 all, uint64_t t) { (void)d; (void)n; (void)f; (void)all; (void)t; return VK_SUCCESS; }
static VkResult ResetFences(VkDevice d, uint32_t n, const VkFence* f) { (void)d; (void)n; (void)f; return VK_SUCCESS; }
static VkResult CreateSemaphore(VkDevice d, const VkSemaphoreCreateInfo* i, const VkAllocationCallbacks* a, VkSemaphore* s) {
    (void)d; (void)i; (void)a; *s = (VkSemaphore)(++next_handle); return VK_SUCCESS;
}
static void DestroySemaphore(VkDevice d, VkSemaphore s, const VkAllocationCallbacks* a) { (void)d; (void)s; (void)a; }
static VkResult CreateImage(VkDevice d, const VkImageCreateInfo* info, const VkAllocationCallbacks* a, VkImage* out) {
    (void)d; (void)a;
    for (const VkBaseInStructure* s = info->pNext; s; s = s->pNext) {
        if (s->sType == VK_STRUCTURE_TYPE_NATIVE_BUFFER_ANDROID) {
            anb_images++;
            if (!((const VkNativeBufferANDROID*)s)->handle) anb_null_handles++;
        }
        if (s->sType == VK_STRUCTURE_TYPE_IMAGE_SWAPCHAIN_CREATE_INFO_KHR) swapchain_images++;
        if (s->sType == VK_STRUCTURE_TYPE_IMAGE_COMPRESSION_CONTROL_EXT) {
            const VkImageCompressionControlEXT* c = (const VkImageCompressionControlEXT*)s;
            compressed_images++;
            image_compression_flags = (int)c->flags;
            if (c->compressionControlPlaneCount > 0 && c->pFixedRateFlags)
                image_compression_rate = (int)c->pFixedRateFlags[0];
        }
        if (s->sType == VK_STRUCTURE_TYPE_IMAGE_FORMAT_LIST_CREATE_INFO)
            format_list_formats += (int)((const VkImageFormatListCreateInfo*)s)->viewFormatCount;
    }
    if ((info->flags & VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT) && (info->flags & VK_IMAGE_CREATE_EXTENDED_USAGE_BIT))
        mutable_images++;
    if (info->format == VK_FORMAT_R10X6G10X6B10X6A10X6_UNORM_4PACK16) r10x6_images++;
    images_created++;
    *out = (VkImage)(++next_handle);
    return VK_SUCCESS;
}
static void DestroyImage(VkDevice d, VkImage i, const VkAllocationCallbacks* a) { (void)d; (void)a; if (i) images_destroyed++; }
static VkResult BindImageMemory2(VkDevice d, uint32_t n, const VkBindImageMemoryInfo* infos) {
    (void)d;
    for (uint32_t i = 0; i < n; i++) {
        const VkBaseInStructure* s = infos[i].pNext;
        if (s && s->sType == VK_STRUCTURE_TYPE_NATIVE_BUFFER_ANDROID) {
            anb_binds++;
            if (!((const VkNativeBufferANDROID*)s)->handle) anb_null_handles++;
            for (const VkBaseInStructure* t = s->pNext; t; t = t->pNext)
                if (t->sType == VK_STRUCTURE_TYPE_BIND_IMAGE_MEMORY_SWAPCHAIN_INFO_KHR) anb_bimsi_binds++;
        }
    }
    return VK_SUCCESS;
}
static VkResult AcquireImageANDROID(VkDevice d, VkImage i, int fd, VkSemaphore s, VkFence f) {
    (void)d; (void)i; (void)s; (void)f;
    acquires++;
    if (fd >= 0) { close(fd); fds_closed++; }
    return VK_SUCCESS;
}
static VkResult QueueSignalReleaseImageANDROID(VkQueue q, uint32_t n, const VkSemaphore* w, VkImage i, int* fd) {
    (void)q; (void)w; (void)i;
    releases++;
    release_waits += (int)n;
#ifdef RELEASE_FD
    *fd = eventfd(1, EFD_CLOEXEC);
#else
    *fd = -1;
#endif
    return VK_SUCCESS;
}
static VkResult ImportFenceFdKHR(VkDevice d, const VkImportFenceFdInfoKHR* info) {
    (void)d;
    imports++;
    if (info->flags & VK_FENCE_IMPORT_TEMPORARY_BIT) import_temporary++;
    if (info->handleType == VK_EXTERNAL_FENCE_HANDLE_TYPE_SYNC_FD_BIT) import_sync_fd++;
    if (info->fd >= 0) { import_fd_valid++; close(info->fd); fds_closed++; }
    return VK_SUCCESS;
}
#ifdef GRALLOC_FAILS
#define GRALLOC_RESULT VK_ERROR_OUT_OF_HOST_MEMORY
#else
#define GRALLOC_RESULT VK_SUCCESS
#endif
static VkResult GetSwapchainGrallocUsageANDROID(VkDevice d, VkFormat f, VkImageUsageFlags u, int* out) {
    (void)d; (void)f; (void)u; gralloc_version = 1; *out = 0x01000000 | 0x300; return GRALLOC_RESULT;
}
static VkResult GetSwapchainGrallocUsage2ANDROID(VkDevice d, VkFormat f, VkImageUsageFlags u, VkSwapchainImageUsageFlagsANDROID s, uint64_t* c, uint64_t* p) {
    (void)d; (void)f; (void)u; (void)s; gralloc_version = 2; *c = 1u << 8; *p = 0x02000000 | (1u << 9); return GRALLOC_RESULT;
}
typedef struct { VkStructureType sType; const void* pNext; VkFormat format; VkImageUsageFlags imageUsage; } GrallocUsageInfo;
typedef struct { VkStructureType sType; const void* pNext; VkFormat format; VkImageUsageFlags imageUsage; VkSwapchainImageUsageFlagsANDROID swapchainImageUsage; } GrallocUsageInfo2;
static VkResult GetSwapchainGrallocUsage3ANDROID(VkDevice d, const GrallocUsageInfo* i, uint64_t* out) {
    (void)d; gralloc_version = 3; *out = 0x03000000 | 0x300 | compression_usage(i->pNext); return GRALLOC_RESULT;
}
static VkResult GetSwapchainGrallocUsage4ANDROID(VkDevice d, const GrallocUsageInfo2* i, uint64_t* out) {
    (void)d; gralloc_version = 4;
    *out = 0x04000000 | 0x300 | ((i->swapchainImageUsage & 1) ? (1ull << 32) : 0) | compression_usage(i->pNext);
    return GRALLOC_RESULT;
}

#define P(n) if (!strcmp(name, "vk" #n)) return (PFN_vkVoidFunction)n;
static PFN_vkVoidFunction GetDeviceProcAddr(VkDevice d, const char* name) {
    (void)d;
    P(GetDeviceProcAddr) P(DestroyDevice) P(GetDeviceQueue) P(AllocateCommandBuffers) P(FreeCommandBuffers)
    P(DeviceWaitIdle) P(QueueWaitIdle) P(CreateFence) P(DestroyFence) P(WaitForFences) P(ResetFences)
    P(CreateSemaphore) P(DestroySemaphore) P(CreateImage) P(DestroyImage) P(BindImageMemory2)
    P(AcquireImageANDROID) P(QueueSignalReleaseImageANDROID)
#ifdef FENCE_FD
    P(ImportFenceFdKHR)
#endif
#ifdef GRALLOC1
    P(GetSwapchainGrallocUsageANDROID)
#endif
#ifdef GRALLOC2
    P(GetSwapchainGrallocUsage2ANDROID)
#endif
#ifdef GRALLOC3
    P(GetSwapchainGrallocUsage3ANDROID)
#endif
#ifdef GRALLOC4
    P(GetSwapchainGrallocUsage4ANDROID)
#endif
    return NULL;
}
static VkResult CreateDevice(VkPhysicalDevice pd, const VkDeviceCreateInfo* info, const VkAllocationCallbacks* a, VkDevice* out) {
    (void)pd; (void)a;
    for (uint32_t e = 0; e < info->enabledExtensionCount; e++) {
        const char* n = info->ppEnabledExtensionNames[e];
        if (!strcmp(n, "VK_ANDROID_native_buffer")) saw_anb = 1;
        if (!strcmp(n, "VK_KHR_external_fence_fd")) saw_fence_fd = 1;
        if (!strcmp(n, "VK_EXT_swapchain_maintenance1")) saw_maintenance1 = 1;
        if (strcmp(n, "VK_ANDROID_native_buffer") && strcmp(n, "VK_KHR_external_fence_fd"))
            return VK_ERROR_EXTENSION_NOT_PRESENT;
    }
    Device* d = calloc(1, sizeof *d);
    d->loader_data = MAGIC;
    d->queue.loader_data = MAGIC;
    *out = (VkDevice)d;
    return VK_SUCCESS;
}
static PFN_vkVoidFunction GetInstanceProcAddr(VkInstance i, const char* name) {
    (void)i;
    P(CreateInstance) P(EnumerateInstanceVersion) P(EnumerateInstanceExtensionProperties) P(DestroyInstance)
    P(EnumeratePhysicalDevices) P(GetPhysicalDeviceProperties) P(GetPhysicalDeviceProperties2)
    P(GetPhysicalDeviceFeatures2) P(GetPhysicalDeviceQueueFamilyProperties) P(GetPhysicalDeviceFormatProperties)
    P(GetPhysicalDeviceImageFormatProperties2) P(GetPhysicalDeviceExternalFenceProperties)
    P(EnumerateDeviceExtensionProperties) P(CreateDevice) P(GetDeviceProcAddr) P(GetInstanceProcAddr)
    return NULL;
}

typedef struct hw_module_t hw_module_t;
typedef struct hw_device_t hw_device_t;
typedef struct { int (*open)(const hw_module_t*, const char*, hw_device_t**); } hw_module_methods_t;
struct hw_module_t { uint32_t tag; uint16_t module_api_version; uint16_t hal_api_version;
    const char* id; const char* name; const char* author; hw_module_methods_t* methods; void* dso;
    uint64_t reserved[25]; };
struct hw_device_t { uint32_t tag; uint32_t version; hw_module_t* module; uint64_t reserved[12];
    int (*close)(hw_device_t*); };
typedef struct { hw_device_t common; PFN_vkEnumerateInstanceExtensionProperties enumerate_instance_extension_properties;
    PFN_vkCreateInstance create_instance; PFN_vkGetInstanceProcAddr get_instance_proc_addr; } hwvulkan_device_t;
static int close_device(hw_device_t* d) { (void)d; return 0; }
static hwvulkan_device_t device = {
    .common = { .tag = 0x48574454, .version = 0x00010000, .close = close_device },
    .enumerate_instance_extension_properties = EnumerateInstanceExtensionProperties,
    .create_instance = CreateInstance,
    .get_instance_proc_addr = GetInstanceProcAddr,
};
static int open_device(const hw_module_t* m, const char* id, hw_device_t** out) {
    if (strcmp(id, "vk0") != 0) return -22;
    device.common.module = (hw_module_t*)m;
    *out = &device.common;
    return 0;
}
static hw_module_methods_t methods = { .open = open_device };
EXPORT hw_module_t HMI = {
    .tag = 0x48574D54, .module_api_version = 1, .hal_api_version = 0x0100,
    .id = "vulkan", .name = "vkgen WSI fixture", .author = "vkgen", .methods = &methods,
};
"#;

/// The WSI fixture driver with `defines`.
pub fn wsi_driver(defines: &[&str]) -> PathBuf {
    compile_fixture("wsi-hal", &format!("{ANB_DECLS}{WSI_DRIVER}"), defines)
}

/// `vk_android_native_buffer.h` (spec 8 layout plus the spec-11 tail the loader writes),
/// which Debian's headers only ship under `VK_USE_PLATFORM_ANDROID_KHR`.
pub const ANB_DECLS: &str = r#"
#define VK_STRUCTURE_TYPE_NATIVE_BUFFER_ANDROID ((VkStructureType)1000010000)
#define VK_STRUCTURE_TYPE_SWAPCHAIN_IMAGE_CREATE_INFO_ANDROID ((VkStructureType)1000010001)
#define VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENTATION_PROPERTIES_ANDROID ((VkStructureType)1000010002)
#define VK_STRUCTURE_TYPE_ANDROID_HARDWARE_BUFFER_USAGE_ANDROID ((VkStructureType)1000129000)
typedef VkFlags VkSwapchainImageUsageFlagsANDROID;
typedef struct { uint64_t consumer; uint64_t producer; } VkNativeBufferUsage2ANDROID;
typedef struct { VkStructureType sType; const void* pNext; const void* handle; int stride; int format;
    int usage; VkNativeBufferUsage2ANDROID usage2; uint64_t usage3; void* ahb; } VkNativeBufferANDROID;
typedef struct { VkStructureType sType; void* pNext; VkBool32 sharedImage; } VkPhysicalDevicePresentationPropertiesANDROID;
typedef struct { VkStructureType sType; void* pNext; uint64_t androidHardwareBufferUsage; } VkAndroidHardwareBufferUsageANDROID;
"#;

pub fn counter(lib: &Path, name: &str) -> i32 {
    let symbol = std::ffi::CString::new(format!("fixture_{name}")).unwrap();
    fixture_counter(lib, &symbol)
}
