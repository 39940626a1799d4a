//! What the `AHardwareBuffer` interop test and benchmark share: the C camera producer and
//! `libnativewindow.so`, a Vulkan device with the extension through our loader, and the
//! 4:2:0 → RGBA conversion (a Y′CbCr conversion sampler where the device has one, else plane
//! views and a compute shader).
#![allow(dead_code)] // the test and the benchmark use different parts

use std::ffi::c_void;
use std::path::Path;
use std::process::Command;
use std::ptr;

use ash::vk;
use vkgen_tests::{paths, require};

pub const AHB_FORMAT_RGBA8: u32 = 1;
pub const AHB_FORMAT_NV12: u32 = 0x23;
pub const AHB_FORMAT_YV12: u32 = 0x3231_5659;
pub const AHB_FORMAT_NV21: u32 = 0x11;

type Produce = unsafe extern "C" fn(u32, u32, u32, u32, *mut *mut c_void) -> i32;
type Pixel = unsafe extern "C" fn(u32, u32, u32) -> u8;
type Release = unsafe extern "C" fn(*mut c_void);
type Allocate = unsafe extern "C" fn(*const [u32; 10], *mut *mut c_void) -> i32;

/// The C producer and `libnativewindow.so`, loaded.
pub struct Ndk {
    pub _nativewindow: libloading::Library,
    pub producer: libloading::Library,
    pub release: Release,
    pub allocate: Allocate,
}

impl Ndk {
    pub fn load(dir: &Path) -> Self {
        let lib = paths::profile_dir().join("libnativewindow.so");
        assert!(lib.is_file(), "{} not built", lib.display());
        let include = paths::workspace_root().join("runtime/nativewindow/include");
        let source = paths::workspace_root().join("tests/fixtures/camera_producer.c");
        let out = dir.join("libcamera_producer.so");
        let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
        let status = Command::new(&cc)
            .args(["-std=c11", "-Wall", "-Werror", "-shared", "-fPIC", "-o"])
            .arg(&out)
            .arg(&source)
            .arg("-I")
            .arg(&include)
            .arg("-L")
            .arg(paths::profile_dir())
            .arg("-lnativewindow")
            .arg(format!("-Wl,-rpath,{}", paths::profile_dir().display()))
            .status()
            .expect("run the C compiler");
        assert!(status.success(), "compiling the camera producer failed");
        // SAFETY: our own libraries; their initialisers do nothing unusual.
        unsafe {
            let nativewindow = libloading::Library::new(&lib).unwrap();
            let producer = libloading::Library::new(&out).unwrap();
            let release = *nativewindow
                .get::<Release>(b"AHardwareBuffer_release\0")
                .unwrap();
            let allocate = *nativewindow
                .get::<Allocate>(b"AHardwareBuffer_allocate\0")
                .unwrap();
            Self {
                _nativewindow: nativewindow,
                producer,
                release,
                allocate,
            }
        }
    }

    pub fn produce(&self, w: u32, h: u32, format: u32, frame: u32) -> *mut c_void {
        let mut out = ptr::null_mut();
        // SAFETY: the producer's C function with valid arguments.
        let r = unsafe {
            let f = self.producer.get::<Produce>(b"camera_produce\0").unwrap();
            f(w, h, format, frame, &mut out)
        };
        assert_eq!(r, 0, "camera_produce");
        out
    }

    pub fn pixel(&self, name: &[u8], a: u32, b: u32, f: u32) -> u8 {
        // SAFETY: one of the producer's pure functions.
        unsafe { self.producer.get::<Pixel>(name).unwrap()(a, b, f) }
    }

    pub fn allocate(&self, w: u32, h: u32, format: u32, usage: u64) -> *mut c_void {
        // AHardwareBuffer_Desc as u32 words: width, height, layers, format, usage lo/hi, ...
        let desc = [
            w,
            h,
            1,
            format,
            usage as u32,
            (usage >> 32) as u32,
            0,
            0,
            0,
            0,
        ];
        let mut out = ptr::null_mut();
        // SAFETY: a valid description and output pointer.
        assert_eq!(unsafe { (self.allocate)(&desc, &mut out) }, 0);
        out
    }

