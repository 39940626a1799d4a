//! Format knowledge (Mesa's `vk_format` and `util_format`), from the registry rather than by
//! hand: [`info`] gives every format vk.xml's `<formats>` describes — block size and extent,
//! texels per block, components with their bit widths and numeric formats, planes with their
//! subsampling and compatible single-plane formats, packing, compression, chroma — plus the
//! aspects derived from the components, which the registry does not list.
//!
//! On top of the table:
//! * [`pack`]: a `VkClearColorValue`, a depth or a stencil value to texel bytes and back, for
//!   every uncompressed format the table describes (what a CPU engine's clears and a blit's
//!   reads need);
//! * [`copy`]: texel and block addressing, and buffer↔image copy regions turned into byte
//!   ranges by the spec's rules (`bufferRowLength`/`bufferImageHeight`, compressed blocks,
//!   depth/stencil aspect sizes, planes);
//! * [`support`]: the formats a device description declares and their features
//!   ([`FormatSupport`]), and which advertised features no engine command runs;
//! * [`layout`]: the packed linear layout kit images have (and `vkGetImageSubresourceLayout`
//!   reports), re-exported as [`crate::kit::resources::linear_layout`].
//!
//! Design notes. The generated table (`vkgen_generated::formats`) holds offsets, not pointers,
//! so that it costs no relocations in every library that links it; [`FormatInfo`] resolves
//! those once, on first use, into a table of `&'static` rows. Depth/stencil `block_size` is the
//! registry's *copy* size of the combined format (D24S8 4, D32S8 5); what a copy of one aspect
//! moves is [`FormatInfo::aspect_copy_size`], per the spec's "Depth/stencil formats" copy rules.
//! A registry without `<formats>` (before 1.2.1xx) gives an empty table: [`info`] is then
//! `None` for every format and the helpers refuse rather than guess.

pub mod copy;
pub mod layout;
pub mod pack;
mod rows;
pub mod support;

use vkgen_generated::formats as table;

pub use copy::{buffer_copy_layout, BufferCopyLayout, CopyError, CopyRegion};
pub use layout::{linear_layout, LevelLayout, LinearLayout, PlaneLayout};
pub use pack::{pack_color, pack_depth, pack_stencil, unpack_color, unpack_depth, unpack_stencil};
pub use rows::{all, info, memory_block, FormatInfo};
pub use support::FormatSupport;
pub use table::{Chroma, Component, ComponentName, Compression, NumericFormat, Plane};

#[cfg(test)]
mod tests;
