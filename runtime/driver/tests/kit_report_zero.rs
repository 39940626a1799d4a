//! Issue 30 item 6: a kit driver that writes no command of its own — every kit component on
//! (`RECORD_COMMANDS` and every `…_OBJECTS` switch), no bring-up table (`NULL_OBJECTS` off)
//! and an engine that executes nothing — has an implementation of every core command of
//! Vulkan 1.0–1.3, per the report's command check (`requirements::unimplemented_commands`).
//! What 1.4 leaves is listed exactly, each with why.

use vkgen_driver::generated::vk;
use vkgen_driver::kit::requirements::{unimplemented_commands, Missing};
use vkgen_driver::kit::{self, Kit};

/// The all-kit driver: no hooks, every component.
struct AllKit;
impl vkgen_driver::export::DriverModule for AllKit {
    const NAME: &'static std::ffi::CStr = c"all-kit fixture";
}
impl Kit for AllKit {
    type Instance = ();
    type PhysicalDevice = ();
    type Device = ();
    type Queue = ();
    type CommandBuffer = ();
    type CommandPool = ();
    const NULL_OBJECTS: bool = false;
    const RECORD_COMMANDS: bool = true;
    const SYNC_OBJECTS: bool = true;
    const RESOURCE_OBJECTS: bool = true;
    const DESCRIPTOR_OBJECTS: bool = true;
    const RENDER_PASS_OBJECTS: bool = true;
    const SHADER_OBJECTS: bool = true;
    const PIPELINE_OBJECTS: bool = true;
    // The engine executes nothing: submitted work is dropped (the default `driver_submit`
    // would do the same; written out so the fixture says it).
    fn driver_submit(
        _queue: &kit::Queue<Self>,
        _batch: &kit::queue::Batch,
        _completion: kit::queue::Completion,
    ) -> Result<(), vk::Result> {
        Ok(())
    }
}
impl kit::native_buffer::NativeBuffers for AllKit {}
#[vkgen_driver::driver(kit)]
impl vkgen_driver::generated::driver::Driver for AllKit {
    const API_VERSION: u32 = vkgen_driver::generated::API_VERSION;
}

/// The core commands of versions up to `api` with no implementation in the kit's command map.
fn missing_core(api: u32) -> Vec<&'static str> {
    let table = kit::entries::<AllKit>();
    unimplemented_commands::<AllKit>(&table, api, &[], None)
        .into_iter()
        .map(|m| match m {
            Missing::Command { command, by } if by.starts_with("VK_VERSION_") => command,
            other => panic!("only core commands are judged here: {other:?}"),
        })
        .collect()
}

#[test]
fn no_core_command_of_1_0_to_1_3_is_missing() {
    for api in [
        vk::API_VERSION_1_0,
        vk::API_VERSION_1_1,
        vk::API_VERSION_1_2,
        vk::API_VERSION_1_3,
    ] {
        assert_eq!(
            missing_core(api),
            Vec::<&str>::new(),
            "Vulkan 1.{}",
            vk::api_version_minor(api)
        );
    }
}

#[cfg(vk_1_4)]
#[test]
fn what_1_4_leaves_is_named() {
    // The three host image copies of VK_EXT_host_image_copy (promoted to 1.4, behind the
    // optional `hostImageCopy` feature, which the kit's default device leaves off): a copy
    // between host memory and a kit image needs each format's texel block size and the
    // regions' row lengths, heights and layers walked over the image's linear layout — an
    // engine-independent component of its own, not a one-line answer. Everything else of 1.4
    // (vkTransitionImageLayout, the host transition, included: a kit image has one layout
    // whatever its VkImageLayout) is implemented.
    assert_eq!(
        missing_core(vk::make_api_version(0, 1, 4, 0)),
        [
            "vkCopyMemoryToImage",
            "vkCopyImageToMemory",
            "vkCopyImageToImage"
        ]
    );
}

#[test]
fn the_commands_added_for_the_report_answer() {
    let table = kit::entries::<AllKit>();
    let peer = table
        .get_device_group_peer_memory_features
        .expect("vkGetDeviceGroupPeerMemoryFeatures");
    let mut features = vk::PeerMemoryFeatureFlags::empty();
    // SAFETY: the command reads no handle; the output is a live local.
    unsafe { peer(vk::Device::null(), 0, 0, 1, &mut features) };
    assert_eq!(
        features,
        vk::PeerMemoryFeatureFlags::COPY_SRC
            | vk::PeerMemoryFeatureFlags::COPY_DST
            | vk::PeerMemoryFeatureFlags::GENERIC_SRC
            | vk::PeerMemoryFeatureFlags::GENERIC_DST
    );
    #[cfg(vk_1_4)]
    {
        let layout = table
            .get_device_image_subresource_layout
            .expect("vkGetDeviceImageSubresourceLayout");
        let create = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(vk::Format::R8G8B8A8_UNORM)
            .extent(vk::Extent3D {
                width: 16,
                height: 8,
                depth: 1,
            })
            .mip_levels(1)
            .array_layers(1)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::LINEAR);
        let sub = vk::ImageSubresource2 {
            image_subresource: vk::ImageSubresource {
                aspect_mask: vk::ImageAspectFlags::COLOR,
                mip_level: 0,
                array_layer: 0,
            },
            ..Default::default()
        };
        let info = vk::DeviceImageSubresourceInfo {
            p_create_info: std::ptr::from_ref(&create).cast(),
            p_subresource: &sub,
            ..Default::default()
        };
        let mut out = vk::SubresourceLayout2::default();
        // SAFETY: valid structures that outlive the call; the command reads no handle.
        unsafe { layout(vk::Device::null(), &info, &mut out) };
        // 16 texels of 4 bytes a row, 8 rows.
        assert!(out.subresource_layout.row_pitch >= 64);
        assert!(out.subresource_layout.size >= 64 * 8);
    }
}
