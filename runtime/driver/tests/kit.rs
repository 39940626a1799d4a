//! Driver kit acceptance 3 (issue 9) on a fixture driver that implements a few hooks: only
//! implemented hooks and the kit's fallbacks get proc addresses, from every get-proc-addr path
//! (`vkGetInstanceProcAddr`, `vk_icdGetInstanceProcAddr`, `vkGetDeviceProcAddr`); a command of
//! an extension the device did not enable is NULL; creation refuses unknown, unsupported,
//! wrong-level and dependency-less extensions with `VK_ERROR_EXTENSION_NOT_PRESENT` and missing
//! features with `VK_ERROR_FEATURE_NOT_PRESENT`; 1.0 commands route to the vendor's `…2` hooks;
//! the kit's tables and debug callbacks answer the rest.

#![warn(clippy::undocumented_unsafe_blocks)]
// VK_EXT_debug_report is deprecated for applications, but drivers must still provide it.
#![allow(deprecated)]

use std::ffi::{c_char, c_void, CStr};

use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};

use ash::vk;
use ash::vk::Handle as _;
use vkgen_driver::export::{entry::icd_get_instance_proc_addr, DriverModule};
use vkgen_driver::generated::driver::{get_device_proc_addr, get_instance_proc_addr, Driver};
use vkgen_driver::generated::extensions::ExtensionId;
use vkgen_driver::kit::{self, Kit, PhysicalDeviceDesc};

struct Fixture;

static BINDS2: AtomicU32 = AtomicU32::new(0);
/// (memory, offset, size) of the last `vkMapMemory2` the fixture saw.
static MAPPED2: std::sync::Mutex<Option<(u64, u64, u64)>> = std::sync::Mutex::new(None);
/// (stages, offset, size, first value) of the last `vkCmdPushConstants` the fixture saw.
static PUSHED: std::sync::Mutex<Option<(u32, u32, u32, u32)>> = std::sync::Mutex::new(None);

/// One `VkSubmitInfo2` as seen: wait (semaphore, value, stage), command buffers, signal
/// (semaphore, value).
type SeenSubmit = (Vec<(u64, u64, u64)>, Vec<u64>, Vec<(u64, u64)>);

/// What the fixture's `…2` hooks saw, for the route tests.
#[derive(Default, Debug, PartialEq)]
struct Seen {
    submits: Vec<SeenSubmit>,
    copies: Vec<(u64, u64, u64)>,
    /// (src stage, dst stage, layout) of each image barrier.
    image_barriers: Vec<(u64, u64, i32)>,
    /// (src stage, src access, dst stage, dst access) of each memory barrier.
    memory_barriers: Vec<(u64, u64, u64, u64)>,
}

static SEEN: std::sync::Mutex<Option<Seen>> = std::sync::Mutex::new(None);

fn seen<R>(f: impl FnOnce(&mut Seen) -> R) -> R {
    f(SEEN.lock().unwrap().get_or_insert_with(Seen::default))
}

impl DriverModule for Fixture {
    const NAME: &'static CStr = c"kit fixture";
}

impl Kit for Fixture {
    type Instance = ();
    type PhysicalDevice = ();
    type Device = ();
    type Queue = ();
    type CommandBuffer = ();
    type CommandPool = ();

    fn device_extensions() -> &'static [ExtensionId] {
        &[
            ExtensionId::ANDROID_NATIVE_BUFFER,
            ExtensionId::KHR_PUSH_DESCRIPTOR,
        ]
    }

    fn physical_devices(
        _instance: &kit::Instance<Self>,
    ) -> Result<Vec<PhysicalDeviceDesc<Self>>, vk::Result> {
        let mut d = PhysicalDeviceDesc::new(c"fixture device", ());
        d.features.shader_draw_parameters = true;
        d.queue_families[0].queue_count = 2;
        Ok(vec![d])
    }
}

