//! Shared by the WSI tests (`wsi_host.rs`, `wsi_null.rs`, `wsi_fd.rs`) and the WSI benchmark
//! (`benches/wsi.rs`, which includes this file by path): our loader over vkgen's reference
//! drivers installed as an Android HAL module in a temporary root, an `ash` application with a
//! surface on a `vkgen-window` `BufferQueue`, and the triangle renderer of the pixel test.
//!
//! Nothing here checks loader behaviour by itself; the tests do.

#![allow(dead_code)]

use std::ffi::{c_int, CStr};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ash::vk;
use tempfile::TempDir;
use vkgen_tests::env::Env;
use vkgen_tests::{paths, require};
use vkgen_window::{BufferQueue, Frame, WindowConfig};

/// The Android property that turns on `VK_GOOGLE_display_timing`.
pub const PRESENT_TIMESTAMP_PROPERTY: &str = "service.sf.present_timestamp=1\n";

/// A HAL root with `vulkan.<driver>.so` → `libvulkan_<driver>.so` of this build, a properties
/// file selecting it (plus `extra_properties`), no ICD manifests and lavapipe as the host
/// driver's ICD.
pub fn hal_env(driver: &str, extra_properties: &str) -> (Env, TempDir) {
    let lib = paths::profile_dir().join(format!("libvulkan_{driver}.so"));
    hal_env_for(&lib, driver, extra_properties)
}

/// [`hal_env`] for `vulkan.host.so`, with `VKGEN_AHB_ICD` (when set) naming the host ICD's
/// manifest instead of lavapipe's: the interop tests' GPU runs.
#[allow(dead_code)]
pub fn host_env_for_interop() -> (Env, TempDir) {
    let (env, root) = hal_env("host", "");
    let env = match std::env::var_os("VKGEN_AHB_ICD") {
        Some(icd) => env.set("VKGEN_HOST_ICD", icd),
        None => env,
    };
    (env, root)
}

/// [`hal_env`] for the driver library `lib`, installed as `vulkan.<driver>.so`.
#[allow(dead_code)]
pub fn hal_env_for(lib: &Path, driver: &str, extra_properties: &str) -> (Env, TempDir) {
    assert!(
        lib.is_file(),
        "{} not built: run cargo build --release --workspace",
        lib.display()
    );
    let root = tempfile::tempdir().expect("temporary HAL root");
    let hw = root.path().join("vendor/lib64/hw");
    std::fs::create_dir_all(&hw).expect("create the HAL dir");
    std::os::unix::fs::symlink(lib, hw.join(format!("vulkan.{driver}.so")))
        .expect("link the HAL module");
    let props: PathBuf = root.path().join("build.prop");
    std::fs::write(
        &props,
        format!("ro.hardware.vulkan={driver}\n{extra_properties}"),
    )
    .expect("write build.prop");
    let no_icds = root.path().join("no-icds");
    std::fs::create_dir_all(&no_icds).expect("create the empty ICD dir");
    let env = Env::new()
        .set("VKGEN_HAL_ROOT", root.path())
        .set("VKGEN_PROPERTIES", &props)
        .set("VK_DRIVER_FILES", &no_icds)
        .set("VKGEN_HOST_ICD", require(paths::lavapipe_manifest()));
    (env, root)
}

/// An instance, a surface-capable device and the WSI function tables, destroyed on drop.
pub struct Wsi {
    pub entry: ash::Entry,
    pub instance: ash::Instance,
    pub surface_fns: ash::khr::surface::Instance,
    pub android: ash::khr::android_surface::Instance,
    pub pd: vk::PhysicalDevice,
    pub family: u32,
    pub device: ash::Device,
    pub queue: vk::Queue,
    pub swapchain_fns: ash::khr::swapchain::Device,
}

