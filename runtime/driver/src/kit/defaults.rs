//! A device that passes `vulkaninfo` before the vendor has described anything: the limits the
//! specification requires of every implementation, one universal queue family, one host-visible
//! heap, and a format table with every uncompressed single-plane 1.0 format (the null driver's).
//! [`PhysicalDeviceDesc::new`](super::PhysicalDeviceDesc::new) starts from these; a vendor
//! overwrites what its hardware differs in.

use std::ffi::CStr;

use vkgen_generated::vk;

use super::tables::{Features, Properties};

/// The default heap: 256 MiB.
pub const HEAP_SIZE: u64 = 256 << 20;

/// The default `driverID`: `VK_DRIVER_ID_GOOGLE_SWIFTSHADER`, Google's CPU implementation —
/// the closest registered identity to the kit's default device (host memory, a CPU engine)
/// and one every registry of the matrix (1.1.130 on) has. `VkDriverId` has no "unknown"
/// value and 0 is none; Mesa's drivers each set their own, and so should a vendor: ask
/// Khronos for an ID (vk.xml's `VkDriverId`) and set `properties.driver_id`. The requirements
/// report names a `driverID` that is no `VkDriverId` of the registry.
pub const DRIVER_ID: vk::DriverId = vk::DriverId::GOOGLE_SWIFTSHADER;

/// The default `timestampValidBits` of the default queue family: a full 64-bit clock (the
/// kit writes `CLOCK_MONOTONIC` nanoseconds when the engine does not write timestamps, and
/// [`limits`]' `timestampPeriod` is 1 ns).
pub const TIMESTAMP_VALID_BITS: u32 = 64;

/// Properties of a device named `name` at `api_version`, with [`limits`].
pub fn properties(name: &CStr, api_version: u32) -> Properties {
    let mut p = vk::PhysicalDeviceProperties {
        api_version,
        driver_version: vk::make_api_version(0, 0, 1, 0),
        device_type: vk::PhysicalDeviceType::OTHER,
        limits: limits(),
        ..Default::default()
    };
    crate::util::copy_cstr(&mut p.device_name, name);
    p.pipeline_cache_uuid = *b"vkgen-kit-cache0";
    let mut out = Properties::default();
    out.from_properties10(&p);
    out.driver_id = DRIVER_ID;
    crate::util::copy_cstr(&mut out.driver_name, c"vkgen kit");
    // Not minimums the profiles state, but a device with subgroups has at least one lane: the
    // sizes of a one-lane device, so that a 1.1+ default is self-consistent.
    out.subgroup_size = 1;
    out.min_subgroup_size = 1;
    out.max_subgroup_size = 1;
    out.max_compute_workgroup_subgroups = 1;
    out
}

/// `robustBufferAccess` only (every 1.0 device has it).
pub fn features() -> Features {
    Features {
        robust_buffer_access: true,
        ..Default::default()
    }
}