impl vkgen_driver::kit::native_buffer::NativeBuffers for Fixture {}

#[vkgen_driver::driver(kit)]
impl Driver for Fixture {
    const API_VERSION: u32 = vk::API_VERSION_1_1;

    unsafe fn create_buffer(
        _device: vk::Device,
        _info: *const vk::BufferCreateInfo<'_>,
        _allocator: *const vk::AllocationCallbacks<'_>,
        buffer: *mut vk::Buffer,
    ) -> vk::Result {
        // SAFETY: the kit calls this hook with the application's `pBuffer`, which the test passes
        // valid for a write.
        unsafe { *buffer = vk::Handle::from_raw(0x42) };
        vk::Result::SUCCESS
    }

    unsafe fn bind_buffer_memory2(
        _device: vk::Device,
        count: u32,
        _infos: *const vk::BindBufferMemoryInfo<'_>,
    ) -> vk::Result {
        BINDS2.fetch_add(count, Ordering::SeqCst);
        vk::Result::SUCCESS
    }

    unsafe fn map_memory2(
        _device: vk::Device,
        info: *const vkgen_driver::generated::vk::MemoryMapInfo,
        pp_data: *mut *mut c_void,
    ) -> vk::Result {
        // SAFETY: the kit's route passes a `VkMemoryMapInfo` built on its stack and the
        // application's `ppData`, both valid for this call.
        unsafe {
            let info = &*info;
            *MAPPED2.lock().unwrap() = Some((info.memory.as_raw(), info.offset, info.size));
            *pp_data = 0x1000 as *mut c_void;
        }
        vk::Result::SUCCESS
    }

    unsafe fn cmd_push_constants(
        _cb: vk::CommandBuffer,
        _layout: vk::PipelineLayout,
        stages: vk::ShaderStageFlags,
        offset: u32,
        size: u32,
        values: *const c_void,
    ) {
        // SAFETY: at least 4 bytes of values per the test's call.
        let first = unsafe { *values.cast::<u32>() };
        *PUSHED.lock().unwrap() = Some((stages.as_raw(), offset, size, first));
    }

    unsafe fn get_swapchain_gralloc_usage2_android(
        _device: vk::Device,
        _format: vk::Format,
        _image_usage: vk::ImageUsageFlags,
        _swapchain_usage: vk::SwapchainImageUsageFlagsANDROID,
        consumer: *mut u64,
        producer: *mut u64,
    ) -> vk::Result {
        // SAFETY: the kit passes the application's two output pointers, both valid for a write in
        // the test's calls.
        unsafe {
            *consumer = 0;
            *producer = 0x300;
        }
        vk::Result::SUCCESS
    }

    unsafe fn queue_submit2(
        _queue: vk::Queue,
        count: u32,
        submits: *const vk::SubmitInfo2<'_>,
        _fence: vk::Fence,
    ) -> vk::Result {
        // SAFETY: the route passes `count` valid structures.
        for s in unsafe { std::slice::from_raw_parts(submits, count as usize) } {
            // SAFETY: arrays with the counts the structure gives.
            let (w, c, g) = unsafe {
                (
                    std::slice::from_raw_parts(
                        s.p_wait_semaphore_infos,
                        s.wait_semaphore_info_count as usize,
                    ),
                    std::slice::from_raw_parts(
                        s.p_command_buffer_infos,
                        s.command_buffer_info_count as usize,
                    ),
                    std::slice::from_raw_parts(
                        s.p_signal_semaphore_infos,
                        s.signal_semaphore_info_count as usize,
                    ),
                )
            };
            seen(|x| {
                x.submits.push((
                    w.iter()
                        .map(|i| (i.semaphore.as_raw(), i.value, i.stage_mask.as_raw()))
                        .collect(),
                    c.iter().map(|i| i.command_buffer.as_raw()).collect(),
                    g.iter().map(|i| (i.semaphore.as_raw(), i.value)).collect(),
                ))
            });
        }
        vk::Result::SUCCESS
    }