impl Wsi {
    /// Instance (apiVersion 1.1, `VK_KHR_surface` + `VK_KHR_android_surface` + `instance_exts`,
    /// `layers`), the first physical device with a graphics queue, and a device with
    /// `VK_KHR_swapchain` + `device_exts`.
    pub fn new(
        loader: &Path,
        instance_exts: &[&CStr],
        device_exts: &[&CStr],
        layers: &[&CStr],
    ) -> Result<Self, String> {
        Self::new_in(loader, instance_exts, device_exts, layers, None)
    }

    /// [`Wsi::new`] with the instance and the device created with `allocator` (they are
    /// destroyed without one, which frees with it).
    #[allow(dead_code)]
    pub fn new_in(
        loader: &Path,
        instance_exts: &[&CStr],
        device_exts: &[&CStr],
        layers: &[&CStr],
        allocator: Option<&vk::AllocationCallbacks<'_>>,
    ) -> Result<Self, String> {
        let entry = vkgen_tests::compute::load_entry(loader)?;
        let mut exts: Vec<*const i8> = vec![
            ash::khr::surface::NAME.as_ptr(),
            ash::khr::android_surface::NAME.as_ptr(),
        ];
        exts.extend(instance_exts.iter().map(|e| e.as_ptr()));
        let layer_ptrs: Vec<*const i8> = layers.iter().map(|l| l.as_ptr()).collect();
        let app = vk::ApplicationInfo::default()
            .application_name(c"vkgen-wsi-test")
            .api_version(vk::API_VERSION_1_1);
        let info = vk::InstanceCreateInfo::default()
            .application_info(&app)
            .enabled_extension_names(&exts)
            .enabled_layer_names(&layer_ptrs);
        // SAFETY: a valid create info whose arrays outlive the call.
        let instance = unsafe { entry.create_instance(&info, allocator) }
            .map_err(|e| format!("vkCreateInstance: {e:?}"))?;
        let surface_fns = ash::khr::surface::Instance::new(&entry, &instance);
        let android = ash::khr::android_surface::Instance::new(&entry, &instance);
        // SAFETY: a live instance; on failure it is destroyed before returning.
        let picked = unsafe {
            instance
                .enumerate_physical_devices()
                .map_err(|e| format!("vkEnumeratePhysicalDevices: {e:?}"))
                .and_then(|pds| {
                    pds.iter()
                        .find_map(|&pd| {
                            instance
                                .get_physical_device_queue_family_properties(pd)
                                .iter()
                                .position(|f| f.queue_flags.contains(vk::QueueFlags::GRAPHICS))
                                .map(|f| (pd, f as u32))
                        })
                        .ok_or_else(|| "no physical device with a graphics queue".to_owned())
                })
        };
        let (pd, family) = match picked {
            Ok(p) => p,
            Err(e) => {
                // SAFETY: nothing was created from it.
                unsafe { instance.destroy_instance(None) };
                return Err(e);
            }
        };
        let mut dev_exts: Vec<*const i8> = vec![ash::khr::swapchain::NAME.as_ptr()];
        dev_exts.extend(device_exts.iter().map(|e| e.as_ptr()));
        let priorities = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&priorities)];
        let info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_extension_names(&dev_exts);
        // SAFETY: a physical device of the instance and a valid create info.
        let device = match unsafe { instance.create_device(pd, &info, allocator) } {
            Ok(d) => d,
            Err(e) => {
                // SAFETY: nothing else was created from it.
                unsafe { instance.destroy_instance(None) };
                return Err(format!("vkCreateDevice with VK_KHR_swapchain: {e:?}"));
            }
        };
        // SAFETY: queue 0 of a family the device was created with.
        let queue = unsafe { device.get_device_queue(family, 0) };
        let swapchain_fns = ash::khr::swapchain::Device::new(&instance, &device);
        Ok(Self {
            entry,
            instance,
            surface_fns,
            android,
            pd,
            family,
            device,
            queue,
            swapchain_fns,
        })
    }

    /// A surface on `window`.
    pub fn create_surface(&self, window: &Arc<BufferQueue>) -> Result<vk::SurfaceKHR, vk::Result> {
        let info = vk::AndroidSurfaceCreateInfoKHR::default().window(window.window().cast());
        // SAFETY: a live window (kept alive by the caller's Arc and the loader's reference).
        unsafe { self.android.create_android_surface(&info, None) }
    }

    /// The surface's capabilities.
    pub fn caps(&self, surface: vk::SurfaceKHR) -> vk::SurfaceCapabilitiesKHR {
        // SAFETY: a live surface of this instance.
        unsafe {
            self.surface_fns
                .get_physical_device_surface_capabilities(self.pd, surface)
        }
        .expect("vkGetPhysicalDeviceSurfaceCapabilitiesKHR")
    }

    /// A FIFO, RGBA8-UNORM, colour-attachment swapchain create info sized by the capabilities.
    pub fn swapchain_info(&self, surface: vk::SurfaceKHR) -> vk::SwapchainCreateInfoKHR<'static> {
        let caps = self.caps(surface);
        vk::SwapchainCreateInfoKHR::default()
            .surface(surface)
            .min_image_count(caps.min_image_count)
            .image_format(vk::Format::R8G8B8A8_UNORM)
            .image_color_space(vk::ColorSpaceKHR::SRGB_NONLINEAR)
            .image_extent(caps.current_extent)
            .image_array_layers(1)
            .image_usage(vk::ImageUsageFlags::COLOR_ATTACHMENT)
            .image_sharing_mode(vk::SharingMode::EXCLUSIVE)
            .pre_transform(caps.current_transform)
            .composite_alpha(vk::CompositeAlphaFlagsKHR::INHERIT)
            .present_mode(vk::PresentModeKHR::FIFO)
            .clipped(true)
    }

    /// Creates a swapchain.
    pub fn create_swapchain(
        &self,
        info: &vk::SwapchainCreateInfoKHR<'_>,
    ) -> Result<vk::SwapchainKHR, vk::Result> {
        // SAFETY: a valid create info for this device.
        unsafe { self.swapchain_fns.create_swapchain(info, None) }
    }

    /// A fence (unsignalled).
    pub fn fence(&self) -> vk::Fence {
        // SAFETY: a valid create info.
        unsafe {
            self.device
                .create_fence(&vk::FenceCreateInfo::default(), None)
        }
        .expect("vkCreateFence")
    }

    /// Acquires an image with `fence`, waits for it and resets it.
    pub fn acquire(
        &self,
        swapchain: vk::SwapchainKHR,
        fence: vk::Fence,
        timeout: u64,
    ) -> Result<(u32, bool), vk::Result> {
        // SAFETY: live objects of this device.
        let r = unsafe {
            self.swapchain_fns
                .acquire_next_image(swapchain, timeout, vk::Semaphore::null(), fence)
        };
        if r.is_ok() {
            // SAFETY: the fence belongs to this device and has a pending signal.
            unsafe {
                self.device
                    .wait_for_fences(&[fence], true, u64::MAX)
                    .expect("vkWaitForFences");
                self.device.reset_fences(&[fence]).expect("vkResetFences");
            }
        }
        r
    }

    /// Presents image `index` of `swapchain` with no semaphores: the raw `VkResult`.
    pub fn present(&self, swapchain: vk::SwapchainKHR, index: u32) -> vk::Result {
        let swapchains = [swapchain];
        let indices = [index];
        let info = vk::PresentInfoKHR::default()
            .swapchains(&swapchains)
            .image_indices(&indices);
        // SAFETY: a valid present info for this device's queue.
        let qp = self.swapchain_fns.fp().queue_present_khr;
        // SAFETY: the rig's live queue and a present info whose arrays outlive the call.
        unsafe { qp(self.queue, &info) }
    }

    /// Destroys a swapchain.
    pub fn destroy_swapchain(&self, swapchain: vk::SwapchainKHR) {
        // SAFETY: the caller is done with it (or it is null).
        unsafe { self.swapchain_fns.destroy_swapchain(swapchain, None) };
    }

    /// Destroys a surface.
    pub fn destroy_surface(&self, surface: vk::SurfaceKHR) {
        // SAFETY: the caller is done with it (or it is null).
        unsafe { self.surface_fns.destroy_surface(surface, None) };
    }
}

