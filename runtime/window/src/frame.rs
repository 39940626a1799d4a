//! What the consumer gets: [`Frame`], a CPU copy of one queued buffer plus everything the producer
//! said about it, converted to RGBA8 for assertions and PNG output.

use std::ffi::c_int;
use std::fs::File;
use std::io::BufWriter;
use std::path::Path;
use std::sync::{Arc, Weak};

use vkgen_platform::gralloc::{BufferDesc, PixelFormat};
use vkgen_platform::sync_fd::NativeFence;

use crate::c_abi::{AndroidNativeRect, Cta8613Metadata, Smpte2086Metadata};
use crate::config::WindowError;
use crate::object::WindowBuffer;

/// Where an acquired frame's buffer goes back to: the [`BufferQueue`](crate::BufferQueue) that
/// handed it out, which implements this so that a frame need not know the queue's type.
pub(crate) trait FrameOwner: Send + Sync {
    /// Takes the buffer behind `token` back; its next dequeue hands out `fence`.
    fn release_token(&self, token: FrameToken, fence: NativeFence);
}

/// What a [`Frame`] needs to find its buffer again at release.
#[derive(Debug)]
pub(crate) struct FrameToken {
    pub(crate) owner: Weak<dyn FrameOwner>,
    pub(crate) buffer: Arc<WindowBuffer>,
    pub(crate) slot: Option<usize>,
}

impl FrameToken {
    /// Gives the buffer back to its queue, if the queue still exists.
    pub(crate) fn release(self, fence: NativeFence) {
        if let Some(owner) = self.owner.upgrade() {
            owner.release_token(self, fence);
        }
    }
}

/// HDR metadata the producer set (`SET_BUFFERS_*_METADATA`); attached to each queued frame.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HdrMetadata {
    pub smpte2086: Option<Smpte2086Metadata>,
    pub cta861_3: Option<Cta8613Metadata>,
    /// Opaque HDR10+ SEI bytes.
    pub hdr10_plus: Option<Vec<u8>>,
}

/// One acquired frame.
///
/// Dropping a frame without [`crate::BufferQueue::release`] releases it with no release fence.
#[derive(Debug)]
pub struct Frame {
    /// 1 for the first frame queued to the window, then counting up (`GET_NEXT_FRAME_ID`).
    pub frame_number: u64,
    pub width: u32,
    pub height: u32,
    /// Row pitch of the buffer, in pixels.
    pub stride: u32,
    /// `HAL_PIXEL_FORMAT_*` of the buffer.
    pub format: c_int,
    /// Gralloc usage the buffer was allocated with.
    pub usage: u64,
    /// Identifies the gralloc buffer (unique per allocation within a queue), e.g. to watch the
    /// producer cycle through its buffers.
    pub buffer_id: u64,
    /// `width * height` pixels as RGBA8, rows top to bottom, no padding. See [`to_rgba8`] for how
    /// each format converts.
    pub pixels: Vec<u8>,
    /// The pixels in the buffer's own format, rows packed (`width * bytes per pixel` each).
    pub raw: Vec<u8>,
    /// `NATIVE_WINDOW_TRANSFORM_*` the producer asked the consumer to apply (not applied to
    /// `pixels`).
    pub transform: c_int,
    /// `HAL_DATASPACE_*`: the producer's, or the consumer default when the producer left it
    /// `UNKNOWN`.
    pub dataspace: c_int,
    /// Surface damage set before this frame was queued; empty = whole buffer.
    pub damage: Vec<AndroidNativeRect>,
    pub crop: Option<AndroidNativeRect>,
    pub scaling_mode: c_int,
    /// Requested present time (`SET_BUFFERS_TIMESTAMP`), or the queue time when
    /// `auto_timestamp`.
    pub timestamp_ns: i64,
    pub auto_timestamp: bool,
    /// Queued in shared-buffer mode (the producer may still be writing the buffer).
    pub shared_buffer: bool,
    /// Auto-refresh was on when the frame was queued (shared-buffer continuous refresh).
    pub auto_refresh: bool,
    pub hdr: HdrMetadata,
    pub(crate) token: Option<FrameToken>,
}

