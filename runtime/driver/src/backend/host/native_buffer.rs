//! `VK_ANDROID_native_buffer` on the host: gralloc buffers imported as host memory, and the
//! native fences of acquire and release (the release worker).

use std::ptr::{self};
use std::sync::mpsc;

use vkgen_abi::native_window::buffer_usage;
use vkgen_generated::vk;

use crate::gralloc::Buffer;
use crate::kit::native_buffer::{
    native_buffer_of, GrallocQueries, GrallocUsage, NativeBufferImport, NativeBuffers,
};
use crate::sync_fd::FenceSignaller;
use crate::sync_fd::NativeFence;
use crate::util::{fence_error_result, find_in_chain, ChainEdit};

use super::driver::HostDriver;
use super::hardware_buffer;
use super::mapping::HostMapping;
use super::registry::*;
use super::release::{Job, Worker};

// ---------------------------------------------------------------------------------------------
// Native buffer import

/// A host image for a native buffer: LINEAR, importable as host memory, with the
/// native-buffer structures taken out of the chain (the host knows none of them).
///
/// # Safety
/// `ci` is a valid create info (chain included) for `dev`.
pub(super) unsafe fn create_importable_image(
    dev: &HostDevice,
    ci: &vk::ImageCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
) -> Result<vk::Image, vk::Result> {
    // SAFETY: the application's chain, valid and not used elsewhere during this call.
    let chain = unsafe {
        ChainEdit::without(
            ci.p_next,
            &[
                vk::StructureType::NATIVE_BUFFER_ANDROID,
                vk::StructureType::SWAPCHAIN_IMAGE_CREATE_INFO_ANDROID,
                vk::StructureType::IMAGE_SWAPCHAIN_CREATE_INFO_KHR,
                vk::StructureType::EXTERNAL_MEMORY_IMAGE_CREATE_INFO,
            ],
        )
    };
    let external = vk::ExternalMemoryImageCreateInfo {
        p_next: chain.head(),
        handle_types: vk::ExternalMemoryHandleTypeFlags::HOST_ALLOCATION_EXT,
        ..Default::default()
    };
    let mut ci2 = *ci;
    ci2.p_next = ptr::from_ref(&external).cast();
    ci2.tiling = vk::ImageTiling::LINEAR;
    let mut image = vk::Image::null();
    // SAFETY: the host's vkCreateImage with a valid create info.
    let r = unsafe { (dev.fns.fp_v1_0().create_image)(dev.handle, &ci2, p_allocator, &mut image) };
    match r {
        vk::Result::SUCCESS => Ok(image),
        e => Err(e),
    }
}

