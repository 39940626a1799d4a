//! The loader's WSI against a small C HAL driver whose `VK_ANDROID_native_buffer` side is
//! configurable and observable, for what vkgen's own drivers cannot show:
//! * the gralloc-usage order: `vkGetPhysicalDeviceImageFormatProperties2` with an AHB external
//!   format, then the first of `vkGetSwapchainGrallocUsage4/3/2/ANDROID` the driver has; a
//!   driver error → `VK_ERROR_SURFACE_LOST_KHR`; no usage query at all →
//!   `VK_ERROR_INCOMPATIBLE_DRIVER` at `vkCreateDevice`;
//! * `VK_EXT_swapchain_maintenance1` on a driver that imports `SYNC_FD` fences: advertised, its
//!   feature reported, mapped to `VK_KHR_external_fence_fd` at device creation, present fences
//!   imported (`TEMPORARY`, `SYNC_FD`, a real fd), `vkReleaseSwapchainImagesEXT`, deferred
//!   memory allocation (unbound images bound at first acquire with `VkNativeBufferANDROID` →
//!   `VkBindImageMemorySwapchainInfoKHR`), present-mode switches between the shared modes;
//! * an application image bound to a swapchain image with `VkBindImageMemorySwapchainInfoKHR`
//!   (the loader prepends the buffer's `VkNativeBufferANDROID`);
//! * real release-fence fds (eventfds) flowing driver → window → next acquire without leaks.

mod common;
mod wsi_support;

use std::path::{Path, PathBuf};

use ash::vk;
use common::{compile_fixture, fixture_counter, hal_env};
use vkgen_tests::env::in_child;
use vkgen_tests::{paths, require};
use wsi_support::{window, Wsi};

/// The driver. Switches: `GPDIFP2_OK` (the AHB usage query succeeds with usage `0x10000000`),
/// `GRALLOC1`..`GRALLOC4` (which `vkGetSwapchainGrallocUsage*ANDROID` exist; each answers
/// `0x<n>0000000 | GPU bits` and records its version), `GRALLOC_FAILS`, `FENCE_FD`
/// (`VK_KHR_external_fence_fd` with importable `SYNC_FD` fences), `RELEASE_FD` (release fences
/// are signalled eventfds), `SHARED_IMAGE` (`sharedImage = TRUE`).
const WSI_DRIVER: &str = r#"
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
    (void)pd; (void)info; gpdifp2_calls++;
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
    VkExtensionProperties all[2];
    uint32_t n = 0;
    memset(all, 0, sizeof all);
    strcpy(all[n].extensionName, "VK_ANDROID_native_buffer"); all[n++].specVersion = 8;
