// The CPU compute device's acceptance client (issue 31), and the benchmark's workload:
//   * reduce.comp over GROUPS workgroups: a shared-memory tree reduction with barriers inside
//     a loop, global atomics, push constants and specialization constants (the workgroup size
//     through local_size_x_id); every partial sum, the total and the maximum are checked;
//   * saxpy.comp over 16 Mi floats, every element checked (the values are small integers, so
//     a·x + y is exact whether or not a driver fuses it).
// Runs through whatever libvulkan.so.1 the dynamic linker finds, on the first device with a
// compute queue; with the validation layer enabled (VK_INSTANCE_LAYERS or debug.vulkan.layers)
// every message it reports fails the run.
//
//   compute_client [--bench ROUNDS]    (--bench: also time each workload ROUNDS times and print
//                                       the median in ms, as "bench <name> <ms>")
//
// Build: glslangValidator -V --vn reduce_spv -o reduce_spv.h reduce.comp (and saxpy), then
// gcc -I<dir of the headers> -o compute_client compute_client.c -lvulkan.
// Exit status: 0 all checked and no validation message; 1 a Vulkan call or a check failed;
// 2 the validation layer reported something.

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vulkan/vulkan.h>

#include "reduce_spv.h"
#include "saxpy_spv.h"

#define WG 128u
#define MULT 2654435761u
#define GROUPS 2048u
#define SAXPY_N (16u * 1024u * 1024u)
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
    // Loaders' own notes arrive as general messages: shown, not counted.
    if (types & VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT) {
        fprintf(stderr, "validation: %s\n", data->pMessage);
        messages++;
    } else {
        fprintf(stderr, "loader: %s\n", data->pMessage);
    }
    return VK_FALSE;
}

static VkPhysicalDevice pd;
static VkDevice dev;
static VkQueue queue;
static VkCommandPool pool;
static VkFence fence;

struct buffer {
    VkBuffer buffer;
    VkDeviceMemory memory;
    void *bytes;
    VkDeviceSize size;
};

static struct buffer make_buffer(VkDeviceSize size) {
    struct buffer b = {.size = size};
    VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size,
                             .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                      VK_BUFFER_USAGE_TRANSFER_DST_BIT};
    CHECK(vkCreateBuffer(dev, &bi, NULL, &b.buffer));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(dev, b.buffer, &req);
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(pd, &mp);
    VkMemoryPropertyFlags want =
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    uint32_t type = UINT32_MAX;
    for (uint32_t i = 0; i < mp.memoryTypeCount && type == UINT32_MAX; i++)
        if ((req.memoryTypeBits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & want) == want)
            type = i;
    if (type == UINT32_MAX) {
        fprintf(stderr, "no host-visible coherent memory type\n");
        exit(1);
    }
    VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                               .allocationSize = req.size, .memoryTypeIndex = type};
    CHECK(vkAllocateMemory(dev, &ai, NULL, &b.memory));
    CHECK(vkBindBufferMemory(dev, b.buffer, b.memory, 0));
    CHECK(vkMapMemory(dev, b.memory, 0, VK_WHOLE_SIZE, 0, &b.bytes));
    return b;
}

static void free_buffer(struct buffer *b) {
    vkDestroyBuffer(dev, b->buffer, NULL);
    vkFreeMemory(dev, b->memory, NULL);
}

/// A compute pipeline over `bindings` storage buffers at set 0, with `push` bytes of push
/// constants and the given specialization.
struct kernel {
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout layout;
    VkPipeline pipeline;
    VkDescriptorPool pool;
    VkDescriptorSet set;
};