impl Frame {
    /// Writes [`Frame::pixels`] as an 8-bit RGBA PNG.
    pub fn write_png(&self, path: impl AsRef<Path>) -> Result<(), WindowError> {
        let file = File::create(path.as_ref())?;
        let mut encoder = png::Encoder::new(BufWriter::new(file), self.width, self.height);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header()?;
        writer.write_image_data(&self.pixels)?;
        writer.finish()?;
        Ok(())
    }

    /// The RGBA8 pixel at `(x, y)`.
    ///
    /// # Panics
    /// If `(x, y)` lies outside the frame.
    pub fn pixel(&self, x: u32, y: u32) -> [u8; 4] {
        assert!(
            x < self.width && y < self.height,
            "({x}, {y}) outside the frame"
        );
        let i = (y as usize * self.width as usize + x as usize) * 4;
        [
            self.pixels[i],
            self.pixels[i + 1],
            self.pixels[i + 2],
            self.pixels[i + 3],
        ]
    }
}

impl Drop for Frame {
    fn drop(&mut self) {
        if let Some(token) = self.token.take() {
            token.release(NativeFence::signalled());
        }
    }
}

/// Copies the visible `width × height` pixels out of a mapped buffer: `(rgba8, packed raw)`.
///
/// Conversions to RGBA8: RGBA8888 as is; RGBX8888 with alpha 255; BGRA8888 swizzled; RGB565
/// bit-replicated to 8 bits, alpha 255; RGBA_FP16 clamped to [0, 1] and scaled (no transfer
/// function is applied: the values are taken as already encoded); RGBA_1010102 rounded to 8 bits
/// with the 2-bit alpha scaled by 85; R_8 as red with green and blue 0, alpha 255.
pub fn to_rgba8(desc: &BufferDesc, data: &[u8]) -> (Vec<u8>, Vec<u8>) {
    if desc.format.is_yuv() {
        return yuv_to_rgba8(desc, data);
    }
    let (w, h) = (desc.width as usize, desc.height as usize);
    let bpp = desc.format.bytes_per_pixel() as usize;
    let row_bytes = desc.row_bytes() as usize;
    let mut rgba = Vec::with_capacity(w * h * 4);
    let mut raw = Vec::with_capacity(w * h * bpp);
    for y in 0..h {
        let row = &data[y * row_bytes..y * row_bytes + w * bpp];
        raw.extend_from_slice(row);
        for px in row.chunks_exact(bpp) {
            rgba.extend_from_slice(&pixel_to_rgba8(desc.format, px));
        }
    }
    (rgba, raw)
}

/// BT.601 narrow-range Y′CbCr → R′G′B′ (8-bit, rounded, clamped): the model and range the
/// drivers suggest for 4:2:0 `AHardwareBuffer`s.
pub fn ycbcr601_to_rgb8(y: u8, cb: u8, cr: u8) -> [u8; 3] {
    let y = (f32::from(y) - 16.0) * (255.0 / 219.0);
    let cb = (f32::from(cb) - 128.0) * (255.0 / 224.0);
    let cr = (f32::from(cr) - 128.0) * (255.0 / 224.0);
    let c = |v: f32| v.round().clamp(0.0, 255.0) as u8;
    [
        c(y + 1.402 * cr),
        c(y - 0.344_136 * cb - 0.714_136 * cr),
        c(y + 1.772 * cb),
    ]
}