    unsafe fn cmd_copy_buffer2(_cb: vk::CommandBuffer, info: *const vk::CopyBufferInfo2<'_>) {
        // SAFETY: the route passes a valid structure with its regions.
        let info = unsafe { &*info };
        // SAFETY: `info` is the route's valid `VkCopyBufferInfo2`, whose `pRegions` holds
        // `regionCount` regions.
        for r in unsafe { std::slice::from_raw_parts(info.p_regions, info.region_count as usize) } {
            seen(|x| x.copies.push((r.src_offset, r.dst_offset, r.size)));
        }
    }

    unsafe fn cmd_pipeline_barrier2(_cb: vk::CommandBuffer, dep: *const vk::DependencyInfo<'_>) {
        // SAFETY: the route passes a valid structure with its barriers.
        let dep = unsafe { &*dep };
        // SAFETY: `dep` is the route's valid `VkDependencyInfo`, whose `pMemoryBarriers` holds
        // `memoryBarrierCount` barriers (a null pointer only with a count of 0).
        let memory = unsafe {
            std::slice::from_raw_parts(
                if dep.p_memory_barriers.is_null() {
                    std::ptr::NonNull::dangling().as_ptr()
                } else {
                    dep.p_memory_barriers
                },
                dep.memory_barrier_count as usize,
            )
        };
        for m in memory {
            seen(|x| {
                x.memory_barriers.push((
                    m.src_stage_mask.as_raw(),
                    m.src_access_mask.as_raw(),
                    m.dst_stage_mask.as_raw(),
                    m.dst_access_mask.as_raw(),
                ))
            });
        }
        // SAFETY: `dep` is the route's valid `VkDependencyInfo`, whose `pImageMemoryBarriers` holds
        // `imageMemoryBarrierCount` barriers.
        for b in unsafe {
            std::slice::from_raw_parts(
                dep.p_image_memory_barriers,
                dep.image_memory_barrier_count as usize,
            )
        } {
            seen(|x| {
                x.image_barriers.push((
                    b.src_stage_mask.as_raw(),
                    b.dst_stage_mask.as_raw(),
                    b.new_layout.as_raw(),
                ))
            });
        }
    }

    unsafe fn cmd_push_descriptor_set(
        _command_buffer: vk::CommandBuffer,
        _bind_point: vk::PipelineBindPoint,
        _layout: vk::PipelineLayout,
        _set: u32,
        _count: u32,
        _writes: *const vk::WriteDescriptorSet<'_>,
    ) {
    }
}

fn entry() -> ash::Entry {
    // SAFETY: the generated GIPA of the fixture is a valid static entry point.
    unsafe {
        ash::Entry::from_static_fn(ash::StaticFn {
            get_instance_proc_addr: get_instance_proc_addr::<Fixture>,
        })
    }
}

fn gipa(instance: vk::Instance, name: &CStr) -> bool {
    // SAFETY: a lookup with a valid name and a null or live instance.
    unsafe { get_instance_proc_addr::<Fixture>(instance, name.as_ptr()) }.is_some()
}

fn icd_gipa(instance: vk::Instance, name: &CStr) -> bool {
    // SAFETY: a lookup with a NUL-terminated name and a null or live instance, through the Khronos
    // ICD entry point.
    unsafe { icd_get_instance_proc_addr::<Fixture>(instance, name.as_ptr()) }.is_some()
}

fn gdpa(device: vk::Device, name: &CStr) -> bool {
    // SAFETY: a lookup with a valid name and a live device.
    unsafe { get_device_proc_addr::<Fixture>(device, name.as_ptr()) }.is_some()
}

