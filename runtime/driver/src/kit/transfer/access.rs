//! Checked host access to the bytes of kit buffers and images, and where one aspect of one
//! texel lies in an image's [linear layout](crate::kit::resources::linear_layout).
//!
//! Every byte the transfers read or write goes through [`Host::at`], which refuses a range
//! past the object's memory: a region the per-command checks let through by mistake still
//! cannot write out of bounds. Pointers, not slices: a copy within one buffer or image has
//! source and destination in the same memory, which `&mut [u8]` could not express.
//!
//! Texels in memory (the kit's convention, which every host transfer shares): a texel of
//! `memory_block` bytes per sample, the samples of one texel side by side (a row of `w`
//! texels of `s` samples is `w·s` blocks, as the layout's row pitch says); a combined
//! depth/stencil texel holds the depth bytes first (D16 2, D24 the low 3 of a 32-bit word,
//! D32 4) and the stencil byte right after them; a plane of a multi-planar format is a
//! separate image of its compatible format.

use vkgen_generated::vk;

use crate::kit::format::{self, memory_block, ComponentName, FormatInfo};
use crate::kit::resources::{Buffer, Image};

/// `len` bytes of host memory starting at `ptr`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Host {
    ptr: *mut u8,
    len: u64,
}

impl Host {
    /// The address of `n` bytes at `offset`, if they lie inside.
    pub(super) fn at(&self, offset: u64, n: u64) -> Option<*mut u8> {
        if offset.checked_add(n)? > self.len {
            return None;
        }
        // SAFETY: `offset + n <= len`, and `ptr` starts `len` bytes of one allocation.
        Some(unsafe { self.ptr.add(offset as usize) })
    }

    pub(super) fn len(&self) -> u64 {
        self.len
    }
}

/// Moves `n` bytes from `src[from..]` to `dst[to..]` (the same memory allowed), if both ranges
/// lie inside; `false` when one does not.
pub(super) fn copy(src: Host, from: u64, dst: Host, to: u64, n: u64) -> bool {
    match (src.at(from, n), dst.at(to, n)) {
        (Some(s), Some(d)) => {
            // SAFETY: both ranges were checked to lie in their memory; `copy` allows overlap.
            unsafe { std::ptr::copy(s, d, n as usize) };
            true
        }
        _ => false,
    }
}

/// Writes `bytes` at `dst[to..]`, if the range lies inside; `false` when it does not.
pub(super) fn write(dst: Host, to: u64, bytes: &[u8]) -> bool {
    match dst.at(to, bytes.len() as u64) {
        Some(d) => {
            // SAFETY: the range was checked to lie in `dst`; `bytes` is not in kit memory.
            unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), d, bytes.len()) };
            true
        }
        None => false,
    }
}

/// Reads `out.len()` bytes at `src[from..]`, if the range lies inside.
pub(super) fn read(src: Host, from: u64, out: &mut [u8]) -> bool {
    match src.at(from, out.len() as u64) {
        Some(s) => {
            // SAFETY: the range was checked to lie in `src`; `out` is not in kit memory.
            unsafe { std::ptr::copy_nonoverlapping(s, out.as_mut_ptr(), out.len()) };
            true
        }
        None => false,
    }
}

/// The bytes of a bound kit buffer.
///
/// # Safety
/// `h` is null or a live buffer of a driver with the resource objects on (a recorded handle
/// of a pending command buffer is, by the commands' valid usage).
pub(super) unsafe fn buffer(h: vk::Buffer) -> Result<Host, String> {
    // SAFETY: the caller's handle; `from_handle` checks its type.
    let b = unsafe { Buffer::from_handle(h) }.ok_or_else(|| format!("{h:?} is no kit buffer"))?;
    let ptr = b
        .host_ptr()
        .ok_or_else(|| format!("{h:?} is not bound to memory"))?;
    Ok(Host {
        ptr,
        len: b.desc.size,
    })
}

/// A bound kit image, with its format's row of the table.
pub(super) struct ImageMem<'a> {
    pub(super) image: &'a Image,
    pub(super) host: Host,
    pub(super) info: &'static FormatInfo,
    pub(super) samples: u64,
}

