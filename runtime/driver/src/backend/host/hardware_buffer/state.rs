//! The extension's per-device state, which the host device record holds
//! ([`super::super::registry::HostDevice::ahb`]): what every other part of the extension reads.

use std::collections::HashMap;
use std::sync::Mutex;

use vkgen_generated::vk;

use super::super::mapping::HostMapping;
use crate::hardware_buffer::HardwareBufferRef;

/// Per-device state of the extension.
pub(in crate::backend::host) struct AhbDevice {
    /// The memory types a host pointer can be imported into.
    pub(super) host_pointer_bits: u32,
    pub(super) images: Mutex<HashMap<u64, AhbImage>>,
    pub(super) memories: Mutex<HashMap<u64, AhbMemory>>,
}

/// An image created with the handle type.
pub(super) struct AhbImage {
    /// The application's format (resolved from an external format).
    pub(super) format: vk::Format,
    pub(super) extent: vk::Extent3D,
    pub(super) usage: vk::ImageUsageFlags,
    pub(super) flags: vk::ImageCreateFlags,
    pub(super) layout: HostLayout,
    /// Created in the application's tiling with no host-pointer import in mind: the host's
    /// `LINEAR` layout is not the allocator's, so this image is always copy-backed.
    pub(super) copied: bool,
}

/// How the host holds the image's planes.
pub(super) enum HostLayout {
    /// One host image (a single-plane format, or a multi-planar one the host has, `DISJOINT`).
    Native { disjoint: bool },
    /// One host image per plane; index 0 is the application's handle.
    Planes(Vec<(vk::Image, vk::Format)>),
}

/// One host bind of a dedicated image: host image, plane aspect (empty: the whole image),
/// memory offset.
pub(super) type PlaneBind = (vk::Image, vk::ImageAspectFlags, u64);

/// Memory backed by a buffer's pages.
pub(super) struct AhbMemory {
    pub(super) buffer: HardwareBufferRef,
    /// The binds its dedicated image gets (into this memory, or `copy`'s image memory).
    pub(super) binds: Vec<PlaneBind>,
    /// Where the dedicated image cannot sit on the pages ([`copy_backed`](super::super::copy_backed)).
    pub(super) copy: Option<CopyMemory>,
    pub(super) _mapping: HostMapping,
}

/// The host objects of a copy-backed dedicated image.
pub(super) struct CopyMemory {
    pub(super) image: vk::Image,
    /// Over the imported pages, the copies' source and destination.
    pub(super) staging: vk::Buffer,
    /// The image's own memory.
    pub(super) image_memory: vk::DeviceMemory,
    pub(super) regions: Vec<vk::BufferImageCopy>,
}