fn instance(entry: &ash::Entry, exts: &[&CStr]) -> Result<ash::Instance, vk::Result> {
    let names: Vec<*const c_char> = exts.iter().map(|e| e.as_ptr()).collect();
    let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_1);
    let info = vk::InstanceCreateInfo::default()
        .application_info(&app)
        .enabled_extension_names(&names);
    // SAFETY: a valid create info.
    unsafe { entry.create_instance(&info, None) }
}

fn device(
    instance: &ash::Instance,
    exts: &[&CStr],
    features: Option<&vk::PhysicalDeviceFeatures>,
    chain: Option<&mut vk::PhysicalDeviceVulkan11Features<'_>>,
    queues: u32,
) -> Result<ash::Device, vk::Result> {
    // SAFETY: a live instance.
    let pd = unsafe { instance.enumerate_physical_devices() }.unwrap()[0];
    let names: Vec<*const c_char> = exts.iter().map(|e| e.as_ptr()).collect();
    let prio = [1.0f32; 4];
    let q = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&prio[..queues as usize])];
    let mut info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&q)
        .enabled_extension_names(&names);
    if let Some(f) = features {
        info = info.enabled_features(f);
    }
    if let Some(c) = chain {
        info = info.push_next(c);
    }
    // SAFETY: a physical device of the instance and a valid create info.
    unsafe { instance.create_device(pd, &info, None) }
}

#[test]
fn unimplemented_hooks_are_absent_from_every_proc_addr_path() {
    let entry = entry();
    let inst = instance(&entry, &[]).unwrap();
    let h = inst.handle();
    for f in [gipa, icd_gipa] {
        // The vendor's hook.
        assert!(f(h, c"vkCreateBuffer"));
        // The kit's common implementations.
        assert!(f(vk::Instance::null(), c"vkCreateInstance"));
        assert!(f(vk::Instance::null(), c"vkEnumerateInstanceVersion"));
        assert!(f(h, c"vkGetPhysicalDeviceFeatures2"));
        assert!(
            f(h, c"vkGetPhysicalDeviceFeatures2KHR"),
            "alias of a kit command"
        );
        assert!(f(h, c"vkCreateDebugReportCallbackEXT"));
        // Neither the vendor nor the kit: NULL, not a stub.
        for name in [
            c"vkCreateImage",
            c"vkQueueWaitIdle",
            c"vkCmdDraw",
            c"vkAllocateMemory",
        ] {
            assert!(!f(h, name), "{name:?} has a proc address");
        }
        // A 1.2 command of a 1.1 driver.
        assert!(!f(h, c"vkResetQueryPool"));
    }
    let dev = device(&inst, &[c"VK_ANDROID_native_buffer"], None, None, 1).unwrap();
    let d = dev.handle();
    assert!(gdpa(d, c"vkCreateBuffer"));
    assert!(gdpa(d, c"vkGetDeviceQueue"));
    assert!(!gdpa(d, c"vkCreateImage"));
    assert!(!gdpa(d, c"vkDestroyBuffer"));
    // Only Usage2 exists, so a loader picks it (not a stub of Usage3/Usage4 or Usage).
    assert!(gdpa(d, c"vkGetSwapchainGrallocUsage2ANDROID"));
    for name in [
        c"vkGetSwapchainGrallocUsageANDROID",
        c"vkGetSwapchainGrallocUsage3ANDROID",
        c"vkGetSwapchainGrallocUsage4ANDROID",
        c"vkAcquireImageANDROID",
    ] {
        assert!(!gdpa(d, name), "{name:?} has a proc address");
    }
    // SAFETY: objects of this test, destroyed children first.
    unsafe {
        dev.destroy_device(None);
        inst.destroy_instance(None);
    }
}