/// 4:2:0 buffers: each pixel takes the chroma sample of its 2×2 block, `(x / 2, y / 2)`;
/// `raw` is the planes packed Y, Cb, Cr.
fn yuv_to_rgba8(desc: &BufferDesc, data: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let planes = desc.planes();
    let (w, h) = (desc.width as usize, desc.height as usize);
    let sample = |p: usize, x: usize, y: usize| {
        let pl = &planes[p];
        data[pl.offset as usize + y * pl.row_stride as usize + x * pl.pixel_stride as usize]
    };
    let mut rgba = Vec::with_capacity(w * h * 4);
    for y in 0..h {
        for x in 0..w {
            let [r, g, b] = ycbcr601_to_rgb8(
                sample(0, x, y),
                sample(1, x / 2, y / 2),
                sample(2, x / 2, y / 2),
            );
            rgba.extend_from_slice(&[r, g, b, 255]);
        }
    }
    let mut raw = Vec::new();
    for (p, pl) in planes.iter().enumerate() {
        for y in 0..pl.height as usize {
            raw.extend((0..pl.width as usize).map(|x| sample(p, x, y)));
        }
    }
    (rgba, raw)
}

fn pixel_to_rgba8(format: PixelFormat, px: &[u8]) -> [u8; 4] {
    match format {
        PixelFormat::Rgba8888 => [px[0], px[1], px[2], px[3]],
        PixelFormat::Rgbx8888 => [px[0], px[1], px[2], 255],
        PixelFormat::Bgra8888 => [px[2], px[1], px[0], px[3]],
        PixelFormat::Rgb565 => {
            let v = u16::from_le_bytes([px[0], px[1]]);
            let r = ((v >> 11) & 0x1f) as u8;
            let g = ((v >> 5) & 0x3f) as u8;
            let b = (v & 0x1f) as u8;
            [
                (r << 3) | (r >> 2),
                (g << 2) | (g >> 4),
                (b << 3) | (b >> 2),
                255,
            ]
        }
        PixelFormat::RgbaFp16 => {
            let c = |i: usize| unorm8(f16_to_f32(u16::from_le_bytes([px[2 * i], px[2 * i + 1]])));
            [c(0), c(1), c(2), c(3)]
        }
        PixelFormat::Rgba1010102 => {
            let v = u32::from_le_bytes([px[0], px[1], px[2], px[3]]);
            let c = |shift: u32| (((v >> shift) & 0x3ff) * 255 + 511) / 1023;
            [c(0) as u8, c(10) as u8, c(20) as u8, ((v >> 30) * 85) as u8]
        }
        PixelFormat::Rgba10101010 => {
            let c = |i: usize| {
                let v = u32::from(u16::from_le_bytes([px[2 * i], px[2 * i + 1]]) >> 6);
                ((v * 255 + 511) / 1023) as u8
            };
            [c(0), c(1), c(2), c(3)]
        }
        PixelFormat::R8 | PixelFormat::Blob => [px[0], 0, 0, 255],
        // Whole buffers only (`yuv_to_rgba8`).
        PixelFormat::Nv12 | PixelFormat::Nv21 | PixelFormat::Yv12 => [px[0], px[0], px[0], 255],
    }
}

fn unorm8(v: f32) -> u8 {
    if v.is_nan() {
        0
    } else {
        (v.clamp(0.0, 1.0) * 255.0).round() as u8
    }
}

