//! Shared by the loader's fault-matrix, multi-driver, proc-address and threading tests: tiny C
//! fixture drivers and layers (compiled with `cc` against Debian's Vulkan headers), the
//! environment that isolates our loader from the host, and small ash helpers.
//!
//! Fixtures are compiled once per source+flags into `<target>/vkgen-test-fixtures/` (the file
//! name carries a hash of what was compiled), so the child processes the tests re-execute find
//! them already built.

#![allow(dead_code)] // each test file uses a different part

use std::collections::hash_map::DefaultHasher;
use std::ffi::CStr;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

use ash::vk;
use tempfile::TempDir;
use vkgen_tests::env::Env;
use vkgen_tests::paths;

/// What every fixture is compiled with.
const PRELUDE: &str = r#"
#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>
#include <vulkan/vk_layer.h>
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#define EXPORT __attribute__((visibility("default")))
#define MAGIC 0x01CDC0DE
"#;

/// A small but real Vulkan driver: one physical device ("vkgen fixture GPU", one compute
/// queue family), devices with one queue, command buffers. Every dispatchable object carries
/// the loader magic (or junk with `BAD_MAGIC`). Built as a Khronos ICD, or with `HAL` as an
/// Android HAL module. Failure switches: `CREATE_FAILS` (vkCreateInstance returns
/// VK_ERROR_OUT_OF_DEVICE_MEMORY), `NO_ENUMERATE` (no vkEnumeratePhysicalDevices through GIPA),
/// `NO_CREATE_INSTANCE`, `BAD_MAGIC`; HAL ones: `NO_HMI`, `MODULE_TAG`, `MODULE_ID`,
/// `OPEN_RC`; `PD_COUNT_LIE=N` writes back N physical devices after filling one;
/// `VERSION_FAILS` (vkEnumerateInstanceVersion returns VK_ERROR_OUT_OF_HOST_MEMORY);
/// `EXT_ENUM_FAILS` (vkEnumerateInstanceExtensionProperties returns it). `DRIVER_1_0` makes it a Vulkan 1.0 driver (no `vkEnumerateInstanceVersion`) with
/// `VK_KHR_get_physical_device_properties2`. `DRIVER_API=<version>` sets the driver's and its
/// physical device's version (default 1.1); `DEVICE_EXTENSIONS=<"name", …>` the device
/// extensions it lists; `RECORD_GDPA` records every name its `vkGetDeviceProcAddr` is asked
/// for (`fixture_gdpa_count()`, `fixture_gdpa_name(i)`, `fixture_gdpa_reset()`), `RECORD_GIPA`
/// the same for `vkGetInstanceProcAddr` (`fixture_gipa_*`).
/// `fixture_live_instances()` /
/// `fixture_live_devices()` count what is alive; `fixture_last_*` and
/// `fixture_saw_loader_struct()` tell what the last create calls received.
///
/// Lies (issue 25, `tests/lying_icd.rs`): `LIE_PD_HUGE` (a count of 0xFFFFFFFF),
/// `LIE_PD_INCOMPLETE` (`VK_INCOMPLETE` forever, the count growing), `LIE_EXT_COUNT=N` /
/// `LIE_EXT_HUGE` / `LIE_EXT_INCOMPLETE` (the same for device extensions), `LIE_QF_COUNT=N`
/// (queue families), `LIE_NULL_INSTANCE` / `LIE_NULL_DEVICE` (success with a null handle),
/// `LIE_NULL_PROPS` (GIPA has no `vkGetPhysicalDeviceProperties{,2}`), `LIE_NULL_DEVICE_CMDS`
/// (GDPA has no `vkGetDeviceQueue`, `vkCreateFence`, …). `ADAPTABLE` makes it an ICD the
/// native-buffer adapter takes (`VK_EXT_external_memory_host`, the 1.1 queries, stub device
/// commands); `ALL_1_0` adds the 1.0 physical-device queries it lacks otherwise (features, image
/// and sparse formats), which Khronos' loader requires of an ICD.
const DRIVER_SOURCE: &str = r#"
#ifdef BAD_MAGIC
#define OBJECT_MAGIC 0x1234
#else
#define OBJECT_MAGIC MAGIC
#endif
typedef struct { uintptr_t loader_data; } Object;
typedef struct { uintptr_t loader_data; Object physical_device; } Instance;
typedef struct { uintptr_t loader_data; Object queue; } Device;

static int live_instances, live_devices, live_command_buffers;
EXPORT int fixture_live_instances(void) { return live_instances; }
EXPORT int fixture_live_devices(void) { return live_devices; }
EXPORT int fixture_live_command_buffers(void) { return live_command_buffers; }

