//! The null driver on the kit's resource objects and recorder (issue 30, dogfood): a
//! native-buffer image is a kit `Image` bound to its gralloc buffer's pages (at creation and
//! through the deferred `vkBindImageMemory2` form), with the buffer's row pitch, and keeps the
//! buffer's fd exactly as long as it lives; the no-op replay engine makes submitted queries
//! available.
//!
//! Tests that count fds share one mutex: libtest runs tests on parallel threads.

#![warn(clippy::undocumented_unsafe_blocks)]

use std::ffi::c_int;
use std::ptr;
use std::sync::Mutex;

use ash::vk;
use vkgen_driver::generated::vk::NativeBufferANDROID;
use vkgen_driver::gralloc::{Allocator, Buffer, PixelFormat};
use vkgen_driver::kit::resources::{DeviceMemory, Image};
use vkgen_generated::driver::get_instance_proc_addr;
use vulkan_null::NullDriver;

static SERIAL: Mutex<()> = Mutex::new(());

fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").unwrap().count()
}

struct Null {
    instance: ash::Instance,
    device: ash::Device,
    queue: vk::Queue,
}

impl Null {
    fn new() -> Self {
        // SAFETY: the generated GIPA of the null driver is a valid static entry point; plain
        // Vulkan use of the null driver follows.
        unsafe {
            let entry = ash::Entry::from_static_fn(ash::StaticFn {
                get_instance_proc_addr: get_instance_proc_addr::<NullDriver>,
            });
            let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
            let instance = entry
                .create_instance(
                    &vk::InstanceCreateInfo::default().application_info(&app),
                    None,
                )
                .unwrap();
            let pd = instance.enumerate_physical_devices().unwrap()[0];
            let prio = [1.0];
            let qci = [vk::DeviceQueueCreateInfo::default().queue_priorities(&prio)];
            let names = [c"VK_ANDROID_native_buffer".as_ptr()];
            let ci = vk::DeviceCreateInfo::default()
                .queue_create_infos(&qci)
                .enabled_extension_names(&names);
            let device = instance.create_device(pd, &ci, None).unwrap();
            let queue = device.get_device_queue(0, 0);
            Self {
                instance,
                device,
                queue,
            }
        }
    }
}

impl Drop for Null {
    fn drop(&mut self) {
        // SAFETY: everything the tests created is destroyed by them.
        unsafe {
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}

const WIDTH: u32 = 20;
const HEIGHT: u32 = 6;

/// A gralloc RGBA buffer whose rows are longer than the image (20 texels in 32-texel rows),
/// each byte set to its offset's low bits.
fn patterned_buffer() -> Buffer {
    let mut b = Allocator::new()
        .allocate(WIDTH, HEIGHT, PixelFormat::Rgba8888.hal(), 0x300)
        .unwrap();
    assert!(b.desc().stride > WIDTH, "the test needs padded rows");
    let mut m = b.map().unwrap();
    for (i, byte) in m.as_mut_slice().iter_mut().enumerate() {
        *byte = i as u8;
    }
    drop(m);
    b
}

fn native_buffer(b: &Buffer) -> NativeBufferANDROID {
    let d = b.desc();
    NativeBufferANDROID {
        handle: b.native_handle().cast(),
        stride: d.stride as c_int,
        format: d.format.hal(),
        usage: d.usage as c_int,
        usage3: d.usage,
        ..Default::default()
    }
}

fn image_info<'a>() -> vk::ImageCreateInfo<'a> {
    vk::ImageCreateInfo::default()
        .image_type(vk::ImageType::TYPE_2D)
        .format(vk::Format::R8G8B8A8_UNORM)
        .extent(vk::Extent3D {
            width: WIDTH,
            height: HEIGHT,
            depth: 1,
        })
        .mip_levels(1)
        .array_layers(1)
        .samples(vk::SampleCountFlags::TYPE_1)
        .usage(vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC)
}

/// The image's bytes as the kit's `Image` sees them: its host pointer and its memory's size.
fn image_bytes(image: vk::Image) -> (*mut u8, u64) {
    // SAFETY: a live image of the null driver, which runs on the kit's objects.
    let i = unsafe { Image::from_handle(image) }.expect("a kit image");
    let (memory, offset) = i.binding().expect("bound");
    // SAFETY: the memory the image is bound to lives as long as the image.
    let m = unsafe { DeviceMemory::from_handle(memory) }.expect("kit memory");
    assert!(m.is_shared() && m.hardware_buffer().is_none());
    (i.host_ptr().unwrap(), m.size - offset)
}

#[test]
fn native_buffer_images_are_bound_to_the_buffers_pages() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let n = Null::new();
    let before = open_fds();
    for _ in 0..50 {
        let buffer = patterned_buffer();
        let row = buffer.desc().row_bytes();
        let anb = native_buffer(&buffer);
        let mut ci = image_info();
        ci.p_next = ptr::from_ref(&anb).cast();
        // SAFETY: a live device, a valid create info with the native buffer chained.
        let image = unsafe { n.device.create_image(&ci, None) }.unwrap();
        let (p, len) = image_bytes(image);
        assert!(len >= row * u64::from(HEIGHT));
        // SAFETY: the image's memory holds `len` bytes.
        let second_row = unsafe { p.add(row as usize).read() };
        assert_eq!(second_row, row as u8, "the image reads the buffer's bytes");
        // SAFETY: byte 3 of the `len` bytes at `p`. The engine's write must reach the buffer's
        // other users.
        unsafe { p.add(3).write(0xEE) };
        let sub = vk::ImageSubresource::default().aspect_mask(vk::ImageAspectFlags::COLOR);
        // SAFETY: a live image, a valid subresource.
        let layout = unsafe { n.device.get_image_subresource_layout(image, sub) };
        assert_eq!(layout.row_pitch, row, "the buffer's row pitch");
        // The other user: a mapping of its own, through the native handle.
        // SAFETY: the handle of a live buffer.
        let mut other = unsafe { Buffer::import(buffer.native_handle()) }.unwrap();
        assert_eq!(other.map().unwrap().as_slice()[3], 0xEE);
        drop(other);
        drop(buffer); // the image keeps its own fd
                      // SAFETY: the memory is the image's, alive until the image is destroyed.
        assert_eq!(unsafe { p.add(3).read() }, 0xEE);
        // SAFETY: nothing uses the image any more.
        unsafe { n.device.destroy_image(image, None) };
    }
    assert_eq!(open_fds(), before, "each image's fd and mapping go with it");
}

#[test]
fn the_deferred_native_buffer_bind_binds_the_same_way() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let n = Null::new();
    let before = open_fds();
    let buffer = patterned_buffer();
    // SAFETY: a live device, a valid create info; the binds carry valid chains.
    unsafe {
        let image = n.device.create_image(&image_info(), None).unwrap();
        let anb = native_buffer(&buffer);
        let mut bind = vk::BindImageMemoryInfo::default().image(image);
        bind.p_next = ptr::from_ref(&anb).cast();
        n.device.bind_image_memory2(&[bind]).unwrap();
        let (p, _) = image_bytes(image);
        assert_eq!(p.add(5).read(), 5);
        assert_eq!(
            n.device.bind_image_memory2(&[bind]),
            Err(vk::Result::ERROR_OUT_OF_DEVICE_MEMORY),
            "bound once"
        );
        // A malformed handle is refused, and the image stays unbound.
        let plain = n.device.create_image(&image_info(), None).unwrap();
        let bad = NativeBufferANDROID {
            handle: ptr::null(),
            ..anb
        };
        let mut bind = vk::BindImageMemoryInfo::default().image(plain);
        bind.p_next = ptr::from_ref(&bad).cast();
        assert_eq!(
            n.device.bind_image_memory2(&[bind]),
            Err(vk::Result::ERROR_INVALID_EXTERNAL_HANDLE)
        );
        // SAFETY: a live kit image.
        assert!(Image::from_handle(plain).unwrap().binding().is_none());
        n.device.destroy_image(plain, None);
        n.device.destroy_image(image, None);
    }
    drop(buffer);
    assert_eq!(open_fds(), before);
}