/// IEEE 754 binary16 → binary32.
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from((h >> 10) & 0x1f);
    let mant = f32::from(h & 0x3ff);
    let magnitude = match exp {
        0 => mant * (-24f32).exp2(),
        31 if mant == 0.0 => f32::INFINITY,
        31 => f32::NAN,
        _ => (1.0 + mant / 1024.0) * ((exp - 15) as f32).exp2(),
    };
    sign * magnitude
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_floats() {
        assert_eq!(f16_to_f32(0x3c00), 1.0);
        assert_eq!(f16_to_f32(0x3800), 0.5);
        assert_eq!(f16_to_f32(0xc000), -2.0);
        assert_eq!(f16_to_f32(0x0000), 0.0);
        assert_eq!(f16_to_f32(0x0001), 2f32.powi(-24));
        assert!(f16_to_f32(0x7c00).is_infinite());
        assert!(f16_to_f32(0x7e00).is_nan());
    }

    #[test]
    fn every_format_converts() {
        use PixelFormat::*;
        let cases: [(PixelFormat, &[u8], [u8; 4]); 10] = [
            (Rgba8888, &[1, 2, 3, 4], [1, 2, 3, 4]),
            (Rgbx8888, &[1, 2, 3, 4], [1, 2, 3, 255]),
            (Bgra8888, &[1, 2, 3, 4], [3, 2, 1, 4]),
            (Rgb565, &0xf800u16.to_le_bytes(), [255, 0, 0, 255]),
            (Rgb565, &0x07e0u16.to_le_bytes(), [0, 255, 0, 255]),
            (
                RgbaFp16,
                &[0x00, 0x3c, 0x00, 0x38, 0x00, 0xc0, 0x00, 0x3c],
                [255, 128, 0, 255],
            ),
            (
                Rgba1010102,
                &(0x3ffu32 | (1 << 30)).to_le_bytes(),
                [255, 0, 0, 85],
            ),
            (
                Rgba1010102,
                &(0x3ffu32 << 20 | 3 << 30).to_le_bytes(),
                [0, 0, 255, 255],
            ),
            (
                Rgba10101010,
                &[0xc0, 0xff, 0x00, 0x00, 0x00, 0x00, 0xc0, 0xff],
                [255, 0, 0, 255],
            ),
            (R8, &[7], [7, 0, 0, 255]),
        ];
        for (format, px, want) in cases {
            assert_eq!(pixel_to_rgba8(format, px), want, "{format:?}");
        }
    }

    #[test]
    fn yuv_planes_convert_with_their_layouts() {
        // Y ramps, Cb/Cr distinct per 2x2 block; the same picture in every 4:2:0 layout.
        for format in PixelFormat::YUV {
            let desc = BufferDesc::new(4, 2, format, 0).unwrap();
            let mut data = vec![0u8; desc.size as usize];
            let planes = desc.planes();
            for (p, pl) in planes.iter().enumerate() {
                for y in 0..pl.height as usize {
                    for x in 0..pl.width as usize {
                        let at = pl.offset as usize
                            + y * pl.row_stride as usize
                            + x * pl.pixel_stride as usize;
                        data[at] = [16 + (y * 4 + x) as u8 * 20, 90 + x as u8, 200 - x as u8][p];
                    }
                }
            }
            let (rgba, raw) = to_rgba8(&desc, &data);
            assert_eq!(
                raw,
                [16, 36, 56, 76, 96, 116, 136, 156, 90, 91, 200, 199],
                "{format:?}"
            );
            assert_eq!(rgba[..3], ycbcr601_to_rgb8(16, 90, 200), "{format:?}");
            assert_eq!(rgba[3], 255);
            let px6 = &rgba[6 * 4..6 * 4 + 3];
            assert_eq!(px6, ycbcr601_to_rgb8(136, 91, 199), "{format:?}");
        }
        assert_eq!(ycbcr601_to_rgb8(16, 128, 128), [0, 0, 0]);
        assert_eq!(ycbcr601_to_rgb8(235, 128, 128), [255, 255, 255]);
    }

    #[test]
    fn padding_is_skipped() {
        let desc = BufferDesc::new(3, 2, PixelFormat::R8, 0).unwrap();
        let mut data = vec![0xEEu8; desc.size as usize];
        let row = desc.row_bytes() as usize;
        data[..3].copy_from_slice(&[1, 2, 3]);
        data[row..row + 3].copy_from_slice(&[4, 5, 6]);
        let (rgba, raw) = to_rgba8(&desc, &data);
        assert_eq!(raw, [1, 2, 3, 4, 5, 6]);
        assert_eq!(rgba.len(), 6 * 4);
        assert_eq!(&rgba[12..16], &[4, 0, 0, 255]);
    }
}
