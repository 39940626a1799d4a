//! The kit's command map (issue 21): components state what they implement as generated,
//! typed [`EntryTable`]s, merged vendor hook > kit component > the kit's bring-up table, as Mesa's
//! `vk_device_dispatch_table_from_entrypoints`. Checked on two fixtures that differ only in
//! [`Kit::NULL_OBJECTS`], by which table each command's entry comes from and by running a
//! bring-up command through the real get-proc-addr path.

use std::ffi::CStr;

mod support;

use ash::vk;
use vkgen_driver::export::DriverModule;
use vkgen_driver::generated::commands::CommandId as C;
use vkgen_driver::generated::driver::{provider, Driver, Provider};
use vkgen_driver::generated::entries::EntryTable;
use vkgen_driver::kit::{self, Kit, PhysicalDeviceDesc};

/// Writes a made-up buffer handle (its hook beats every table).
///
/// # Safety
/// `buffer` is valid for a write.
unsafe fn made_up_buffer(buffer: *mut vk::Buffer) -> vk::Result {
    // SAFETY: the caller's output pointer, valid for a write (VUID-vkCreateBuffer-pBuffer-parameter).
    unsafe { *buffer = vk::Handle::from_raw(0x42) };
    vk::Result::SUCCESS
}

macro_rules! fixture {
    ($name:ident, $null_objects:expr) => {
        struct $name;

        impl DriverModule for $name {
            const NAME: &'static CStr = c"entries fixture";
        }

        impl Kit for $name {
            type Instance = ();
            type PhysicalDevice = ();
            type Device = ();
            type Queue = ();
            type CommandBuffer = ();
            type CommandPool = ();
            const NULL_OBJECTS: bool = $null_objects;

            fn physical_devices(
                _instance: &kit::Instance<Self>,
            ) -> Result<Vec<PhysicalDeviceDesc<Self>>, vk::Result> {
                Ok(vec![PhysicalDeviceDesc::new(c"entries fixture", ())])
            }
        }

        impl kit::native_buffer::NativeBuffers for $name {}

        #[vkgen_driver::driver(kit)]
        impl Driver for $name {
            const API_VERSION: u32 = vk::API_VERSION_1_1;

            unsafe fn create_buffer(
                _device: vk::Device,
                _info: *const vk::BufferCreateInfo<'_>,
                _allocator: *const vk::AllocationCallbacks<'_>,
                buffer: *mut vk::Buffer,
            ) -> vk::Result {
                // SAFETY: `buffer` is the application's output pointer for this command.
                unsafe { made_up_buffer(buffer) }
            }

            unsafe fn bind_buffer_memory2(
                _device: vk::Device,
                _count: u32,
                _infos: *const vk::BindBufferMemoryInfo<'_>,
            ) -> vk::Result {
                vk::Result::SUCCESS
            }
        }
    };
}

fixture!(BringUp, true);
fixture!(Bare, false);

/// The address of `cmd`'s entry in `table`. Equal addresses prove the same entry; unequal ones
/// are only asserted between functions whose bodies differ (an optimised build may fold
/// functions with identical code into one).
fn at(table: &EntryTable, cmd: C) -> Option<usize> {
    table.get(cmd).map(|f| f as usize)
}

/// A `vkCreateBuffer` no other function shares a body with.
unsafe extern "system" fn refusing_create_buffer(
    _device: vk::Device,
    _info: *const vk::BufferCreateInfo<'_>,
    _allocator: *const vk::AllocationCallbacks<'_>,
    _buffer: *mut vk::Buffer,
) -> vk::Result {
    vk::Result::ERROR_TOO_MANY_OBJECTS
}

#[test]
fn or_keeps_the_higher_entry_and_fills_the_empty_slots() {
    let high = EntryTable {
        create_buffer: Some(refusing_create_buffer),
        ..EntryTable::EMPTY
    };
    let low = EntryTable::entry_points::<Bare>();
    let merged = high.or(&low);
    assert_eq!(at(&merged, C::CREATE_BUFFER), at(&high, C::CREATE_BUFFER));
    assert_ne!(at(&merged, C::CREATE_BUFFER), at(&low, C::CREATE_BUFFER));
    assert_eq!(at(&merged, C::CREATE_IMAGE), at(&low, C::CREATE_IMAGE));
    // An alias answers with its command's entry.
    assert_eq!(
        at(&low, C::GET_PHYSICAL_DEVICE_FEATURES2_KHR),
        at(&low, C::GET_PHYSICAL_DEVICE_FEATURES2)
    );
    let mut only_images = low;
    only_images.retain(|c| c == C::CREATE_IMAGE);
    assert!(only_images.create_image.is_some() && only_images.create_buffer.is_none());
}

#[test]
fn the_vendor_hook_comes_first() {
    for p in [
        provider::<BringUp>(C::CREATE_BUFFER),
        provider::<Bare>(C::CREATE_BUFFER),
    ] {
        assert_eq!(p, Provider::Hook);
    }
}