/// Imports the gralloc buffer `buffer` and binds `image` to it.
///
/// # Safety
/// `image` is a fresh, unbound host image of `dev`, created LINEAR and importable as host
/// memory; `buffer` is the gralloc buffer the kit parsed from the `VkNativeBufferANDROID`.
pub(super) unsafe fn bind_native_buffer(
    dev: &HostDevice,
    anb: &AnbDevice,
    image: vk::Image,
    buffer: Buffer,
) -> Result<AnbImage, vk::Result> {
    let desc = *buffer.desc();
    // SAFETY: `image` is a live image of `dev`.
    let (reqs, layout) = unsafe {
        (
            dev.fns.get_image_memory_requirements(image),
            dev.fns.get_image_subresource_layout(
                image,
                vk::ImageSubresource {
                    aspect_mask: vk::ImageAspectFlags::COLOR,
                    mip_level: 0,
                    array_layer: 0,
                },
            ),
        )
    };
    if layout.row_pitch != desc.row_bytes() || layout.offset != 0 {
        return Err(vkgen_abi::vk_error!(
            vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
            "VkNativeBufferANDROID: host row pitch {} (offset {}) does not match the buffer's {}",
            layout.row_pitch,
            layout.offset,
            desc.row_bytes()
        ));
    }
    if reqs.alignment != 0 && !desc.offset.is_multiple_of(reqs.alignment) {
        return Err(vkgen_abi::vk_error!(
            vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
            "VkNativeBufferANDROID: buffer offset {} is not aligned to the host's {}",
            desc.offset,
            reqs.alignment
        ));
    }
    let align = anb.import_alignment.max(rustix::param::page_size() as u64);
    let total = desc
        .offset
        .checked_add(reqs.size)
        .map(|t| t.next_multiple_of(align))
        .and_then(|t| usize::try_from(t).ok())
        .ok_or_else(|| {
            vkgen_abi::vk_error!(
                vk::Result::ERROR_OUT_OF_HOST_MEMORY,
                "VkNativeBufferANDROID: the import's size overflows"
            )
        })?;
    let end = desc.end().map_err(|e| {
        vkgen_platform::gralloc::map_gralloc_err(
            "VkNativeBufferANDROID: the buffer's extent",
            &e,
            vkgen_platform::gralloc::BufferOp::Import,
        )
    })?;
    let mapping = HostMapping::new(buffer.fd(), end, total).map_err(|e| {
        vkgen_abi::error::map_io_err(
            "VkNativeBufferANDROID: mapping the buffer",
            &e.into(),
            vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        )
    })?;
    drop(buffer);
    let mut host_props = vk::MemoryHostPointerPropertiesEXT::default();
    // SAFETY: the host's function with a live device and our mapping.
    let r = unsafe {
        (anb.memory_host.get_memory_host_pointer_properties_ext)(
            dev.handle,
            vk::ExternalMemoryHandleTypeFlags::HOST_ALLOCATION_EXT,
            mapping.base.as_ptr(),
            &mut host_props,
        )
    };
    if r != vk::Result::SUCCESS {
        return Err(r);
    }
    let bits = host_props.memory_type_bits & reqs.memory_type_bits;
    if bits == 0 {
        return Err(vkgen_abi::vk_error!(
            vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
            "VkNativeBufferANDROID: no host memory type takes both the mapping and the image"
        ));
    }
    let mut import = vk::ImportMemoryHostPointerInfoEXT::default()
        .handle_type(vk::ExternalMemoryHandleTypeFlags::HOST_ALLOCATION_EXT);
    import.p_host_pointer = mapping.base.as_ptr();
    let info = vk::MemoryAllocateInfo::default()
        .allocation_size(total as u64)
        .memory_type_index(bits.trailing_zeros())
        .push_next(&mut import);
    // SAFETY: valid allocation info importing our mapping, which outlives the memory (both are
    // owned by the returned `AnbImage`, and the memory is freed first).
    let memory = unsafe { dev.fns.allocate_memory(&info, None) }?;
    // SAFETY: `image` is unbound; the memory covers offset + size.
    if let Err(e) = unsafe { dev.fns.bind_image_memory(image, memory, desc.offset) } {
        // SAFETY: the memory allocated just above, bound to nothing (the bind failed) and used by
        // no command.
        unsafe { dev.fns.free_memory(memory, None) };
        return Err(e);
    }
    Ok(AnbImage::Bound {
        memory,
        _mapping: mapping,
    })
}

/// Frees what an [`AnbImage`] holds (after its image was destroyed).
pub(super) fn release_anb_image(dev: &HostDevice, img: AnbImage) {
    if let AnbImage::Bound { memory, _mapping } = img {
        // SAFETY: the image bound to it is gone; the mapping is unmapped after the memory.
        unsafe { dev.fns.free_memory(memory, None) };
        drop(_mapping);
    }
}

/// Gralloc usage for swapchain images of `usage`.
/// Gralloc usage of the host's swapchain images (what the memfd gralloc allocates for).
pub(super) const GRALLOC_USAGE: GrallocUsage = GrallocUsage {
    base: 0,
    per_image_usage: &[
        (
            vk::ImageUsageFlags::from_raw(
                vk::ImageUsageFlags::COLOR_ATTACHMENT.as_raw()
                    | vk::ImageUsageFlags::TRANSFER_DST.as_raw()
                    | vk::ImageUsageFlags::STORAGE.as_raw(),
            ),
            buffer_usage::GPU_RENDER_TARGET,
        ),
        (
            vk::ImageUsageFlags::from_raw(
                vk::ImageUsageFlags::SAMPLED.as_raw()
                    | vk::ImageUsageFlags::INPUT_ATTACHMENT.as_raw()
                    | vk::ImageUsageFlags::TRANSFER_SRC.as_raw(),
            ),
            buffer_usage::GPU_TEXTURE,
        ),
    ],
    shared: buffer_usage::FRONT_BUFFER,
};