static struct kernel make_kernel(const uint32_t *code, size_t code_size, uint32_t bindings,
                                 uint32_t push, const VkSpecializationInfo *spec,
                                 struct buffer **buffers) {
    struct kernel k;
    VkDescriptorSetLayoutBinding b[4];
    for (uint32_t i = 0; i < bindings; i++)
        b[i] = (VkDescriptorSetLayoutBinding){.binding = i,
                                              .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                              .descriptorCount = 1,
                                              .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
    VkDescriptorSetLayoutCreateInfo sli = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, .bindingCount = bindings,
        .pBindings = b};
    CHECK(vkCreateDescriptorSetLayout(dev, &sli, NULL, &k.set_layout));
    VkPushConstantRange range = {.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT, .size = push};
    VkPipelineLayoutCreateInfo pli = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                      .setLayoutCount = 1, .pSetLayouts = &k.set_layout,
                                      .pushConstantRangeCount = 1, .pPushConstantRanges = &range};
    CHECK(vkCreatePipelineLayout(dev, &pli, NULL, &k.layout));
    VkShaderModuleCreateInfo mi = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                   .codeSize = code_size, .pCode = code};
    VkShaderModule module;
    CHECK(vkCreateShaderModule(dev, &mi, NULL, &module));
    VkComputePipelineCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                  .stage = VK_SHADER_STAGE_COMPUTE_BIT, .module = module, .pName = "main",
                  .pSpecializationInfo = spec},
        .layout = k.layout};
    CHECK(vkCreateComputePipelines(dev, VK_NULL_HANDLE, 1, &ci, NULL, &k.pipeline));
    vkDestroyShaderModule(dev, module, NULL);
    VkDescriptorPoolSize size = {.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                 .descriptorCount = bindings};
    VkDescriptorPoolCreateInfo dpi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                      .maxSets = 1, .poolSizeCount = 1, .pPoolSizes = &size};
    CHECK(vkCreateDescriptorPool(dev, &dpi, NULL, &k.pool));
    VkDescriptorSetAllocateInfo dai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                       .descriptorPool = k.pool, .descriptorSetCount = 1,
                                       .pSetLayouts = &k.set_layout};
    CHECK(vkAllocateDescriptorSets(dev, &dai, &k.set));
    VkDescriptorBufferInfo infos[4];
    VkWriteDescriptorSet writes[4];
    for (uint32_t i = 0; i < bindings; i++) {
        infos[i] = (VkDescriptorBufferInfo){.buffer = buffers[i]->buffer, .range = VK_WHOLE_SIZE};
        writes[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                           .dstSet = k.set, .dstBinding = i,
                                           .descriptorCount = 1,
                                           .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                           .pBufferInfo = &infos[i]};
    }
    vkUpdateDescriptorSets(dev, bindings, writes, 0, NULL);
    return k;
}