/// The minimum limits the Vulkan 1.0 specification requires ("Required Limits"); later
/// versions' raised ones are applied by
/// [`with_required_limits`](super::requirements::with_required_limits).
pub fn limits() -> vk::PhysicalDeviceLimits {
    let counts = vk::SampleCountFlags::TYPE_1 | vk::SampleCountFlags::TYPE_4;
    vk::PhysicalDeviceLimits {
        max_image_dimension1_d: 4096,
        max_image_dimension2_d: 4096,
        max_image_dimension3_d: 256,
        max_image_dimension_cube: 4096,
        max_image_array_layers: 256,
        max_texel_buffer_elements: 65536,
        max_uniform_buffer_range: 16384,
        max_storage_buffer_range: 1 << 27,
        max_push_constants_size: 128,
        max_memory_allocation_count: 4096,
        max_sampler_allocation_count: 4000,
        buffer_image_granularity: 131072,
        sparse_address_space_size: 0,
        max_bound_descriptor_sets: 4,
        max_per_stage_descriptor_samplers: 16,
        max_per_stage_descriptor_uniform_buffers: 12,
        max_per_stage_descriptor_storage_buffers: 4,
        max_per_stage_descriptor_sampled_images: 16,
        max_per_stage_descriptor_storage_images: 4,
        max_per_stage_descriptor_input_attachments: 4,
        max_per_stage_resources: 128,
        max_descriptor_set_samplers: 96,
        max_descriptor_set_uniform_buffers: 72,
        max_descriptor_set_uniform_buffers_dynamic: 8,
        max_descriptor_set_storage_buffers: 24,
        max_descriptor_set_storage_buffers_dynamic: 4,
        max_descriptor_set_sampled_images: 96,
        max_descriptor_set_storage_images: 24,
        max_descriptor_set_input_attachments: 4,
        max_vertex_input_attributes: 16,
        max_vertex_input_bindings: 16,
        max_vertex_input_attribute_offset: 2047,
        max_vertex_input_binding_stride: 2048,
        max_vertex_output_components: 64,
        max_fragment_input_components: 64,
        max_fragment_output_attachments: 4,
        max_fragment_dual_src_attachments: 0,
        max_fragment_combined_output_resources: 4,
        max_compute_shared_memory_size: 16384,
        max_compute_work_group_count: [65535; 3],
        max_compute_work_group_invocations: 128,
        max_compute_work_group_size: [128, 128, 64],
        sub_pixel_precision_bits: 4,
        sub_texel_precision_bits: 4,
        mipmap_precision_bits: 4,
        max_draw_indexed_index_value: (1 << 24) - 1,
        max_draw_indirect_count: 1,
        max_sampler_lod_bias: 2.0,
        max_sampler_anisotropy: 1.0,
        max_viewports: 1,
        max_viewport_dimensions: [4096, 4096],
        viewport_bounds_range: [-8192.0, 8191.0],
        viewport_sub_pixel_bits: 0,
        min_memory_map_alignment: 64,
        min_texel_buffer_offset_alignment: 256,
        min_uniform_buffer_offset_alignment: 256,
        min_storage_buffer_offset_alignment: 256,
        min_texel_offset: -8,
        max_texel_offset: 7,
        max_framebuffer_width: 4096,
        max_framebuffer_height: 4096,
        max_framebuffer_layers: 256,
        framebuffer_color_sample_counts: counts,
        framebuffer_depth_sample_counts: counts,
        framebuffer_stencil_sample_counts: counts,
        framebuffer_no_attachments_sample_counts: counts,
        max_color_attachments: 4,
        sampled_image_color_sample_counts: counts,
        sampled_image_integer_sample_counts: vk::SampleCountFlags::TYPE_1,
        sampled_image_depth_sample_counts: counts,
        sampled_image_stencil_sample_counts: counts,
        storage_image_sample_counts: vk::SampleCountFlags::TYPE_1,
        max_sample_mask_words: 1,
        timestamp_compute_and_graphics: vk::FALSE,
        timestamp_period: 1.0,
        discrete_queue_priorities: 2,
        point_size_range: [1.0, 1.0],
        line_width_range: [1.0, 1.0],
        standard_sample_locations: vk::TRUE,
        optimal_buffer_copy_offset_alignment: 1,
        optimal_buffer_copy_row_pitch_alignment: 1,
        non_coherent_atom_size: 256,
        ..Default::default()
    }
}

/// Graphics, compute and transfer, one queue, with timestamps ([`TIMESTAMP_VALID_BITS`]:
/// Vulkan 1.4 requires `timestampComputeAndGraphics`, which promises them on such a family).
pub fn queue_family() -> vk::QueueFamilyProperties {
    vk::QueueFamilyProperties {
        queue_flags: vk::QueueFlags::GRAPHICS | vk::QueueFlags::COMPUTE | vk::QueueFlags::TRANSFER,
        queue_count: 1,
        timestamp_valid_bits: TIMESTAMP_VALID_BITS,
        min_image_transfer_granularity: vk::Extent3D {
            width: 1,
            height: 1,
            depth: 1,
        },
    }
}

/// One heap of `size` bytes with one device-local, host-visible, coherent type.
pub fn memory_properties(size: u64) -> vk::PhysicalDeviceMemoryProperties {
    let mut m = vk::PhysicalDeviceMemoryProperties {
        memory_type_count: 1,
        memory_heap_count: 1,
        ..Default::default()
    };
    m.memory_types[0] = vk::MemoryType {
        property_flags: vk::MemoryPropertyFlags::DEVICE_LOCAL
            | vk::MemoryPropertyFlags::HOST_VISIBLE
            | vk::MemoryPropertyFlags::HOST_COHERENT,
        heap_index: 0,
    };
    m.memory_heaps[0] = vk::MemoryHeap {
        size,
        flags: vk::MemoryHeapFlags::DEVICE_LOCAL,
    };
    m
}

