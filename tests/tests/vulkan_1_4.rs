//! Our loader is a Vulkan 1.4 loader (AOSP android16 with `vulkan_1_4_instance_api`): it reports
//! 1.4, and the 19 commands Vulkan 1.4 added to the export list are callable through
//! `libvulkan.so`'s own trampolines (found with `dlsym`, not through `vkGet*ProcAddr`) on a 1.4
//! device — vkgen's null driver behind the HAL, which implements the version its tables
//! describe. Commands with an observable result are checked against their 1.0 twins.

mod common;

use std::ffi::{c_void, CStr};

use ash::vk;
use common::*;
use vkgen_generated::{pfn, vk as gvk};
use vkgen_tests::env::in_child;
use vkgen_tests::{paths, require};

/// The commands Vulkan 1.4 added to AOSP's `libvulkan.map.txt` (`introduced=36`).
const VULKAN_1_4_EXPORTS: [&CStr; 19] = [
    c"vkGetRenderingAreaGranularity",
    c"vkCmdPushDescriptorSet",
    c"vkCmdPushDescriptorSetWithTemplate",
    c"vkCmdSetLineStipple",
    c"vkCmdBindIndexBuffer2",
    c"vkCopyMemoryToImage",
    c"vkCopyImageToMemory",
    c"vkCopyImageToImage",
    c"vkTransitionImageLayout",
    c"vkGetImageSubresourceLayout2",
    c"vkGetDeviceImageSubresourceLayout",
    c"vkMapMemory2",
    c"vkUnmapMemory2",
    c"vkCmdBindDescriptorSets2",
    c"vkCmdPushConstants2",
    c"vkCmdPushDescriptorSet2",
    c"vkCmdPushDescriptorSetWithTemplate2",
    c"vkCmdSetRenderingAttachmentLocations",
    c"vkCmdSetRenderingInputAttachmentIndices",
];

/// `dlsym` in the loader library: the exported trampoline itself.
struct Library(*mut c_void);

impl Library {
    fn open(path: &std::path::Path) -> Library {
        let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a NUL-terminated path; the library stays loaded for the test's lifetime.
        let handle = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        assert!(!handle.is_null(), "dlopen {}", path.display());
        Library(handle)
    }

    /// The exported function `name`, as the command type `F`.
    ///
    /// # Safety
    /// `F` must be the function-pointer type of the command `name`.
    unsafe fn get<F: Copy>(&self, name: &CStr) -> F {
        // SAFETY: a live handle and a C string.
        let p = unsafe { libc::dlsym(self.0, name.as_ptr()) };
        assert!(!p.is_null(), "{name:?} is not exported");
        assert_eq!(std::mem::size_of::<F>(), std::mem::size_of::<*mut c_void>());
        // SAFETY: the caller names `F` as the function-pointer type of this symbol; sizes are checked above.
        unsafe { std::mem::transmute_copy::<*mut c_void, F>(&p) }
    }
}

