//! The two format facts the render-pass conversion needs: which aspects an attachment format
//! has (depth and stencil attachments get separate load ops, layouts and resolve modes) and
//! whether a colour format is integer (integer attachments resolve with `SAMPLE_ZERO`, the
//! only mode the spec allows them).
//!
//! Local on purpose and small: `kit::format`'s generated table (another helper's, issue 30
//! item 1) answers both for every format; at merge these two functions may read it instead.

use vkgen_generated::vk;

/// The aspects of an attachment of `format`: depth and/or stencil for depth/stencil formats,
/// colour for everything else.
pub fn aspects(format: vk::Format) -> vk::ImageAspectFlags {
    type F = vk::Format;
    type A = vk::ImageAspectFlags;
    match format {
        F::D16_UNORM | F::X8_D24_UNORM_PACK32 | F::D32_SFLOAT => A::DEPTH,
        F::S8_UINT => A::STENCIL,
        F::D16_UNORM_S8_UINT | F::D24_UNORM_S8_UINT | F::D32_SFLOAT_S8_UINT => {
            A::DEPTH | A::STENCIL
        }
        _ => A::COLOR,
    }
}

/// Whether `format` is an integer (`UINT`/`SINT`) colour format.
pub fn is_integer(format: vk::Format) -> bool {
    type F = vk::Format;
    matches!(
        format,
        F::R8_UINT
            | F::R8_SINT
            | F::R8G8_UINT
            | F::R8G8_SINT
            | F::R8G8B8_UINT
            | F::R8G8B8_SINT
            | F::B8G8R8_UINT
            | F::B8G8R8_SINT
            | F::R8G8B8A8_UINT
            | F::R8G8B8A8_SINT
            | F::B8G8R8A8_UINT
            | F::B8G8R8A8_SINT
            | F::A8B8G8R8_UINT_PACK32
            | F::A8B8G8R8_SINT_PACK32
            | F::A2R10G10B10_UINT_PACK32
            | F::A2R10G10B10_SINT_PACK32
            | F::A2B10G10R10_UINT_PACK32
            | F::A2B10G10R10_SINT_PACK32
            | F::R16_UINT
            | F::R16_SINT
            | F::R16G16_UINT
            | F::R16G16_SINT
            | F::R16G16B16_UINT
            | F::R16G16B16_SINT
            | F::R16G16B16A16_UINT
            | F::R16G16B16A16_SINT
            | F::R32_UINT
            | F::R32_SINT
            | F::R32G32_UINT
            | F::R32G32_SINT
            | F::R32G32B32_UINT
            | F::R32G32B32_SINT
            | F::R32G32B32A32_UINT
            | F::R32G32B32A32_SINT
            | F::R64_UINT
            | F::R64_SINT
            | F::R64G64_UINT
            | F::R64G64_SINT
            | F::R64G64B64_UINT
            | F::R64G64B64_SINT
            | F::R64G64B64A64_UINT
            | F::R64G64B64A64_SINT
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_stencil_and_integer_formats() {
        assert_eq!(
            aspects(vk::Format::D24_UNORM_S8_UINT),
            vk::ImageAspectFlags::DEPTH | vk::ImageAspectFlags::STENCIL
        );
        assert_eq!(aspects(vk::Format::S8_UINT), vk::ImageAspectFlags::STENCIL);
        assert_eq!(
            aspects(vk::Format::R8G8B8A8_UNORM),
            vk::ImageAspectFlags::COLOR
        );
        assert!(is_integer(vk::Format::R32_UINT));
        assert!(!is_integer(vk::Format::R8G8B8A8_SRGB));
    }
}