/// Whether `format` has a depth or stencil aspect (from the format table).
pub fn is_depth_stencil(format: vk::Format) -> bool {
    super::format::info(format).is_some_and(|f| f.is_depth_stencil())
}

/// Whether the kit's default device declares `format`
/// ([`FormatSupport::kit_default`](super::format::FormatSupport::kit_default)).
pub fn is_supported_format(format: vk::Format) -> bool {
    !super::format::support::is_empty(&format_properties(format))
}

/// What the kit's default device declares for `format`
/// ([`FormatSupport::kit_default`](super::format::FormatSupport::kit_default)); a device
/// answers from its own description's [`formats`](super::PhysicalDeviceDesc::formats).
pub fn format_properties(format: vk::Format) -> vk::FormatProperties {
    static DEFAULT: std::sync::OnceLock<super::format::FormatSupport> = std::sync::OnceLock::new();
    DEFAULT
        .get_or_init(super::format::FormatSupport::kit_default)
        .get(format)
}

/// The image-format answer derived from a format's features: `VK_ERROR_FORMAT_NOT_SUPPORTED`
/// when the tiling lacks a feature the usage needs (or the format has none), otherwise the
/// device's `limits` as maxima: the specification asks an optimal-tiling image of a supported
/// format to reach `maxImageDimension*` and `maxImageArrayLayers`, so a 1.4 device (whose
/// required limits are higher) answers larger extents than a 1.0 one.
pub fn image_format_properties(
    props: vk::FormatProperties,
    info: &vk::PhysicalDeviceImageFormatInfo2<'_>,
    limits: &vk::PhysicalDeviceLimits,
) -> Result<vk::ImageFormatProperties, vk::Result> {
    let (ty, tiling, usage) = (info.ty, info.tiling, info.usage);
    use vk::FormatFeatureFlags as F;
    use vk::ImageUsageFlags as U;
    let features = match tiling {
        vk::ImageTiling::LINEAR => props.linear_tiling_features,
        _ => props.optimal_tiling_features,
    };
    let needs = [
        (U::SAMPLED, F::SAMPLED_IMAGE),
        (U::STORAGE, F::STORAGE_IMAGE),
        (U::COLOR_ATTACHMENT, F::COLOR_ATTACHMENT),
        (U::DEPTH_STENCIL_ATTACHMENT, F::DEPTH_STENCIL_ATTACHMENT),
        (U::TRANSFER_SRC, F::TRANSFER_SRC),
        (U::TRANSFER_DST, F::TRANSFER_DST),
    ];
    if features.is_empty()
        || needs
            .iter()
            .any(|&(u, f)| usage.contains(u) && !features.contains(f))
    {
        return Err(vkgen_abi::vk_error!(
            vk::Result::ERROR_FORMAT_NOT_SUPPORTED,
            "{:?} has no {tiling:?} features for usage {usage:?}",
            info.format
        ));
    }
    let (d1, d2, d3) = (
        limits.max_image_dimension1_d,
        limits.max_image_dimension2_d,
        limits.max_image_dimension3_d,
    );
    let layers = limits.max_image_array_layers;
    let (extent, layers) = match ty {
        vk::ImageType::TYPE_1D => ((d1, 1, 1), layers),
        vk::ImageType::TYPE_3D => ((d3, d3, d3), 1),
        _ => ((d2, d2, 1), layers),
    };
    // A full mip chain of the largest extent: floor(log2(max)) + 1.
    let mips = 32 - extent.0.max(extent.1).max(extent.2).max(1).leading_zeros();
    let samples = if ty == vk::ImageType::TYPE_2D && tiling == vk::ImageTiling::OPTIMAL {
        if is_depth_stencil(info.format) {
            limits.sampled_image_depth_sample_counts
        } else {
            limits.sampled_image_color_sample_counts
        }
    } else {
        vk::SampleCountFlags::TYPE_1
    };
    Ok(vk::ImageFormatProperties {
        max_extent: vk::Extent3D {
            width: extent.0,
            height: extent.1,
            depth: extent.2,
        },
        max_mip_levels: mips,
        max_array_layers: layers,
        sample_counts: samples,
        max_resource_size: 1 << 31,
    })
}