    pub fn release(&self, b: *mut c_void) {
        // SAFETY: a reference the test holds.
        unsafe { (self.release)(b) }
    }
}

/// The frame the producer writes, converted on the CPU (BT.601 narrow, chroma at (x/2, y/2)).
pub fn reference(ndk: &Ndk, w: u32, h: u32, frame: u32) -> Vec<[u8; 3]> {
    let mut out = Vec::new();
    for y in 0..h {
        for x in 0..w {
            let (luma, cb, cr) = (
                ndk.pixel(b"camera_y\0", x, y, frame),
                ndk.pixel(b"camera_cb\0", x / 2, y / 2, frame),
                ndk.pixel(b"camera_cr\0", x / 2, y / 2, frame),
            );
            out.push(vkgen_window::frame::ycbcr601_to_rgb8(luma, cb, cr));
        }
    }
    out
}

pub struct Vk {
    pub _entry: ash::Entry,
    pub instance: ash::Instance,
    pub pd: vk::PhysicalDevice,
    pub device: ash::Device,
    pub queue: vk::Queue,
    pub family: u32,
    pub ahb: ash::android::external_memory_android_hardware_buffer::Device,
    pub ycbcr: bool,
    /// `VK_KHR_synchronization2`'s commands, where [`Vk::with_sync2`] enabled it.
    pub sync2: Option<ash::khr::synchronization2::Device>,
}

impl Vk {
    pub fn new(loader: &Path) -> Self {
        Self::with_sync2(loader, false)
    }

