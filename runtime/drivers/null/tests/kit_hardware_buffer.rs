//! `AHardwareBuffer` on the runtime: the NDK functions over the gralloc (allocate, describe,
//! lock/lockPlanes/unlock with each 4:2:0 layout, references, handles, bad pointers), and the
//! kit's `VK_ANDROID_external_memory_android_hardware_buffer` on the null driver (which opts in
//! with `Kit::HARDWARE_BUFFERS`): the properties query and its errors, import and export with
//! the buffer's pages as the memory, the spec's import checks, the external-memory queries, and
//! fd counts that level.
//!
//! Tests that count fds share one mutex: libtest runs tests on parallel threads.

#![warn(clippy::undocumented_unsafe_blocks)]

use std::ffi::c_void;
use std::ptr;
use std::sync::Mutex;

use ash::vk;
use vkgen_driver::hardware_buffer::ndk::*;
use vkgen_driver::hardware_buffer::{
    format, usage, AHardwareBuffer, AHardwareBufferDesc, AHardwareBufferPlanes, ARect,
};
use vkgen_driver::kit::resources::{Dedicated, DeviceMemory, Image};
use vkgen_generated::driver::get_instance_proc_addr;
use vulkan_null::NullDriver;

static SERIAL: Mutex<()> = Mutex::new(());

fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").unwrap().count()
}

const CPU: u64 = usage::CPU_READ_OFTEN | usage::CPU_WRITE_OFTEN;

fn desc(width: u32, height: u32, fmt: u32, u: u64) -> AHardwareBufferDesc {
    AHardwareBufferDesc {
        width,
        height,
        layers: 1,
        format: fmt,
        usage: u,
        ..Default::default()
    }
}

fn allocate(d: &AHardwareBufferDesc) -> *mut AHardwareBuffer {
    let mut b = ptr::null_mut();
    // SAFETY: valid description and output pointer.
    assert_eq!(unsafe { AHardwareBuffer_allocate(d, &mut b) }, 0, "{d:?}");
    b
}

fn describe(b: *const AHardwareBuffer) -> AHardwareBufferDesc {
    let mut d = AHardwareBufferDesc::default();
    // SAFETY: a live buffer; valid output.
    unsafe { AHardwareBuffer_describe(b, &mut d) };
    d
}

fn release(b: *mut AHardwareBuffer) {
    // SAFETY: gives back a reference the test holds.
    unsafe { AHardwareBuffer_release(b) };
}