/* What the last vkCreateInstance / vkCreateDevice received. */
static int last_api_version, last_layer_count, last_gpdp2, saw_loader_struct, last_device_layer_count;
EXPORT int fixture_last_api_version(void) { return last_api_version; }
EXPORT int fixture_last_layer_count(void) { return last_layer_count; }
EXPORT int fixture_last_gpdp2(void) { return last_gpdp2; }
EXPORT int fixture_saw_loader_struct(void) { return saw_loader_struct; }
EXPORT int fixture_last_device_layer_count(void) { return last_device_layer_count; }
static void note_chain(const void* p) {
    for (const VkBaseInStructure* s = p; s; s = s->pNext)
        if (s->sType == VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO ||
            s->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO) saw_loader_struct = 1;
}

#ifndef DRIVER_API
#define DRIVER_API VK_MAKE_API_VERSION(0, 1, 1, 0)
#endif
#ifdef VERSION_FAILS
static VkResult EnumerateInstanceVersion(uint32_t* v) { (void)v; return VK_ERROR_OUT_OF_HOST_MEMORY; }
#else
static VkResult EnumerateInstanceVersion(uint32_t* v) { *v = DRIVER_API; return VK_SUCCESS; }
#endif
static VkResult EnumerateInstanceExtensionProperties(const char* l, uint32_t* c, VkExtensionProperties* p) {
    (void)l;
#ifdef EXT_ENUM_FAILS
    (void)c; (void)p;
    return VK_ERROR_OUT_OF_HOST_MEMORY;
#endif
#ifdef DRIVER_1_0
    if (!p) { *c = 1; return VK_SUCCESS; }
    if (*c < 1) return VK_INCOMPLETE;
    memset(p, 0, sizeof *p);
    strcpy(p->extensionName, "VK_KHR_get_physical_device_properties2");
    p->specVersion = 2;
    *c = 1;
#else
    (void)p; *c = 0;
#endif
    return VK_SUCCESS;
}
static VkResult CreateInstance(const VkInstanceCreateInfo* info, const VkAllocationCallbacks* a, VkInstance* out) {
    (void)a;
    last_api_version = info->pApplicationInfo ? (int)info->pApplicationInfo->apiVersion : 0;
    last_layer_count = (int)info->enabledLayerCount;
    last_gpdp2 = 0;
    for (uint32_t e = 0; e < info->enabledExtensionCount; e++)
        if (!strcmp(info->ppEnabledExtensionNames[e], "VK_KHR_get_physical_device_properties2")) last_gpdp2 = 1;
    note_chain(info->pNext);
#ifdef CREATE_FAILS
    (void)out;
    return VK_ERROR_OUT_OF_DEVICE_MEMORY;
#else
#ifdef LIE_NULL_INSTANCE
    *out = NULL;
    return VK_SUCCESS;
#endif
    Instance* i = calloc(1, sizeof *i);
    i->loader_data = OBJECT_MAGIC;
    i->physical_device.loader_data = OBJECT_MAGIC;
    live_instances++;
    *out = (VkInstance)i;
    return VK_SUCCESS;
#endif
}
static void DestroyInstance(VkInstance i, const VkAllocationCallbacks* a) {
    (void)a;
    if (i) { free(i); live_instances--; }
}
static VkResult EnumeratePhysicalDevices(VkInstance i, uint32_t* c, VkPhysicalDevice* out) {
#ifdef LIE_PD_HUGE
    if (!out) { *c = 0xFFFFFFFFu; return VK_SUCCESS; }
#endif
#ifdef LIE_PD_INCOMPLETE
    { static uint32_t grow = 1; if (out && *c) out[0] = (VkPhysicalDevice)&((Instance*)i)->physical_device;
      *c = ++grow; return out ? VK_INCOMPLETE : VK_SUCCESS; }
#endif
    if (!out) { *c = 1; return VK_SUCCESS; }
    if (*c < 1) return VK_INCOMPLETE;
    out[0] = (VkPhysicalDevice)&((Instance*)i)->physical_device;
#ifdef PD_COUNT_LIE
    *c = (uint32_t)PD_COUNT_LIE; /* claims more than the array holds */
#else
    *c = 1;
#endif
    return VK_SUCCESS;
}
static void GetPhysicalDeviceProperties(VkPhysicalDevice pd, VkPhysicalDeviceProperties* p) {
    (void)pd;
    memset(p, 0, sizeof *p);
    p->apiVersion = DRIVER_API;
    p->vendorID = 0xF1F1;
    p->deviceType = VK_PHYSICAL_DEVICE_TYPE_CPU;
    strcpy(p->deviceName, "vkgen fixture GPU");
}
static void GetPhysicalDeviceProperties2KHR(VkPhysicalDevice pd, VkPhysicalDeviceProperties2* p) {
    GetPhysicalDeviceProperties(pd, &p->properties);
}
static void GetPhysicalDeviceQueueFamilyProperties(VkPhysicalDevice pd, uint32_t* c, VkQueueFamilyProperties* p) {
    (void)pd;
    if (!p) { *c = 1; return; }
    if (*c < 1) return;
    memset(p, 0, sizeof *p);
    p->queueFlags = VK_QUEUE_COMPUTE_BIT | VK_QUEUE_TRANSFER_BIT;
    p->queueCount = 1;
#ifdef LIE_QF_COUNT
    *c = (uint32_t)LIE_QF_COUNT;
#else
    *c = 1;
#endif
}
static VkResult EnumerateDeviceExtensionProperties(VkPhysicalDevice pd, const char* l, uint32_t* c, VkExtensionProperties* p) {
    (void)pd; (void)l;
#ifdef LIE_EXT_HUGE
    if (!p) { *c = 0xFFFFFFFFu; return VK_SUCCESS; }
#endif
#ifdef LIE_EXT_INCOMPLETE
    { static uint32_t grow = 1; *c = ++grow; return p ? VK_INCOMPLETE : VK_SUCCESS; }
#endif
#ifdef ADAPTABLE
    if (!p) { *c = 1; return VK_SUCCESS; }
    if (*c < 1) return VK_INCOMPLETE;
    memset(p, 0, sizeof *p);
    strcpy(p->extensionName, "VK_EXT_external_memory_host");
    p->specVersion = 1;
    *c = 1;
#elif defined(DEVICE_EXTENSIONS)
    static const char* const names[] = { DEVICE_EXTENSIONS };
    const uint32_t n = sizeof names / sizeof *names;
    if (!p) { *c = n; return VK_SUCCESS; }
    uint32_t k = 0;
    for (; k < n && k < *c; k++) {
        memset(&p[k], 0, sizeof p[k]);
        strcpy(p[k].extensionName, names[k]);
        p[k].specVersion = 1;
    }
    *c = k;
    if (k < n) return VK_INCOMPLETE;
#else
    (void)p; *c = 0;
#endif
#ifdef LIE_EXT_COUNT
    if (p) *c = (uint32_t)LIE_EXT_COUNT;
#endif
    return VK_SUCCESS;
}
/* Zeroing stubs for the 1.1 queries and device commands an adapted ICD must have. */
static void ZeroProps2(VkPhysicalDevice pd, void* a, VkBaseOutStructure* out) { (void)pd; (void)a; (void)out; }
static void FormatProps(VkPhysicalDevice pd, VkFormat f, VkFormatProperties* p) { (void)pd; (void)f; memset(p, 0, sizeof *p); }
static void MemoryProps(VkPhysicalDevice pd, VkPhysicalDeviceMemoryProperties* p) { (void)pd; memset(p, 0, sizeof *p); }
static VkResult DeviceStub(void) { return VK_SUCCESS; }
/* The rest of the 1.0 physical-device queries (`ALL_1_0`): Khronos' loader requires them. */
static void Features(VkPhysicalDevice pd, VkPhysicalDeviceFeatures* f) { (void)pd; memset(f, 0, sizeof *f); }
static VkResult ImageFormatProps(VkPhysicalDevice pd, VkFormat f, VkImageType t, VkImageTiling ti,
    VkImageUsageFlags u, VkImageCreateFlags c, VkImageFormatProperties* p) {
    (void)pd; (void)f; (void)t; (void)ti; (void)u; (void)c; memset(p, 0, sizeof *p);
    return VK_ERROR_FORMAT_NOT_SUPPORTED;
}
static void SparseProps(VkPhysicalDevice pd, VkFormat f, VkImageType t, VkSampleCountFlagBits s,
    VkImageUsageFlags u, VkImageTiling ti, uint32_t* c, VkSparseImageFormatProperties* p) {
    (void)pd; (void)f; (void)t; (void)s; (void)u; (void)ti; (void)p; *c = 0;
}
static void DestroyDevice(VkDevice d, const VkAllocationCallbacks* a) {
    (void)a;
    if (d) { free(d); live_devices--; }
}
static void GetDeviceQueue(VkDevice d, uint32_t f, uint32_t i, VkQueue* q) {
    (void)f; (void)i; *q = (VkQueue)&((Device*)d)->queue;
}
static VkResult AllocateCommandBuffers(VkDevice d, const VkCommandBufferAllocateInfo* info, VkCommandBuffer* out) {
    (void)d;
    for (uint32_t i = 0; i < info->commandBufferCount; i++) {
        Object* o = calloc(1, sizeof *o);
        o->loader_data = OBJECT_MAGIC;
        out[i] = (VkCommandBuffer)o;
        live_command_buffers++;
    }
    return VK_SUCCESS;
}
static void FreeCommandBuffers(VkDevice d, VkCommandPool p, uint32_t n, const VkCommandBuffer* cbs) {
    (void)d; (void)p;
    for (uint32_t i = 0; i < n; i++) if (cbs[i]) { free(cbs[i]); live_command_buffers--; }
}
/* Every name vkGetDeviceProcAddr was asked for since the last reset (`RECORD_GDPA`). */
static char gdpa_names[4096][96];
static int gdpa_count;
EXPORT int fixture_gdpa_count(void) { return gdpa_count; }
EXPORT const char* fixture_gdpa_name(int i) { return i >= 0 && i < gdpa_count && i < 4096 ? gdpa_names[i] : NULL; }
EXPORT int fixture_gdpa_reset(void) { int n = gdpa_count; gdpa_count = 0; return n; }
static PFN_vkVoidFunction GetDeviceProcAddr(VkDevice d, const char* name);
static PFN_vkVoidFunction GetDeviceProcAddr(VkDevice d, const char* name) {
    (void)d;
#ifdef RECORD_GDPA
    if (gdpa_count < 4096) {
        strncpy(gdpa_names[gdpa_count], name, sizeof gdpa_names[0] - 1);
        gdpa_names[gdpa_count][sizeof gdpa_names[0] - 1] = 0;
    }
    gdpa_count++;
#endif
#define P(n) if (!strcmp(name, "vk" #n)) return (PFN_vkVoidFunction)n;
    P(GetDeviceProcAddr) P(DestroyDevice) P(AllocateCommandBuffers) P(FreeCommandBuffers)
#ifndef LIE_NULL_DEVICE_CMDS
    P(GetDeviceQueue)
#ifdef ADAPTABLE
    static const char* const stubs[] = { "vkQueueSubmit", "vkQueueWaitIdle", "vkDeviceWaitIdle",
        "vkAllocateMemory", "vkFreeMemory", "vkBindBufferMemory", "vkBindImageMemory",
        "vkGetImageMemoryRequirements", "vkCreateFence", "vkDestroyFence", "vkResetFences",
        "vkGetFenceStatus", "vkWaitForFences", "vkCreateSemaphore", "vkDestroySemaphore",
        "vkCreateBuffer", "vkDestroyBuffer", "vkCreateImage", "vkDestroyImage",
        "vkGetImageSubresourceLayout", "vkCreateImageView", "vkDestroyImageView" };
    for (size_t k = 0; k < sizeof stubs / sizeof *stubs; k++)
        if (!strcmp(name, stubs[k])) return (PFN_vkVoidFunction)DeviceStub;
#endif
#endif
    return NULL;
}
static VkResult CreateDevice(VkPhysicalDevice pd, const VkDeviceCreateInfo* info, const VkAllocationCallbacks* a, VkDevice* out) {
    (void)pd; (void)a;
    last_device_layer_count = (int)info->enabledLayerCount;
    note_chain(info->pNext);
#ifdef LIE_NULL_DEVICE
    *out = NULL;
    return VK_SUCCESS;
#endif
    Device* d = calloc(1, sizeof *d);
    d->loader_data = OBJECT_MAGIC;
    d->queue.loader_data = OBJECT_MAGIC;
    live_devices++;
    *out = (VkDevice)d;
    return VK_SUCCESS;
}
static VkResult Negotiate(uint32_t* v) { if (*v > 5) *v = 5; return VK_SUCCESS; }
/* Every name vkGetInstanceProcAddr / vk_icdGetInstanceProcAddr was asked for (`RECORD_GIPA`). */
static char gipa_names[4096][96];
static int gipa_count;
EXPORT int fixture_gipa_count(void) { return gipa_count; }
EXPORT const char* fixture_gipa_name(int i) { return i >= 0 && i < gipa_count && i < 4096 ? gipa_names[i] : NULL; }
EXPORT int fixture_gipa_reset(void) { int n = gipa_count; gipa_count = 0; return n; }
static PFN_vkVoidFunction GetInstanceProcAddr(VkInstance i, const char* name) {
    (void)i;
#ifdef RECORD_GIPA
    if (gipa_count < 4096) {
        strncpy(gipa_names[gipa_count], name, sizeof gipa_names[0] - 1);
        gipa_names[gipa_count][sizeof gipa_names[0] - 1] = 0;
    }
    gipa_count++;
#endif
#ifndef NO_CREATE_INSTANCE
    P(CreateInstance)
#endif
#ifndef NO_ENUMERATE
    P(EnumeratePhysicalDevices)
#endif
#ifndef DRIVER_1_0
    P(EnumerateInstanceVersion)
#else
    P(GetPhysicalDeviceProperties2KHR)
#endif
    P(EnumerateInstanceExtensionProperties) P(DestroyInstance)
#ifndef LIE_NULL_PROPS
    P(GetPhysicalDeviceProperties)
#ifdef ADAPTABLE
    if (!strcmp(name, "vkGetPhysicalDeviceProperties2")) return (PFN_vkVoidFunction)GetPhysicalDeviceProperties2KHR;
#endif
#endif
#ifdef ADAPTABLE
    if (!strcmp(name, "vkGetPhysicalDeviceFormatProperties")) return (PFN_vkVoidFunction)FormatProps;
    if (!strcmp(name, "vkGetPhysicalDeviceMemoryProperties")) return (PFN_vkVoidFunction)MemoryProps;
    if (!strcmp(name, "vkGetPhysicalDeviceImageFormatProperties2") ||
        !strcmp(name, "vkGetPhysicalDeviceExternalBufferProperties") ||
        !strcmp(name, "vkGetPhysicalDeviceExternalSemaphoreProperties") ||
        !strcmp(name, "vkGetPhysicalDeviceExternalFenceProperties")) return (PFN_vkVoidFunction)ZeroProps2;
#endif
#ifdef ALL_1_0
    if (!strcmp(name, "vkGetPhysicalDeviceFeatures")) return (PFN_vkVoidFunction)Features;
    if (!strcmp(name, "vkGetPhysicalDeviceImageFormatProperties")) return (PFN_vkVoidFunction)ImageFormatProps;
    if (!strcmp(name, "vkGetPhysicalDeviceSparseImageFormatProperties")) return (PFN_vkVoidFunction)SparseProps;
#endif
    P(GetPhysicalDeviceQueueFamilyProperties)
    P(EnumerateDeviceExtensionProperties) P(CreateDevice) P(GetDeviceProcAddr) P(GetInstanceProcAddr)
    if (!strcmp(name, "vk_icdNegotiateLoaderICDInterfaceVersion")) return (PFN_vkVoidFunction)Negotiate;
    return NULL;
}