    /// `sync2`: with `VK_KHR_synchronization2` (its barriers take the other path through the
    /// host driver).
    pub fn with_sync2(loader: &Path, sync2: bool) -> Self {
        let entry = require(vkgen_tests::compute::load_entry(loader));
        let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_1);
        // SAFETY: plain Vulkan use with valid structures throughout.
        unsafe {
            let instance = entry
                .create_instance(
                    &vk::InstanceCreateInfo::default().application_info(&app),
                    None,
                )
                .unwrap();
            let pd = instance.enumerate_physical_devices().unwrap()[0];
            let exts: Vec<String> = instance
                .enumerate_device_extension_properties(pd)
                .unwrap()
                .iter()
                .map(|e| {
                    e.extension_name_as_c_str()
                        .unwrap()
                        .to_string_lossy()
                        .into_owned()
                })
                .collect();
            for needed in [
                "VK_ANDROID_external_memory_android_hardware_buffer",
                "VK_EXT_queue_family_foreign",
            ] {
                assert!(
                    exts.iter().any(|e| e == needed),
                    "the loader passes {needed} through: {exts:?}"
                );
            }
            let mut ycbcr_features = vk::PhysicalDeviceSamplerYcbcrConversionFeatures::default();
            let mut f2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut ycbcr_features);
            instance.get_physical_device_features2(pd, &mut f2);
            let ycbcr = ycbcr_features.sampler_ycbcr_conversion == vk::TRUE
                && std::env::var_os("VKGEN_AHB_NO_YCBCR").is_none();
            let family = instance
                .get_physical_device_queue_family_properties(pd)
                .iter()
                .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE))
                .unwrap() as u32;
            let prio = [1.0];
            let qci = [vk::DeviceQueueCreateInfo::default()
                .queue_family_index(family)
                .queue_priorities(&prio)];
            let mut names = vec![
                ash::android::external_memory_android_hardware_buffer::NAME.as_ptr(),
                ash::ext::queue_family_foreign::NAME.as_ptr(),
            ];
            if sync2 {
                names.push(ash::khr::synchronization2::NAME.as_ptr());
            }
            let mut enable = vk::PhysicalDeviceSamplerYcbcrConversionFeatures::default()
                .sampler_ycbcr_conversion(ycbcr);
            let mut enable_sync2 =
                vk::PhysicalDeviceSynchronization2Features::default().synchronization2(true);
            let ci = vk::DeviceCreateInfo::default()
                .queue_create_infos(&qci)
                .enabled_extension_names(&names)
                .push_next(&mut enable);
            let ci = if sync2 {
                ci.push_next(&mut enable_sync2)
            } else {
                ci
            };
            let device = instance.create_device(pd, &ci, None).unwrap();
            for cmd in [
                c"vkGetAndroidHardwareBufferPropertiesANDROID",
                c"vkGetMemoryAndroidHardwareBufferANDROID",
            ] {
                assert!(
                    instance
                        .get_device_proc_addr(device.handle(), cmd.as_ptr())
                        .is_some(),
                    "{cmd:?} reachable through the loader"
                );
            }
            let queue = device.get_device_queue(family, 0);
            let sync2 = sync2.then(|| ash::khr::synchronization2::Device::new(&instance, &device));
            Self {
                ahb: ash::android::external_memory_android_hardware_buffer::Device::new(
                    &instance, &device,
                ),
                _entry: entry,
                instance,
                pd,
                device,
                queue,
                family,
                ycbcr,
                sync2,
            }
        }
    }

    /// An image barrier, through `vkCmdPipelineBarrier2KHR` where [`Vk::sync2`] is on.
    pub fn image_barrier(
        &self,
        cb: vk::CommandBuffer,
        (src_stage, dst_stage): (vk::PipelineStageFlags, vk::PipelineStageFlags),
        barrier: vk::ImageMemoryBarrier<'_>,
    ) {
        // SAFETY: a recording command buffer; a valid barrier.
        unsafe {
            match &self.sync2 {
                Some(s2) => {
                    let b2 = [vk::ImageMemoryBarrier2::default()
                        .src_stage_mask(vk::PipelineStageFlags2::from_raw(u64::from(
                            src_stage.as_raw(),
                        )))
                        .dst_stage_mask(vk::PipelineStageFlags2::from_raw(u64::from(
                            dst_stage.as_raw(),
                        )))
                        .src_access_mask(vk::AccessFlags2::from_raw(u64::from(
                            barrier.src_access_mask.as_raw(),
                        )))
                        .dst_access_mask(vk::AccessFlags2::from_raw(u64::from(
                            barrier.dst_access_mask.as_raw(),
                        )))
                        .old_layout(barrier.old_layout)
                        .new_layout(barrier.new_layout)
                        .src_queue_family_index(barrier.src_queue_family_index)
                        .dst_queue_family_index(barrier.dst_queue_family_index)
                        .image(barrier.image)
                        .subresource_range(barrier.subresource_range)];
                    s2.cmd_pipeline_barrier2(
                        cb,
                        &vk::DependencyInfo::default().image_memory_barriers(&b2),
                    );
                }
                None => self.device.cmd_pipeline_barrier(
                    cb,
                    src_stage,
                    dst_stage,
                    vk::DependencyFlags::empty(),
                    &[],
                    &[],
                    &[barrier],
                ),
            }
        }
    }

    pub fn properties(
        &self,
        b: *const c_void,
    ) -> Result<
        (
            vk::AndroidHardwareBufferPropertiesANDROID<'static>,
            vk::AndroidHardwareBufferFormatPropertiesANDROID<'static>,
        ),
        vk::Result,
    > {
        let mut fmt = vk::AndroidHardwareBufferFormatPropertiesANDROID::default();
        let mut props = vk::AndroidHardwareBufferPropertiesANDROID {
            p_next: ptr::from_mut(&mut fmt).cast(),
            ..Default::default()
        };
        // SAFETY: any pointer is checked by the driver; valid output chain.
        let r = unsafe {
            (self.ahb.fp().get_android_hardware_buffer_properties_android)(
                self.device.handle(),
                b.cast(),
                &mut props,
            )
        };
        props.p_next = ptr::null_mut();
        match r {
            vk::Result::SUCCESS => Ok((props, fmt)),
            e => Err(e),
        }
    }

    /// An image with the handle type, imported from `b` (dedicated) and bound.
    pub fn import_image(
        &self,
        b: *mut c_void,
        format: vk::Format,
        (w, h): (u32, u32),
        usage: vk::ImageUsageFlags,
        flags: vk::ImageCreateFlags,
    ) -> (vk::Image, vk::DeviceMemory) {
        let (props, fmt) = self.properties(b).expect("properties");
        assert_eq!(fmt.format, format);
        // An external format (format UNDEFINED) is named by the buffer's.
        let external = if format == vk::Format::UNDEFINED {
            fmt.external_format
        } else {
            0
        };
        let image = self.external_image_of(format, external, (w, h), usage, flags);
        let mut import = vk::ImportAndroidHardwareBufferInfoANDROID::default().buffer(b.cast());
        let mut dedicated = vk::MemoryDedicatedAllocateInfo::default().image(image);
        let info = vk::MemoryAllocateInfo::default()
            .allocation_size(props.allocation_size)
            .memory_type_index(props.memory_type_bits.trailing_zeros())
            .push_next(&mut import)
            .push_next(&mut dedicated);
        // SAFETY: valid structures; the memory is bound once.
        unsafe {
            let memory = self.device.allocate_memory(&info, None).expect("import");
            self.device.bind_image_memory(image, memory, 0).unwrap();
            (image, memory)
        }
    }

    pub fn external_image(
        &self,
        format: vk::Format,
        extent: (u32, u32),
        usage: vk::ImageUsageFlags,
        flags: vk::ImageCreateFlags,
    ) -> vk::Image {
        self.external_image_of(format, 0, extent, usage, flags)
    }

    /// [`Vk::external_image`], with `VkExternalFormatANDROID` when `external` is not 0.
    pub fn external_image_of(
        &self,
        format: vk::Format,
        external: u64,
        (w, h): (u32, u32),
        usage: vk::ImageUsageFlags,
        flags: vk::ImageCreateFlags,
    ) -> vk::Image {
        let mut ext = vk::ExternalMemoryImageCreateInfo::default()
            .handle_types(vk::ExternalMemoryHandleTypeFlags::ANDROID_HARDWARE_BUFFER_ANDROID);
        let mut external_format = vk::ExternalFormatANDROID::default().external_format(external);
        let ci = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(format)
            .flags(flags)
            .extent(vk::Extent3D {
                width: w,
                height: h,
                depth: 1,
            })
            .mip_levels(1)
            .array_layers(1)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage)
            .push_next(&mut ext);
        let ci = if external != 0 {
            ci.push_next(&mut external_format)
        } else {
            ci
        };
        // SAFETY: valid create info.
        unsafe { self.device.create_image(&ci, None) }.expect("external image")
    }

    /// A mapped host-visible buffer (see `vkgen_tests::compute::mapped_host_buffer`).
    pub fn host_buffer(
        &self,
        size: u64,
        usage: vk::BufferUsageFlags,
    ) -> (vk::Buffer, vk::DeviceMemory, *mut u8) {
        // SAFETY: our own instance, physical device and device.
        require(unsafe {
            vkgen_tests::compute::mapped_host_buffer(
                &self.instance,
                self.pd,
                &self.device,
                size,
                usage,
            )
        })
    }

    /// A device-local memory type among `bits`, else the first of them.
    pub fn device_local_type(&self, bits: u32) -> u32 {
        // SAFETY: a core query on our own physical device.
        let types = unsafe { self.instance.get_physical_device_memory_properties(self.pd) };
        (0..types.memory_type_count)
            .find(|&i| {
                bits & (1 << i) != 0
                    && types.memory_types[i as usize]
                        .property_flags
                        .contains(vk::MemoryPropertyFlags::DEVICE_LOCAL)
            })
            .unwrap_or(bits.trailing_zeros())
    }

    /// A device-local buffer (no mapping: the pointer is null).
    pub fn device_buffer(
        &self,
        size: u64,
        usage: vk::BufferUsageFlags,
    ) -> (vk::Buffer, vk::DeviceMemory, *mut u8) {
        // SAFETY: plain Vulkan calls on our device; the caller destroys what it gets.
        unsafe {
            let buffer = self
                .device
                .create_buffer(
                    &vk::BufferCreateInfo::default().size(size).usage(usage),
                    None,
                )
                .unwrap();
            let reqs = self.device.get_buffer_memory_requirements(buffer);
            let index = self.device_local_type(reqs.memory_type_bits);
            let memory = self
                .device
                .allocate_memory(
                    &vk::MemoryAllocateInfo::default()
                        .allocation_size(reqs.size)
                        .memory_type_index(index),
                    None,
                )
                .unwrap();
            self.device.bind_buffer_memory(buffer, memory, 0).unwrap();
            (buffer, memory, ptr::null_mut())
        }
    }

    /// Records with `record`, submits, waits.
    pub fn run(&self, record: impl FnOnce(vk::CommandBuffer)) {
        // SAFETY: plain command recording and submission, waited for before returning.
        unsafe {
            let pool = self
                .device
                .create_command_pool(
                    &vk::CommandPoolCreateInfo::default().queue_family_index(self.family),
                    None,
                )
                .unwrap();
            let cb = self
                .device
                .allocate_command_buffers(
                    &vk::CommandBufferAllocateInfo::default()
                        .command_pool(pool)
                        .command_buffer_count(1),
                )
                .unwrap()[0];
            self.device
                .begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
                .unwrap();
            record(cb);
            self.device.end_command_buffer(cb).unwrap();
            let cbs = [cb];
            self.device
                .queue_submit(
                    self.queue,
                    &[vk::SubmitInfo::default().command_buffers(&cbs)],
                    vk::Fence::null(),
                )
                .unwrap();
            self.device.queue_wait_idle(self.queue).unwrap();
            self.device.destroy_command_pool(pool, None);
        }
    }

    /// Acquires `image` from the foreign producer into `layout`.
    pub fn acquire_from_foreign(
        &self,
        cb: vk::CommandBuffer,
        image: vk::Image,
        layout: vk::ImageLayout,
    ) {
        let barrier = vk::ImageMemoryBarrier::default()
            .src_queue_family_index(vk::QUEUE_FAMILY_FOREIGN_EXT)
            .dst_queue_family_index(self.family)
            .old_layout(vk::ImageLayout::UNDEFINED)
            .new_layout(layout)
            .dst_access_mask(vk::AccessFlags::SHADER_READ | vk::AccessFlags::TRANSFER_READ)
            .image(image)
            .subresource_range(vk::ImageSubresourceRange {
                aspect_mask: vk::ImageAspectFlags::COLOR,
                level_count: 1,
                layer_count: 1,
                ..Default::default()
            });
        self.image_barrier(
            cb,
            (
                vk::PipelineStageFlags::TOP_OF_PIPE,
                vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::TRANSFER,
            ),
            barrier,
        );
    }
}