#[test]
fn commands_of_extensions_not_enabled_are_null() {
    let entry = entry();
    let inst = instance(&entry, &[]).unwrap();
    let plain = device(&inst, &[], None, None, 1).unwrap();
    assert!(!gdpa(plain.handle(), c"vkCmdPushDescriptorSetKHR"));
    assert!(!gdpa(plain.handle(), c"vkGetSwapchainGrallocUsage2ANDROID"));
    // apiVersion 1.1: VK_KHR_get_physical_device_properties2 (its dependency) is core.
    let with = device(&inst, &[c"VK_KHR_push_descriptor"], None, None, 1).unwrap();
    assert!(gdpa(with.handle(), c"vkCmdPushDescriptorSetKHR"));
    // SAFETY: objects of this test.
    unsafe {
        plain.destroy_device(None);
        with.destroy_device(None);
        inst.destroy_instance(None);
    }
}

#[test]
fn creation_refuses_with_the_exact_result() {
    let entry = entry();
    let e = vk::Result::ERROR_EXTENSION_NOT_PRESENT;
    assert_eq!(instance(&entry, &[c"VK_bogus_extension"]).err(), Some(e));
    assert_eq!(
        instance(&entry, &[c"VK_KHR_swapchain"]).err(),
        Some(e),
        "device extension"
    );
    assert_eq!(
        instance(&entry, &[c"VK_KHR_surface"]).err(),
        Some(e),
        "unsupported"
    );
    // Dependencies: VK_KHR_external_memory_capabilities needs VK_KHR_get_physical_device_properties2
    // at apiVersion 1.0.
    let names = [c"VK_KHR_external_memory_capabilities".as_ptr()];
    let info = vk::InstanceCreateInfo::default().enabled_extension_names(&names);
    // SAFETY: a valid create info.
    assert_eq!(unsafe { entry.create_instance(&info, None) }.err(), Some(e));
    let names = [
        c"VK_KHR_external_memory_capabilities".as_ptr(),
        c"VK_KHR_get_physical_device_properties2".as_ptr(),
    ];
    let info = vk::InstanceCreateInfo::default().enabled_extension_names(&names);
    // SAFETY: a valid create info.
    let ok = unsafe { entry.create_instance(&info, None) }.unwrap();
    // SAFETY: created above.
    unsafe { ok.destroy_instance(None) };
    let layers = [c"VK_LAYER_KHRONOS_validation".as_ptr()];
    let info = vk::InstanceCreateInfo::default().enabled_layer_names(&layers);
    assert_eq!(
        // SAFETY: a valid create info.
        unsafe { entry.create_instance(&info, None) }.err(),
        Some(vk::Result::ERROR_LAYER_NOT_PRESENT)
    );

    let inst = instance(&entry, &[]).unwrap();
    assert_eq!(device(&inst, &[c"VK_bogus"], None, None, 1).err(), Some(e));
    assert_eq!(
        device(&inst, &[c"VK_KHR_swapchain"], None, None, 1).err(),
        Some(e)
    );
    assert_eq!(
        device(&inst, &[c"VK_KHR_surface"], None, None, 1).err(),
        Some(e),
        "instance ext"
    );
    let f = vk::PhysicalDeviceFeatures {
        geometry_shader: vk::TRUE,
        ..Default::default()
    };
    assert_eq!(
        device(&inst, &[], Some(&f), None, 1).err(),
        Some(vk::Result::ERROR_FEATURE_NOT_PRESENT)
    );
    let mut v11 = vk::PhysicalDeviceVulkan11Features::default().multiview_geometry_shader(true);
    assert_eq!(
        device(&inst, &[], None, Some(&mut v11), 1).err(),
        Some(vk::Result::ERROR_FEATURE_NOT_PRESENT),
        "a feature in the create info's chain"
    );
    let mut v11 = vk::PhysicalDeviceVulkan11Features::default().shader_draw_parameters(true);
    let ok = device(&inst, &[], None, Some(&mut v11), 2).expect("supported feature, 2 queues");
    // SAFETY: queues 0 and 1 of family 0 exist; 2 does not.
    unsafe {
        assert_ne!(ok.get_device_queue(0, 0), ok.get_device_queue(0, 1));
        let mut q = vk::Queue::from_raw(1);
        (ok.fp_v1_0().get_device_queue)(ok.handle(), 0, 2, &mut q);
        assert_eq!(q, vk::Queue::null());
        ok.destroy_device(None);
    }
    assert_eq!(
        device(&inst, &[], None, None, 3).err(),
        Some(vk::Result::ERROR_INITIALIZATION_FAILED),
        "more queues than the family has"
    );
    // SAFETY: created above.
    unsafe { inst.destroy_instance(None) };
}