#ifndef HAL
EXPORT VkResult vk_icdNegotiateLoaderICDInterfaceVersion(uint32_t* v) { return Negotiate(v); }
EXPORT PFN_vkVoidFunction vk_icdGetInstanceProcAddr(VkInstance i, const char* n) { return GetInstanceProcAddr(i, n); }
#else
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
_Static_assert(sizeof(hw_module_t) == 248, "hw_module_t");
_Static_assert(sizeof(hwvulkan_device_t) == 144, "hwvulkan_device_t");
#ifndef MODULE_TAG
#define MODULE_TAG 0x48574D54
#endif
#ifndef MODULE_ID
#define MODULE_ID "vulkan"
#endif
#ifndef OPEN_RC
#define OPEN_RC 0
#endif
static int close_device(hw_device_t* d) { (void)d; return 0; }
static hwvulkan_device_t device = {
    .common = { .tag = 0x48574454, .version = 0x00010000, .close = close_device },
    .enumerate_instance_extension_properties = EnumerateInstanceExtensionProperties,
#ifdef NO_CREATE_INSTANCE
    .create_instance = NULL,
#else
    .create_instance = CreateInstance,
#endif
    .get_instance_proc_addr = GetInstanceProcAddr,
};
static int open_device(const hw_module_t* m, const char* id, hw_device_t** out) {
    if (strcmp(id, "vk0") != 0) return -22;
    if (OPEN_RC != 0) return OPEN_RC;
    device.common.module = (hw_module_t*)m;
    *out = &device.common;
    return 0;
}
static hw_module_methods_t methods = { .open = open_device };
#ifndef NO_HMI
EXPORT hw_module_t HMI = {
    .tag = MODULE_TAG, .module_api_version = 1, .hal_api_version = 0x0100,
    .id = MODULE_ID, .name = "vkgen fixture", .author = "vkgen", .methods = &methods,
};
#else
EXPORT int not_a_hal_module = 1;
#endif
#endif
"#;