/// `VK_ANDROID_native_buffer`'s gralloc queries and native fences through the kit's component;
/// the host-specific part is signalling through an empty submit and exporting the release fence.
impl<const SLOT: usize> NativeBuffers for HostDriver<SLOT> {
    const GRALLOC_QUERIES: GrallocQueries = GrallocQueries::ALL;
    const NATIVE_FENCES: bool = true;

    /// A LINEAR host image bound to the buffer's pages imported as host memory (zero copy).
    fn import_native_buffer(
        device: vk::Device,
        import: NativeBufferImport<'_>,
        allocator: Option<&vk::AllocationCallbacks<'_>>,
    ) -> Result<vk::Image, vk::Result> {
        let allocator = allocator.map_or(ptr::null(), ptr::from_ref);
        let dev = device_of(device).ok_or_else(|| {
            vkgen_abi::vk_error!(
                vk::Result::ERROR_INITIALIZATION_FAILED,
                "{device:?} is no live device of the host driver"
            )
        })?;
        let anb = dev.anb.as_ref().ok_or_else(|| {
            vkgen_abi::vk_error!(
                vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
                "VkNativeBufferANDROID on a device without the extension"
            )
        })?;
        // SAFETY: a create info the kit validated, for this device.
        let image = unsafe { create_importable_image(&dev, import.create_info, allocator) }?;
        // SAFETY: a fresh LINEAR importable image of this device.
        match unsafe { bind_native_buffer(&dev, anb, image, import.buffer) } {
            Ok(state) => {
                lock(&anb.images).insert(vk::Handle::as_raw(image), state);
                Ok(image)
            }
            Err(e) => {
                // SAFETY: the image was never handed out.
                unsafe { (dev.fns.fp_v1_0().destroy_image)(device, image, allocator) };
                Err(e)
            }
        }
    }

    fn gralloc_usage() -> GrallocUsage {
        GRALLOC_USAGE
    }

    fn signal_on_native_fence(
        device: vk::Device,
        semaphore: vk::Semaphore,
        semaphore_fence: Option<NativeFence>,
        fence: vk::Fence,
        fence_fence: Option<NativeFence>,
    ) -> Result<(), vk::Result> {
        // Wait on the calling thread (both copies are the same fence), then signal on the host.
        for f in semaphore_fence.iter().chain(&fence_fence) {
            f.wait(None).map_err(|e| fence_error_result(&e))?;
        }
        drop((semaphore_fence, fence_fence));
        if semaphore == vk::Semaphore::null() && fence == vk::Fence::null() {
            return Ok(());
        }
        let dev = device_of(device).ok_or_else(|| {
            vkgen_abi::vk_error!(
                vk::Result::ERROR_DEVICE_LOST,
                "{device:?} is no live device of the host driver"
            )
        })?;
        let anb = dev.anb.as_ref().ok_or_else(|| {
            vkgen_abi::vk_error!(
                vk::Result::ERROR_EXTENSION_NOT_PRESENT,
                "vkAcquireImageANDROID on a device without VK_ANDROID_native_buffer"
            )
        })?;
        match anb.signal(&dev, semaphore, fence) {
            vk::Result::SUCCESS => Ok(()),
            e => Err(e),
        }
    }