#[test]
fn one_hook_per_concept_and_tables() {
    let entry = entry();
    let inst = instance(&entry, &[]).unwrap();
    // SAFETY: a live instance and its physical device.
    unsafe {
        let pd = inst.enumerate_physical_devices().unwrap()[0];
        let p = inst.get_physical_device_properties(pd);
        assert_eq!(CStr::from_ptr(p.device_name.as_ptr()), c"fixture device");
        assert_eq!(p.limits.max_image_dimension2_d, 4096);
        let mut v11 = vk::PhysicalDeviceVulkan11Features::default();
        let mut sdp = vk::PhysicalDeviceShaderDrawParametersFeatures::default();
        let mut f2 = vk::PhysicalDeviceFeatures2::default()
            .push_next(&mut v11)
            .push_next(&mut sdp);
        inst.get_physical_device_features2(pd, &mut f2);
        assert_eq!(f2.features.robust_buffer_access, vk::TRUE);
        assert_eq!(v11.shader_draw_parameters, vk::TRUE);
        assert_eq!(
            sdp.shader_draw_parameters,
            vk::TRUE,
            "alias structures agree"
        );
        // Required of every 1.1 device (vk.xml), so on by default; the optional rest is off.
        assert_eq!(v11.multiview, vk::TRUE);
        assert_eq!(v11.multiview_geometry_shader, vk::FALSE);
        let exts = inst.enumerate_device_extension_properties(pd).unwrap();
        let names: Vec<&CStr> = exts
            .iter()
            .map(|e| CStr::from_ptr(e.extension_name.as_ptr()))
            .collect();
        assert_eq!(
            names,
            [c"VK_ANDROID_native_buffer", c"VK_KHR_push_descriptor"]
        );
    }
    let dev = device(&inst, &[], None, None, 1).unwrap();
    // vkBindBufferMemory is the vendor's vkBindBufferMemory2.
    let before = BINDS2.load(Ordering::SeqCst);
    // SAFETY: the fixture ignores the handles.
    unsafe {
        dev.bind_buffer_memory(vk::Buffer::from_raw(0x42), vk::DeviceMemory::from_raw(7), 0)
            .unwrap()
    };
    assert_eq!(BINDS2.load(Ordering::SeqCst), before + 1);
    // SAFETY: objects of this test.
    unsafe {
        dev.destroy_device(None);
        inst.destroy_instance(None);
    }
}