/// Where one aspect of an image's texels lies.
#[derive(Clone, Copy, Debug)]
pub(super) struct Aspect {
    /// The format a copy of the aspect moves (a plane's, the depth-only or stencil-only one).
    pub(super) format: &'static FormatInfo,
    /// The layout's aspect: PLANE_i for a plane, COLOR (the whole level) otherwise.
    layout_aspect: vk::ImageAspectFlags,
    /// Bytes of one sample of one texel block in memory (both aspects of depth/stencil).
    pub(super) block: u64,
    /// Where the aspect's bytes start in the block, and how many there are.
    pub(super) offset: u64,
    pub(super) bytes: u64,
    /// Which plane's extent the aspect has.
    plane: usize,
}

impl Aspect {
    /// Whether the aspect is the whole block (a row of texels is one run of bytes).
    pub(super) fn whole(&self) -> bool {
        self.offset == 0 && self.bytes == self.block
    }
}

/// The aspect bits of `mask`, one at a time, in bit order.
pub(super) fn bits(mask: vk::ImageAspectFlags) -> impl Iterator<Item = vk::ImageAspectFlags> {
    (0..32)
        .map(|i| vk::ImageAspectFlags::from_raw(1 << i))
        .filter(move |b| mask.contains(*b))
}

impl<'a> ImageMem<'a> {
    /// The bound kit image behind `h`.
    ///
    /// # Safety
    /// As [`buffer`], for an image.
    pub(super) unsafe fn new(h: vk::Image) -> Result<Self, String> {
        // SAFETY: the caller's handle; `from_handle` checks its type.
        let image =
            unsafe { Image::from_handle(h) }.ok_or_else(|| format!("{h:?} is no kit image"))?;
        let ptr = image
            .host_ptr()
            .ok_or_else(|| format!("{h:?} is not bound to memory"))?;
        let info = format::info(image.desc.format)
            .ok_or_else(|| format!("the format table lacks {:?}", image.desc.format))?;
        Ok(ImageMem {
            image,
            // The layout's bytes, but never past what the bind checked fits in the memory.
            host: Host {
                ptr,
                len: image.layout.total.min(image.requirements.size),
            },
            info,
            samples: u64::from(image.desc.samples.as_raw().max(1)),
        })
    }

    /// Where aspect `bit` (one bit) lies, if the format has it.
    pub(super) fn aspect(&self, bit: vk::ImageAspectFlags) -> Result<Aspect, String> {
        let no = || format!("{} has no aspect {bit:?}", self.info.name);
        let format = self.info.aspect_format(bit).ok_or_else(no)?;
        if let Some(plane) = [
            vk::ImageAspectFlags::PLANE_0,
            vk::ImageAspectFlags::PLANE_1,
            vk::ImageAspectFlags::PLANE_2,
        ]
        .iter()
        .position(|&p| p == bit)
        {
            let block = memory_block(format.format).0;
            return Ok(Aspect {
                format,
                layout_aspect: bit,
                block,
                offset: 0,
                bytes: block,
                plane,
            });
        }
        let block = memory_block(self.info.format).0;
        let combined =
            self.info.aspects == vk::ImageAspectFlags::DEPTH | vk::ImageAspectFlags::STENCIL;
        let depth_bytes = self
            .info
            .component(ComponentName::D)
            .map_or(0, |c| u64::from(c.bits).div_ceil(8));
        let (offset, bytes) = match bit {
            vk::ImageAspectFlags::DEPTH if combined => (0, depth_bytes),
            vk::ImageAspectFlags::STENCIL if combined => (depth_bytes, 1),
            _ => (0, block),
        };
        Ok(Aspect {
            format,
            layout_aspect: vk::ImageAspectFlags::COLOR,
            block,
            offset,
            bytes,
            plane: 0,
        })
    }

    /// The extent of `mip` of aspect `a`, in texels.
    pub(super) fn extent(&self, a: &Aspect, mip: u32) -> vk::Extent3D {
        let e = self.image.desc.extent;
        let dim = |d: u32| (d.checked_shr(mip).unwrap_or(0)).max(1);
        self.info.plane_extent(
            a.plane,
            vk::Extent3D {
                width: dim(e.width),
                height: dim(e.height),
                depth: dim(e.depth),
            },
        )
    }

    /// Whether the image is 3D (its depth slices play the part of layers in copies).
    pub(super) fn is_3d(&self) -> bool {
        self.image.desc.image_type == vk::ImageType::TYPE_3D
    }

    /// `layerCount` with `VK_REMAINING_ARRAY_LAYERS` resolved.
    pub(super) fn layers(&self, base: u32, count: u32) -> u32 {
        if count == vk::REMAINING_ARRAY_LAYERS {
            self.image.desc.array_layers.saturating_sub(base)
        } else {
            count
        }
    }

