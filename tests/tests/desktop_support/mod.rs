//! Shared by the desktop WSI tests (`desktop_x11.rs`, `desktop_wayland.rs`): a device and a
//! swapchain on a desktop surface created through our loader, and a present of known RGBA
//! pixels (copied from a host-visible buffer, byte for byte, so the window must show exactly
//! them).
//!
//! Nothing here checks loader behaviour by itself; the tests do.

#![allow(dead_code)]

use ash::vk;

/// A device on the surface's physical device and what it takes to present uploaded pixels.
pub struct Rig {
    pub entry: ash::Entry,
    pub instance: vkgen_tests::compute::OwnedInstance,
    pub surface_fns: ash::khr::surface::Instance,
    pub surface: vk::SurfaceKHR,
    pub pd: vk::PhysicalDevice,
    pub family: u32,
    pub device: ash::Device,
    pub queue: vk::Queue,
    pub sc_fns: ash::khr::swapchain::Device,
    pub swapchain: vk::SwapchainKHR,
    pub extent: vk::Extent2D,
    pub format: vk::SurfaceFormatKHR,
    images: Vec<vk::Image>,
    pool: vk::CommandPool,
    cb: vk::CommandBuffer,
    fence: vk::Fence,
    done: vk::Semaphore,
    staging: Option<(vk::Buffer, vk::DeviceMemory, u64)>,
}