#[test]
fn allocate_describe_lock_and_share_through_the_handle() {
    let _serial = SERIAL.lock().unwrap();
    let before = open_fds();
    for _ in 0..200 {
        let b = allocate(&desc(
            33,
            7,
            format::R8G8B8A8_UNORM,
            CPU | usage::GPU_SAMPLED_IMAGE,
        ));
        let d = describe(b);
        assert_eq!((d.width, d.height, d.layers, d.format), (33, 7, 1, 1));
        assert_eq!(d.stride, 48, "rows padded to 64 bytes");
        let mut p: *mut c_void = ptr::null_mut();
        let (mut bpp, mut stride) = (0, 0);
        // SAFETY: a live buffer; -1 fence; valid outputs.
        let r = unsafe {
            AHardwareBuffer_lockAndGetInfo(
                b,
                usage::CPU_WRITE_OFTEN,
                -1,
                ptr::null(),
                &mut p,
                &mut bpp,
                &mut stride,
            )
        };
        assert_eq!((r, bpp, stride), (0, 4, 192));
        // SAFETY: the lock maps the whole buffer (stride 192 bytes × 7 rows).
        unsafe { p.cast::<u8>().add(192 * 6 + 4).write(0xAB) };
        let mut fence = 0;
        // SAFETY: locked above.
        assert_eq!(unsafe { AHardwareBuffer_unlock(b, &mut fence) }, 0);
        assert_eq!(fence, -1);
        // SAFETY: not locked any more.
        let r = unsafe { AHardwareBuffer_unlock(b, &mut fence) };
        assert_eq!(r, -libc::EINVAL);

        // Another buffer over the same handle sees the same memory and has the same id.
        // SAFETY: a live buffer.
        let handle = unsafe { AHardwareBuffer_getNativeHandle(b) };
        let mut clone = ptr::null_mut();
        // SAFETY: the handle is alive while `b` is; valid outputs.
        let r = unsafe { AHardwareBuffer_createFromHandle(&d, handle, 1, &mut clone) };
        assert_eq!(r, 0);
        let (mut id_a, mut id_b) = (0, 0);
        // SAFETY: live buffers; valid outputs.
        unsafe {
            assert_eq!(AHardwareBuffer_getId(b, &mut id_a), 0);
            assert_eq!(AHardwareBuffer_getId(clone, &mut id_b), 0);
        }
        assert_eq!(id_a, id_b);
        assert_ne!(id_a, 0);
        // SAFETY: a live buffer; -1 fence; valid output.
        let r =
            unsafe { AHardwareBuffer_lock(clone, usage::CPU_READ_OFTEN, -1, ptr::null(), &mut p) };
        assert_eq!(r, 0);
        // SAFETY: mapped by the lock.
        assert_eq!(unsafe { p.cast::<u8>().add(192 * 6 + 4).read() }, 0xAB);
        // SAFETY: locked above.
        assert_eq!(unsafe { AHardwareBuffer_unlock(clone, ptr::null_mut()) }, 0);
        release(clone);

        // References: acquire + release leaves the buffer alive until the last release.
        // SAFETY: a live buffer.
        unsafe { AHardwareBuffer_acquire(b) };
        release(b);
        assert_eq!(
            describe(b).width,
            33,
            "still alive after one of two releases"
        );
        release(b);
    }
    assert_eq!(open_fds(), before, "fds level after 200 buffers");
}

#[test]
fn lock_planes_gives_each_yuv_layout() {
    let _serial = SERIAL.lock().unwrap();
    for (fmt, cb_first, chroma_step) in [
        (format::Y8CB8CR8_420, true, 2),
        (format::YCRCB_420_SP, false, 2),
        (format::YV12, false, 1),
    ] {
        let b = allocate(&desc(64, 16, fmt, CPU | usage::GPU_SAMPLED_IMAGE));
        let mut planes = AHardwareBufferPlanes {
            plane_count: 0,
            planes: [vkgen_driver::hardware_buffer::AHardwareBufferPlane {
                data: ptr::null_mut(),
                pixel_stride: 0,
                row_stride: 0,
            }; 4],
        };
        // SAFETY: a live buffer; -1 fence; valid output.
        let r = unsafe {
            AHardwareBuffer_lockPlanes(b, usage::CPU_WRITE_OFTEN, -1, ptr::null(), &mut planes)
        };
        assert_eq!(r, 0);
        assert_eq!(planes.plane_count, 3, "{fmt:#x}");
        let [y, cb, cr, _] = planes.planes;
        let row = if chroma_step == 2 { 64 } else { 128 };
        assert_eq!((y.pixel_stride, y.row_stride), (1, row));
        assert_eq!(cb.pixel_stride, chroma_step);
        assert_eq!(cr.pixel_stride, chroma_step);
        let y_size = row as usize * 16;
        assert_eq!(
            (cb.data.min(cr.data) as usize) - (y.data as usize),
            y_size,
            "chroma follows luma"
        );
        if chroma_step == 2 {
            assert_eq!(cb.row_stride, 64);
            let d = cr.data as isize - cb.data as isize;
            assert_eq!(d, if cb_first { 1 } else { -1 });
        } else {
            // YV12: Cr plane first, rows of align(stride / 2, 16).
            assert_eq!(cb.row_stride, 64);
            assert_eq!(cb.data as usize - cr.data as usize, 64 * 8);
        }
        // SAFETY: locked above.
        assert_eq!(unsafe { AHardwareBuffer_unlock(b, ptr::null_mut()) }, 0);
        release(b);
    }
}

