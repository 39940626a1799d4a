//! `libvulkan_null.so` loaded the way loaders load it: Android's HAL handshake (`HMI`, `open("vk0")`)
//! and the Khronos ICD entry points, then real Vulkan use through `ash` on the driver's own
//! `vkGetInstanceProcAddr`, and through Debian's Khronos loader with a temporary manifest.

#![warn(clippy::undocumented_unsafe_blocks)]

#[path = "../../../driver/tests/support/glsl.rs"]
mod glsl;

use std::ffi::{c_char, CStr};
use std::path::PathBuf;

use ash::vk;
use vkgen_driver::testing::HalLibrary;
use vkgen_tests::env::{in_child, Env};

fn library() -> PathBuf {
    static LIB: std::sync::OnceLock<Result<PathBuf, String>> = std::sync::OnceLock::new();
    LIB.get_or_init(|| vkgen_driver::testing::build_driver("vkgen-driver-null", "vulkan_null"))
        .clone()
        .unwrap_or_else(|e| panic!("{e}"))
}

/// The environment every child starts from: children lose `VKGEN_*`, so a prebuilt-library
/// directory is handed on explicitly.
fn base_env() -> Env {
    match std::env::var_os(vkgen_driver::testing::DRIVER_LIB_DIR_ENV) {
        Some(dir) => Env::new().set(vkgen_driver::testing::DRIVER_LIB_DIR_ENV, dir),
        None => Env::new(),
    }
}

fn open() -> HalLibrary {
    // SAFETY: the library is our null driver.
    unsafe { HalLibrary::open(&library()) }.unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn hal_module_and_device() {
    let hal = open();
    // SAFETY: HMI was validated by `open`.
    let common = unsafe { &(*hal.module()).common };
    assert!(!common.dso.is_null(), "HMI.dso written by the loader side");
    // SAFETY: a C string from the module.
    let name = unsafe { CStr::from_ptr(common.name) };
    assert_eq!(name, c"vkgen null Vulkan driver");
    let (rc, dev) = hal.open_device(c"vk1");
    assert_eq!((rc, dev), (-libc::ENOENT, std::ptr::null_mut()));
    let (rc, dev) = hal.open_device(c"vk0");
    assert_eq!(rc, 0);
    assert!(std::ptr::eq(dev.cast_const().cast(), hal.device()));
    // SAFETY: `dev` is the static device; close is a no-op.
    let close = unsafe { (*dev).close }.expect("close");
    // SAFETY: `close` is the static device's own hook and `dev` that device, which stays valid for
    // the process (closing it is a no-op).
    assert_eq!(unsafe { close(dev) }, 0);
}

#[test]
fn exports_only_hmi_and_icd_entry_points() {
    let hal = open();
    for cmd in vkgen_generated::commands::COMMANDS.iter() {
        // SAFETY: only the presence of the symbol is checked.
        let found = unsafe { hal.symbol::<*const std::ffi::c_void>(cmd.name()) };
        assert!(found.is_none(), "{:?} is exported", cmd.name());
    }
    for name in [
        c"vk_icdNegotiateLoaderICDInterfaceVersion",
        c"vk_icdGetInstanceProcAddr",
        c"vk_icdGetPhysicalDeviceProcAddr",
        c"HMI",
    ] {
        // SAFETY: only whether the symbol exists is checked; the pointer is never read or called.
        let found = unsafe { hal.symbol::<*const std::ffi::c_void>(name) };
        assert!(found.is_some(), "{name:?}");
    }
    // The dynamic symbol table holds exactly those four.
    let out = std::process::Command::new("nm")
        .args(["-D", "--defined-only"])
        .arg(library())
        .output();
    if let Some(out) = out.ok().filter(|o| o.status.success()) {
        let mut names: Vec<String> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| l.split_whitespace().nth(2).map(str::to_owned))
            .collect();
        names.sort();
        assert_eq!(
            names,
            [
                "HMI",
                "vk_icdGetInstanceProcAddr",
                "vk_icdGetPhysicalDeviceProcAddr",
                "vk_icdNegotiateLoaderICDInterfaceVersion"
            ]
        );
    }
}

