//! Android's Vulkan 1.1 interop through our loader and `vulkan.host.so` (HAL) on the host ICD
//! (lavapipe in CI): `AHardwareBuffer` memory, 4:2:0 frames, and the loader passing the
//! driver extension through.
//!
//! 1. A camera-like producer written in C against `android/hardware_buffer.h` (built here with
//!    the system compiler against vkgen's header and `libnativewindow.so`) writes NV12 and YV12
//!    frames into `AHardwareBuffer`s from the CPU; the Vulkan consumer imports each buffer
//!    (dedicated, the format from `vkGetAndroidHardwareBufferPropertiesANDROID`), converts it
//!    to RGBA — through a Y′CbCr conversion sampler with the suggested model, range and chroma
//!    offsets where the device has `samplerYcbcrConversion`, else through per-plane views
//!    (`R8`, `R8G8`) and a compute shader — and reads back: every pixel within 1 LSB of the CPU
//!    reference.
//! 2. Export → import: an RGBA image cleared by the GPU on one instance's device is exported as
//!    an `AHardwareBuffer` and imported on a second instance's device; the contents arrive.
//! 3. The properties query refuses a buffer without GPU usage and pointers that are not buffers
//!    with `VK_ERROR_INVALID_EXTERNAL_HANDLE`; an import of the wrong size likewise.
//!
//! `VKGEN_AHB_ICD` names another host ICD manifest (the GPU run uses NVIDIA's).

mod wsi_support;

use std::ffi::c_void;
use std::path::Path;
use std::process::Command;
use std::ptr;

use ash::vk;
use vkgen_tests::env::in_child;
use vkgen_tests::{paths, require};

const AHB_FORMAT_RGBA8: u32 = 1;
const AHB_FORMAT_NV12: u32 = 0x23;
const AHB_FORMAT_YV12: u32 = 0x3231_5659;

type Produce = unsafe extern "C" fn(u32, u32, u32, u32, *mut *mut c_void) -> i32;
type Pixel = unsafe extern "C" fn(u32, u32, u32) -> u8;
type Release = unsafe extern "C" fn(*mut c_void);
type Allocate = unsafe extern "C" fn(*const [u32; 10], *mut *mut c_void) -> i32;

/// The C producer and `libnativewindow.so`, loaded.
struct Ndk {
    _nativewindow: libloading::Library,
    producer: libloading::Library,
    release: Release,
    allocate: Allocate,
}