/// A layer library (Android style: exported `vkEnumerate*` and `vkGetInstanceProcAddr`) with one
/// instance layer, `LAYER_NAME`. Its `vkCreateInstance` calls down the chain, destroys what it got
/// and fails with `VK_ERROR_OUT_OF_HOST_MEMORY` (so nothing may leak). With
/// `NO_EXTENSION_EXPORT` it lacks the required `vkEnumerateInstanceExtensionProperties` export.
const LAYER_SOURCE: &str = r#"
EXPORT VkResult vkEnumerateInstanceLayerProperties(uint32_t* c, VkLayerProperties* p) {
    if (!p) { *c = 1; return VK_SUCCESS; }
    if (*c < 1) return VK_INCOMPLETE;
    memset(p, 0, sizeof *p);
    strcpy(p->layerName, LAYER_NAME);
    p->specVersion = VK_MAKE_API_VERSION(0, 1, 3, 0);
    p->implementationVersion = 1;
    strcpy(p->description, "vkgen fixture layer");
    *c = 1;
    return VK_SUCCESS;
}
#ifndef NO_EXTENSION_EXPORT
EXPORT VkResult vkEnumerateInstanceExtensionProperties(const char* l, uint32_t* c, VkExtensionProperties* p) {
    (void)l; (void)p; *c = 0; return VK_SUCCESS;
}
#endif
/* PASS_THROUGH: the layer creates the instance and forwards every other command to the next
   level (one instance at a time: the next level's vkGetInstanceProcAddr is kept here). */