#[test]
fn icd_negotiation() {
    let hal = open();
    type Negotiate = unsafe extern "system" fn(*mut u32) -> vk::Result;
    type Gipa = unsafe extern "system" fn(vk::Instance, *const c_char) -> vk::PFN_vkVoidFunction;
    // SAFETY: the exported symbols have these types.
    let (negotiate, gipa) = unsafe {
        (
            hal.symbol::<Negotiate>(c"vk_icdNegotiateLoaderICDInterfaceVersion")
                .unwrap(),
            hal.symbol::<Gipa>(c"vk_icdGetInstanceProcAddr").unwrap(),
        )
    };
    for (offered, expected) in [
        (0, Err(vk::Result::ERROR_INCOMPATIBLE_DRIVER)),
        (1, Err(vk::Result::ERROR_INCOMPATIBLE_DRIVER)),
        (2, Ok(2)),
        (5, Ok(5)),
        (7, Ok(7)),
        (99, Ok(7)),
    ] {
        let mut v = offered;
        // SAFETY: a valid in/out pointer.
        let r = unsafe { negotiate(&mut v) };
        let got = if r == vk::Result::SUCCESS {
            Ok(v)
        } else {
            Err(r)
        };
        assert_eq!(got, expected, "offered {offered}");
    }
    // SAFETY: null is rejected.
    let r = unsafe { negotiate(std::ptr::null_mut()) };
    assert_eq!(r, vk::Result::ERROR_INCOMPATIBLE_DRIVER);
    // Interface 7: the vk_icd functions are also reachable through vk_icdGetInstanceProcAddr.
    for name in [
        c"vk_icdNegotiateLoaderICDInterfaceVersion",
        c"vk_icdGetPhysicalDeviceProcAddr",
    ] {
        // SAFETY: a global query.
        let f = unsafe { gipa(vk::Instance::null(), name.as_ptr()) };
        assert!(f.is_some(), "{name:?}");
    }
    // SAFETY: a global command looked up with a null instance and a NUL-terminated name.
    assert!(unsafe { gipa(vk::Instance::null(), c"vkCreateInstance".as_ptr()) }.is_some());
}