#[test]
fn vulkan_1_4_commands_through_the_trampolines_on_a_1_4_device() {
    let root = tempfile::tempdir().unwrap();
    let env = hal_env(&root, &paths::reference_driver("null"), "");
    in_child(
        "vulkan_1_4_commands_through_the_trampolines_on_a_1_4_device",
        &env,
        || {
            let loader = require(paths::loader_under_test());
            let entry = require(vkgen_tests::compute::load_entry(&loader));
            let lib = Library::open(&loader);
            // SAFETY: a global query.
            let version = unsafe { entry.try_enumerate_instance_version() }
                .unwrap()
                .unwrap();
            assert_eq!(
                (
                    vk::api_version_major(version),
                    vk::api_version_minor(version)
                ),
                (1, 4)
            );
            let app = vk::ApplicationInfo::default().api_version(vkgen_generated::API_VERSION);
            // SAFETY: valid create info.
            let instance = unsafe {
                entry.create_instance(
                    &vk::InstanceCreateInfo::default().application_info(&app),
                    None,
                )
            }
            .unwrap();
            // SAFETY: a live instance.
            let pd = unsafe { instance.enumerate_physical_devices() }.unwrap()[0];
            // SAFETY: a physical device of the instance.
            let props = unsafe { instance.get_physical_device_properties(pd) };
            assert_eq!(vk::api_version_minor(props.api_version), 4, "a 1.4 device");
            let prio = [1.0f32];
            let queues = [vk::DeviceQueueCreateInfo::default()
                .queue_family_index(0)
                .queue_priorities(&prio)];
            // SAFETY: valid create info.
            let device = unsafe {
                instance.create_device(
                    pd,
                    &vk::DeviceCreateInfo::default().queue_create_infos(&queues),
                    None,
                )
            }
            .unwrap();
            let d = device.handle();
            for name in VULKAN_1_4_EXPORTS {
                // SAFETY: only the address is used.
                let _: unsafe extern "system" fn() = unsafe { lib.get(name) };
            }

            // vkMapMemory2 / vkUnmapMemory2: a mapping of the driver's memory, written and read.
            // SAFETY: a live device; valid create infos.
            let memory = unsafe {
                device.allocate_memory(
                    &vk::MemoryAllocateInfo::default()
                        .allocation_size(4096)
                        .memory_type_index(0),
                    None,
                )
            }
            .unwrap();
            // SAFETY: the exported commands with their own types.
            let (map2, unmap2) = unsafe {
                (
                    lib.get::<pfn::PFN_vkMapMemory2>(c"vkMapMemory2"),
                    lib.get::<pfn::PFN_vkUnmapMemory2>(c"vkUnmapMemory2"),
                )
            };
            let info = gvk::MemoryMapInfo {
                memory,
                offset: 64,
                size: vk::WHOLE_SIZE,
                ..Default::default()
            };
            let mut p = std::ptr::null_mut();
            // SAFETY: valid structure and output pointer.
            assert_eq!(unsafe { map2(d, &info, &mut p) }, vk::Result::SUCCESS);
            assert!(!p.is_null());
            // SAFETY: 4096 - 64 bytes are mapped at `p`.
            unsafe { p.cast::<u32>().write_unaligned(0xA11CE) };
            let unmap = gvk::MemoryUnmapInfo {
                memory,
                ..Default::default()
            };
            // SAFETY: valid structure.
            assert_eq!(unsafe { unmap2(d, &unmap) }, vk::Result::SUCCESS);
            // SAFETY: the same memory through the 1.0 commands, mapped again now that the 1.4
            // mapping is gone (a memory is mapped once at a time, VUID-vkMapMemory-memory-00678).
            let p0 = unsafe {
                device.map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
            }
            .unwrap();
            assert_eq!(
                // SAFETY: offset 64 of the same allocation.
                unsafe { p0.cast::<u8>().add(64).cast::<u32>().read_unaligned() },
                0xA11CE
            );
            // SAFETY: mapped above.
            unsafe { device.unmap_memory(memory) };

            // vkGetImageSubresourceLayout2 answers as vkGetImageSubresourceLayout.
            // SAFETY: valid create info.
            let image = unsafe {
                device.create_image(
                    &vk::ImageCreateInfo::default()
                        .image_type(vk::ImageType::TYPE_2D)
                        .format(vk::Format::R8G8B8A8_UNORM)
                        .extent(vk::Extent3D {
                            width: 16,
                            height: 16,
                            depth: 1,
                        })
                        .mip_levels(1)
                        .array_layers(1)
                        .samples(vk::SampleCountFlags::TYPE_1)
                        .tiling(vk::ImageTiling::LINEAR)
                        .usage(vk::ImageUsageFlags::TRANSFER_SRC),
                    None,
                )
            }
            .unwrap();
            let sub = vk::ImageSubresource {
                aspect_mask: vk::ImageAspectFlags::COLOR,
                mip_level: 0,
                array_layer: 0,
            };
            // SAFETY: a live image.
            let layout1 = unsafe { device.get_image_subresource_layout(image, sub) };
            // SAFETY: the exported command with its own type.
            let layout2_fn = unsafe {
                lib.get::<pfn::PFN_vkGetImageSubresourceLayout2>(c"vkGetImageSubresourceLayout2")
            };
            let sub2 = gvk::ImageSubresource2 {
                image_subresource: sub,
                ..Default::default()
            };
            let mut layout2 = gvk::SubresourceLayout2::default();
            // SAFETY: valid structures.
            unsafe { layout2_fn(d, image, &sub2, &mut layout2) };
            assert!(layout1.row_pitch >= 64, "{layout1:?}");
            assert_eq!(layout2.subresource_layout.row_pitch, layout1.row_pitch);
            assert_eq!(layout2.subresource_layout.size, layout1.size);

            // The 1.4 command-buffer commands record.
            // SAFETY: valid create infos on a live device.
            let pool =
                unsafe { device.create_command_pool(&vk::CommandPoolCreateInfo::default(), None) }
                    .unwrap();
            // SAFETY: a live pool.
            let cb = unsafe {
                device.allocate_command_buffers(
                    &vk::CommandBufferAllocateInfo::default()
                        .command_pool(pool)
                        .command_buffer_count(1),
                )
            }
            .unwrap()[0];
            // SAFETY: a fresh command buffer.
            unsafe { device.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default()) }
                .unwrap();
            // SAFETY: the exported commands with their own types and valid arguments.
            unsafe {
                lib.get::<pfn::PFN_vkCmdSetLineStipple>(c"vkCmdSetLineStipple")(cb, 1, 0xFFFF);
                lib.get::<pfn::PFN_vkCmdBindIndexBuffer2>(c"vkCmdBindIndexBuffer2")(
                    cb,
                    vk::Buffer::null(),
                    0,
                    vk::WHOLE_SIZE,
                    vk::IndexType::UINT16,
                );
                let values = [0u32; 4];
                lib.get::<pfn::PFN_vkCmdPushConstants2>(c"vkCmdPushConstants2")(
                    cb,
                    &gvk::PushConstantsInfo {
                        stage_flags: vk::ShaderStageFlags::COMPUTE,
                        size: 16,
                        p_values: values.as_ptr().cast(),
                        ..Default::default()
                    },
                );
                lib.get::<pfn::PFN_vkCmdBindDescriptorSets2>(c"vkCmdBindDescriptorSets2")(
                    cb,
                    &gvk::BindDescriptorSetsInfo {
                        stage_flags: vk::ShaderStageFlags::COMPUTE,
                        ..Default::default()
                    },
                );
                lib.get::<pfn::PFN_vkCmdPushDescriptorSet2>(c"vkCmdPushDescriptorSet2")(
                    cb,
                    &gvk::PushDescriptorSetInfo {
                        stage_flags: vk::ShaderStageFlags::COMPUTE,
                        ..Default::default()
                    },
                );
                lib.get::<pfn::PFN_vkCmdPushDescriptorSet>(c"vkCmdPushDescriptorSet")(
                    cb,
                    vk::PipelineBindPoint::COMPUTE,
                    vk::PipelineLayout::null(),
                    0,
                    0,
                    std::ptr::null(),
                );
            }
            // SAFETY: a recording command buffer.
            unsafe { device.end_command_buffer(cb) }.unwrap();

            // SAFETY: objects of this test, children first.
            unsafe {
                device.destroy_command_pool(pool, None);
                device.destroy_image(image, None);
                device.free_memory(memory, None);
                device.destroy_device(None);
                instance.destroy_instance(None);
            }
        },
    );
}