static void free_kernel(struct kernel *k) {
    vkDestroyPipeline(dev, k->pipeline, NULL);
    vkDestroyDescriptorPool(dev, k->pool, NULL);
    vkDestroyPipelineLayout(dev, k->layout, NULL);
    vkDestroyDescriptorSetLayout(dev, k->set_layout, NULL);
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/// Records `k` dispatched over `groups` × `rows` workgroups with `push`, after a zero fill of `clear`
/// (if any), submits it and waits; returns the wall time in ms.
static double run(struct kernel *k, uint32_t groups, uint32_t rows, const void *push, uint32_t push_size,
                  struct buffer *clear) {
    CHECK(vkResetCommandPool(dev, pool, 0));
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 1};
    VkCommandBuffer cb;
    CHECK(vkAllocateCommandBuffers(dev, &ai, &cb));
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    CHECK(vkBeginCommandBuffer(cb, &bi));
    if (clear) {
        vkCmdFillBuffer(cb, clear->buffer, 0, VK_WHOLE_SIZE, 0);
        VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                              .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                              .dstAccessMask = VK_ACCESS_SHADER_READ_BIT |
                                               VK_ACCESS_SHADER_WRITE_BIT};
        vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT,
                             VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
    }
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, k->pipeline);
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, k->layout, 0, 1, &k->set, 0,
                            NULL);
    vkCmdPushConstants(cb, k->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, push_size, push);
    vkCmdDispatch(cb, groups, rows, 1);
    VkMemoryBarrier host = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                            .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                            .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0,
                         1, &host, 0, NULL, 0, NULL);
    CHECK(vkEndCommandBuffer(cb));
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1,
                       .pCommandBuffers = &cb};
    double start = now_ms();
    CHECK(vkQueueSubmit(queue, 1, &si, fence));
    CHECK(vkWaitForFences(dev, 1, &fence, VK_TRUE, 120 * SECOND));
    double ms = now_ms() - start;
    CHECK(vkResetFences(dev, 1, &fence));
    return ms;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static VkInstance make_instance(VkDebugUtilsMessengerEXT *messenger) {
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                             .pApplicationName = "compute_client", .apiVersion = VK_API_VERSION_1_1};
    const char *ext = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                                .pApplicationInfo = &app, .enabledExtensionCount = 1,
                                .ppEnabledExtensionNames = &ext};
    VkInstance inst;
    CHECK(vkCreateInstance(&ici, NULL, &inst));
    VkDebugUtilsMessengerCreateInfoEXT mci = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                           VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
        .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT,
        .pfnUserCallback = on_message};
    PFN_vkCreateDebugUtilsMessengerEXT create =
        (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(inst,
                                                                  "vkCreateDebugUtilsMessengerEXT");
    if (!create) {
        fprintf(stderr, "no vkCreateDebugUtilsMessengerEXT\n");
        exit(1);
    }
    CHECK(create(inst, &mci, NULL, messenger));
    return inst;
}

static void make_device(VkInstance inst) {
    uint32_t n = 8;
    VkPhysicalDevice pds[8];
    VkResult r = vkEnumeratePhysicalDevices(inst, &n, pds);
    if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || n == 0) {
        fprintf(stderr, "no physical device (%d)\n", r);
        exit(1);
    }
    pd = pds[0];
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(pd, &props);
    uint32_t nf = 8;
    VkQueueFamilyProperties qf[8];
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &nf, qf);
    uint32_t family = UINT32_MAX;
    for (uint32_t i = 0; i < nf && family == UINT32_MAX; i++)
        if (qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT) family = i;
    if (family == UINT32_MAX) {
        fprintf(stderr, "%s has no compute queue\n", props.deviceName);
        exit(1);
    }
    printf("device: %s\n", props.deviceName);
    float prio = 1.0f;
    VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                   .queueFamilyIndex = family, .queueCount = 1,
                                   .pQueuePriorities = &prio};
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                              .queueCreateInfoCount = 1, .pQueueCreateInfos = &qci};
    CHECK(vkCreateDevice(pd, &dci, NULL, &dev));
    vkGetDeviceQueue(dev, family, 0, &queue);
    VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                   .queueFamilyIndex = family};
    CHECK(vkCreateCommandPool(dev, &pci, NULL, &pool));
    VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    CHECK(vkCreateFence(dev, &fci, NULL, &fence));
}