    /// Checks a box of texels of `mip` and layers `base..base + layers` and returns it in
    /// blocks of aspect `a`'s format: `(start, count)`.
    pub(super) fn block_box(
        &self,
        a: &Aspect,
        mip: u32,
        (base, layers): (u32, u32),
        offset: vk::Offset3D,
        extent: vk::Extent3D,
    ) -> Result<([u32; 3], [u32; 3]), String> {
        if mip >= self.image.desc.mip_levels {
            return Err(format!("mip level {mip} of {}", self.image.desc.mip_levels));
        }
        if base
            .checked_add(layers)
            .is_none_or(|end| end > self.image.desc.array_layers)
        {
            return Err(format!(
                "layers {base}..+{layers} of {}",
                self.image.desc.array_layers
            ));
        }
        let size = self.extent(a, mip);
        let [bw, bh, bd] = a.format.block_extent.map(|b| b.max(1));
        let mut start = [0; 3];
        let mut count = [0; 3];
        let axes = [
            (offset.x, extent.width, size.width, bw),
            (offset.y, extent.height, size.height, bh),
            (offset.z, extent.depth, size.depth, bd),
        ];
        for (i, (o, e, s, b)) in axes.into_iter().enumerate() {
            let o = u32::try_from(o).map_err(|_| format!("negative offset {o}"))?;
            if !o.is_multiple_of(b) || o.checked_add(e).is_none_or(|end| end > s) {
                return Err(format!(
                    "texels {o}..+{e} of {s} on axis {i} (block {b}) of mip {mip}"
                ));
            }
            start[i] = o / b;
            count[i] = e.div_ceil(b);
        }
        Ok((start, count))
    }

    /// The byte offset of aspect `a` of sample `sample` of block `[x, y, z]` of `mip` in
    /// `layer` (unchecked arithmetic is fine: [`Host::at`] refuses what lies outside).
    pub(super) fn texel(
        &self,
        a: &Aspect,
        mip: u32,
        layer: u32,
        [x, y, z]: [u32; 3],
        sample: u64,
    ) -> u64 {
        let sub = self.image.layout.subresource(a.layout_aspect, mip, layer);
        sub.offset
            .saturating_add(u64::from(z).saturating_mul(sub.depth_pitch))
            .saturating_add(u64::from(y).saturating_mul(sub.row_pitch))
            .saturating_add(
                u64::from(x)
                    .saturating_mul(self.samples)
                    .saturating_add(sample)
                    .saturating_mul(a.block),
            )
            .saturating_add(a.offset)
    }
}

/// Logs a region (or, at 0, the command) the kit drops.
pub(super) fn dropped(what: &str, region: usize, why: &str) {
    log::warn!("{what}: region {region} dropped by the kit's host transfer: {why}");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(bytes: &mut [u8]) -> Host {
        Host {
            ptr: bytes.as_mut_ptr(),
            len: bytes.len() as u64,
        }
    }

    #[test]
    fn ranges_past_the_end_or_overflowing_are_refused() {
        let mut b = [0u8; 16];
        let h = host(&mut b);
        assert!(h.at(0, 16).is_some());
        assert!(h.at(16, 0).is_some(), "an empty range at the end");
        assert!(h.at(1, 16).is_none());
        assert!(h.at(u64::MAX, 2).is_none(), "no wrap-around");
        assert!(!write(h, 15, &[1, 2]));
        assert_eq!(b, [0; 16], "a refused write writes nothing");
    }

    #[test]
    fn copies_within_one_memory_behave_as_memmove() {
        let mut b: Vec<u8> = (0..8).collect();
        let h = host(&mut b);
        assert!(copy(h, 0, h, 2, 6));
        assert_eq!(b, [0, 1, 0, 1, 2, 3, 4, 5]);
        let mut out = [0u8; 3];
        assert!(read(host(&mut b), 5, &mut out));
        assert_eq!(out, [3, 4, 5]);
    }

    #[test]
    fn aspect_bits_come_one_at_a_time() {
        let both = vk::ImageAspectFlags::DEPTH | vk::ImageAspectFlags::STENCIL;
        assert_eq!(
            bits(both).collect::<Vec<_>>(),
            [vk::ImageAspectFlags::DEPTH, vk::ImageAspectFlags::STENCIL]
        );
        assert_eq!(bits(vk::ImageAspectFlags::empty()).count(), 0);
    }
}