impl Drop for Vk {
    fn drop(&mut self) {
        // SAFETY: the tests destroy what they create first.
        unsafe {
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}

/// Converts a 4:2:0 image to RGBA on the device: a conversion sampler where the device has
/// one, else plane views and the shader's own BT.601.
pub fn convert(
    vk: &Vk,
    image: vk::Image,
    format: vk::Format,
    fmt: &vk::AndroidHardwareBufferFormatPropertiesANDROID<'_>,
    (w, h): (u32, u32),
) -> Vec<[u8; 3]> {
    let c = Converter::new(vk, image, format, fmt, (w, h));
    vk.run(|cb| c.record(cb));
    c.pixels()
}

/// The conversion pass of [`convert`], built once: [`Converter::record`] records the acquire
/// from the foreign producer and the dispatch; the RGBA result lands in a mapped buffer.
pub struct Converter<'a> {
    vk: &'a Vk,
    image: vk::Image,
    extent: (u32, u32),
    conversion: vk::SamplerYcbcrConversion,
    sampler: vk::Sampler,
    views: Vec<vk::ImageView>,
    set_layout: vk::DescriptorSetLayout,
    layout: vk::PipelineLayout,
    module: vk::ShaderModule,
    pipeline: vk::Pipeline,
    pool: vk::DescriptorPool,
    set: vk::DescriptorSet,
    push: Vec<u8>,
    out: vk::Buffer,
    out_mem: vk::DeviceMemory,
    mapped: *mut u8,
}

impl<'a> Converter<'a> {
    /// Writes a mapped host buffer ([`Converter::pixels`]).
    pub fn new(
        vk: &'a Vk,
        image: vk::Image,
        format: vk::Format,
        fmt: &vk::AndroidHardwareBufferFormatPropertiesANDROID<'_>,
        extent: (u32, u32),
    ) -> Self {
        Self::with_output(vk, image, format, fmt, extent, false)
    }