/// Vulkan 1.4's second forms and the commands they restate answer each other: the vendor's
/// `vkMapMemory2` serves `vkMapMemory`, its `vkCmdPushConstants` serves `vkCmdPushConstants2`;
/// a command whose twin the vendor lacks too gets no route.
#[test]
fn vulkan_1_4_forms_route_both_ways() {
    use vkgen_driver::generated::{commands::CommandId, vk as gvk};
    let entry = entry();
    let inst = instance(&entry, &[]).unwrap();
    let dev = device(&inst, &[], None, None, 1).unwrap();
    let memory = vk::DeviceMemory::from_raw(7);
    // SAFETY: the fixture ignores the handles and returns a made-up pointer.
    let p = unsafe { dev.map_memory(memory, 16, 64, vk::MemoryMapFlags::empty()) }.unwrap();
    assert_eq!(p as usize, 0x1000);
    assert_eq!(*MAPPED2.lock().unwrap(), Some((7, 16, 64)));

    let routes = kit::routes_1_4::entries::<Fixture>();
    let push2 = routes
        .cmd_push_constants2
        .expect("vkCmdPushConstants2 routes to the vendor's vkCmdPushConstants");
    let values = [0xC0FFEEu32, 1];
    let info = gvk::PushConstantsInfo {
        stage_flags: vk::ShaderStageFlags::COMPUTE,
        offset: 8,
        size: 8,
        p_values: values.as_ptr().cast(),
        ..Default::default()
    };
    // SAFETY: a valid structure; the fixture ignores the command buffer.
    unsafe { push2(vk::CommandBuffer::null(), &info) };
    assert_eq!(
        *PUSHED.lock().unwrap(),
        Some((vk::ShaderStageFlags::COMPUTE.as_raw(), 8, 8, 0xC0FFEE))
    );
    // Neither vkCmdBindIndexBuffer nor vkCmdBindIndexBuffer2: no route; the vendor's own hook
    // (vkMapMemory2) is not routed over itself.
    assert!(routes.cmd_bind_index_buffer.is_none());
    assert!(routes.get(CommandId::MAP_MEMORY2).is_none());
    // SAFETY: objects of this test.
    unsafe {
        dev.destroy_device(None);
        inst.destroy_instance(None);
    }
}

#[test]
fn debug_report_callbacks_receive_messages() {
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    unsafe extern "system" fn callback(
        flags: vk::DebugReportFlagsEXT,
        _ty: vk::DebugReportObjectTypeEXT,
        _object: u64,
        _location: usize,
        code: i32,
        _prefix: *const c_char,
        message: *const c_char,
        user: *mut c_void,
    ) -> vk::Bool32 {
        assert!(flags.contains(vk::DebugReportFlagsEXT::ERROR));
        assert_eq!(code, 7);
        // SAFETY: the kit passes a C string.
        assert_eq!(unsafe { CStr::from_ptr(message) }, c"hello");
        assert_eq!(user as usize, 0x1234);
        CALLS.fetch_add(1, Ordering::SeqCst);
        vk::FALSE
    }
    let entry = entry();
    let inst = instance(&entry, &[c"VK_EXT_debug_report"]).unwrap();
    let dr = ash::ext::debug_report::Instance::new(&entry, &inst);
    let info = vk::DebugReportCallbackCreateInfoEXT::default()
        .flags(vk::DebugReportFlagsEXT::ERROR)
        .pfn_callback(Some(callback))
        .user_data(0x1234 as *mut c_void);
    // SAFETY: valid create info; the callback outlives the instance.
    unsafe {
        let cb = dr.create_debug_report_callback(&info, None).unwrap();
        (dr.fp().debug_report_message_ext)(
            inst.handle(),
            vk::DebugReportFlagsEXT::ERROR,
            vk::DebugReportObjectTypeEXT::INSTANCE,
            0,
            0,
            7,
            c"test".as_ptr(),
            c"hello".as_ptr(),
        );
        (dr.fp().debug_report_message_ext)(
            inst.handle(),
            vk::DebugReportFlagsEXT::WARNING,
            vk::DebugReportObjectTypeEXT::INSTANCE,
            0,
            0,
            7,
            c"test".as_ptr(),
            c"filtered".as_ptr(),
        );
        dr.destroy_debug_report_callback(cb, None);
        (dr.fp().debug_report_message_ext)(
            inst.handle(),
            vk::DebugReportFlagsEXT::ERROR,
            vk::DebugReportObjectTypeEXT::INSTANCE,
            0,
            0,
            7,
            c"test".as_ptr(),
            c"hello".as_ptr(),
        );
        inst.destroy_instance(None);
    }
    assert_eq!(CALLS.load(Ordering::SeqCst), 1);
}