static PFN_vkGetInstanceProcAddr g_next;
static VkInstance g_instance;
#ifdef GLOBAL
/* GLOBAL (with PASS_THROUGH): the layer lists itself for devices too, so it is chained into
   them, and forwards device creation and every device command. */
EXPORT VkResult vkEnumerateDeviceLayerProperties(VkPhysicalDevice pd, uint32_t* c, VkLayerProperties* p) {
    (void)pd;
    return vkEnumerateInstanceLayerProperties(c, p);
}
EXPORT VkResult vkEnumerateDeviceExtensionProperties(VkPhysicalDevice pd, const char* l, uint32_t* c, VkExtensionProperties* p) {
    (void)pd; (void)l; (void)p; *c = 0; return VK_SUCCESS;
}
static PFN_vkGetDeviceProcAddr g_next_device;
static VkResult CreateDevice(VkPhysicalDevice pd, const VkDeviceCreateInfo* info, const VkAllocationCallbacks* a, VkDevice* out) {
    VkLayerDeviceCreateInfo* chain = (VkLayerDeviceCreateInfo*)info->pNext;
    while (chain && !(chain->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO && chain->function == VK_LAYER_LINK_INFO))
        chain = (VkLayerDeviceCreateInfo*)chain->pNext;
    if (!chain || !chain->u.pLayerInfo) return VK_ERROR_INITIALIZATION_FAILED;
    PFN_vkGetInstanceProcAddr gipa = chain->u.pLayerInfo->pfnNextGetInstanceProcAddr;
    g_next_device = chain->u.pLayerInfo->pfnNextGetDeviceProcAddr;
    chain->u.pLayerInfo = chain->u.pLayerInfo->pNext;
    PFN_vkCreateDevice create = (PFN_vkCreateDevice)gipa(g_instance, "vkCreateDevice");
    return create(pd, info, a, out);
}
EXPORT PFN_vkVoidFunction vkGetDeviceProcAddr(VkDevice d, const char* name) {
    if (!strcmp(name, "vkGetDeviceProcAddr")) return (PFN_vkVoidFunction)vkGetDeviceProcAddr;
    return g_next_device ? g_next_device(d, name) : NULL;
}
#endif
static VkResult CreateInstance(const VkInstanceCreateInfo* info, const VkAllocationCallbacks* a, VkInstance* out) {
    VkLayerInstanceCreateInfo* chain = (VkLayerInstanceCreateInfo*)info->pNext;
    while (chain && !(chain->sType == VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO && chain->function == VK_LAYER_LINK_INFO))
        chain = (VkLayerInstanceCreateInfo*)chain->pNext;
    if (!chain || !chain->u.pLayerInfo) return VK_ERROR_INITIALIZATION_FAILED;
    PFN_vkGetInstanceProcAddr next = chain->u.pLayerInfo->pfnNextGetInstanceProcAddr;
    chain->u.pLayerInfo = chain->u.pLayerInfo->pNext;
    PFN_vkCreateInstance create = (PFN_vkCreateInstance)next(NULL, "vkCreateInstance");
    VkResult r = create(info, a, out);
    if (r != VK_SUCCESS) return r;
#ifdef PASS_THROUGH
    g_next = next;
    g_instance = *out;
    return VK_SUCCESS;
#endif
    PFN_vkDestroyInstance destroy = (PFN_vkDestroyInstance)next(*out, "vkDestroyInstance");
    destroy(*out, a);
    *out = NULL;
    return VK_ERROR_OUT_OF_HOST_MEMORY;
}
EXPORT PFN_vkVoidFunction vkGetInstanceProcAddr(VkInstance i, const char* name) {
    (void)i;
    if (!strcmp(name, "vkCreateInstance")) return (PFN_vkVoidFunction)CreateInstance;
    if (!strcmp(name, "vkGetInstanceProcAddr")) return (PFN_vkVoidFunction)vkGetInstanceProcAddr;
#ifdef GLOBAL
    if (!strcmp(name, "vkCreateDevice")) return (PFN_vkVoidFunction)CreateDevice;
    if (!strcmp(name, "vkGetDeviceProcAddr")) return (PFN_vkVoidFunction)vkGetDeviceProcAddr;
#endif
    if (i && g_next) return g_next(i, name);
    return NULL;
}
"#;