#[test]
fn unsupported_descriptions_and_bad_pointers_are_refused() {
    let _serial = SERIAL.lock().unwrap();
    let before = open_fds();
    let bad = [
        desc(0, 4, format::R8G8B8A8_UNORM, 0),
        desc(4, 4, 0x7777, 0),
        AHardwareBufferDesc {
            layers: 2,
            ..desc(4, 4, format::R8G8B8A8_UNORM, 0)
        },
        desc(3, 4, format::Y8CB8CR8_420, 0),
        desc(16, 2, format::BLOB, 0),
        desc(4, 4, format::R8G8B8A8_UNORM, usage::PROTECTED_CONTENT),
    ];
    for d in bad {
        // SAFETY: valid description.
        assert_eq!(unsafe { AHardwareBuffer_isSupported(&d) }, 0, "{d:?}");
        let mut b = ptr::null_mut();
        // SAFETY: valid description and output.
        let r = unsafe { AHardwareBuffer_allocate(&d, &mut b) };
        assert_eq!(r, -libc::EINVAL);
        assert!(b.is_null());
    }
    // SAFETY: valid description.
    let r = unsafe { AHardwareBuffer_isSupported(&desc(1 << 20, 1, format::BLOB, 0)) };
    assert_eq!(r, 1);
    // Pointers that are not buffers: null, unmapped, readable garbage.
    let garbage = [0x55u8; 512];
    for p in [
        ptr::null_mut(),
        0x10 as *mut AHardwareBuffer,
        garbage.as_ptr().cast_mut().cast(),
    ] {
        let mut id = 0;
        let mut out = ptr::null_mut();
        // SAFETY: the point of the test: every function checks the pointer first.
        unsafe {
            assert_eq!(AHardwareBuffer_getId(p, &mut id), -libc::EINVAL);
            assert!(AHardwareBuffer_getNativeHandle(p).is_null());
            assert_eq!(
                AHardwareBuffer_lock(p, usage::CPU_READ_OFTEN, -1, ptr::null(), &mut out),
                -libc::EINVAL
            );
            AHardwareBuffer_acquire(p);
            AHardwareBuffer_release(p);
        }
        assert_eq!(describe(p), AHardwareBufferDesc::default());
    }
    // A lock without CPU usage in the buffer, and one with a non-CPU usage, are refused; the
    // fence fd handed over is closed either way.
    let b = allocate(&desc(
        8,
        8,
        format::R8G8B8A8_UNORM,
        usage::GPU_SAMPLED_IMAGE,
    ));
    let mut out = ptr::null_mut();
    for u in [usage::CPU_READ_OFTEN, usage::GPU_SAMPLED_IMAGE] {
        let fence = rustix::event::eventfd(1, rustix::event::EventfdFlags::CLOEXEC).unwrap();
        // SAFETY: a live buffer; the fence fd is handed over.
        let r = unsafe {
            AHardwareBuffer_lock(
                b,
                u,
                std::os::fd::IntoRawFd::into_raw_fd(fence),
                ptr::null(),
                &mut out,
            )
        };
        assert_eq!(r, -libc::EINVAL);
    }
    release(b);
    assert_eq!(open_fds(), before);
}