    fn release_native_fence(
        queue: vk::Queue,
        waits: &[vk::Semaphore],
        _image: vk::Image,
    ) -> Result<NativeFence, vk::Result> {
        let dev = device_of_queue(queue).ok_or_else(|| {
            vkgen_abi::vk_error!(
                vk::Result::ERROR_DEVICE_LOST,
                "{queue:?} is no queue of a host device"
            )
        })?;
        let anb = dev.anb.as_ref().ok_or_else(|| {
            vkgen_abi::vk_error!(
                vk::Result::ERROR_EXTENSION_NOT_PRESENT,
                "vkQueueSignalReleaseImageANDROID on a device without VK_ANDROID_native_buffer"
            )
        })?;
        let stages = vec![vk::PipelineStageFlags::ALL_COMMANDS; waits.len()];
        let fence = anb.fence(&dev)?;
        let submit = vk::SubmitInfo::default()
            .wait_semaphores(waits)
            .wait_dst_stage_mask(&stages);
        // SAFETY: the application's queue (externally synchronised by it for this call).
        if let Err(e) = unsafe { dev.fns.queue_submit(queue, &[submit], fence) } {
            lock(&anb.fences).push(fence);
            return Err(e);
        }
        if let Some(fence_fd) = &anb.fence_fd {
            let info = vk::FenceGetFdInfoKHR::default()
                .fence(fence)
                .handle_type(vk::ExternalFenceHandleTypeFlags::SYNC_FD);
            let mut fd = -1;
            // SAFETY: a fence with a pending signal, exportable as SYNC_FD.
            if unsafe { (fence_fd.get_fence_fd_khr)(dev.handle, &info, &mut fd) }
                == vk::Result::SUCCESS
            {
                // Exporting SYNC_FD resets the fence (copy transference), so it can be reused.
                lock(&anb.fences).push(fence);
                // SAFETY: the driver hands over the fd it just exported.
                return Ok(unsafe { NativeFence::from_raw(fd) });
            }
        }
        let eventfd = FenceSignaller::new().and_then(|s| Ok((s.fd()?, s)));
        let mut worker = lock(&anb.worker);
        if worker.is_none() {
            match Worker::start(dev.fns.clone(), anb.fences.clone()) {
                Ok(w) => *worker = Some(w),
                Err(e) => log::error!("cannot start the release worker: {e}"),
            }
        }
        let waited = |r: vk::Result| match r {
            vk::Result::SUCCESS => Ok(NativeFence::signalled()),
            e => Err(e),
        };
        match (eventfd, worker.as_ref()) {
            (Ok((fd, signaller)), Some(w)) => {
                if let Err(mpsc::SendError(job)) = w.sender.send(Job { fence, signaller }) {
                    // The worker is gone: wait here instead; -1 then means "done".
                    drop(job.signaller);
                    return waited(wait_and_recycle(&dev, anb, fence));
                }
                Ok(NativeFence::from_fd(fd))
            }
            (Err(e), _) => {
                let r = wait_and_recycle(&dev, anb, fence);
                if r == vk::Result::SUCCESS {
                    log::warn!("no eventfd for a release fence ({e}); waited instead");
                }
                waited(r)
            }
            (Ok(_), None) => waited(wait_and_recycle(&dev, anb, fence)),
        }
    }
}

/// Waits for a submitted release fence on the calling thread and returns it to the pool.
pub(super) fn wait_and_recycle(dev: &HostDevice, anb: &AnbDevice, fence: vk::Fence) -> vk::Result {
    // SAFETY: a fence of the device with a pending signal.
    unsafe {
        match dev.fns.wait_for_fences(&[fence], true, u64::MAX) {
            Ok(()) if dev.fns.reset_fences(&[fence]).is_ok() => {
                lock(&anb.fences).push(fence);
                vk::Result::SUCCESS
            }
            Ok(()) => {
                dev.fns.destroy_fence(fence, None);
                vk::Result::SUCCESS
            }
            Err(e) => e,
        }
    }
}

impl AnbDevice {
    /// An unsignalled fence from the pool, or a new one.
    fn fence(&self, dev: &HostDevice) -> Result<vk::Fence, vk::Result> {
        if let Some(f) = lock(&self.fences).pop() {
            return Ok(f);
        }
        let mut export = vk::ExportFenceCreateInfo::default()
            .handle_types(vk::ExternalFenceHandleTypeFlags::SYNC_FD);
        let mut ci = vk::FenceCreateInfo::default();
        if self.fence_fd.is_some() {
            ci = ci.push_next(&mut export);
        }
        // SAFETY: valid create info for a live device.
        unsafe { dev.fns.create_fence(&ci, None) }
    }