impl Ndk {
    fn load(dir: &Path) -> Self {
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

    fn produce(&self, w: u32, h: u32, format: u32, frame: u32) -> *mut c_void {
        let mut out = ptr::null_mut();
        // SAFETY: the producer's C function with valid arguments.
        let r = unsafe {
            let f = self.producer.get::<Produce>(b"camera_produce\0").unwrap();
            f(w, h, format, frame, &mut out)
        };
        assert_eq!(r, 0, "camera_produce");
        out
    }

    fn pixel(&self, name: &[u8], a: u32, b: u32, f: u32) -> u8 {
        // SAFETY: one of the producer's pure functions.
        unsafe { self.producer.get::<Pixel>(name).unwrap()(a, b, f) }
    }

    fn allocate(&self, w: u32, h: u32, format: u32, usage: u64) -> *mut c_void {
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

    fn release(&self, b: *mut c_void) {
        // SAFETY: a reference the test holds.
        unsafe { (self.release)(b) }
    }
}

/// The frame the producer writes, converted on the CPU (BT.601 narrow, chroma at (x/2, y/2)).
fn reference(ndk: &Ndk, w: u32, h: u32, frame: u32) -> Vec<[u8; 3]> {
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

struct Vk {
    _entry: ash::Entry,
    instance: ash::Instance,
    pd: vk::PhysicalDevice,
    device: ash::Device,
    queue: vk::Queue,
    family: u32,
    ahb: ash::android::external_memory_android_hardware_buffer::Device,
    ycbcr: bool,
}

impl Vk {
    fn new(loader: &Path) -> Self {
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
            let names = [
                ash::android::external_memory_android_hardware_buffer::NAME.as_ptr(),
                ash::ext::queue_family_foreign::NAME.as_ptr(),
            ];
            let mut enable = vk::PhysicalDeviceSamplerYcbcrConversionFeatures::default()
                .sampler_ycbcr_conversion(ycbcr);
            let ci = vk::DeviceCreateInfo::default()
                .queue_create_infos(&qci)
                .enabled_extension_names(&names)
                .push_next(&mut enable);
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
            }
        }
    }

    fn properties(
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
    fn import_image(
        &self,
        b: *mut c_void,
        format: vk::Format,
        (w, h): (u32, u32),
        usage: vk::ImageUsageFlags,
        flags: vk::ImageCreateFlags,
    ) -> (vk::Image, vk::DeviceMemory) {
        let (props, fmt) = self.properties(b).expect("properties");
        assert_eq!(fmt.format, format);
        let image = self.external_image(format, (w, h), usage, flags);
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

    fn external_image(
        &self,
        format: vk::Format,
        (w, h): (u32, u32),
        usage: vk::ImageUsageFlags,
        flags: vk::ImageCreateFlags,
    ) -> vk::Image {
        let mut ext = vk::ExternalMemoryImageCreateInfo::default()
            .handle_types(vk::ExternalMemoryHandleTypeFlags::ANDROID_HARDWARE_BUFFER_ANDROID);
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
        // SAFETY: valid create info.
        unsafe { self.device.create_image(&ci, None) }.expect("external image")
    }

    /// A mapped host-visible buffer (see `vkgen_tests::compute::mapped_host_buffer`).
    fn host_buffer(
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

    /// Records with `record`, submits, waits.
    fn run(&self, record: impl FnOnce(vk::CommandBuffer)) {
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
    fn acquire_from_foreign(
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
        // SAFETY: a recording command buffer.
        unsafe {
            self.device.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::TOP_OF_PIPE,
                vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::TRANSFER,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[barrier],
            );
        }
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
fn convert(
    vk: &Vk,
    image: vk::Image,
    format: vk::Format,
    fmt: &vk::AndroidHardwareBufferFormatPropertiesANDROID<'_>,
    (w, h): (u32, u32),
) -> Vec<[u8; 3]> {
    let d = &vk.device;
    let size = u64::from(w * h * 4);
    let (out, out_mem, mapped) = vk.host_buffer(size, vk::BufferUsageFlags::STORAGE_BUFFER);
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
        vk.run(|cb| {
            vk.acquire_from_foreign(cb, image, vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL);
            d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, pipeline);
            d.cmd_bind_descriptor_sets(cb, vk::PipelineBindPoint::COMPUTE, layout, 0, &[set], &[]);
            d.cmd_push_constants(cb, layout, vk::ShaderStageFlags::COMPUTE, 0, &push);
            d.cmd_dispatch(cb, w.div_ceil(8), h.div_ceil(8), 1);
        });
        let bytes = std::slice::from_raw_parts(mapped, size as usize);
        let pixels = bytes.chunks_exact(4).map(|c| [c[0], c[1], c[2]]).collect();
        d.destroy_descriptor_pool(pool, None);
        d.destroy_pipeline(pipeline, None);
        d.destroy_shader_module(module, None);
        d.destroy_pipeline_layout(layout, None);
        d.destroy_descriptor_set_layout(set_layout, None);
        for v in views {
            d.destroy_image_view(v, None);
        }
        d.destroy_sampler(sampler, None);
        if conversion != vk::SamplerYcbcrConversion::null() {
            d.destroy_sampler_ycbcr_conversion(conversion, None);
        }
        d.destroy_buffer(out, None);
        d.free_memory(out_mem, None);
        pixels
    }
}

fn assert_within_one_lsb(got: &[[u8; 3]], want: &[[u8; 3]], w: u32, what: &str) {
    assert_eq!(got.len(), want.len());
    for (i, (g, r)) in got.iter().zip(want).enumerate() {
        let off = g.iter().zip(r).map(|(a, b)| a.abs_diff(*b)).max().unwrap();
        assert!(
            off <= 1,
            "{what}: pixel ({}, {}) is {g:?}, the CPU reference says {r:?}",
            i as u32 % w,
            i as u32 / w
        );
    }
}

#[test]
fn camera_frames_convert_to_rgba_within_one_lsb() {
    let loader = require(paths::loader_under_test());
    let (env, _root) = wsi_support::host_env_for_interop();
    in_child("camera_frames_convert_to_rgba_within_one_lsb", &env, || {
        let dir = tempfile::tempdir().unwrap();
        let ndk = Ndk::load(dir.path());
        let vk = Vk::new(&loader);
        println!(
            "conversion: {}",
            if vk.ycbcr {
                "Y'CbCr sampler"
            } else {
                "plane views + compute shader"
            }
        );
        let (w, h) = (96, 64);
        for (ahb_format, format) in [
            (AHB_FORMAT_NV12, vk::Format::G8_B8R8_2PLANE_420_UNORM),
            (AHB_FORMAT_YV12, vk::Format::G8_B8_R8_3PLANE_420_UNORM),
        ] {
            for frame in 0..3 {
                let b = ndk.produce(w, h, ahb_format, frame);
                let (_, fmt) = vk.properties(b).unwrap();
                assert_eq!(
                    fmt.suggested_ycbcr_model,
                    vk::SamplerYcbcrModelConversion::YCBCR_601
                );
                assert_eq!(fmt.suggested_ycbcr_range, vk::SamplerYcbcrRange::ITU_NARROW);
                assert!(fmt
                    .format_features
                    .contains(vk::FormatFeatureFlags::SAMPLED_IMAGE));
                let flags = if vk.ycbcr {
                    vk::ImageCreateFlags::empty()
                } else {
                    vk::ImageCreateFlags::MUTABLE_FORMAT
                };
                let (image, memory) =
                    vk.import_image(b, format, (w, h), vk::ImageUsageFlags::SAMPLED, flags);
                // The memory holds its own reference: the producer's can go now.
                ndk.release(b);
                let got = convert(&vk, image, format, &fmt, (w, h));
                let want = reference(&ndk, w, h, frame);
                assert_within_one_lsb(&got, &want, w, &format!("{format:?} frame {frame}"));
                // SAFETY: the conversion finished (waited for).
                unsafe {
                    vk.device.destroy_image(image, None);
                    vk.device.free_memory(memory, None);
                }
            }
        }
        println!("NV12 and YV12: 3 frames each, every pixel within 1 LSB of the CPU reference");
    });
}

#[test]
fn exported_buffer_carries_the_image_to_another_instance() {
    let loader = require(paths::loader_under_test());
    let (env, _root) = wsi_support::host_env_for_interop();
    in_child(
        "exported_buffer_carries_the_image_to_another_instance",
        &env,
        || {
            let dir = tempfile::tempdir().unwrap();
            let ndk = Ndk::load(dir.path());
            let a = Vk::new(&loader);
            let b = Vk::new(&loader);
            let (w, h) = (40, 24);
            let usage = vk::ImageUsageFlags::TRANSFER_DST
                | vk::ImageUsageFlags::TRANSFER_SRC
                | vk::ImageUsageFlags::SAMPLED;
            let image = a.external_image(
                vk::Format::R8G8B8A8_UNORM,
                (w, h),
                usage,
                vk::ImageCreateFlags::empty(),
            );
            let mut export = vk::ExportMemoryAllocateInfo::default()
                .handle_types(vk::ExternalMemoryHandleTypeFlags::ANDROID_HARDWARE_BUFFER_ANDROID);
            let mut dedicated = vk::MemoryDedicatedAllocateInfo::default().image(image);
            // SAFETY: plain Vulkan use.
            let (memory, ahb) = unsafe {
                let reqs = a.device.get_image_memory_requirements(image);
                let info = vk::MemoryAllocateInfo::default()
                    .memory_type_index(reqs.memory_type_bits.trailing_zeros())
                    .push_next(&mut export)
                    .push_next(&mut dedicated);
                let memory = a.device.allocate_memory(&info, None).expect("export");
                a.device.bind_image_memory(image, memory, 0).unwrap();
                let colour = vk::ClearColorValue {
                    float32: [1.0, 0.5, 0.0, 1.0],
                };
                a.run(|cb| {
                    let range = vk::ImageSubresourceRange {
                        aspect_mask: vk::ImageAspectFlags::COLOR,
                        level_count: 1,
                        layer_count: 1,
                        ..Default::default()
                    };
                    let to_dst = vk::ImageMemoryBarrier::default()
                        .old_layout(vk::ImageLayout::UNDEFINED)
                        .new_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
                        .dst_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                        .image(image)
                        .subresource_range(range);
                    a.device.cmd_pipeline_barrier(
                        cb,
                        vk::PipelineStageFlags::TOP_OF_PIPE,
                        vk::PipelineStageFlags::TRANSFER,
                        vk::DependencyFlags::empty(),
                        &[],
                        &[],
                        &[to_dst],
                    );
                    a.device.cmd_clear_color_image(
                        cb,
                        image,
                        vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                        &colour,
                        &[range],
                    );
                    // Release to the foreign consumer.
                    let release = vk::ImageMemoryBarrier::default()
                        .src_queue_family_index(a.family)
                        .dst_queue_family_index(vk::QUEUE_FAMILY_FOREIGN_EXT)
                        .old_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
                        .new_layout(vk::ImageLayout::GENERAL)
                        .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                        .image(image)
                        .subresource_range(range);
                    a.device.cmd_pipeline_barrier(
                        cb,
                        vk::PipelineStageFlags::TRANSFER,
                        vk::PipelineStageFlags::BOTTOM_OF_PIPE,
                        vk::DependencyFlags::empty(),
                        &[],
                        &[],
                        &[release],
                    );
                });
                let get = vk::MemoryGetAndroidHardwareBufferInfoANDROID::default().memory(memory);
                let ahb = a.ahb.get_memory_android_hardware_buffer(&get).unwrap();
                (memory, ahb.cast::<c_void>())
            };
            // The exported buffer is described like the image.
            let (props, fmt) = b.properties(ahb).expect("properties on the other instance");
            assert_eq!(fmt.format, vk::Format::R8G8B8A8_UNORM);
            assert!(props.allocation_size >= u64::from(w * h * 4));
            let (image_b, memory_b) = b.import_image(
                ahb,
                vk::Format::R8G8B8A8_UNORM,
                (w, h),
                vk::ImageUsageFlags::TRANSFER_SRC | vk::ImageUsageFlags::SAMPLED,
                vk::ImageCreateFlags::empty(),
            );
            // The exporter's objects go first: the buffer lives on in the import.
            // SAFETY: finished work; nothing uses them.
            unsafe {
                a.device.destroy_image(image, None);
                a.device.free_memory(memory, None);
            }
            ndk.release(ahb);
            let size = u64::from(w * h * 4);
            let (buf, buf_mem, mapped) = b.host_buffer(size, vk::BufferUsageFlags::TRANSFER_DST);
            b.run(|cb| {
                b.acquire_from_foreign(cb, image_b, vk::ImageLayout::TRANSFER_SRC_OPTIMAL);
                let region = vk::BufferImageCopy::default()
                    .image_subresource(vk::ImageSubresourceLayers {
                        aspect_mask: vk::ImageAspectFlags::COLOR,
                        layer_count: 1,
                        ..Default::default()
                    })
                    .image_extent(vk::Extent3D {
                        width: w,
                        height: h,
                        depth: 1,
                    });
                // SAFETY: a recording command buffer, valid objects.
                unsafe {
                    b.device.cmd_copy_image_to_buffer(
                        cb,
                        image_b,
                        vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                        buf,
                        &[region],
                    )
                };
            });
            // SAFETY: finished work; host-visible memory.
            unsafe {
                let bytes = std::slice::from_raw_parts(mapped, size as usize);
                for (i, px) in bytes.chunks_exact(4).enumerate() {
                    assert_eq!(
                        px,
                        [255, 128, 0, 255],
                        "pixel {i} on the importing instance"
                    );
                }
                b.device.destroy_buffer(buf, None);
                b.device.free_memory(buf_mem, None);
                b.device.destroy_image(image_b, None);
                b.device.free_memory(memory_b, None);
            }
            println!(
                "{w}x{h} RGBA exported by one instance, imported by another: contents preserved"
            );
        },
    );
}

#[test]
fn properties_refuse_what_is_not_an_importable_buffer() {
    let loader = require(paths::loader_under_test());
    let (env, _root) = wsi_support::host_env_for_interop();
    in_child(
        "properties_refuse_what_is_not_an_importable_buffer",
        &env,
        || {
            let dir = tempfile::tempdir().unwrap();
            let ndk = Ndk::load(dir.path());
            let vk = Vk::new(&loader);
            let before = std::fs::read_dir("/proc/self/fd").unwrap().count();
            // CPU-only usage: not importable.
            let cpu_only = ndk.allocate(16, 16, AHB_FORMAT_RGBA8, 0x33);
            assert_eq!(
                vk.properties(cpu_only).err(),
                Some(vk::Result::ERROR_INVALID_EXTERNAL_HANDLE)
            );
            ndk.release(cpu_only);
            let garbage = [0x41u8; 512];
            for p in [
                ptr::null(),
                0x18 as *const c_void,
                garbage.as_ptr().cast::<c_void>(),
            ] {
                assert_eq!(
                    vk.properties(p).err(),
                    Some(vk::Result::ERROR_INVALID_EXTERNAL_HANDLE),
                    "{p:?}"
                );
            }
            // An import whose size is not the buffer's.
            let good = ndk.allocate(16, 16, AHB_FORMAT_RGBA8, 0x100);
            let (props, _) = vk.properties(good).unwrap();
            let image = vk.external_image(
                vk::Format::R8G8B8A8_UNORM,
                (16, 16),
                vk::ImageUsageFlags::SAMPLED,
                vk::ImageCreateFlags::empty(),
            );
            let mut import =
                vk::ImportAndroidHardwareBufferInfoANDROID::default().buffer(good.cast());
            let mut dedicated = vk::MemoryDedicatedAllocateInfo::default().image(image);
            let info = vk::MemoryAllocateInfo::default()
                .allocation_size(props.allocation_size * 2)
                .memory_type_index(props.memory_type_bits.trailing_zeros())
                .push_next(&mut import)
                .push_next(&mut dedicated);
            // SAFETY: valid structures (the size is the point).
            let r = unsafe { vk.device.allocate_memory(&info, None) };
            assert_eq!(r, Err(vk::Result::ERROR_INVALID_EXTERNAL_HANDLE));
            // SAFETY: unused.
            unsafe { vk.device.destroy_image(image, None) };
            ndk.release(good);
            assert_eq!(
                std::fs::read_dir("/proc/self/fd").unwrap().count(),
                before,
                "no fd leaked on the error paths"
            );
        },
    );
}