#[test]
fn old_forms_route_to_the_vendors_2_hooks() {
    let entry = entry();
    let inst = instance(&entry, &[]).unwrap();
    let dev = device(&inst, &[], None, None, 1).unwrap();
    // Not implemented by the fixture, but routed: present.
    for name in [
        c"vkQueueSubmit",
        c"vkCmdCopyBuffer",
        c"vkCmdPipelineBarrier",
    ] {
        assert!(gdpa(dev.handle(), name), "{name:?}");
    }
    // The fixture has no vkCmdBlitImage2, so vkCmdBlitImage has no route.
    assert!(!gdpa(dev.handle(), c"vkCmdBlitImage"));
    // SAFETY: the fixture records arguments and ignores the handles.
    unsafe {
        let q = dev.get_device_queue(0, 0);
        let (s1, s2, s3) = (
            vk::Semaphore::from_raw(11),
            vk::Semaphore::from_raw(12),
            vk::Semaphore::from_raw(13),
        );
        let cbs = [vk::CommandBuffer::from_raw(0x100)];
        let waits = [s1, s2];
        let stages = [
            vk::PipelineStageFlags::TRANSFER,
            vk::PipelineStageFlags::COMPUTE_SHADER,
        ];
        let signals = [s3];
        let wait_values = [5u64, 0];
        let signal_values = [9u64];
        let mut timeline = vk::TimelineSemaphoreSubmitInfo::default()
            .wait_semaphore_values(&wait_values)
            .signal_semaphore_values(&signal_values);
        let submit = vk::SubmitInfo::default()
            .wait_semaphores(&waits)
            .wait_dst_stage_mask(&stages)
            .command_buffers(&cbs)
            .signal_semaphores(&signals)
            .push_next(&mut timeline);
        dev.queue_submit(q, &[submit], vk::Fence::null()).unwrap();
        let cb = cbs[0];
        dev.cmd_copy_buffer(
            cb,
            vk::Buffer::from_raw(1),
            vk::Buffer::from_raw(2),
            &[vk::BufferCopy {
                src_offset: 4,
                dst_offset: 8,
                size: 16,
            }],
        );
        let barrier = vk::ImageMemoryBarrier::default()
            .new_layout(vk::ImageLayout::GENERAL)
            .image(vk::Image::from_raw(3));
        dev.cmd_pipeline_barrier(
            cb,
            vk::PipelineStageFlags::TRANSFER,
            vk::PipelineStageFlags::FRAGMENT_SHADER,
            vk::DependencyFlags::empty(),
            &[],
            &[],
            &[barrier],
        );
        // No barrier at all: the 1.0 stage masks alone make an execution dependency, which a
        // synchronization2 dependency keeps only as a memory barrier without accesses.
        dev.cmd_pipeline_barrier(
            cb,
            vk::PipelineStageFlags::COMPUTE_SHADER,
            vk::PipelineStageFlags::TRANSFER,
            vk::DependencyFlags::empty(),
            &[],
            &[],
            &[],
        );
        dev.destroy_device(None);
        inst.destroy_instance(None);
    }
    seen(|x| {
        assert_eq!(
            x.submits,
            [(
                vec![
                    (11, 5, vk::PipelineStageFlags2::TRANSFER.as_raw()),
                    (12, 0, vk::PipelineStageFlags2::COMPUTE_SHADER.as_raw())
                ],
                vec![0x100],
                vec![(13, 9)]
            )]
        );
        assert_eq!(x.copies, [(4, 8, 16)]);
        assert_eq!(
            x.image_barriers,
            [(
                vk::PipelineStageFlags2::TRANSFER.as_raw(),
                vk::PipelineStageFlags2::FRAGMENT_SHADER.as_raw(),
                vk::ImageLayout::GENERAL.as_raw()
            )]
        );
        assert_eq!(
            x.memory_barriers,
            [(
                vk::PipelineStageFlags2::COMPUTE_SHADER.as_raw(),
                0,
                vk::PipelineStageFlags2::TRANSFER.as_raw(),
                0
            )]
        );
    });
}