    /// Signals `semaphore` and/or `fence` from the internal queue.
    fn signal(&self, dev: &HostDevice, semaphore: vk::Semaphore, fence: vk::Fence) -> vk::Result {
        let sems = [semaphore];
        let mut submit = vk::SubmitInfo::default();
        if semaphore != vk::Semaphore::null() {
            submit = submit.signal_semaphores(&sems);
        }
        let queue = lock(&self.internal_queue);
        // SAFETY: a queue of the device, used under our lock, with a valid batch.
        match unsafe { dev.fns.queue_submit(*queue, &[submit], fence) } {
            Ok(()) => vk::Result::SUCCESS,
            Err(e) => e,
        }
    }
}

/// `vkBindImageMemory2`: AHardwareBuffer images bound as planned at allocation; a pending swapchain image bound to the native buffer chained to its bind; everything else the host's.
///
/// # Safety
/// The application's valid arguments of `vkBindImageMemory2`.
pub(super) unsafe fn bind_image_memory2(
    device: vk::Device,
    bind_info_count: u32,
    p_bind_infos: *const vk::BindImageMemoryInfo<'_>,
) -> vk::Result {
    let dev = device_or!(device, vk::Result::ERROR_INITIALIZATION_FAILED);
    // SAFETY: `pBindInfos` holds `bindInfoCount` valid structures.
    let all = unsafe { slice(p_bind_infos, bind_info_count) };
    let rest = match hardware_buffer::bind_images(&dev, all) {
        Ok(r) => return r,
        Err(rest) => rest,
    };
    let infos = &rest[..];
    let native = |i: &vk::BindImageMemoryInfo<'_>| {
        // SAFETY: `i` is one of the application's binds, whose chain is valid for this call.
        unsafe {
            find_in_chain::<vk::NativeBufferANDROID>(
                i.p_next,
                vk::StructureType::NATIVE_BUFFER_ANDROID,
            )
        }
    };
    let (Some(anb), true) = (&dev.anb, infos.iter().any(|i| native(i).is_some())) else {
        // SAFETY: no bind carries a native buffer, so the host's vkBindImageMemory2 gets the
        // application's binds (less the AHardwareBuffer ones, in `infos`, alive for the call)
        // unchanged.
        return unsafe {
            (dev.fns.fp_v1_1().bind_image_memory2)(device, infos.len() as u32, infos.as_ptr())
        };
    };
    let mut others = Vec::new();
    let mut chains = Vec::new();
    for info in infos {
        match native(info) {
            Some(nb) => {
                let raw = vk::Handle::as_raw(info.image);
                if !matches!(lock(&anb.images).get(&raw), Some(AnbImage::Pending)) {
                    return vkgen_abi::vk_error!(
                        vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
                        "a VkNativeBufferANDROID bind of {:?}, no pending swapchain image",
                        info.image
                    );
                }
                // SAFETY: the loader's handle; parsed and dup'ed by the kit.
                let buffer = match unsafe { native_buffer_of(nb) } {
                    Ok(b) => b,
                    Err(e) => return e,
                };
                // SAFETY: a pending swapchain image of this device, created importable.
                match unsafe { bind_native_buffer(&dev, anb, info.image, buffer) } {
                    Ok(state) => {
                        lock(&anb.images).insert(raw, state);
                    }
                    Err(e) => return e,
                }
            }
            None => {
                // SAFETY: the application's chain, valid during this call.
                let chain = unsafe {
                    ChainEdit::without(
                        info.p_next,
                        &[vk::StructureType::BIND_IMAGE_MEMORY_SWAPCHAIN_INFO_KHR],
                    )
                };
                let mut copy = *info;
                copy.p_next = chain.head();
                chains.push(chain);
                others.push(copy);
            }
        }
    }
    if others.is_empty() {
        return vk::Result::SUCCESS;
    }
    // SAFETY: the host's vkBindImageMemory2 on its own device with the application's other binds,
    // whose edited chains (`chains`) live until after the call.
    let r = unsafe {
        (dev.fns.fp_v1_1().bind_image_memory2)(device, others.len() as u32, others.as_ptr())
    };
    drop(chains);
    r
}