impl Drop for Wsi {
    fn drop(&mut self) {
        // SAFETY: the tests destroy their children first; idle, then device, then instance.
        unsafe {
            let _ = self.device.device_wait_idle();
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}

/// A window of `width`×`height` with the default configuration otherwise.
pub fn window(width: u32, height: u32) -> Arc<BufferQueue> {
    BufferQueue::new(WindowConfig::with_size(width, height))
}

/// The colours of frame `i`: (clear, triangle), exact in 8-bit UNORM.
pub fn frame_colors(i: u32) -> ([u8; 4], [u8; 4]) {
    let a = (i * 37 % 200) as u8;
    let clear = [a, 255 - a, (i * 91 % 256) as u8, 255];
    let tri = [
        255 - (i * 53 % 128) as u8,
        (i * 17 % 100) as u8,
        40 + a / 2,
        255,
    ];
    (clear, tri)
}

/// Signed distance (pixels) of `p` to the line through the directed edge `a → b`.
fn edge(a: (f64, f64), b: (f64, f64), p: (f64, f64)) -> f64 {
    let (ex, ey) = (b.0 - a.0, b.1 - a.1);
    ((p.0 - a.0) * ey - (p.1 - a.1) * ex) / (ex * ex + ey * ey).sqrt()
}

/// Checks a frame rendered by [`Triangle`]: pixels more than 1 px inside the triangle have
/// `tri`, more than 1 px outside have `clear`; edge pixels may have either.
pub fn check_triangle_frame(frame: &Frame, clear: [u8; 4], tri: [u8; 4]) -> Result<(), String> {
    let (w, h) = (f64::from(frame.width), f64::from(frame.height));
    let v = [
        (0.5 * w, 0.25 * h),
        (0.75 * w, 0.75 * h),
        (0.25 * w, 0.75 * h),
    ];
    // Orient the edges so that the inside is positive.
    let centroid = (
        (v[0].0 + v[1].0 + v[2].0) / 3.0,
        (v[0].1 + v[1].1 + v[2].1) / 3.0,
    );
    let sign = edge(v[0], v[1], centroid).signum();
    let mut bad = Vec::new();
    let mut inside_count = 0usize;
    for y in 0..frame.height {
        for x in 0..frame.width {
            let p = (f64::from(x) + 0.5, f64::from(y) + 0.5);
            let d = [
                sign * edge(v[0], v[1], p),
                sign * edge(v[1], v[2], p),
                sign * edge(v[2], v[0], p),
            ];
            let min = d.iter().copied().fold(f64::INFINITY, f64::min);
            let got = frame.pixel(x, y);
            let ok = if min > 1.0 {
                got == tri
            } else if min < -1.0 {
                got == clear
            } else {
                got == tri || got == clear
            };
            if min > 1.0 {
                inside_count += 1;
            }
            if !ok {
                bad.push(format!("({x},{y})={got:?} (edge distance {min:.2})"));
            }
        }
    }
    if inside_count == 0 {
        return Err("the triangle covers no pixel".into());
    }
    if bad.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "frame {}: {} wrong pixels (clear {clear:?}, triangle {tri:?}); first: {}",
            frame.frame_number,
            bad.len(),
            bad.iter().take(6).cloned().collect::<Vec<_>>().join(", ")
        ))
    }
}