#[test]
fn submitted_queries_become_available_with_zero() {
    let n = Null::new();
    let d = &n.device;
    // SAFETY: plain Vulkan use of the null driver; everything is destroyed below.
    unsafe {
        let timestamps = d
            .create_query_pool(
                &vk::QueryPoolCreateInfo::default()
                    .query_type(vk::QueryType::TIMESTAMP)
                    .query_count(2),
                None,
            )
            .unwrap();
        let occlusion = d
            .create_query_pool(
                &vk::QueryPoolCreateInfo::default()
                    .query_type(vk::QueryType::OCCLUSION)
                    .query_count(1),
                None,
            )
            .unwrap();
        let pool = d
            .create_command_pool(&vk::CommandPoolCreateInfo::default(), None)
            .unwrap();
        let cb = d
            .allocate_command_buffers(
                &vk::CommandBufferAllocateInfo::default()
                    .command_pool(pool)
                    .command_buffer_count(1),
            )
            .unwrap()[0];
        d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
            .unwrap();
        d.cmd_reset_query_pool(cb, timestamps, 0, 2);
        d.cmd_reset_query_pool(cb, occlusion, 0, 1);
        d.cmd_write_timestamp(cb, vk::PipelineStageFlags::TOP_OF_PIPE, timestamps, 0);
        d.cmd_write_timestamp2(cb, vk::PipelineStageFlags2::ALL_COMMANDS, timestamps, 1);
        d.cmd_begin_query(cb, occlusion, 0, vk::QueryControlFlags::empty());
        d.cmd_end_query(cb, occlusion, 0);
        d.end_command_buffer(cb).unwrap();

        let mut values = [7u64; 2];
        assert_eq!(
            d.get_query_pool_results(timestamps, 0, &mut values, vk::QueryResultFlags::TYPE_64),
            Err(vk::Result::NOT_READY),
            "nothing submitted yet"
        );
        let fence = d
            .create_fence(&vk::FenceCreateInfo::default(), None)
            .unwrap();
        let cbs = [cb];
        d.queue_submit(
            n.queue,
            &[vk::SubmitInfo::default().command_buffers(&cbs)],
            fence,
        )
        .unwrap();
        d.wait_for_fences(&[fence], true, u64::MAX).unwrap();
        let wait = vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT;
        d.get_query_pool_results(timestamps, 0, &mut values, wait)
            .unwrap();
        assert_eq!(values, [0, 0]);
        let mut occluded = [7u64; 1];
        d.get_query_pool_results(occlusion, 0, &mut occluded, wait)
            .unwrap();
        assert_eq!(occluded, [0]);

        d.destroy_fence(fence, None);
        d.destroy_command_pool(pool, None);
        d.destroy_query_pool(occlusion, None);
        d.destroy_query_pool(timestamps, None);
    }
}
