// The copy engine's acceptance client (issue 20): fills, updates and copies buffers on the
// graphics and the transfer-only queue and checks every byte, with timeline semaphores
// waited on before they are signalled (across queues), a binary semaphore across queues, a
// host signal releasing held work, and command pools reset and re-recorded. Runs through
// whatever libvulkan.so.1 the dynamic linker finds; with the validation layer enabled
// (VK_INSTANCE_LAYERS or debug.vulkan.layers) every message it reports fails the run.
//
// Exit status: 0 all checked and no validation message; 1 a Vulkan call or a byte check
// failed; 2 the validation layer reported something.

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vulkan/vulkan.h>

#define N (64u * 1024u)
#define ROUNDS 10
#define SECOND 1000000000ull

#define CHECK(x)                                                                     \
    do {                                                                             \
        VkResult r_ = (x);                                                           \
        if (r_ != VK_SUCCESS) {                                                      \
            fprintf(stderr, "%s:%d: %s returned %d\n", __FILE__, __LINE__, #x, r_);  \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

static int messages;

static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(
    VkDebugUtilsMessageSeverityFlagBitsEXT severity, VkDebugUtilsMessageTypeFlagsEXT types,
    const VkDebugUtilsMessengerCallbackDataEXT *data, void *user) {
    (void)user;
    if (!(severity & (VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                      VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)))
        return VK_FALSE;
    // Loaders report their own notes (which layers an environment variable added) as general
    // messages: shown, not counted.
    if (types & VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT) {
        fprintf(stderr, "validation: %s\n", data->pMessage);
        messages++;
    } else {
        fprintf(stderr, "loader: %s\n", data->pMessage);
    }
    return VK_FALSE;
}

static VkDevice dev;
static VkQueue gq, tq;
static VkCommandPool gpool, tpool;
/// Both queues use every buffer: concurrent sharing, so no ownership transfers are needed.
static uint32_t families_used[2];

struct buffer {
    VkBuffer buffer;
    VkDeviceMemory memory;
    uint8_t *bytes;
};

static struct buffer make_buffer(VkPhysicalDevice pd) {
    struct buffer b;
    VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = N,
                             .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                      VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                             .sharingMode = VK_SHARING_MODE_CONCURRENT,
                             .queueFamilyIndexCount = 2, .pQueueFamilyIndices = families_used};
    CHECK(vkCreateBuffer(dev, &bi, NULL, &b.buffer));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(dev, b.buffer, &req);
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(pd, &mp);
    uint32_t type = UINT32_MAX;
    VkMemoryPropertyFlags want =
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    for (uint32_t i = 0; i < mp.memoryTypeCount; i++)
        if ((req.memoryTypeBits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & want) == want) {
            type = i;
            break;
        }
    if (type == UINT32_MAX) {
        fprintf(stderr, "no host-visible coherent memory type\n");
        exit(1);
    }
    VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                               .allocationSize = req.size, .memoryTypeIndex = type};
    CHECK(vkAllocateMemory(dev, &ai, NULL, &b.memory));
    CHECK(vkBindBufferMemory(dev, b.buffer, b.memory, 0));
    CHECK(vkMapMemory(dev, b.memory, 0, VK_WHOLE_SIZE, 0, (void **)&b.bytes));
    memset(b.bytes, 0, N);
    return b;
}

static VkCommandBuffer begin(VkCommandPool pool) {
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 1};
    VkCommandBuffer cb;
    CHECK(vkAllocateCommandBuffers(dev, &ai, &cb));
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    CHECK(vkBeginCommandBuffer(cb, &bi));
    return cb;
}

static void copy(VkCommandBuffer cb, struct buffer *from, struct buffer *to) {
    VkBufferCopy region = {.srcOffset = 0, .dstOffset = 0, .size = N};
    vkCmdCopyBuffer(cb, from->buffer, to->buffer, 1, &region);
}

/// Submits `cb` on `q`, waiting for `wait` (value `wait_value` if timeline) and signalling
/// `signal` (value `signal_value`) and `fence`.
static void submit(VkQueue q, VkCommandBuffer cb, VkSemaphore wait, uint64_t wait_value,
                   VkSemaphore signal, uint64_t signal_value, VkFence fence) {
    VkSemaphoreSubmitInfo w = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO, .semaphore = wait,
                               .value = wait_value,
                               .stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT};
    VkSemaphoreSubmitInfo s = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO,
                               .semaphore = signal, .value = signal_value,
                               .stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT};
    VkCommandBufferSubmitInfo c = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO,
                                   .commandBuffer = cb};
    VkSubmitInfo2 info = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2,
                          .waitSemaphoreInfoCount = wait ? 1 : 0, .pWaitSemaphoreInfos = &w,
                          .commandBufferInfoCount = 1, .pCommandBufferInfos = &c,
                          .signalSemaphoreInfoCount = signal ? 1 : 0,
                          .pSignalSemaphoreInfos = &s};
    CHECK(vkQueueSubmit2(q, 1, &info, fence));
}