/// The triangle renderer: a render pass that clears the swapchain image and draws
/// `triangle.vert`/`triangle.frag` with a push-constant colour, one command buffer per image.
pub struct Triangle {
    device: ash::Device,
    pub format: vk::Format,
    pub extent: vk::Extent2D,
    render_pass: vk::RenderPass,
    layout: vk::PipelineLayout,
    pipeline: vk::Pipeline,
    views: Vec<vk::ImageView>,
    framebuffers: Vec<vk::Framebuffer>,
    pool: vk::CommandPool,
    commands: Vec<vk::CommandBuffer>,
    /// Signalled by acquire, waited for by the submission.
    pub acquired: vk::Semaphore,
    /// Signalled by the submission, waited for by present.
    pub rendered: vk::Semaphore,
    /// Signalled by the submission.
    pub done: vk::Fence,
}

impl Triangle {
    /// Builds everything for the swapchain's `images`.
    pub fn new(
        wsi: &Wsi,
        images: &[vk::Image],
        format: vk::Format,
        extent: vk::Extent2D,
    ) -> Result<Self, vk::Result> {
        let d = &wsi.device;
        // SAFETY: valid create infos for a live device; everything is destroyed in `destroy`.
        unsafe {
            let attachment = [vk::AttachmentDescription::default()
                .format(format)
                .samples(vk::SampleCountFlags::TYPE_1)
                .load_op(vk::AttachmentLoadOp::CLEAR)
                .store_op(vk::AttachmentStoreOp::STORE)
                .stencil_load_op(vk::AttachmentLoadOp::DONT_CARE)
                .stencil_store_op(vk::AttachmentStoreOp::DONT_CARE)
                .initial_layout(vk::ImageLayout::UNDEFINED)
                .final_layout(vk::ImageLayout::PRESENT_SRC_KHR)];
            let color_ref = [vk::AttachmentReference::default()
                .attachment(0)
                .layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)];
            let subpass = [vk::SubpassDescription::default()
                .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
                .color_attachments(&color_ref)];
            let dependency = [vk::SubpassDependency::default()
                .src_subpass(vk::SUBPASS_EXTERNAL)
                .dst_subpass(0)
                .src_stage_mask(vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT)
                .dst_stage_mask(vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT)
                .src_access_mask(vk::AccessFlags::empty())
                .dst_access_mask(vk::AccessFlags::COLOR_ATTACHMENT_WRITE)];
            let render_pass = d.create_render_pass(
                &vk::RenderPassCreateInfo::default()
                    .attachments(&attachment)
                    .subpasses(&subpass)
                    .dependencies(&dependency),
                None,
            )?;
            let vert_code = paths::shader("triangle.vert");
            let frag_code = paths::shader("triangle.frag");
            let vert = d.create_shader_module(
                &vk::ShaderModuleCreateInfo::default().code(&vert_code),
                None,
            )?;
            let frag = d.create_shader_module(
                &vk::ShaderModuleCreateInfo::default().code(&frag_code),
                None,
            )?;
            let push = [vk::PushConstantRange::default()
                .stage_flags(vk::ShaderStageFlags::FRAGMENT)
                .offset(0)
                .size(16)];
            let layout = d.create_pipeline_layout(
                &vk::PipelineLayoutCreateInfo::default().push_constant_ranges(&push),
                None,
            )?;
            let stages = [
                vk::PipelineShaderStageCreateInfo::default()
                    .stage(vk::ShaderStageFlags::VERTEX)
                    .module(vert)
                    .name(c"main"),
                vk::PipelineShaderStageCreateInfo::default()
                    .stage(vk::ShaderStageFlags::FRAGMENT)
                    .module(frag)
                    .name(c"main"),
            ];
            let vertex_input = vk::PipelineVertexInputStateCreateInfo::default();
            let assembly = vk::PipelineInputAssemblyStateCreateInfo::default()
                .topology(vk::PrimitiveTopology::TRIANGLE_LIST);
            let viewports = [vk::Viewport {
                x: 0.0,
                y: 0.0,
                width: extent.width as f32,
                height: extent.height as f32,
                min_depth: 0.0,
                max_depth: 1.0,
            }];
            let scissors = [vk::Rect2D {
                offset: vk::Offset2D { x: 0, y: 0 },
                extent,
            }];
            let viewport = vk::PipelineViewportStateCreateInfo::default()
                .viewports(&viewports)
                .scissors(&scissors);
            let raster = vk::PipelineRasterizationStateCreateInfo::default()
                .polygon_mode(vk::PolygonMode::FILL)
                .cull_mode(vk::CullModeFlags::NONE)
                .front_face(vk::FrontFace::CLOCKWISE)
                .line_width(1.0);
            let multisample = vk::PipelineMultisampleStateCreateInfo::default()
                .rasterization_samples(vk::SampleCountFlags::TYPE_1);
            let blend_attachment = [vk::PipelineColorBlendAttachmentState::default()
                .color_write_mask(vk::ColorComponentFlags::RGBA)];
            let blend =
                vk::PipelineColorBlendStateCreateInfo::default().attachments(&blend_attachment);
            let pipeline_info = [vk::GraphicsPipelineCreateInfo::default()
                .stages(&stages)
                .vertex_input_state(&vertex_input)
                .input_assembly_state(&assembly)
                .viewport_state(&viewport)
                .rasterization_state(&raster)
                .multisample_state(&multisample)
                .color_blend_state(&blend)
                .layout(layout)
                .render_pass(render_pass)
                .subpass(0)];
            let pipeline = d
                .create_graphics_pipelines(vk::PipelineCache::null(), &pipeline_info, None)
                .map_err(|(_, e)| e)?[0];
            d.destroy_shader_module(vert, None);
            d.destroy_shader_module(frag, None);
            let mut views = Vec::new();
            let mut framebuffers = Vec::new();
            for &image in images {
                let view = d.create_image_view(
                    &vk::ImageViewCreateInfo::default()
                        .image(image)
                        .view_type(vk::ImageViewType::TYPE_2D)
                        .format(format)
                        .subresource_range(vk::ImageSubresourceRange {
                            aspect_mask: vk::ImageAspectFlags::COLOR,
                            base_mip_level: 0,
                            level_count: 1,
                            base_array_layer: 0,
                            layer_count: 1,
                        }),
                    None,
                )?;
                views.push(view);
                let attachments = [view];
                framebuffers.push(
                    d.create_framebuffer(
                        &vk::FramebufferCreateInfo::default()
                            .render_pass(render_pass)
                            .attachments(&attachments)
                            .width(extent.width)
                            .height(extent.height)
                            .layers(1),
                        None,
                    )?,
                );
            }
            let pool = d.create_command_pool(
                &vk::CommandPoolCreateInfo::default()
                    .queue_family_index(wsi.family)
                    .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER),
                None,
            )?;
            let commands = d.allocate_command_buffers(
                &vk::CommandBufferAllocateInfo::default()
                    .command_pool(pool)
                    .level(vk::CommandBufferLevel::PRIMARY)
                    .command_buffer_count(images.len() as u32),
            )?;
            let acquired = d.create_semaphore(&vk::SemaphoreCreateInfo::default(), None)?;
            let rendered = d.create_semaphore(&vk::SemaphoreCreateInfo::default(), None)?;
            let done = d.create_fence(
                &vk::FenceCreateInfo::default().flags(vk::FenceCreateFlags::SIGNALED),
                None,
            )?;
            Ok(Self {
                device: d.clone(),
                format,
                extent,
                render_pass,
                layout,
                pipeline,
                views,
                framebuffers,
                pool,
                commands,
                acquired,
                rendered,
                done,
            })
        }
    }

    /// Records image `index`'s command buffer: clear to `clear`, draw the triangle in `tri`.
    pub fn record(&self, index: u32, clear: [u8; 4], tri: [u8; 4]) -> Result<(), vk::Result> {
        let d = &self.device;
        let cmd = self.commands[index as usize];
        let unorm = |c: [u8; 4]| c.map(|v| f32::from(v) / 255.0);
        let clear_values = [vk::ClearValue {
            color: vk::ClearColorValue {
                float32: unorm(clear),
            },
        }];
        let push: Vec<u8> = unorm(tri).iter().flat_map(|f| f.to_ne_bytes()).collect();
        // SAFETY: a command buffer of this device that is not in flight (the caller waited for
        // `done`), recorded with live objects.
        unsafe {
            d.reset_command_buffer(cmd, vk::CommandBufferResetFlags::empty())?;
            d.begin_command_buffer(cmd, &vk::CommandBufferBeginInfo::default())?;
            d.cmd_begin_render_pass(
                cmd,
                &vk::RenderPassBeginInfo::default()
                    .render_pass(self.render_pass)
                    .framebuffer(self.framebuffers[index as usize])
                    .render_area(vk::Rect2D {
                        offset: vk::Offset2D { x: 0, y: 0 },
                        extent: self.extent,
                    })
                    .clear_values(&clear_values),
                vk::SubpassContents::INLINE,
            );
            d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, self.pipeline);
            d.cmd_push_constants(cmd, self.layout, vk::ShaderStageFlags::FRAGMENT, 0, &push);
            d.cmd_draw(cmd, 3, 1, 0, 0);
            d.cmd_end_render_pass(cmd);
            d.end_command_buffer(cmd)?;
        }
        Ok(())
    }

    /// One frame: acquire (semaphore), record, submit (waits on it, signals `rendered` and
    /// `done`), present (waits on `rendered`). Returns the image index and the present result.
    pub fn frame(
        &self,
        wsi: &Wsi,
        swapchain: vk::SwapchainKHR,
        clear: [u8; 4],
        tri: [u8; 4],
    ) -> Result<(u32, vk::Result), vk::Result> {
        let d = &self.device;
        // SAFETY: live objects of this device; `done` guards command-buffer reuse.
        unsafe {
            d.wait_for_fences(&[self.done], true, u64::MAX)?;
            let (index, _) = wsi.swapchain_fns.acquire_next_image(
                swapchain,
                u64::MAX,
                self.acquired,
                vk::Fence::null(),
            )?;
            d.reset_fences(&[self.done])?;
            self.record(index, clear, tri)?;
            let waits = [self.acquired];
            let stages = [vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT];
            let cmds = [self.commands[index as usize]];
            let signals = [self.rendered];
            let submit = [vk::SubmitInfo::default()
                .wait_semaphores(&waits)
                .wait_dst_stage_mask(&stages)
                .command_buffers(&cmds)
                .signal_semaphores(&signals)];
            d.queue_submit(wsi.queue, &submit, self.done)?;
            let swapchains = [swapchain];
            let indices = [index];
            let info = vk::PresentInfoKHR::default()
                .wait_semaphores(&signals)
                .swapchains(&swapchains)
                .image_indices(&indices);
            let r = (wsi.swapchain_fns.fp().queue_present_khr)(wsi.queue, &info);
            Ok((index, r))
        }
    }

    /// Destroys everything (after the device is idle).
    pub fn destroy(self) {
        let d = &self.device;
        // SAFETY: the device is idle; each object is destroyed once.
        unsafe {
            let _ = d.device_wait_idle();
            d.destroy_fence(self.done, None);
            d.destroy_semaphore(self.acquired, None);
            d.destroy_semaphore(self.rendered, None);
            d.destroy_command_pool(self.pool, None);
            for &f in &self.framebuffers {
                d.destroy_framebuffer(f, None);
            }
            for &v in &self.views {
                d.destroy_image_view(v, None);
            }
            d.destroy_pipeline(self.pipeline, None);
            d.destroy_pipeline_layout(self.layout, None);
            d.destroy_render_pass(self.render_pass, None);
        }
    }
}