/// Issue 25: as AOSP, a descriptor with non-zero reserved fields is refused (allocate answers
/// BAD_VALUE, isSupported 0), and so is a lock rectangle outside the buffer.
#[test]
fn reserved_fields_and_out_of_bounds_lock_rectangles_are_bad_values() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let good = desc(16, 8, format::R8G8B8A8_UNORM, CPU);
    for bad in [
        AHardwareBufferDesc { rfu0: 1, ..good },
        AHardwareBufferDesc {
            rfu1: 1 << 40,
            ..good
        },
    ] {
        let mut b = ptr::null_mut();
        assert_eq!(
            // SAFETY: valid description and output pointer.
            unsafe { AHardwareBuffer_allocate(&bad, &mut b) },
            -libc::EINVAL
        );
        assert!(b.is_null());
        // SAFETY: a valid description.
        assert_eq!(unsafe { AHardwareBuffer_isSupported(&bad) }, 0);
    }
    let b = allocate(&good);
    let rect = |left, top, right, bottom| ARect {
        left,
        top,
        right,
        bottom,
    };
    for r in [
        rect(-1, 0, 4, 4),
        rect(0, -1, 4, 4),
        rect(0, 0, 17, 8),
        rect(0, 0, 16, 9),
        rect(0, 0, i32::MAX, i32::MAX),
    ] {
        let mut out = ptr::null_mut();
        // SAFETY: a live buffer, a readable rectangle, a writable output.
        let res = unsafe { AHardwareBuffer_lock(b, usage::CPU_READ_OFTEN, -1, &r, &mut out) };
        assert_eq!(res, -libc::EINVAL, "{r:?}");
        let mut planes = AHardwareBufferPlanes {
            plane_count: 0,
            planes: [vkgen_driver::hardware_buffer::AHardwareBufferPlane {
                data: ptr::null_mut(),
                pixel_stride: 0,
                row_stride: 0,
            }; 4],
        };
        // SAFETY: a live buffer, a rectangle and an output on the stack.
        let res =
            unsafe { AHardwareBuffer_lockPlanes(b, usage::CPU_READ_OFTEN, -1, &r, &mut planes) };
        assert_eq!(res, -libc::EINVAL, "{r:?}");
    }
    for r in [rect(0, 0, 16, 8), rect(2, 3, 5, 4)] {
        let mut out = ptr::null_mut();
        // SAFETY: a live buffer, a readable rectangle, a writable output.
        let res = unsafe { AHardwareBuffer_lock(b, usage::CPU_READ_OFTEN, -1, &r, &mut out) };
        assert_eq!(res, 0, "{r:?}");
        // SAFETY: locked above.
        assert_eq!(unsafe { AHardwareBuffer_unlock(b, ptr::null_mut()) }, 0);
    }
    release(b);
}

struct Null {
    instance: ash::Instance,
    pd: vk::PhysicalDevice,
    device: ash::Device,
    ahb: ash::android::external_memory_android_hardware_buffer::Device,
}