static VkSemaphore semaphore(VkSemaphoreType type) {
    VkSemaphoreTypeCreateInfo t = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
                                   .semaphoreType = type};
    VkSemaphoreCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &t};
    VkSemaphore s;
    CHECK(vkCreateSemaphore(dev, &ci, NULL, &s));
    return s;
}

static void expect(const char *what, const struct buffer *b, uint32_t word, size_t from,
                   size_t to) {
    for (size_t i = from; i < to; i++) {
        uint8_t want = (uint8_t)(word >> (8 * (i % 4)));
        if (b->bytes[i] != want) {
            fprintf(stderr, "%s: byte %zu is %#x, want %#x\n", what, i, b->bytes[i], want);
            exit(1);
        }
    }
}

static void wait_fence(VkFence f) {
    CHECK(vkWaitForFences(dev, 1, &f, VK_TRUE, 5 * SECOND));
    CHECK(vkResetFences(dev, 1, &f));
}

int main(void) {
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                             .pApplicationName = "copy_client", .apiVersion = VK_API_VERSION_1_3};
    VkDebugUtilsMessengerCreateInfoEXT mi = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                           VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
        .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT,
        .pfnUserCallback = on_message};
    const char *exts[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
    VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pNext = &mi,
                                .pApplicationInfo = &app, .enabledExtensionCount = 1,
                                .ppEnabledExtensionNames = exts};
    VkInstance inst;
    CHECK(vkCreateInstance(&ici, NULL, &inst));
    PFN_vkCreateDebugUtilsMessengerEXT create_messenger =
        (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(inst,
                                                                  "vkCreateDebugUtilsMessengerEXT");
    PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger =
        (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
            inst, "vkDestroyDebugUtilsMessengerEXT");
    VkDebugUtilsMessengerEXT messenger;
    CHECK(create_messenger(inst, &mi, NULL, &messenger));

    uint32_t count = 1;
    VkPhysicalDevice pd;
    VkResult r = vkEnumeratePhysicalDevices(inst, &count, &pd);
    if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || count == 0) {
        fprintf(stderr, "no physical device (%d)\n", r);
        return 1;
    }
    VkQueueFamilyProperties families[8];
    count = 8;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &count, families);
    uint32_t gfam = UINT32_MAX, tfam = UINT32_MAX;
    for (uint32_t i = 0; i < count; i++) {
        VkQueueFlags f = families[i].queueFlags;
        if ((f & VK_QUEUE_GRAPHICS_BIT) && (f & VK_QUEUE_COMPUTE_BIT) && gfam == UINT32_MAX)
            gfam = i;
        if ((f & VK_QUEUE_TRANSFER_BIT) && !(f & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT)))
            tfam = i;
    }
    if (gfam == UINT32_MAX || tfam == UINT32_MAX) {
        fprintf(stderr, "want a graphics+compute and a transfer-only family\n");
        return 1;
    }
    families_used[0] = gfam;
    families_used[1] = tfam;
    float prio = 1.0f;
    VkDeviceQueueCreateInfo qci[2] = {
        {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueFamilyIndex = gfam,
         .queueCount = 1, .pQueuePriorities = &prio},
        {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueFamilyIndex = tfam,
         .queueCount = 1, .pQueuePriorities = &prio}};
    VkPhysicalDeviceVulkan13Features f13 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES, .synchronization2 = VK_TRUE};
    VkPhysicalDeviceVulkan12Features f12 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, .pNext = &f13,
        .timelineSemaphore = VK_TRUE};
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .pNext = &f12,
                              .queueCreateInfoCount = 2, .pQueueCreateInfos = qci};
    CHECK(vkCreateDevice(pd, &dci, NULL, &dev));
    vkGetDeviceQueue(dev, gfam, 0, &gq);
    vkGetDeviceQueue(dev, tfam, 0, &tq);
    VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                   .queueFamilyIndex = gfam};
    CHECK(vkCreateCommandPool(dev, &pci, NULL, &gpool));
    pci.queueFamilyIndex = tfam;
    CHECK(vkCreateCommandPool(dev, &pci, NULL, &tpool));
    VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence fence;
    CHECK(vkCreateFence(dev, &fci, NULL, &fence));
    struct buffer a = make_buffer(pd), b = make_buffer(pd), c = make_buffer(pd);

    // 1. Fill, update and copy on the graphics queue: every byte of the result.
    VkCommandBuffer cb = begin(gpool);
    vkCmdFillBuffer(cb, a.buffer, 0, VK_WHOLE_SIZE, 0xA5A55A5Au);
    uint32_t words[16];
    for (uint32_t i = 0; i < 16; i++) words[i] = 0x01020304u * (i + 1);
    vkCmdUpdateBuffer(cb, a.buffer, 256, sizeof words, words);
    copy(cb, &a, &b);
    CHECK(vkEndCommandBuffer(cb));
    submit(gq, cb, VK_NULL_HANDLE, 0, VK_NULL_HANDLE, 0, fence);
    wait_fence(fence);
    expect("fill", &b, 0xA5A55A5Au, 0, 256);
    if (memcmp(b.bytes + 256, words, sizeof words) != 0) {
        fprintf(stderr, "update: bytes 256..320 differ\n");
        return 1;
    }
    expect("fill after update", &b, 0xA5A55A5Au, 256 + sizeof words, N);

    // 2. Timeline wait-before-signal across queues: the transfer queue's copy is submitted
    //    first, waiting for value 1; the graphics queue's fill signals it afterwards.
    VkSemaphore timeline = semaphore(VK_SEMAPHORE_TYPE_TIMELINE);
    CHECK(vkResetCommandPool(dev, tpool, 0));
    VkCommandBuffer waiter = begin(tpool);
    copy(waiter, &b, &c);
    CHECK(vkEndCommandBuffer(waiter));
    submit(tq, waiter, timeline, 1, timeline, 2, VK_NULL_HANDLE);
    CHECK(vkResetCommandPool(dev, gpool, 0));
    VkCommandBuffer signaller = begin(gpool);
    vkCmdFillBuffer(signaller, b.buffer, 0, VK_WHOLE_SIZE, 0x11223344u);
    CHECK(vkEndCommandBuffer(signaller));
    submit(gq, signaller, VK_NULL_HANDLE, 0, timeline, 1, VK_NULL_HANDLE);
    uint64_t two = 2;
    VkSemaphoreWaitInfo wi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
                              .semaphoreCount = 1, .pSemaphores = &timeline, .pValues = &two};
    CHECK(vkWaitSemaphores(dev, &wi, 5 * SECOND));
    expect("wait-before-signal", &c, 0x11223344u, 0, N);

    // 3. A binary semaphore across queues, with both pools reset and re-recorded each round.
    VkSemaphore binary = semaphore(VK_SEMAPHORE_TYPE_BINARY);
    for (uint32_t round = 1; round <= ROUNDS; round++) {
        CHECK(vkResetCommandPool(dev, gpool, 0));
        CHECK(vkResetCommandPool(dev, tpool, 0));
        VkCommandBuffer fill = begin(gpool);
        vkCmdFillBuffer(fill, a.buffer, 0, VK_WHOLE_SIZE, 0x01010101u * round);
        CHECK(vkEndCommandBuffer(fill));
        VkCommandBuffer move = begin(tpool);
        copy(move, &a, &c);
        CHECK(vkEndCommandBuffer(move));
        submit(gq, fill, VK_NULL_HANDLE, 0, binary, 0, VK_NULL_HANDLE);
        submit(tq, move, binary, 0, VK_NULL_HANDLE, 0, fence);
        wait_fence(fence);
        expect("binary semaphore round", &c, 0x01010101u * round, 0, N);
    }

    // 4. A host signal releases work held on the transfer queue.
    VkSemaphore host = semaphore(VK_SEMAPHORE_TYPE_TIMELINE);
    CHECK(vkQueueWaitIdle(gq));
    CHECK(vkResetCommandPool(dev, tpool, 0));
    VkCommandBuffer held = begin(tpool);
    vkCmdFillBuffer(held, c.buffer, 0, VK_WHOLE_SIZE, 0xC0FFEE00u);
    CHECK(vkEndCommandBuffer(held));
    submit(tq, held, host, 5, VK_NULL_HANDLE, 0, fence);
    struct timespec pause = {0, 50 * 1000 * 1000};
    nanosleep(&pause, NULL);
    if (vkGetFenceStatus(dev, fence) != VK_NOT_READY) {
        fprintf(stderr, "held work ran before its semaphore was signalled\n");
        return 1;
    }
    expect("before the host signal", &c, 0x01010101u * ROUNDS, 0, N);
    VkSemaphoreSignalInfo si = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO,
                                .semaphore = host, .value = 5};
    CHECK(vkSignalSemaphore(dev, &si));
    wait_fence(fence);
    expect("after the host signal", &c, 0xC0FFEE00u, 0, N);

    CHECK(vkDeviceWaitIdle(dev));
    struct buffer *all[] = {&a, &b, &c};
    for (int i = 0; i < 3; i++) {
        vkDestroyBuffer(dev, all[i]->buffer, NULL);
        vkFreeMemory(dev, all[i]->memory, NULL);
    }
    vkDestroySemaphore(dev, timeline, NULL);
    vkDestroySemaphore(dev, binary, NULL);
    vkDestroySemaphore(dev, host, NULL);
    vkDestroyFence(dev, fence, NULL);
    vkDestroyCommandPool(dev, gpool, NULL);
    vkDestroyCommandPool(dev, tpool, NULL);
    vkDestroyDevice(dev, NULL);
    destroy_messenger(inst, messenger, NULL);
    vkDestroyInstance(inst, NULL);
    printf("copy engine: every byte checked (%u binary rounds); %d validation messages\n", ROUNDS,
           messages);
    return messages ? 2 : 0;
}
