// STAND-IN for fmt's module (contract)
//! Format knowledge (stand-in): only what buffer views need, a block's size and extent, for
//! the core formats whose blocks the kit's image layout already knows (1.0's uncompressed and
//! compressed formats). The generated table of `vkgen_generated::formats` replaces this file.

use std::sync::OnceLock;

use vkgen_generated::vk;

/// One format's texel block.
#[derive(Clone, Copy, Debug)]
pub struct FormatInfo {
    pub format: vk::Format,
    pub block_size: u32,
    pub block_extent: [u32; 3],
    pub texels_per_block: u32,
}

/// The formats the stand-in knows: Vulkan 1.0's core formats (1 to 184).
const KNOWN: std::ops::RangeInclusive<i32> = 1..=184;

/// What the stand-in knows of `format`.
pub fn info(format: vk::Format) -> Option<&'static FormatInfo> {
    static TABLE: OnceLock<Vec<FormatInfo>> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        KNOWN
            .map(|raw| {
                let format = vk::Format::from_raw(raw);
                let (bytes, w, h) = super::resources::block_of(format);
                FormatInfo {
                    format,
                    block_size: bytes as u32,
                    block_extent: [w, h, 1],
                    texels_per_block: w * h,
                }
            })
            .collect()
    });
    let raw = format.as_raw();
    KNOWN
        .contains(&raw)
        .then(|| &table[(raw - KNOWN.start()) as usize])
}