#ifdef FENCE_FD
    strcpy(all[n].extensionName, "VK_KHR_external_fence_fd"); all[n++].specVersion = 1;
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
        if (s->sType == VK_STRUCTURE_TYPE_IMAGE_FORMAT_LIST_CREATE_INFO)
            format_list_formats += (int)((const VkImageFormatListCreateInfo*)s)->viewFormatCount;
    }
    if ((info->flags & VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT) && (info->flags & VK_IMAGE_CREATE_EXTENDED_USAGE_BIT))
        mutable_images++;
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
    (void)d; (void)i; gralloc_version = 3; *out = 0x03000000 | 0x300; return GRALLOC_RESULT;
}
static VkResult GetSwapchainGrallocUsage4ANDROID(VkDevice d, const GrallocUsageInfo2* i, uint64_t* out) {
    (void)d; gralloc_version = 4;
    *out = 0x04000000 | 0x300 | ((i->swapchainImageUsage & 1) ? (1ull << 32) : 0);
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
fn wsi_driver(defines: &[&str]) -> PathBuf {
    compile_fixture("wsi-hal", &format!("{ANB_DECLS}{WSI_DRIVER}"), defines)
}

/// `vk_android_native_buffer.h` (spec 8 layout plus the spec-11 tail the loader writes),
/// which Debian's headers only ship under `VK_USE_PLATFORM_ANDROID_KHR`.
const ANB_DECLS: &str = r#"
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

fn counter(lib: &Path, name: &str) -> i32 {
    let symbol = std::ffi::CString::new(format!("fixture_{name}")).unwrap();
    fixture_counter(lib, &symbol)
}

/// Creates a swapchain on the fixture and returns the usage the window was given, or the error.
fn swapchain_usage(loader: &Path) -> Result<u64, vk::Result> {
    let wsi = Wsi::new(loader, &[], &[], &[]).map_err(|e| {
        if e.contains("ERROR_INCOMPATIBLE_DRIVER") {
            vk::Result::ERROR_INCOMPATIBLE_DRIVER
        } else {
            panic!("{e}")
        }
    })?;
    let win = window(16, 16);
    win.set_consumer_usage(0);
    let surface = wsi.create_surface(&win).unwrap();
    let r = wsi.create_swapchain(&wsi.swapchain_info(surface));
    let usage = win.producer_state().usage;
    if let Ok(sc) = r {
        wsi.destroy_swapchain(sc);
    }
    wsi.destroy_surface(surface);
    r.map(|_| usage)
}

macro_rules! gralloc_case {
    ($name:ident, [$($define:literal),*], $check:expr) => {
        #[test]
        fn $name() {
            let loader = require(paths::loader_under_test());
            let lib = wsi_driver(&[$($define),*]);
            let root = tempfile::tempdir().unwrap();
            let env = hal_env(&root, &lib, "");
            in_child(stringify!($name), &env, || {
                let result = swapchain_usage(&loader);
                let check: &dyn Fn(Result<u64, vk::Result>, i32, i32) = &$check;
                check(result, counter(&lib, "gralloc_version"), counter(&lib, "gpdifp2_calls"));
            });
        }
    };
}

const GPU_BITS: u64 = 0x300;

gralloc_case!(
    gralloc_image_format_properties_first,
    ["GPDIFP2_OK", "GRALLOC4", "GRALLOC1"],
    |r, v, q| {
        assert_eq!(r, Ok(0x1000_0000 | GPU_BITS), "the AHB usage from GPDIFP2");
        assert_eq!((v, q), (0, 1), "no GrallocUsage call");
    }
);
gralloc_case!(
    gralloc_falls_back_to_4,
    ["GRALLOC4", "GRALLOC3", "GRALLOC2", "GRALLOC1"],
    |r, v, q| {
        assert_eq!(r, Ok(0x0400_0000 | GPU_BITS));
        assert_eq!((v, q), (4, 1));
    }
);
gralloc_case!(
    gralloc_falls_back_to_3,
    ["GRALLOC3", "GRALLOC2", "GRALLOC1"],
    |r, v, _| {
        assert_eq!(r, Ok(0x0300_0000 | GPU_BITS));
        assert_eq!(v, 3);
    }
);
gralloc_case!(
    gralloc_falls_back_to_2,
    ["GRALLOC2", "GRALLOC1"],
    |r, v, _| {
        // consumer GPU_TEXTURE | producer RENDER_TARGET merged into one BufferUsage.
        assert_eq!(r, Ok(0x0200_0000 | GPU_BITS));
        assert_eq!(v, 2);
    }
);
gralloc_case!(gralloc_falls_back_to_1, ["GRALLOC1"], |r, v, _| {
    assert_eq!(r, Ok(0x0100_0000 | GPU_BITS));
    assert_eq!(v, 1);
});
gralloc_case!(
    gralloc_failure_is_surface_lost,
    ["GRALLOC4", "GRALLOC_FAILS"],
    |r, v, _| {
        assert_eq!(r, Err(vk::Result::ERROR_SURFACE_LOST_KHR));
        assert_eq!(v, 4);
    }
);
gralloc_case!(gralloc_missing_is_an_incompatible_driver, [], |r, _, _| {
    assert_eq!(r, Err(vk::Result::ERROR_INCOMPATIBLE_DRIVER));
});

fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").unwrap().count()
}

/// AOSP `VK_KHR_swapchain_mutable_format`: offered on a 1.2 device (not on a 1.1 one); a
/// mutable-format swapchain's images are created `MUTABLE_FORMAT | EXTENDED_USAGE` with the
/// application's `VkImageFormatListCreateInfo` in their chain.
#[test]
fn swapchain_mutable_format_passes_the_format_list_to_the_driver() {
    const SCENARIO: &str = "swapchain_mutable_format_passes_the_format_list_to_the_driver";
    if vkgen_tests::env::child_scenario().is_some() {
        let api_1_2 = std::env::var("VKGEN_TEST_API_1_2").as_deref() == Ok("1");
        let lib = PathBuf::from(std::env::var_os("VKGEN_TEST_FIXTURE").unwrap());
        mutable_format_child(&lib, api_1_2);
        println!("\n{} {SCENARIO}", vkgen_tests::env::DONE_MARKER);
        return;
    }
    for api_1_2 in [false, true] {
        let defines: &[&str] = if api_1_2 {
            &["GRALLOC4", "API_1_2"]
        } else {
            &["GRALLOC4"]
        };
        let lib = wsi_driver(defines);
        let root = tempfile::tempdir().unwrap();
        let env = hal_env(&root, &lib, "")
            .set("VKGEN_TEST_API_1_2", if api_1_2 { "1" } else { "0" })
            .set("VKGEN_TEST_FIXTURE", &lib);
        let out = vkgen_tests::env::run_child(SCENARIO, &env);
        require(vkgen_tests::env::check_child(SCENARIO, &out));
    }
}