/// The reduction: returns its time; exits 1 on any wrong partial, total or maximum.
static double reduce(void) {
    const uint32_t n = GROUPS * WG - 77; // the last group is partly out of range
    struct buffer in = make_buffer((VkDeviceSize)GROUPS * WG * 4),
                  partials = make_buffer(GROUPS * 4), totals = make_buffer(8);
    uint32_t *v = in.bytes;
    for (uint32_t i = 0; i < GROUPS * WG; i++) v[i] = i * 2246822519u ^ (i >> 5);
    struct buffer *bufs[] = {&in, &partials, &totals};
    uint32_t spec_values[2] = {WG, MULT};
    VkSpecializationMapEntry entries[2] = {{0, 0, 4}, {1, 4, 4}};
    VkSpecializationInfo spec = {2, entries, sizeof spec_values, spec_values};
    struct kernel k = make_kernel(reduce_spv, sizeof reduce_spv, 3, 8, &spec, bufs);
    uint32_t push[2] = {n, 12345u};
    double ms = run(&k, GROUPS, 1, push, sizeof push, &totals);
    uint32_t total = 0, max = 0;
    const uint32_t *got = partials.bytes;
    for (uint32_t g = 0; g < GROUPS; g++) {
        uint32_t sum = 0;
        for (uint32_t i = g * WG; i < (g + 1) * WG; i++)
            if (i < n) sum += v[i] * MULT + push[1];
        if (got[g] != sum) {
            fprintf(stderr, "reduce: partial %u is %u, expected %u\n", g, got[g], sum);
            exit(1);
        }
        total += sum;
        if (sum > max) max = sum;
    }
    const uint32_t *t = totals.bytes;
    if (t[0] != total || t[1] != max) {
        fprintf(stderr, "reduce: total %u max %u, expected %u and %u\n", t[0], t[1], total, max);
        exit(1);
    }
    free_kernel(&k);
    free_buffer(&in);
    free_buffer(&partials);
    free_buffer(&totals);
    return ms;
}

/// SAXPY over 16 Mi floats: returns its time; exits 1 on any wrong element.
static double saxpy(void) {
    struct buffer x = make_buffer((VkDeviceSize)SAXPY_N * 4),
                  y = make_buffer((VkDeviceSize)SAXPY_N * 4);
    float *xs = x.bytes, *ys = y.bytes;
    for (uint32_t i = 0; i < SAXPY_N; i++) {
        xs[i] = (float)(i % 1024u);
        ys[i] = (float)(i % 7u);
    }
    struct buffer *bufs[] = {&x, &y};
    struct kernel k = make_kernel(saxpy_spv, sizeof saxpy_spv, 2, 8, NULL, bufs);
    struct {
        float a;
        uint32_t n;
    } push = {3.0f, SAXPY_N};
    double ms = run(&k, SAXPY_N / 256u / 2u, 2, &push, sizeof push, NULL);
    for (uint32_t i = 0; i < SAXPY_N; i++) {
        float want = 3.0f * (float)(i % 1024u) + (float)(i % 7u);
        if (ys[i] != want) {
            fprintf(stderr, "saxpy: y[%u] is %g, expected %g\n", i, ys[i], want);
            exit(1);
        }
    }
    free_kernel(&k);
    free_buffer(&x);
    free_buffer(&y);
    return ms;
}

int main(int argc, char **argv) {
    int rounds = 0;
    if (argc == 3 && strcmp(argv[1], "--bench") == 0) rounds = atoi(argv[2]);
    VkDebugUtilsMessengerEXT messenger;
    VkInstance inst = make_instance(&messenger);
    make_device(inst);
    reduce();
    saxpy();
    if (rounds > 0) {
        double (*work[2])(void) = {reduce, saxpy};
        const char *names[2] = {"reduce", "saxpy"};
        for (int w = 0; w < 2; w++) {
            double t[64];
            int r = rounds > 64 ? 64 : rounds;
            for (int i = 0; i < r; i++) t[i] = work[w]();
            qsort(t, r, sizeof t[0], cmp_double);
            printf("bench %s %.3f\n", names[w], t[r / 2]);
        }
    }
    CHECK(vkDeviceWaitIdle(dev));
    vkDestroyFence(dev, fence, NULL);
    vkDestroyCommandPool(dev, pool, NULL);
    vkDestroyDevice(dev, NULL);
    PFN_vkDestroyDebugUtilsMessengerEXT destroy =
        (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
            inst, "vkDestroyDebugUtilsMessengerEXT");
    destroy(inst, messenger, NULL);
    vkDestroyInstance(inst, NULL);
    printf("compute: %u reduction groups and %u saxpy elements checked; %d validation messages\n",
           GROUPS, SAXPY_N, messages);
    return messages ? 2 : 0;
}