/// A surface, FIFO swapchain and triangle renderer on one window, torn down on drop.
pub struct TriangleSession<'a> {
    wsi: &'a Wsi,
    window: Arc<BufferQueue>,
    surface: vk::SurfaceKHR,
    swapchain: vk::SwapchainKHR,
    triangle: Option<Triangle>,
}

impl<'a> TriangleSession<'a> {
    /// Surface (checked to be presentable), swapchain from the capabilities, renderer.
    pub fn new(wsi: &'a Wsi, window: &Arc<BufferQueue>) -> Result<Self, String> {
        let surface = wsi
            .create_surface(window)
            .map_err(|e| format!("vkCreateAndroidSurfaceKHR: {e:?}"))?;
        let mut session = Self {
            wsi,
            window: window.clone(),
            surface,
            swapchain: vk::SwapchainKHR::null(),
            triangle: None,
        };
        // SAFETY: a live surface and physical device.
        let supported = unsafe {
            wsi.surface_fns
                .get_physical_device_surface_support(wsi.pd, wsi.family, surface)
        }
        .map_err(|e| format!("vkGetPhysicalDeviceSurfaceSupportKHR: {e:?}"))?;
        if !supported {
            return Err("the queue family cannot present".into());
        }
        let info = wsi.swapchain_info(surface);
        session.swapchain = wsi
            .create_swapchain(&info)
            .map_err(|e| format!("vkCreateSwapchainKHR: {e:?}"))?;
        // SAFETY: a live swapchain.
        let images = unsafe { wsi.swapchain_fns.get_swapchain_images(session.swapchain) }
            .map_err(|e| format!("vkGetSwapchainImagesKHR: {e:?}"))?;
        session.triangle = Some(
            Triangle::new(wsi, &images, info.image_format, info.image_extent)
                .map_err(|e| format!("renderer setup: {e:?}"))?,
        );
        Ok(session)
    }