fn mutable_format_child(lib: &Path, api_1_2: bool) {
    let loader = require(paths::loader_under_test());
    let mutable = ash::khr::swapchain_mutable_format::NAME;
    let probe = Wsi::new(&loader, &[], &[], &[]).unwrap();
    // SAFETY: a live physical device.
    let exts = unsafe {
        probe
            .instance
            .enumerate_device_extension_properties(probe.pd)
    }
    .unwrap();
    let offered = exts
        .iter()
        .any(|e| e.extension_name_as_c_str() == Ok(mutable));
    assert_eq!(offered, api_1_2);
    drop(probe);
    if !api_1_2 {
        return;
    }
    let wsi = Wsi::new(&loader, &[], &[mutable], &[]).unwrap();
    let win = window(32, 32);
    let surface = wsi.create_surface(&win).unwrap();
    let formats = [vk::Format::R8G8B8A8_UNORM, vk::Format::R8G8B8A8_SRGB];
    let mut list = vk::ImageFormatListCreateInfo::default().view_formats(&formats);
    let info = wsi
        .swapchain_info(surface)
        .flags(vk::SwapchainCreateFlagsKHR::MUTABLE_FORMAT)
        .push_next(&mut list);
    let (before_mutable, before_formats) = (
        counter(lib, "mutable_images"),
        counter(lib, "format_list_formats"),
    );
    wsi.create_swapchain(&info).unwrap();
    let images = counter(lib, "mutable_images") - before_mutable;
    assert!(images > 0, "no image was created mutable");
    assert_eq!(
        counter(lib, "format_list_formats") - before_formats,
        2 * images,
        "every image carries the two view formats"
    );
}

/// AOSP android16 `QueuePresentKHR`: the present's wait semaphores are passed to the release of
/// every swapchain it presents, not only the first.
#[test]
fn wait_semaphores_reach_every_swapchain_of_a_present() {
    let loader = require(paths::loader_under_test());
    let lib = wsi_driver(&["GRALLOC4"]);
    let root = tempfile::tempdir().unwrap();
    let env = hal_env(&root, &lib, "");
    in_child(
        "wait_semaphores_reach_every_swapchain_of_a_present",
        &env,
        || {
            let wsi = Wsi::new(&loader, &[], &[], &[]).unwrap();
            let (win_a, win_b) = (window(32, 32), window(32, 32));
            let sa = wsi
                .create_swapchain(&wsi.swapchain_info(wsi.create_surface(&win_a).unwrap()))
                .unwrap();
            let sb = wsi
                .create_swapchain(&wsi.swapchain_info(wsi.create_surface(&win_b).unwrap()))
                .unwrap();
            let fence = wsi.fence();
            let (ia, _) = wsi.acquire(sa, fence, u64::MAX).unwrap();
            let (ib, _) = wsi.acquire(sb, fence, u64::MAX).unwrap();
            // SAFETY: a live device.
            let sems = unsafe {
                [
                    wsi.device
                        .create_semaphore(&vk::SemaphoreCreateInfo::default(), None)
                        .unwrap(),
                    wsi.device
                        .create_semaphore(&vk::SemaphoreCreateInfo::default(), None)
                        .unwrap(),
                ]
            };
            let before = counter(&lib, "release_waits");
            let swapchains = [sa, sb];
            let indices = [ia, ib];
            let info = vk::PresentInfoKHR::default()
                .wait_semaphores(&sems)
                .swapchains(&swapchains)
                .image_indices(&indices);
            // SAFETY: a valid present of two acquired images.
            let r = unsafe { (wsi.swapchain_fns.fp().queue_present_khr)(wsi.queue, &info) };
            assert_eq!(r, vk::Result::SUCCESS);
            assert_eq!(
                counter(&lib, "release_waits") - before,
                4,
                "both semaphores to both swapchains"
            );
        },
    );
}