impl Rig {
    /// A device with `VK_KHR_swapchain` for `surface` (made on `instance` by the caller).
    pub fn new(
        entry: ash::Entry,
        instance: vkgen_tests::compute::OwnedInstance,
        surface: vk::SurfaceKHR,
    ) -> Rig {
        let surface_fns = ash::khr::surface::Instance::new(&entry, &instance);
        let (pd, family) =
            vkgen_tests::require(vkgen_tests::compute::pick_compute_device(&instance));
        let prio = [1.0f32];
        let q = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&prio)];
        let names = [ash::khr::swapchain::NAME.as_ptr()];
        // SAFETY: plain Vulkan use of live objects from here on.
        unsafe {
            assert!(
                surface_fns
                    .get_physical_device_surface_support(pd, family, surface)
                    .unwrap(),
                "the queue family cannot present to the surface"
            );
            let device = instance
                .create_device(
                    pd,
                    &vk::DeviceCreateInfo::default()
                        .queue_create_infos(&q)
                        .enabled_extension_names(&names),
                    None,
                )
                .unwrap();
            let queue = device.get_device_queue(family, 0);
            let sc_fns = ash::khr::swapchain::Device::new(&instance, &device);
            let pool = device
                .create_command_pool(
                    &vk::CommandPoolCreateInfo::default()
                        .queue_family_index(family)
                        .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER),
                    None,
                )
                .unwrap();
            let cb = device
                .allocate_command_buffers(
                    &vk::CommandBufferAllocateInfo::default()
                        .command_pool(pool)
                        .command_buffer_count(1),
                )
                .unwrap()[0];
            let fence = device
                .create_fence(&vk::FenceCreateInfo::default(), None)
                .unwrap();
            let done = device
                .create_semaphore(&vk::SemaphoreCreateInfo::default(), None)
                .unwrap();
            let format = surface_fns
                .get_physical_device_surface_formats(pd, surface)
                .unwrap()
                .into_iter()
                .find(|f| f.format == vk::Format::R8G8B8A8_UNORM)
                .expect("R8G8B8A8_UNORM among the surface formats");
            Rig {
                entry,
                instance,
                surface_fns,
                surface,
                pd,
                family,
                device,
                queue,
                sc_fns,
                swapchain: vk::SwapchainKHR::null(),
                extent: vk::Extent2D::default(),
                format,
                images: Vec::new(),
                pool,
                cb,
                fence,
                done,
                staging: None,
            }
        }
    }

    pub fn caps(&self) -> Result<vk::SurfaceCapabilitiesKHR, vk::Result> {
        // SAFETY: live objects.
        unsafe {
            self.surface_fns
                .get_physical_device_surface_capabilities(self.pd, self.surface)
        }
    }

    /// (Re)creates the swapchain at `extent` (the old one retired and destroyed).
    pub fn create_swapchain(&mut self, extent: vk::Extent2D, mode: vk::PresentModeKHR) {
        let caps = self.caps().unwrap();
        let sci = vk::SwapchainCreateInfoKHR::default()
            .surface(self.surface)
            .min_image_count(caps.min_image_count)
            .image_format(self.format.format)
            .image_color_space(self.format.color_space)
            .image_extent(extent)
            .image_array_layers(1)
            .image_usage(vk::ImageUsageFlags::TRANSFER_DST | vk::ImageUsageFlags::COLOR_ATTACHMENT)
            .pre_transform(vk::SurfaceTransformFlagsKHR::IDENTITY)
            .composite_alpha(vk::CompositeAlphaFlagsKHR::INHERIT)
            .present_mode(mode)
            .clipped(true)
            .old_swapchain(self.swapchain);
        // SAFETY: live objects; the old swapchain's images are idle (every submit was waited for).
        unsafe {
            let sc = self.sc_fns.create_swapchain(&sci, None).unwrap();
            if self.swapchain != vk::SwapchainKHR::null() {
                self.sc_fns.destroy_swapchain(self.swapchain, None);
            }
            self.swapchain = sc;
            self.images = self.sc_fns.get_swapchain_images(sc).unwrap();
        }
        self.extent = extent;
    }

    /// Acquires an image, copies `rgba` (the swapchain's extent, rows packed) into it and
    /// presents it; the answer is the present's (`Ok(true)`: suboptimal), or the acquire's error.
    pub fn present_rgba(&mut self, rgba: &[u8]) -> Result<bool, vk::Result> {
        let size = u64::from(self.extent.width) * u64::from(self.extent.height) * 4;
        assert_eq!(rgba.len() as u64, size, "pixels for the swapchain's extent");
        let (buffer, memory) = self.staging(size);
        // SAFETY: plain Vulkan use of live objects; every submit is waited for before the next.
        unsafe {
            let ptr = self
                .device
                .map_memory(memory, 0, size, vk::MemoryMapFlags::empty())
                .unwrap();
            std::ptr::copy_nonoverlapping(rgba.as_ptr(), ptr.cast(), rgba.len());
            self.device.unmap_memory(memory);

            let (index, _) = self.sc_fns.acquire_next_image(
                self.swapchain,
                u64::MAX,
                vk::Semaphore::null(),
                self.fence,
            )?;
            self.device
                .wait_for_fences(&[self.fence], true, u64::MAX)
                .unwrap();
            self.device.reset_fences(&[self.fence]).unwrap();
            let image = self.images[index as usize];
            let range = vk::ImageSubresourceRange::default()
                .aspect_mask(vk::ImageAspectFlags::COLOR)
                .level_count(1)
                .layer_count(1);
            let barrier = |old, new, src, dst| {
                vk::ImageMemoryBarrier::default()
                    .old_layout(old)
                    .new_layout(new)
                    .src_access_mask(src)
                    .dst_access_mask(dst)
                    .image(image)
                    .subresource_range(range)
            };
            let d = &self.device;
            d.begin_command_buffer(self.cb, &vk::CommandBufferBeginInfo::default())
                .unwrap();
            d.cmd_pipeline_barrier(
                self.cb,
                vk::PipelineStageFlags::TOP_OF_PIPE,
                vk::PipelineStageFlags::TRANSFER,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[barrier(
                    vk::ImageLayout::UNDEFINED,
                    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                    vk::AccessFlags::empty(),
                    vk::AccessFlags::TRANSFER_WRITE,
                )],
            );
            d.cmd_copy_buffer_to_image(
                self.cb,
                buffer,
                image,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &[vk::BufferImageCopy::default()
                    .image_subresource(
                        vk::ImageSubresourceLayers::default()
                            .aspect_mask(vk::ImageAspectFlags::COLOR)
                            .layer_count(1),
                    )
                    .image_extent(vk::Extent3D {
                        width: self.extent.width,
                        height: self.extent.height,
                        depth: 1,
                    })],
            );
            d.cmd_pipeline_barrier(
                self.cb,
                vk::PipelineStageFlags::TRANSFER,
                vk::PipelineStageFlags::BOTTOM_OF_PIPE,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[barrier(
                    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                    vk::ImageLayout::PRESENT_SRC_KHR,
                    vk::AccessFlags::TRANSFER_WRITE,
                    vk::AccessFlags::empty(),
                )],
            );
            d.end_command_buffer(self.cb).unwrap();
            let signal = [self.done];
            let cbs = [self.cb];
            d.queue_submit(
                self.queue,
                &[vk::SubmitInfo::default()
                    .command_buffers(&cbs)
                    .signal_semaphores(&signal)],
                self.fence,
            )
            .unwrap();
            let scs = [self.swapchain];
            let idx = [index];
            let r = self.sc_fns.queue_present(
                self.queue,
                &vk::PresentInfoKHR::default()
                    .wait_semaphores(&signal)
                    .swapchains(&scs)
                    .image_indices(&idx),
            );
            d.wait_for_fences(&[self.fence], true, u64::MAX).unwrap();
            d.reset_fences(&[self.fence]).unwrap();
            r
        }
    }

    /// A host-visible buffer of at least `size` bytes.
    fn staging(&mut self, size: u64) -> (vk::Buffer, vk::DeviceMemory) {
        if let Some((b, m, s)) = self.staging {
            if s >= size {
                return (b, m);
            }
            // SAFETY: idle (every submit was waited for).
            unsafe {
                self.device.destroy_buffer(b, None);
                self.device.free_memory(m, None);
            }
        }
        // SAFETY: plain Vulkan use of live objects.
        unsafe {
            let buffer = self
                .device
                .create_buffer(
                    &vk::BufferCreateInfo::default()
                        .size(size)
                        .usage(vk::BufferUsageFlags::TRANSFER_SRC),
                    None,
                )
                .unwrap();
            let req = self.device.get_buffer_memory_requirements(buffer);
            let props = self.instance.get_physical_device_memory_properties(self.pd);
            let want =
                vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
            let index = (0..props.memory_type_count)
                .find(|&i| {
                    req.memory_type_bits & (1 << i) != 0
                        && props.memory_types[i as usize].property_flags.contains(want)
                })
                .expect("a host-visible coherent memory type");
            let memory = self
                .device
                .allocate_memory(
                    &vk::MemoryAllocateInfo::default()
                        .allocation_size(req.size)
                        .memory_type_index(index),
                    None,
                )
                .unwrap();
            self.device.bind_buffer_memory(buffer, memory, 0).unwrap();
            self.staging = Some((buffer, memory, size));
            (buffer, memory)
        }
    }
}

impl Drop for Rig {
    fn drop(&mut self) {
        // SAFETY: everything idle; children destroyed first (the instance goes with its field).
        unsafe {
            let _ = self.device.device_wait_idle();
            if let Some((b, m, _)) = self.staging.take() {
                self.device.destroy_buffer(b, None);
                self.device.free_memory(m, None);
            }
            if self.swapchain != vk::SwapchainKHR::null() {
                self.sc_fns.destroy_swapchain(self.swapchain, None);
            }
            self.device.destroy_semaphore(self.done, None);
            self.device.destroy_fence(self.fence, None);
            self.device.destroy_command_pool(self.pool, None);
            self.device.destroy_device(None);
            self.surface_fns.destroy_surface(self.surface, None);
        }
    }
}

/// A test pattern: every pixel different from its neighbours, opaque.
pub fn pattern(width: u32, height: u32, seed: u8) -> Vec<u8> {
    let mut out = Vec::with_capacity((width * height * 4) as usize);
    for y in 0..height {
        for x in 0..width {
            out.extend_from_slice(&[
                (x as u8).wrapping_mul(3).wrapping_add(seed),
                (y as u8).wrapping_mul(5),
                ((x + y) as u8) ^ seed,
                0xff,
            ]);
        }
    }
    out
}