    /// Renders and presents frame `i` (colours [`frame_colors`]`(i)`) and returns it as the
    /// consumer acquired it.
    pub fn frame(&self, i: u32) -> Result<Frame, String> {
        let (clear, tri) = frame_colors(i);
        let triangle = self.triangle.as_ref().expect("renderer");
        match triangle.frame(self.wsi, self.swapchain, clear, tri) {
            Ok((_, vk::Result::SUCCESS)) => {}
            Ok((_, r)) => return Err(format!("frame {i}: vkQueuePresentKHR returned {r:?}")),
            Err(e) => return Err(format!("frame {i}: {e:?}")),
        }
        match self.window.try_acquire_next() {
            Ok(Some(frame)) => Ok(frame),
            Ok(None) => Err(format!("frame {i}: the consumer got no frame")),
            Err(e) => Err(format!("frame {i}: consumer: {e}")),
        }
    }
}

impl Drop for TriangleSession<'_> {
    fn drop(&mut self) {
        if let Some(t) = self.triangle.take() {
            t.destroy();
        }
        self.wsi.destroy_swapchain(self.swapchain);
        self.wsi.destroy_surface(self.surface);
    }
}

/// Renders `frames` frames of the triangle through a FIFO swapchain on `window` and hands each
/// frame the consumer acquired to `check` (with its colours). Returns the last frame.
pub fn render_triangle_frames(
    wsi: &Wsi,
    window: &Arc<BufferQueue>,
    frames: u32,
    mut check: impl FnMut(u32, &Frame, [u8; 4], [u8; 4]),
) -> Result<Option<Frame>, String> {
    let session = TriangleSession::new(wsi, window)?;
    let mut last = None;
    for i in 0..frames {
        let frame = session.frame(i)?;
        let (clear, tri) = frame_colors(i);
        check(i, &frame, clear, tri);
        // Earlier frames are released at once (dropped) so the producer never runs out.
        if i + 1 == frames {
            last = Some(frame);
        }
    }
    Ok(last)
}

/// The window's transform-hint setter, by native transform value.
pub fn set_hint(window: &Arc<BufferQueue>, hint: c_int) {
    window.set_transform_hint(hint);
}