#[test]
fn kit_components_come_before_the_bring_up_table() {
    let merged = kit::entries::<BringUp>();
    let commons = kit::common::entries::<BringUp>();
    let bring_up = kit::bring_up::entries::<BringUp>();
    // A kit-owned command is the kit's commons' even though the bring-up table has one.
    assert!(at(&bring_up, C::CREATE_DEVICE).is_some());
    assert_eq!(
        at(&merged, C::CREATE_DEVICE),
        at(&commons, C::CREATE_DEVICE)
    );
    assert_ne!(
        at(&merged, C::CREATE_DEVICE),
        at(&bring_up, C::CREATE_DEVICE)
    );
    // The vendor wrote vkBindBufferMemory2: vkBindBufferMemory is the kit's route to it, not
    // the bring-up table's.
    assert!(at(&commons, C::BIND_BUFFER_MEMORY).is_some());
    assert_eq!(
        at(&merged, C::BIND_BUFFER_MEMORY),
        at(&commons, C::BIND_BUFFER_MEMORY)
    );
    assert_ne!(
        at(&merged, C::BIND_BUFFER_MEMORY),
        at(&bring_up, C::BIND_BUFFER_MEMORY)
    );
    // Nobody above has vkCreateImage: bring-up answers, and only with NULL_OBJECTS on.
    assert_eq!(at(&merged, C::CREATE_IMAGE), at(&bring_up, C::CREATE_IMAGE));
    assert!(at(&merged, C::CREATE_IMAGE).is_some());
    assert_eq!(at(&kit::entries::<Bare>(), C::CREATE_IMAGE), None);
    assert_eq!(provider::<Bare>(C::CREATE_IMAGE), Provider::Absent);
    assert_eq!(provider::<BringUp>(C::CREATE_IMAGE), Provider::Fallback);
}

#[test]
fn a_bring_up_command_runs_on_the_vendors_device() {
    let (instance, device) = support::instance_and_device::<BringUp>(vk::API_VERSION_1_1, 1);
    let image_info = vk::ImageCreateInfo::default()
        .image_type(vk::ImageType::TYPE_2D)
        .format(vk::Format::R8G8B8A8_UNORM)
        .extent(vk::Extent3D {
            width: 4,
            height: 4,
            depth: 1,
        })
        .mip_levels(1)
        .array_layers(1)
        .samples(vk::SampleCountFlags::TYPE_1)
        .usage(vk::ImageUsageFlags::TRANSFER_DST);
    // SAFETY: a live device and a valid create info; the image is destroyed below.
    unsafe {
        let image = device.create_image(&image_info, None).unwrap();
        assert_ne!(image, vk::Image::null());
        device.destroy_image(image, None);
        let buffer = device
            .create_buffer(&vk::BufferCreateInfo::default().size(16), None)
            .unwrap();
        assert_eq!(vk::Handle::as_raw(buffer), 0x42, "the vendor's hook");
        device.destroy_device(None);
        instance.destroy_instance(None);
    }
}

/// The bring-up table is the kit's components (issue 34: the kit names no driver): it hands
/// out the kit's descriptor, shader, pipeline and render-pass objects of the driver in
/// bring-up, but not the render-pass `vkCmd*` conversions (they need that driver's recorder).
#[test]
fn bring_up_hands_out_the_kits_objects_of_the_driver() {
    let bring_up = kit::bring_up::entries::<BringUp>();
    let descriptor = kit::descriptor::bring_up_entries::<BringUp>();
    let shader = kit::shader::bring_up_entries::<BringUp>();
    let pipeline = kit::pipeline::bring_up_entries::<BringUp>();
    let render_pass = kit::render_pass::bring_up_entries();
    for (table, cmd) in [
        (&descriptor, C::CREATE_DESCRIPTOR_SET_LAYOUT),
        (&descriptor, C::ALLOCATE_DESCRIPTOR_SETS),
        (&shader, C::CREATE_SHADER_MODULE),
        (&shader, C::GET_PIPELINE_CACHE_DATA),
        (&pipeline, C::CREATE_GRAPHICS_PIPELINES),
        (&render_pass, C::CREATE_FRAMEBUFFER),
        (&render_pass, C::GET_RENDER_AREA_GRANULARITY),
    ] {
        assert!(at(table, cmd).is_some(), "{cmd:?}");
        assert_eq!(at(&bring_up, cmd), at(table, cmd), "{cmd:?}");
    }
    assert_eq!(at(&render_pass, C::CMD_BEGIN_RENDER_PASS), None);
    // A real kit object on the bring-up driver's device.
    let (instance, device) = support::instance_and_device::<BringUp>(vk::API_VERSION_1_1, 1);
    // SAFETY: a live device and valid create infos; everything is destroyed below.
    unsafe {
        let layout = device
            .create_descriptor_set_layout(&vk::DescriptorSetLayoutCreateInfo::default(), None)
            .unwrap();
        assert!(kit::descriptor::DescriptorSetLayout::from_handle(layout).is_some());
        device.destroy_descriptor_set_layout(layout, None);
        device.destroy_device(None);
        instance.destroy_instance(None);
    }
}