impl Null {
    fn new() -> Self {
        // SAFETY: the generated GIPA of the null driver is a valid static entry point; plain
        // Vulkan use of the null driver follows.
        unsafe {
            let entry = ash::Entry::from_static_fn(ash::StaticFn {
                get_instance_proc_addr: get_instance_proc_addr::<NullDriver>,
            });
            let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_1);
            let instance = entry
                .create_instance(
                    &vk::InstanceCreateInfo::default().application_info(&app),
                    None,
                )
                .unwrap();
            let pd = instance.enumerate_physical_devices().unwrap()[0];
            let prio = [1.0];
            let qci = [vk::DeviceQueueCreateInfo::default().queue_priorities(&prio)];
            let names = [
                ash::ext::queue_family_foreign::NAME.as_ptr(),
                ash::android::external_memory_android_hardware_buffer::NAME.as_ptr(),
            ];
            let ci = vk::DeviceCreateInfo::default()
                .queue_create_infos(&qci)
                .enabled_extension_names(&names);
            let device = instance.create_device(pd, &ci, None).unwrap();
            Self {
                ahb: ash::android::external_memory_android_hardware_buffer::Device::new(
                    &instance, &device,
                ),
                instance,
                pd,
                device,
            }
        }
    }

    fn properties(
        &self,
        b: *const AHardwareBuffer,
    ) -> (
        vk::Result,
        vk::AndroidHardwareBufferPropertiesANDROID<'static>,
        vk::AndroidHardwareBufferFormatPropertiesANDROID<'static>,
    ) {
        let mut fmt = vk::AndroidHardwareBufferFormatPropertiesANDROID::default();
        let mut props = vk::AndroidHardwareBufferPropertiesANDROID {
            p_next: ptr::from_mut(&mut fmt).cast(),
            ..Default::default()
        };
        // SAFETY: any pointer is allowed by the driver (checked); valid output chain.
        let r = unsafe {
            (self.ahb.fp().get_android_hardware_buffer_properties_android)(
                self.device.handle(),
                b.cast(),
                &mut props,
            )
        };
        props.p_next = ptr::null_mut();
        (r, props, fmt)
    }

    fn image(&self, format: vk::Format, w: u32, h: u32, external_format: u64) -> vk::Image {
        let mut ext_fmt = vk::ExternalFormatANDROID::default().external_format(external_format);
        let mut ext = vk::ExternalMemoryImageCreateInfo::default()
            .handle_types(vk::ExternalMemoryHandleTypeFlags::ANDROID_HARDWARE_BUFFER_ANDROID);
        let ci = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(format)
            .extent(vk::Extent3D {
                width: w,
                height: h,
                depth: 1,
            })
            .mip_levels(1)
            .array_layers(1)
            .samples(vk::SampleCountFlags::TYPE_1)
            .usage(vk::ImageUsageFlags::SAMPLED | vk::ImageUsageFlags::TRANSFER_SRC)
            .push_next(&mut ext)
            .push_next(&mut ext_fmt);
        // SAFETY: a live device, valid create info.
        unsafe { self.device.create_image(&ci, None) }.unwrap()
    }

    fn import(
        &self,
        b: *mut AHardwareBuffer,
        image: vk::Image,
        size: u64,
    ) -> Result<vk::DeviceMemory, vk::Result> {
        let mut import = vk::ImportAndroidHardwareBufferInfoANDROID::default().buffer(b.cast());
        let mut dedicated = vk::MemoryDedicatedAllocateInfo::default().image(image);
        let info = vk::MemoryAllocateInfo::default()
            .allocation_size(size)
            .push_next(&mut import)
            .push_next(&mut dedicated);
        // SAFETY: a live device, valid allocate info.
        unsafe { self.device.allocate_memory(&info, None) }
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

#[test]
fn null_driver_properties_and_their_errors() {
    let _serial = SERIAL.lock().unwrap();
    let n = Null::new();
    let rgba = allocate(&desc(
        20,
        10,
        format::R8G8B8A8_UNORM,
        usage::GPU_SAMPLED_IMAGE,
    ));
    let (r, props, fmt) = n.properties(rgba);
    assert_eq!(r, vk::Result::SUCCESS);
    assert_eq!(props.allocation_size, 32 * 4 * 10);
    assert_eq!(props.memory_type_bits, 1);
    assert_eq!(fmt.format, vk::Format::R8G8B8A8_UNORM);
    assert_ne!(fmt.external_format, 0);
    assert!(fmt
        .format_features
        .contains(vk::FormatFeatureFlags::SAMPLED_IMAGE));
    assert_eq!(
        fmt.suggested_ycbcr_model,
        vk::SamplerYcbcrModelConversion::RGB_IDENTITY
    );

    let nv12 = allocate(&desc(
        64,
        32,
        format::Y8CB8CR8_420,
        usage::GPU_SAMPLED_IMAGE,
    ));
    let (r, props, fmt) = n.properties(nv12);
    assert_eq!(r, vk::Result::SUCCESS);
    assert_eq!(props.allocation_size, 64 * 32 * 3 / 2);
    assert_eq!(fmt.format, vk::Format::G8_B8R8_2PLANE_420_UNORM);
    assert_eq!(
        fmt.suggested_ycbcr_model,
        vk::SamplerYcbcrModelConversion::YCBCR_601
    );
    assert_eq!(fmt.suggested_ycbcr_range, vk::SamplerYcbcrRange::ITU_NARROW);
    let nv21 = allocate(&desc(
        64,
        32,
        format::YCRCB_420_SP,
        usage::GPU_SAMPLED_IMAGE,
    ));
    let (r, _, fmt) = n.properties(nv21);
    assert_eq!(r, vk::Result::SUCCESS);
    assert_eq!(fmt.format, vk::Format::UNDEFINED, "NV21 has no Vulkan name");
    assert_eq!(fmt.external_format, u64::from(format::YCRCB_420_SP));
    // Sampled as NV12's layout from its Cr sample: the conversion swaps Cb and Cr back.
    assert_eq!(
        (
            fmt.sampler_ycbcr_conversion_components.r,
            fmt.sampler_ycbcr_conversion_components.b
        ),
        (vk::ComponentSwizzle::B, vk::ComponentSwizzle::R)
    );

    // Usage without GPU access, and pointers that are not buffers.
    let cpu_only = allocate(&desc(8, 8, format::R8G8B8A8_UNORM, CPU));
    let garbage = [0x33u8; 256];
    for b in [
        cpu_only.cast_const(),
        ptr::null(),
        0x20 as *const AHardwareBuffer,
        garbage.as_ptr().cast(),
    ] {
        assert_eq!(
            n.properties(b).0,
            vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
            "{b:?}"
        );
    }
    for b in [rgba, nv12, nv21, cpu_only] {
        release(b);
    }

    // External-memory queries.
    let mut usage_out = vk::AndroidHardwareBufferUsageANDROID::default();
    let mut ext_props = vk::ExternalImageFormatProperties::default();
    let mut ext_info = vk::PhysicalDeviceExternalImageFormatInfo::default()
        .handle_type(vk::ExternalMemoryHandleTypeFlags::ANDROID_HARDWARE_BUFFER_ANDROID);
    let info = vk::PhysicalDeviceImageFormatInfo2::default()
        .format(vk::Format::R8G8B8A8_UNORM)
        .ty(vk::ImageType::TYPE_2D)
        .tiling(vk::ImageTiling::OPTIMAL)
        .usage(vk::ImageUsageFlags::SAMPLED | vk::ImageUsageFlags::COLOR_ATTACHMENT)
        .push_next(&mut ext_info);
    {
        let mut out = vk::ImageFormatProperties2::default()
            .push_next(&mut ext_props)
            .push_next(&mut usage_out);
        // SAFETY: valid structures.
        unsafe {
            n.instance
                .get_physical_device_image_format_properties2(n.pd, &info, &mut out)
        }
        .unwrap();
    }
    assert_eq!(
        usage_out.android_hardware_buffer_usage,
        usage::GPU_SAMPLED_IMAGE | usage::GPU_COLOR_OUTPUT
    );
    assert!(ext_props
        .external_memory_properties
        .external_memory_features
        .contains(
            vk::ExternalMemoryFeatureFlags::DEDICATED_ONLY
                | vk::ExternalMemoryFeatureFlags::IMPORTABLE
        ));
}

#[test]
fn null_driver_import_and_export_share_the_pages() {
    let _serial = SERIAL.lock().unwrap();
    let n = Null::new();
    let before = open_fds();
    for _ in 0..100 {
        // Import: the CPU's writes are the memory's contents.
        let b = allocate(&desc(
            16,
            4,
            format::R8G8B8A8_UNORM,
            CPU | usage::GPU_SAMPLED_IMAGE,
        ));
        let mut p: *mut c_void = ptr::null_mut();
        // SAFETY: a live buffer; -1 fence; valid output.
        let r = unsafe { AHardwareBuffer_lock(b, usage::CPU_WRITE_OFTEN, -1, ptr::null(), &mut p) };
        assert_eq!(r, 0);
        // SAFETY: 64 × 4 bytes are mapped.
        unsafe { ptr::write_bytes(p.cast::<u8>(), 0x5A, 64 * 4) };
        // SAFETY: locked above.
        assert_eq!(unsafe { AHardwareBuffer_unlock(b, ptr::null_mut()) }, 0);
        let image = n.image(vk::Format::R8G8B8A8_UNORM, 16, 4, 0);
        let size = n.properties(b).1.allocation_size;
        assert_eq!(
            n.import(b, image, size + 4096),
            Err(vk::Result::ERROR_INVALID_EXTERNAL_HANDLE),
            "allocationSize must be the buffer's"
        );
        assert_eq!(
            n.import(b, vk::Image::null(), size),
            Err(vk::Result::ERROR_INVALID_EXTERNAL_HANDLE),
            "only BLOBs import without a dedicated image"
        );
        let memory = n.import(b, image, size).unwrap();
        release(b); // the memory keeps its own reference
                    // SAFETY: live memory, host visible.
        let mapped = unsafe {
            n.device
                .map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
        }
        .unwrap();
        // SAFETY: the import covers 256 bytes.
        assert_eq!(unsafe { mapped.cast::<u8>().add(255).read() }, 0x5A);
        // The dedicated image binds to it (its requirements are the buffer's, not checked),
        // and an engine reads the buffer's pages through the kit's image.
        // SAFETY: a live image and the memory dedicated to it.
        unsafe { n.device.bind_image_memory(image, memory, 0) }.unwrap();
        // SAFETY: live kit objects of the null driver.
        let (kit_image, kit_memory) = unsafe {
            (
                Image::from_handle(image).unwrap(),
                DeviceMemory::from_handle(memory).unwrap(),
            )
        };
        assert_eq!(kit_memory.dedicated, Some(Dedicated::Image(image)));
        assert!(kit_memory.is_shared() && kit_memory.hardware_buffer().is_some());
        assert_eq!(kit_image.host_ptr(), Some(mapped.cast::<u8>()));
        // The memory's buffer is the same object.
        let info = vk::MemoryGetAndroidHardwareBufferInfoANDROID::default().memory(memory);
        // SAFETY: memory imported from a buffer.
        let again = unsafe { n.ahb.get_memory_android_hardware_buffer(&info) }.unwrap();
        assert_eq!(again.cast::<AHardwareBuffer>(), b);
        release(again.cast());
        // SAFETY: nothing uses them any more.
        unsafe {
            n.device.destroy_image(image, None);
            n.device.free_memory(memory, None);
        }

        // Export: a dedicated allocation gets a buffer described like the image.
        let image = n.image(vk::Format::R8G8B8A8_UNORM, 24, 6, 0);
        let mut export = vk::ExportMemoryAllocateInfo::default()
            .handle_types(vk::ExternalMemoryHandleTypeFlags::ANDROID_HARDWARE_BUFFER_ANDROID);
        let mut dedicated = vk::MemoryDedicatedAllocateInfo::default().image(image);
        let info = vk::MemoryAllocateInfo::default()
            .push_next(&mut export)
            .push_next(&mut dedicated);
        // SAFETY: a live device, valid allocate info.
        let memory = unsafe { n.device.allocate_memory(&info, None) }.unwrap();
        let get = vk::MemoryGetAndroidHardwareBufferInfoANDROID::default().memory(memory);
        // SAFETY: memory allocated for export.
        let b = unsafe { n.ahb.get_memory_android_hardware_buffer(&get) }
            .unwrap()
            .cast::<AHardwareBuffer>();
        let d = describe(b);
        assert_eq!(
            (d.width, d.height, d.format),
            (24, 6, format::R8G8B8A8_UNORM)
        );
        assert_eq!(d.usage, usage::GPU_SAMPLED_IMAGE);
        // SAFETY: live memory, host visible.
        let mapped = unsafe {
            n.device
                .map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
        }
        .unwrap();
        // SAFETY: 64 × 6 bytes of the exported buffer are the memory.
        unsafe { mapped.cast::<u8>().add(64 * 5).write(0x77) };
        // SAFETY: nothing uses them any more; the buffer outlives the memory.
        unsafe {
            n.device.destroy_image(image, None);
            n.device.free_memory(memory, None);
        }
        // The buffer is still readable through its own handle (no CPU usage: via an import).
        // SAFETY: `b` is alive (the reference from vkGetMemoryAndroidHardwareBufferANDROID).
        let handle = unsafe { AHardwareBuffer_getNativeHandle(b) };
        // SAFETY: a live handle.
        let mut g = unsafe { vkgen_driver::gralloc::Buffer::import(handle) }.unwrap();
        assert_eq!(g.map().unwrap().as_slice()[64 * 5], 0x77);
        drop(g);
        release(b);
    }
    assert_eq!(
        open_fds(),
        before,
        "fds level over 100 import/export cycles"
    );
}