#[test]
fn vulkan_through_the_hal() {
    let hal = open();
    let entry = hal.entry();
    // SAFETY: plain Vulkan use of the null driver through ash; every object is destroyed.
    unsafe {
        assert_eq!(
            entry.try_enumerate_instance_version().unwrap(),
            Some(vulkan_null::INSTANCE_VERSION)
        );
        let exts = entry.enumerate_instance_extension_properties(None).unwrap();
        assert_eq!(exts.len(), 1);
        assert_eq!(
            exts[0].extension_name_as_c_str().unwrap(),
            c"VK_KHR_get_physical_device_properties2"
        );
        let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
        let names = [c"VK_KHR_get_physical_device_properties2".as_ptr()];
        let instance = entry
            .create_instance(
                &vk::InstanceCreateInfo::default()
                    .application_info(&app)
                    .enabled_extension_names(&names),
                None,
            )
            .unwrap();
        let pds = instance.enumerate_physical_devices().unwrap();
        assert_eq!(pds.len(), 1);
        let pd = pds[0];
        let props = instance.get_physical_device_properties(pd);
        assert_eq!(props.device_name_as_c_str().unwrap(), c"vkgen null device");
        assert_eq!(props.device_type, vk::PhysicalDeviceType::OTHER);
        let mut present =
            vkgen_generated::vk::PhysicalDevicePresentationPropertiesANDROID::default();
        let mut props2 = vk::PhysicalDeviceProperties2 {
            p_next: std::ptr::from_mut(&mut present).cast(),
            ..Default::default()
        };
        instance.get_physical_device_properties2(pd, &mut props2);
        assert_eq!(present.shared_image, vk::TRUE);
        let mem = instance.get_physical_device_memory_properties(pd);
        assert_eq!(
            (mem.memory_type_count, mem.memory_heaps[0].size),
            (1, 256 << 20)
        );
        let dev_exts = instance.enumerate_device_extension_properties(pd).unwrap();
        let names: Vec<&std::ffi::CStr> = dev_exts
            .iter()
            .map(|e| e.extension_name_as_c_str().unwrap())
            .collect();
        assert_eq!(
            names,
            [
                c"VK_ANDROID_native_buffer",
                c"VK_KHR_external_semaphore_fd",
                c"VK_KHR_external_fence_fd",
                c"VK_EXT_queue_family_foreign",
                c"VK_ANDROID_external_memory_android_hardware_buffer",
                c"VK_EXT_image_compression_control",
                c"VK_EXT_image_compression_control_swapchain"
            ]
        );
        assert_eq!(dev_exts[0].spec_version, 11);

        let prio = [1.0];
        let qci = [vk::DeviceQueueCreateInfo::default().queue_priorities(&prio)];
        let dnames = [c"VK_ANDROID_native_buffer".as_ptr()];
        let device = instance
            .create_device(
                pd,
                &vk::DeviceCreateInfo::default()
                    .queue_create_infos(&qci)
                    .enabled_extension_names(&dnames),
                None,
            )
            .unwrap();
        // Unknown extensions and unsupported features are refused.
        let bad = [c"VK_KHR_swapchain".as_ptr()];
        assert_eq!(
            instance
                .create_device(
                    pd,
                    &vk::DeviceCreateInfo::default().enabled_extension_names(&bad),
                    None
                )
                .err(),
            Some(vk::Result::ERROR_EXTENSION_NOT_PRESENT)
        );
        let features = vk::PhysicalDeviceFeatures::default().geometry_shader(true);
        assert_eq!(
            instance
                .create_device(
                    pd,
                    &vk::DeviceCreateInfo::default().enabled_features(&features),
                    None
                )
                .err(),
            Some(vk::Result::ERROR_FEATURE_NOT_PRESENT)
        );
        let queue = device.get_device_queue(0, 0);
        assert_ne!(queue, vk::Queue::null());

        // Memory is real.
        let buffer = device
            .create_buffer(
                &vk::BufferCreateInfo::default()
                    .size(1000)
                    .usage(vk::BufferUsageFlags::STORAGE_BUFFER),
                None,
            )
            .unwrap();
        let reqs = device.get_buffer_memory_requirements(buffer);
        let memory = device
            .allocate_memory(
                &vk::MemoryAllocateInfo::default().allocation_size(reqs.size),
                None,
            )
            .unwrap();
        device.bind_buffer_memory(buffer, memory, 0).unwrap();
        let p = device
            .map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
            .unwrap();
        std::slice::from_raw_parts_mut(p.cast::<u8>(), 1000).fill(0xA5);
        device.unmap_memory(memory);
        let p = device
            .map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
            .unwrap();
        assert!(std::slice::from_raw_parts(p.cast::<u8>(), 1000)
            .iter()
            .all(|&b| b == 0xA5));
        assert_eq!(
            device
                .allocate_memory(
                    &vk::MemoryAllocateInfo::default().allocation_size(1 << 30),
                    None
                )
                .unwrap_err(),
            vk::Result::ERROR_OUT_OF_DEVICE_MEMORY
        );

        // Command buffers are dispatchable: word 0 holds the loader magic.
        let pool = device
            .create_command_pool(&vk::CommandPoolCreateInfo::default(), None)
            .unwrap();
        let cbs = device
            .allocate_command_buffers(
                &vk::CommandBufferAllocateInfo::default()
                    .command_pool(pool)
                    .command_buffer_count(3),
            )
            .unwrap();
        for &cb in &cbs {
            let word0 = *(vk::Handle::as_raw(cb) as usize as *const usize);
            assert_eq!(word0, 0x01CD_C0DE);
            device
                .begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
                .unwrap();
            device.cmd_dispatch(cb, 1, 1, 1);
            device.end_command_buffer(cb).unwrap();
        }
        device.free_command_buffers(pool, &cbs[..1]);

        // Fences: state is tracked, submission signals, waits time out.
        let fence = device
            .create_fence(&vk::FenceCreateInfo::default(), None)
            .unwrap();
        assert_eq!(device.get_fence_status(fence), Ok(false));
        assert_eq!(
            device
                .wait_for_fences(&[fence], true, 1_000_000)
                .unwrap_err(),
            vk::Result::TIMEOUT
        );
        let sem = device
            .create_semaphore(&vk::SemaphoreCreateInfo::default(), None)
            .unwrap();
        let sems = [sem];
        device
            .queue_submit(
                queue,
                &[vk::SubmitInfo::default()
                    .command_buffers(&cbs[1..])
                    .signal_semaphores(&sems)],
                fence,
            )
            .unwrap();
        assert_eq!(device.get_fence_status(fence), Ok(true));
        device.wait_for_fences(&[fence], true, u64::MAX).unwrap();
        device.reset_fences(&[fence]).unwrap();
        assert_eq!(device.get_fence_status(fence), Ok(false));
        let signalled = device
            .create_fence(
                &vk::FenceCreateInfo::default().flags(vk::FenceCreateFlags::SIGNALED),
                None,
            )
            .unwrap();
        device
            .wait_for_fences(&[fence, signalled], false, 0)
            .unwrap();

        // Every other object type gets a distinct handle.
        let mut handles = std::collections::HashSet::new();
        let image = device
            .create_image(
                &vk::ImageCreateInfo::default()
                    .image_type(vk::ImageType::TYPE_2D)
                    .format(vk::Format::R8G8B8A8_UNORM)
                    .extent(vk::Extent3D {
                        width: 64,
                        height: 64,
                        depth: 1,
                    })
                    .mip_levels(1)
                    .array_layers(1)
                    .samples(vk::SampleCountFlags::TYPE_1)
                    .usage(vk::ImageUsageFlags::COLOR_ATTACHMENT),
                None,
            )
            .unwrap();
        assert!(device.get_image_memory_requirements(image).size >= 64 * 64 * 4);
        let view = device
            .create_image_view(
                &vk::ImageViewCreateInfo::default()
                    .image(image)
                    .view_type(vk::ImageViewType::TYPE_2D)
                    .format(vk::Format::R8G8B8A8_UNORM),
                None,
            )
            .unwrap();
        let sampler = device
            .create_sampler(&vk::SamplerCreateInfo::default(), None)
            .unwrap();
        let dsl = device
            .create_descriptor_set_layout(&vk::DescriptorSetLayoutCreateInfo::default(), None)
            .unwrap();
        let layouts = [dsl, dsl];
        let dpool = device
            .create_descriptor_pool(
                // Freeing sets (below) needs the flag: the kit's pools follow the spec.
                &vk::DescriptorPoolCreateInfo::default()
                    .flags(vk::DescriptorPoolCreateFlags::FREE_DESCRIPTOR_SET)
                    .max_sets(2),
                None,
            )
            .unwrap();
        let sets = device
            .allocate_descriptor_sets(
                &vk::DescriptorSetAllocateInfo::default()
                    .descriptor_pool(dpool)
                    .set_layouts(&layouts),
            )
            .unwrap();
        let playout = device
            .create_pipeline_layout(&vk::PipelineLayoutCreateInfo::default(), None)
            .unwrap();
        // The kit reflects the module: a pipeline needs a real entry point.
        let code = glsl::compile(
            "comp",
            "vulkan1.0",
            "#version 450\nlayout(local_size_x = 1) in;\nvoid main() {}\n",
        );
        let module = device
            .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&code), None)
            .unwrap();
        let cache = device
            .create_pipeline_cache(&vk::PipelineCacheCreateInfo::default(), None)
            .unwrap();
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(module)
            .name(c"main");
        let cpis = [
            vk::ComputePipelineCreateInfo::default()
                .stage(stage)
                .layout(playout),
            vk::ComputePipelineCreateInfo::default()
                .stage(stage)
                .layout(playout),
        ];
        let pipelines = device.create_compute_pipelines(cache, &cpis, None).unwrap();
        let rp = device
            .create_render_pass(&vk::RenderPassCreateInfo::default(), None)
            .unwrap();
        let fb = device
            .create_framebuffer(
                &vk::FramebufferCreateInfo::default()
                    .render_pass(rp)
                    .width(1)
                    .height(1)
                    .layers(1),
                None,
            )
            .unwrap();
        let qp = device
            .create_query_pool(
                &vk::QueryPoolCreateInfo::default()
                    .query_type(vk::QueryType::OCCLUSION)
                    .query_count(1),
                None,
            )
            .unwrap();
        let event = device
            .create_event(&vk::EventCreateInfo::default(), None)
            .unwrap();
        assert_eq!(device.get_event_status(event), Ok(false));
        device.set_event(event).unwrap();
        assert_eq!(device.get_event_status(event), Ok(true));
        for h in [
            vk::Handle::as_raw(buffer),
            vk::Handle::as_raw(memory),
            vk::Handle::as_raw(pool),
            vk::Handle::as_raw(fence),
            vk::Handle::as_raw(signalled),
            vk::Handle::as_raw(sem),
            vk::Handle::as_raw(image),
            vk::Handle::as_raw(view),
            vk::Handle::as_raw(sampler),
            vk::Handle::as_raw(dsl),
            vk::Handle::as_raw(dpool),
            vk::Handle::as_raw(sets[0]),
            vk::Handle::as_raw(sets[1]),
            vk::Handle::as_raw(playout),
            vk::Handle::as_raw(module),
            vk::Handle::as_raw(cache),
            vk::Handle::as_raw(pipelines[0]),
            vk::Handle::as_raw(pipelines[1]),
            vk::Handle::as_raw(rp),
            vk::Handle::as_raw(fb),
            vk::Handle::as_raw(qp),
            vk::Handle::as_raw(event),
        ] {
            assert_ne!(h, 0);
            assert!(handles.insert(h), "duplicate handle {h:#x}");
        }

        device.destroy_event(event, None);
        device.destroy_query_pool(qp, None);
        device.destroy_framebuffer(fb, None);
        device.destroy_render_pass(rp, None);
        for p in pipelines {
            device.destroy_pipeline(p, None);
        }
        device.destroy_pipeline_cache(cache, None);
        device.destroy_shader_module(module, None);
        device.destroy_pipeline_layout(playout, None);
        device.free_descriptor_sets(dpool, &sets).unwrap();
        device.destroy_descriptor_pool(dpool, None);
        device.destroy_descriptor_set_layout(dsl, None);
        device.destroy_sampler(sampler, None);
        device.destroy_image_view(view, None);
        device.destroy_image(image, None);
        device.destroy_fence(signalled, None);
        device.destroy_fence(fence, None);
        device.destroy_semaphore(sem, None);
        device.destroy_command_pool(pool, None);
        device.unmap_memory(memory);
        device.destroy_buffer(buffer, None);
        device.free_memory(memory, None);
        // Destroying null handles is a no-op.
        device.destroy_buffer(vk::Buffer::null(), None);
        device.destroy_device(None);
        instance.destroy_instance(None);
    }
}

/// The same driver through Debian's Khronos loader, selected by a temporary manifest.
#[test]
fn through_the_khronos_loader() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("vkgen_null.json");
    std::fs::write(
        &manifest,
        format!(
            r#"{{"file_format_version":"1.0.0","ICD":{{"library_path":"{}","api_version":"1.3.239"}}}}"#,
            library().display()
        ),
    )
    .unwrap();
    let env = base_env().set("VK_DRIVER_FILES", &manifest);
    in_child("through_the_khronos_loader", &env, || {
        let loader = vkgen_tests::require(vkgen_tests::paths::system_loader());
        let entry = vkgen_tests::require(vkgen_tests::compute::load_entry(&loader));
        let names = vkgen_tests::require(vkgen_tests::compute::physical_device_names(&entry));
        assert_eq!(names, ["vkgen null device"]);
    });
}