    /// `device_local`: the RGBA result goes to device-local memory instead (not readable
    /// back; what a renderer consuming the frame would do, and what the benchmark times).
    pub fn with_output(
        vk: &'a Vk,
        image: vk::Image,
        format: vk::Format,
        fmt: &vk::AndroidHardwareBufferFormatPropertiesANDROID<'_>,
        (w, h): (u32, u32),
        device_local: bool,
    ) -> Self {
        let d = &vk.device;
        let size = u64::from(w * h * 4);
        let (out, out_mem, mapped) = if device_local {
            vk.device_buffer(size, vk::BufferUsageFlags::STORAGE_BUFFER)
        } else {
            vk.host_buffer(size, vk::BufferUsageFlags::STORAGE_BUFFER)
        };
        // SAFETY: plain Vulkan objects, destroyed at the end of this function.
        unsafe {
            let mut conversion = vk::SamplerYcbcrConversion::null();
            let mut views = Vec::new();
            let sampler_ci = vk::SamplerCreateInfo::default()
                .mag_filter(vk::Filter::NEAREST)
                .min_filter(vk::Filter::NEAREST)
                .address_mode_u(vk::SamplerAddressMode::CLAMP_TO_EDGE)
                .address_mode_v(vk::SamplerAddressMode::CLAMP_TO_EDGE)
                .address_mode_w(vk::SamplerAddressMode::CLAMP_TO_EDGE);
            let sampler;
            let shader;
            if vk.ycbcr {
                let ci = vk::SamplerYcbcrConversionCreateInfo::default()
                    .format(format)
                    .ycbcr_model(fmt.suggested_ycbcr_model)
                    .ycbcr_range(fmt.suggested_ycbcr_range)
                    .components(fmt.sampler_ycbcr_conversion_components)
                    .x_chroma_offset(fmt.suggested_x_chroma_offset)
                    .y_chroma_offset(fmt.suggested_y_chroma_offset)
                    .chroma_filter(vk::Filter::NEAREST);
                let mut external =
                    vk::ExternalFormatANDROID::default().external_format(fmt.external_format);
                let ci = if format == vk::Format::UNDEFINED {
                    ci.push_next(&mut external)
                } else {
                    ci
                };
                conversion = d.create_sampler_ycbcr_conversion(&ci, None).unwrap();
                let mut info = vk::SamplerYcbcrConversionInfo::default().conversion(conversion);
                sampler = d
                    .create_sampler(&sampler_ci.push_next(&mut info), None)
                    .unwrap();
                let mut info = vk::SamplerYcbcrConversionInfo::default().conversion(conversion);
                let view = d
                    .create_image_view(
                        &vk::ImageViewCreateInfo::default()
                            .image(image)
                            .view_type(vk::ImageViewType::TYPE_2D)
                            .format(format)
                            .subresource_range(vk::ImageSubresourceRange {
                                aspect_mask: vk::ImageAspectFlags::COLOR,
                                level_count: 1,
                                layer_count: 1,
                                ..Default::default()
                            })
                            .push_next(&mut info),
                        None,
                    )
                    .unwrap();
                views = vec![view];
                shader = paths::shader("ycbcr_sample.comp");
            } else {
                sampler = d.create_sampler(&sampler_ci, None).unwrap();
                let planes: &[(vk::ImageAspectFlags, vk::Format)] =
                    if format == vk::Format::G8_B8R8_2PLANE_420_UNORM {
                        &[
                            (vk::ImageAspectFlags::PLANE_0, vk::Format::R8_UNORM),
                            (vk::ImageAspectFlags::PLANE_1, vk::Format::R8G8_UNORM),
                        ]
                    } else {
                        &[
                            (vk::ImageAspectFlags::PLANE_0, vk::Format::R8_UNORM),
                            (vk::ImageAspectFlags::PLANE_1, vk::Format::R8_UNORM),
                            (vk::ImageAspectFlags::PLANE_2, vk::Format::R8_UNORM),
                        ]
                    };
                for &(aspect, f) in planes {
                    views.push(
                        d.create_image_view(
                            &vk::ImageViewCreateInfo::default()
                                .image(image)
                                .view_type(vk::ImageViewType::TYPE_2D)
                                .format(f)
                                .subresource_range(vk::ImageSubresourceRange {
                                    aspect_mask: aspect,
                                    level_count: 1,
                                    layer_count: 1,
                                    ..Default::default()
                                }),
                            None,
                        )
                        .unwrap(),
                    );
                }
                shader = paths::shader("planes_to_rgba.comp");
            }
            let immutable = [sampler];
            let n_images = if vk.ycbcr { 1 } else { 3 };
            let mut bindings: Vec<vk::DescriptorSetLayoutBinding<'_>> = (0..n_images)
                .map(|i| {
                    let b = vk::DescriptorSetLayoutBinding::default()
                        .binding(i)
                        .descriptor_type(vk::DescriptorType::COMBINED_IMAGE_SAMPLER)
                        .descriptor_count(1)
                        .stage_flags(vk::ShaderStageFlags::COMPUTE);
                    if vk.ycbcr {
                        b.immutable_samplers(&immutable)
                    } else {
                        b
                    }
                })
                .collect();
            bindings.push(
                vk::DescriptorSetLayoutBinding::default()
                    .binding(3)
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .descriptor_count(1)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE),
            );
            let set_layout = d
                .create_descriptor_set_layout(
                    &vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings),
                    None,
                )
                .unwrap();
            let ranges = [vk::PushConstantRange::default()
                .stage_flags(vk::ShaderStageFlags::COMPUTE)
                .size(12)];
            let layouts = [set_layout];
            let layout = d
                .create_pipeline_layout(
                    &vk::PipelineLayoutCreateInfo::default()
                        .set_layouts(&layouts)
                        .push_constant_ranges(&ranges),
                    None,
                )
                .unwrap();
            let module = d
                .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&shader), None)
                .unwrap();
            let stage = vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::COMPUTE)
                .module(module)
                .name(c"main");
            let pipeline = d
                .create_compute_pipelines(
                    vk::PipelineCache::null(),
                    &[vk::ComputePipelineCreateInfo::default()
                        .stage(stage)
                        .layout(layout)],
                    None,
                )
                .unwrap()[0];
            let pool_sizes = [
                vk::DescriptorPoolSize {
                    ty: vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
                    descriptor_count: 3,
                },
                vk::DescriptorPoolSize {
                    ty: vk::DescriptorType::STORAGE_BUFFER,
                    descriptor_count: 1,
                },
            ];
            let pool = d
                .create_descriptor_pool(
                    &vk::DescriptorPoolCreateInfo::default()
                        .max_sets(1)
                        .pool_sizes(&pool_sizes),
                    None,
                )
                .unwrap();
            let set = d
                .allocate_descriptor_sets(
                    &vk::DescriptorSetAllocateInfo::default()
                        .descriptor_pool(pool)
                        .set_layouts(&layouts),
                )
                .unwrap()[0];
            let image_infos: Vec<[vk::DescriptorImageInfo; 1]> = (0..n_images as usize)
                .map(|i| {
                    // NV12's interleaved chroma serves bindings 1 and 2.
                    let view = views[i.min(views.len() - 1)];
                    [vk::DescriptorImageInfo::default()
                        .sampler(sampler)
                        .image_view(view)
                        .image_layout(vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL)]
                })
                .collect();
            let buffer_info = [vk::DescriptorBufferInfo::default()
                .buffer(out)
                .range(vk::WHOLE_SIZE)];
            let mut writes: Vec<vk::WriteDescriptorSet<'_>> = image_infos
                .iter()
                .enumerate()
                .map(|(i, info)| {
                    vk::WriteDescriptorSet::default()
                        .dst_set(set)
                        .dst_binding(i as u32)
                        .descriptor_type(vk::DescriptorType::COMBINED_IMAGE_SAMPLER)
                        .image_info(info)
                })
                .collect();
            writes.push(
                vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(3)
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .buffer_info(&buffer_info),
            );
            d.update_descriptor_sets(&writes, &[]);
            let interleaved = u32::from(format == vk::Format::G8_B8R8_2PLANE_420_UNORM);
            let push: Vec<u8> = [w, h, interleaved]
                .iter()
                .flat_map(|v| v.to_le_bytes())
                .collect();
            Self {
                vk,
                image,
                extent: (w, h),
                conversion,
                sampler,
                views,
                set_layout,
                layout,
                module,
                pipeline,
                pool,
                set,
                push,
                out,
                out_mem,
                mapped,
            }
        }
    }

    /// Records the acquire from the foreign producer and the conversion.
    pub fn record(&self, cb: vk::CommandBuffer) {
        self.vk
            .acquire_from_foreign(cb, self.image, vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL);
        self.record_dispatch(cb);
    }

    /// Records the conversion alone (the image acquired already).
    pub fn record_dispatch(&self, cb: vk::CommandBuffer) {
        let d = &self.vk.device;
        let (w, h) = self.extent;
        // SAFETY: a recording command buffer; our own pipeline and set.
        unsafe {
            d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, self.pipeline);
            d.cmd_bind_descriptor_sets(
                cb,
                vk::PipelineBindPoint::COMPUTE,
                self.layout,
                0,
                &[self.set],
                &[],
            );
            d.cmd_push_constants(
                cb,
                self.layout,
                vk::ShaderStageFlags::COMPUTE,
                0,
                &self.push,
            );
            d.cmd_dispatch(cb, w.div_ceil(8), h.div_ceil(8), 1);
        }
    }

    /// The converted pixels (after a recorded conversion completed).
    pub fn pixels(&self) -> Vec<[u8; 3]> {
        assert!(
            !self.mapped.is_null(),
            "a device-local output is not readable"
        );
        let (w, h) = self.extent;
        // SAFETY: the mapped output buffer of `w * h` RGBA pixels, written by the GPU and waited
        // for by the caller.
        let bytes = unsafe { std::slice::from_raw_parts(self.mapped, (w * h * 4) as usize) };
        bytes.chunks_exact(4).map(|c| [c[0], c[1], c[2]]).collect()
    }
}

impl Drop for Converter<'_> {
    fn drop(&mut self) {
        let d = &self.vk.device;
        // SAFETY: our own objects; the caller waited for every use.
        unsafe {
            d.destroy_descriptor_pool(self.pool, None);
            d.destroy_pipeline(self.pipeline, None);
            d.destroy_shader_module(self.module, None);
            d.destroy_pipeline_layout(self.layout, None);
            d.destroy_descriptor_set_layout(self.set_layout, None);
            for &v in &self.views {
                d.destroy_image_view(v, None);
            }
            d.destroy_sampler(self.sampler, None);
            if self.conversion != vk::SamplerYcbcrConversion::null() {
                d.destroy_sampler_ycbcr_conversion(self.conversion, None);
            }
            d.destroy_buffer(self.out, None);
            d.free_memory(self.out_mem, None);
        }
    }
}