#[test]
fn swapchain_maintenance1_on_a_sync_fd_driver() {
    let loader = require(paths::loader_under_test());
    let lib = wsi_driver(&["GRALLOC4", "FENCE_FD", "RELEASE_FD", "SHARED_IMAGE"]);
    let root = tempfile::tempdir().unwrap();
    let env = hal_env(&root, &lib, "");
    in_child("swapchain_maintenance1_on_a_sync_fd_driver", &env, || {
        let c = |n: &str| counter(&lib, n);
        let wsi = Wsi::new(
            &loader,
            &[
                ash::khr::get_surface_capabilities2::NAME,
                c"VK_EXT_surface_maintenance1",
            ],
            &[
                ash::ext::swapchain_maintenance1::NAME,
                ash::khr::shared_presentable_image::NAME,
            ],
            &[],
        )
        .unwrap();
        assert_eq!(
            (c("saw_anb"), c("saw_fence_fd"), c("saw_maintenance1")),
            (1, 1, 0),
            "maintenance1 reaches the driver as VK_KHR_external_fence_fd"
        );
        let mut m1 = vk::PhysicalDeviceSwapchainMaintenance1FeaturesEXT::default();
        let mut f2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut m1);
        // SAFETY: valid structures.
        unsafe { wsi.instance.get_physical_device_features2(wsi.pd, &mut f2) };
        assert_eq!(m1.swapchain_maintenance1, vk::TRUE);
        let m1_fns = ash::ext::swapchain_maintenance1::Device::new(&wsi.instance, &wsi.device);
        let win = window(32, 32);
        let surface = wsi.create_surface(&win).unwrap();
        let sc = wsi.create_swapchain(&wsi.swapchain_info(surface)).unwrap();
        let fence = wsi.fence();
        let present_fence = wsi.fence();

        // Present fences: the release fd imported, temporarily, as SYNC_FD.
        let (i, _) = wsi.acquire(sc, fence, u64::MAX).unwrap();
        let fences = [present_fence];
        let mut fence_info = vk::SwapchainPresentFenceInfoEXT::default().fences(&fences);
        let swapchains = [sc];
        let indices = [i];
        let info = vk::PresentInfoKHR::default()
            .swapchains(&swapchains)
            .image_indices(&indices)
            .push_next(&mut fence_info);
        // SAFETY: a valid present.
        let r = unsafe { (wsi.swapchain_fns.fp().queue_present_khr)(wsi.queue, &info) };
        assert_eq!(r, vk::Result::SUCCESS);
        assert_eq!(
            (
                c("imports"),
                c("import_temporary"),
                c("import_sync_fd"),
                c("import_fd_valid")
            ),
            (1, 1, 1, 1)
        );

        // Release an acquired image without presenting it.
        let cancels = win.counters().cancels;
        let (i, _) = wsi.acquire(sc, fence, u64::MAX).unwrap();
        let release = vk::ReleaseSwapchainImagesInfoEXT::default()
            .swapchain(sc)
            .image_indices(std::slice::from_ref(&i));
        // SAFETY: a held image of a live swapchain.
        unsafe { m1_fns.release_swapchain_images(&release) }.unwrap();
        assert_eq!(win.counters().cancels, cancels + 1);
        let (j, _) = wsi.acquire(sc, fence, u64::MAX).unwrap();
        assert_eq!(wsi.present(sc, j), vk::Result::SUCCESS);

        // Release fences are real fds: they travel through the window and back without leaks
        // (compared in the same steady state: each image keeps its last release fence).
        let cycle = || {
            let (i, _) = wsi.acquire(sc, fence, u64::MAX).unwrap();
            assert_eq!(wsi.present(sc, i), vk::Result::SUCCESS);
            drop(win.acquire_latest());
        };
        for _ in 0..20 {
            cycle();
        }
        let before = open_fds();
        for _ in 0..600 {
            cycle();
        }
        assert_eq!(open_fds(), before, "fence fds leaked");
        assert!(c("fds_closed") > 0, "the driver got real acquire fences");

        // Deferred allocation: unbound images, bound at first acquire.
        let images_before = c("images_created");
        let anb_before = c("anb_images");
        let deferred = wsi
            .swapchain_info(surface)
            .flags(vk::SwapchainCreateFlagsKHR::DEFERRED_MEMORY_ALLOCATION_EXT)
            .old_swapchain(sc);
        let d = wsi.create_swapchain(&deferred).unwrap();
        wsi.destroy_swapchain(sc);
        // SAFETY: a live swapchain.
        let n = unsafe { wsi.swapchain_fns.get_swapchain_images(d) }
            .unwrap()
            .len() as i32;
        assert_eq!(c("images_created") - images_before, n);
        assert_eq!(c("anb_images"), anb_before, "no buffer at creation");
        assert_eq!(c("swapchain_images"), n);
        let (i, _) = wsi.acquire(d, fence, u64::MAX).unwrap();
        assert_eq!((c("anb_binds"), c("anb_bimsi_binds")), (1, 1));
        assert_eq!(wsi.present(d, i), vk::Result::SUCCESS);

        // An application image bound to swapchain image `i` through the swapchain.
        let image_swapchain = vk::ImageSwapchainCreateInfoKHR::default().swapchain(d);
        let mut image_swapchain = image_swapchain;
        let image_info = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(vk::Format::R8G8B8A8_UNORM)
            .extent(vk::Extent3D {
                width: 32,
                height: 32,
                depth: 1,
            })
            .mip_levels(1)
            .array_layers(1)
            .samples(vk::SampleCountFlags::TYPE_1)
            .usage(vk::ImageUsageFlags::COLOR_ATTACHMENT)
            .push_next(&mut image_swapchain);
        // SAFETY: valid create info and bind info for this device.
        unsafe {
            let image = wsi.device.create_image(&image_info, None).unwrap();
            let mut bimsi = vk::BindImageMemorySwapchainInfoKHR::default()
                .swapchain(d)
                .image_index(i);
            let bind = vk::BindImageMemoryInfo::default()
                .image(image)
                .push_next(&mut bimsi);
            wsi.device.bind_image_memory2(&[bind]).unwrap();
            wsi.device.destroy_image(image, None);
        }
        assert_eq!(
            c("anb_binds"),
            2,
            "the loader prepended VkNativeBufferANDROID"
        );
        assert_eq!(c("anb_null_handles"), 0, "with the buffer's handle");

        // Present-mode switches between the shared modes toggle auto-refresh.
        let shared_info = vk::SwapchainCreateInfoKHR {
            present_mode: vk::PresentModeKHR::SHARED_DEMAND_REFRESH,
            min_image_count: 1,
            old_swapchain: d,
            ..wsi.swapchain_info(surface)
        };
        let modes = [
            vk::PresentModeKHR::SHARED_DEMAND_REFRESH,
            vk::PresentModeKHR::SHARED_CONTINUOUS_REFRESH,
        ];
        let mut modes_info =
            vk::SwapchainPresentModesCreateInfoEXT::default().present_modes(&modes);
        let shared_info = shared_info.push_next(&mut modes_info);
        let s = wsi.create_swapchain(&shared_info).unwrap();
        wsi.destroy_swapchain(d);
        assert!(!win.producer_state().auto_refresh);
        for (mode, auto_refresh) in [
            (vk::PresentModeKHR::SHARED_CONTINUOUS_REFRESH, true),
            (vk::PresentModeKHR::SHARED_DEMAND_REFRESH, false),
        ] {
            let (i, _) = wsi.acquire(s, fence, u64::MAX).unwrap();
            let mode = [mode];
            let mut mode_info = vk::SwapchainPresentModeInfoEXT::default().present_modes(&mode);
            let swapchains = [s];
            let indices = [i];
            let info = vk::PresentInfoKHR::default()
                .swapchains(&swapchains)
                .image_indices(&indices)
                .push_next(&mut mode_info);
            // SAFETY: a valid present.
            let r = unsafe { (wsi.swapchain_fns.fp().queue_present_khr)(wsi.queue, &info) };
            assert_eq!(r, vk::Result::SUCCESS);
            assert_eq!(win.producer_state().auto_refresh, auto_refresh, "{mode:?}");
        }
        wsi.destroy_swapchain(s);
        // SAFETY: unused.
        unsafe {
            wsi.device.destroy_fence(fence, None);
            wsi.device.destroy_fence(present_fence, None);
        }
        wsi.destroy_surface(surface);
        assert_eq!(
            c("images_created"),
            c("images_destroyed"),
            "every swapchain image destroyed"
        );
        println!(
            "maintenance1: features, fence-fd mapping, present fences, image release, deferred \
             allocation, swapchain binds, shared present-mode switches; {} acquires, {} \
             releases, {} fds closed by the driver",
            c("acquires"),
            c("releases"),
            c("fds_closed")
        );
    });
}