/// Compiles `source` (after [`PRELUDE`] and `-D` `defines`) into a shared library named after
/// `stem`, once per distinct input; returns its path.
pub fn compile_fixture(stem: &str, source: &str, defines: &[&str]) -> PathBuf {
    let dir = paths::target_dir().join("vkgen-test-fixtures");
    std::fs::create_dir_all(&dir).expect("create the fixture dir");
    let mut hasher = DefaultHasher::new();
    (PRELUDE, source, defines).hash(&mut hasher);
    let stem = format!("{stem}-{:016x}", hasher.finish());
    let out = dir.join(format!("{stem}.so"));
    if out.is_file() {
        return out;
    }
    // Unique per process and call: parallel tests may build the same fixture at once.
    static BUILDS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let unique = format!(
        "{}-{}",
        std::process::id(),
        BUILDS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    );
    let src = dir.join(format!("{stem}.{unique}.c"));
    std::fs::write(&src, format!("{PRELUDE}{source}")).expect("write fixture source");
    let tmp = dir.join(format!("{stem}.{unique}.so.tmp"));
    let mut cmd = Command::new("cc");
    cmd.args([
        "-shared",
        "-fPIC",
        "-fvisibility=hidden",
        "-O1",
        "-Wall",
        "-Werror",
    ])
    .args(["-Wno-unused-function", "-Wno-unused-variable"]);
    for d in defines {
        cmd.arg(format!("-D{d}"));
    }
    let output = cmd
        .arg("-o")
        .arg(&tmp)
        .arg(&src)
        .output()
        .expect("run cc (gcc and libvulkan-dev are needed for the fixtures)");
    let _ = std::fs::remove_file(&src);
    assert!(
        output.status.success(),
        "cc failed for fixture {stem}:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // Atomic: concurrent test threads or processes never see a half-written library.
    std::fs::rename(&tmp, &out).expect("install the fixture");
    out
}

/// The fixture driver built as a Khronos ICD with `defines`.
pub fn fixture_icd(defines: &[&str]) -> PathBuf {
    compile_fixture("icd", DRIVER_SOURCE, defines)
}

/// The fixture driver built as an Android HAL module with `defines`.
pub fn fixture_hal(defines: &[&str]) -> PathBuf {
    let mut all = vec!["HAL"];
    all.extend_from_slice(defines);
    compile_fixture("hal", DRIVER_SOURCE, &all)
}

/// The fixture layer library, its layer named `name`. By default its `vkCreateInstance`
/// creates the next level's instance, destroys it and fails with `VK_ERROR_OUT_OF_HOST_MEMORY`;
/// `PASS_THROUGH` makes it forward creation and every command instead, and `GLOBAL` (with it)
/// lists it for devices so that it is chained into them too. `NO_EXTENSION_EXPORT` leaves out
/// `vkEnumerateInstanceExtensionProperties`.
pub fn fixture_layer(name: &str, defines: &[&str]) -> PathBuf {
    let define = format!("LAYER_NAME=\"{name}\"");
    let mut all = vec![define.as_str()];
    all.extend_from_slice(defines);
    compile_fixture("layer", LAYER_SOURCE, &all)
}

/// Writes an ICD manifest for `library` into `dir` and returns its path.
pub fn icd_manifest(dir: &Path, file: &str, library: &Path) -> PathBuf {
    let path = dir.join(file);
    let json = serde_json::json!({
        "file_format_version": "1.0.0",
        "ICD": { "library_path": library, "api_version": "1.1.0" }
    });
    std::fs::write(&path, json.to_string()).expect("write manifest");
    path
}

/// An empty Android root plus the variables that keep the host out: no HAL, no debug layers,
/// no app layers, no ICD except those named in `driver_files` (none if empty).
pub fn isolated_env(root: &TempDir, driver_files: &[PathBuf]) -> Env {
    let files = if driver_files.is_empty() {
        root.path().join("no-driver-manifest.json").into_os_string()
    } else {
        std::env::join_paths(driver_files).expect("manifest paths")
    };
    Env::new()
        .set("VKGEN_HAL_ROOT", root.path())
        .set("VK_DRIVER_FILES", files)
}

/// Places `module` as the HAL `vulkan.fixture.so` under `root` and returns the variables that
/// make our loader pick it (`ro.hardware.vulkan=fixture` in a properties file).
pub fn hal_env(root: &TempDir, module: &Path, extra_properties: &str) -> Env {
    let hw = root.path().join("vendor/lib64/hw");
    std::fs::create_dir_all(&hw).expect("create the HAL dir");
    let link = hw.join("vulkan.fixture.so");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(module, &link).expect("link the HAL module");
    let props = root.path().join("build.prop");
    std::fs::write(
        &props,
        format!("ro.hardware.vulkan=fixture\n{extra_properties}"),
    )
    .expect("write properties");
    isolated_env(root, &[]).set("VKGEN_PROPERTIES", props)
}

/// Open file descriptors of this process.
pub fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd")
        .expect("/proc/self/fd")
        .count()
}

/// Runs `body` with our loader, checking that no file descriptor leaks across it (the entry,
/// and with it the library, is dropped before counting again).
pub fn with_loader_no_fd_leak(body: impl FnOnce(&ash::Entry)) {
    let loader = vkgen_tests::require(paths::loader_under_test());
    let before = open_fds();
    {
        let entry = vkgen_tests::require(vkgen_tests::compute::load_entry(&loader));
        body(&entry);
    }
    let after = open_fds();
    assert_eq!(
        before, after,
        "file descriptors leaked: {before} before, {after} after"
    );
}

/// Creates an instance with apiVersion 1.1 and `layers`, returning the raw result.
pub fn try_instance(entry: &ash::Entry, layers: &[&CStr]) -> Result<ash::Instance, vk::Result> {
    let layer_ptrs: Vec<_> = layers.iter().map(|l| l.as_ptr()).collect();
    let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_1);
    let info = vk::InstanceCreateInfo::default()
        .application_info(&app)
        .enabled_layer_names(&layer_ptrs);
    // SAFETY: a valid create info whose arrays outlive the call.
    unsafe { entry.create_instance(&info, None) }
}

/// The names of `instance`'s physical devices.
pub fn device_names(instance: &ash::Instance) -> Vec<String> {
    // SAFETY: a live instance.
    let devices = unsafe { instance.enumerate_physical_devices() }.expect("enumerate devices");
    devices
        .iter()
        .map(|&pd| {
            // SAFETY: a physical device of this instance.
            let p = unsafe { instance.get_physical_device_properties(pd) };
            p.device_name_as_c_str()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect()
}

/// Reads an `int (void)` counter exported by a fixture library (already loaded by the loader:
/// `dlopen` of the same path returns the same instance).
pub fn fixture_counter(library: &Path, symbol: &CStr) -> i32 {
    let path = std::ffi::CString::new(library.to_str().unwrap()).unwrap();
    // SAFETY: opening a fixture that is already loaded (RTLD_NOLOAD) runs no initialisers.
    let handle = unsafe { libc::dlopen(path.as_ptr(), libc::RTLD_NOW | libc::RTLD_NOLOAD) };
    assert!(!handle.is_null(), "{} is not loaded", library.display());
    // SAFETY: a live handle and a C string.
    let sym = unsafe { libc::dlsym(handle, symbol.as_ptr()) };
    assert!(!sym.is_null(), "{symbol:?} missing");
    // SAFETY: the fixture defines the symbol as `int (void)`.
    let f: extern "C" fn() -> i32 = unsafe { std::mem::transmute(sym) };
    let value = f();
    // SAFETY: balances the dlopen above.
    unsafe { libc::dlclose(handle) };
    value
}

/// The file the code at `address` belongs to (`dladdr`): attributes a returned proc address to
/// our loader, a driver or a layer.
pub fn library_of(address: usize) -> PathBuf {
    // SAFETY: Dl_info is plain data.
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: any address may be asked about; `info` is a valid out-pointer.
    let found = unsafe { libc::dladdr(address as *const std::ffi::c_void, &mut info) };
    assert!(
        found != 0 && !info.dli_fname.is_null(),
        "{address:#x} is in no library"
    );
    // SAFETY: dladdr returned a C string owned by the dynamic linker.
    PathBuf::from(unsafe { CStr::from_ptr(info.dli_fname) }.to_str().unwrap())
}
