//! `src/formats.rs`: vk.xml's `<formats>` as a static table (block size and extent, texels per
//! block, packing, compression, chroma, components, planes, SPIR-V image format), sorted by
//! `VkFormat` value and found by binary search. Mesa keeps this table by hand
//! (`u_format.yaml`, `vk_format.c`); here the registry is the only source.
//!
//! Layout: rows hold small integers, enum tags and offsets (strings into a blob, components and
//! planes as `[start, count]` into shared arrays), so the table needs no load-time relocation —
//! the same reason the command and extension tables keep their strings in blobs. Component runs
//! that repeat (every `R8G8B8A8_*` has the same four) are stored once.
//!
//! A registry without `<formats>` (1.1.130) gives an empty table. Meaning is checked here: a
//! numeric format, compression scheme or chroma vkgen has no variant for, a format name the
//! `VkFormat` enum lacks, or a width that does not fit the row is an error naming the format —
//! the registry reader's policy for values whose meaning vkgen relies on.

use std::collections::HashMap;

use quote::quote;

use super::{phf, text, Ctx};
use crate::error::{Error, Result};
use crate::model::{Format, FormatComponent, Registry};

/// Rows, the shared component and plane arrays, and the string blob, as generated text.
#[derive(Default)]
struct Tables {
    rows: Vec<(i64, String)>,
    components: Vec<String>,
    runs: HashMap<Vec<String>, usize>,
    planes: Vec<String>,
    strings: phf::Blob,
}

fn bad(format: &Format, what: String) -> Error {
    Error::Limit(format!(
        "formats: {} (vk.xml line {}): {what}",
        format.name, format.line
    ))
}

/// The value of `VK_FORMAT_…` in the registry's `VkFormat` group.
fn format_value(reg: &Registry, name: &str) -> Option<i64> {
    let group = reg.enums.get("VkFormat")?;
    let v = group.values.iter().find(|v| v.name == name)?;
    crate::registry::enum_value(group, &v.value, 0)
}

fn small<T: TryFrom<u32>>(format: &Format, what: &str, v: u32) -> Result<T> {
    T::try_from(v).map_err(|_| bad(format, format!("{what} {v} does not fit the table")))
}

fn numeric(format: &Format, c: &FormatComponent) -> Result<&'static str> {
    Ok(match c.numeric_format.as_str() {
        "UNORM" => "Unorm",
        "SNORM" => "Snorm",
        "USCALED" => "Uscaled",
        "SSCALED" => "Sscaled",
        "UINT" => "Uint",
        "SINT" => "Sint",
        "SRGB" => "Srgb",
        "SFLOAT" => "Sfloat",
        "UFLOAT" => "Ufloat",
        "SFIXED5" => "Sfixed5",
        "BOOL" => "Bool",
        other => return Err(bad(format, format!("unknown numericFormat `{other}`"))),
    })
}

fn compression(format: &Format) -> Result<String> {
    let Some(scheme) = format.compressed.as_deref() else {
        return Ok("None".into());
    };
    let v = match scheme {
        "BC" => "Bc",
        "ETC2" => "Etc2",
        "EAC" => "Eac",
        "ASTC LDR" => "AstcLdr",
        "ASTC HDR" => "AstcHdr",
        "PVRTC" => "Pvrtc",
        other => return Err(bad(format, format!("unknown compression scheme `{other}`"))),
    };
    Ok(format!("Some(Compression::{v})"))
}

fn chroma(format: &Format) -> Result<String> {
    Ok(match format.chroma {
        None => "None".into(),
        Some(c @ (420 | 422 | 444)) => format!("Some(Chroma::C{c})"),
        Some(other) => return Err(bad(format, format!("unknown chroma `{other}`"))),
    })
}

impl Tables {
    /// `[start, count]` of the format's components in `COMPONENTS`, sharing an equal run.
    fn components(&mut self, format: &Format) -> Result<String> {
        let mut run = Vec::with_capacity(format.components.len());
        for c in &format.components {
            let name = match c.name.as_str() {
                n @ ("R" | "G" | "B" | "A" | "D" | "S") => n,
                other => return Err(bad(format, format!("unknown component `{other}`"))),
            };
            let bits: u8 = small(format, "component width", c.bits.unwrap_or(0))?;
            let plane: u8 = small(format, "plane index", c.plane_index.unwrap_or(0))?;
            run.push(format!(
                "Component {{ name: ComponentName::{name}, bits: {bits}, numeric_format: NumericFormat::{}, plane: {plane} }},",
                numeric(format, c)?
            ));
        }
        let count: u16 = small(format, "component count", run.len() as u32)?;
        let start = match self.runs.get(&run) {
            Some(&at) => at,
            None => {
                let at = self.components.len();
                self.components.extend(run.iter().cloned());
                self.runs.insert(run, at);
                at
            }
        };
        let start: u16 = small(format, "component offset", start as u32)?;
        Ok(format!("[{start}, {count}]"))
    }

    fn planes(&mut self, reg: &Registry, format: &Format) -> Result<String> {
        let start: u8 = small(format, "plane offset", self.planes.len() as u32)?;
        let mut planes = format.planes.clone();
        planes.sort_by_key(|p| p.index);
        for (i, p) in planes.iter().enumerate() {
            if p.index as usize != i {
                return Err(bad(
                    format,
                    format!("plane indices are not 0..{}", planes.len()),
                ));
            }
            let compatible = format_value(reg, &p.compatible).ok_or_else(|| {
                bad(
                    format,
                    format!("plane {i}'s compatible `{}` is no VkFormat", p.compatible),
                )
            })?;
            let w: u8 = small(format, "width divisor", p.width_divisor)?;
            let h: u8 = small(format, "height divisor", p.height_divisor)?;
            self.planes.push(format!(
                "Plane {{ width_divisor: {w}, height_divisor: {h}, compatible: vk::Format::from_raw({compatible}) }}, {} {}",
                phf::NAME_NOTE,
                p.compatible
            ));
        }
        let count: u8 = small(format, "plane count", planes.len() as u32)?;
        Ok(format!("[{start}, {count}]"))
    }

    fn row(&mut self, reg: &Registry, format: &Format) -> Result<()> {
        let value = format_value(reg, &format.name)
            .ok_or_else(|| bad(format, "not a value of VkFormat".into()))?;
        let name = self.strings.add(&format.name)?;
        let class = self.strings.add(&format.class)?;
        let spirv = self
            .strings
            .add_opt(format.spirv_image_formats.first().map(String::as_str))?;
        let [x, y, z] = format.block_extent;
        let text = format!(
            "FormatRow {{ format: vk::Format::from_raw({value}), name: {name}, class: {class}, \
             block_size: {}, texels_per_block: {}, block_extent: [{}, {}, {}], packed: {}, \
             compressed: {}, chroma: {}, components: {}, planes: {}, spirv_image_format: {spirv} }}, {} {}\n",
            small::<u8>(format, "blockSize", format.block_size)?,
            small::<u8>(format, "texelsPerBlock", format.texels_per_block)?,
            small::<u8>(format, "blockExtent", x)?,
            small::<u8>(format, "blockExtent", y)?,
            small::<u8>(format, "blockExtent", z)?,
            small::<u8>(format, "packed", format.packed.unwrap_or(0))?,
            compression(format)?,
            chroma(format)?,
            self.components(format)?,
            self.planes(reg, format)?,
            phf::NAME_NOTE,
            format.name,
        );
        self.rows.push((value, text));
        Ok(())
    }
}

fn array(name: &str, ty: &str, items: &[String]) -> String {
    let mut out = format!("{name}: [{ty}; {}] = [\n", items.len());
    for i in items {
        out.push_str("    ");
        out.push_str(i);
        out.push('\n');
    }
    out.push_str("];\n");
    out
}

pub fn emit(cx: &Ctx) -> Result<String> {
    let reg = cx.reg();
    let mut t = Tables::default();
    // Names first, so that the blob reads as the format list.
    for f in &reg.formats {
        t.strings.add(&f.name)?;
    }
    for f in &reg.formats {
        t.row(reg, f)?;
    }
    t.rows.sort_by_key(|(v, _)| *v);
    if let Some(w) = t.rows.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(Error::Limit(format!(
            "formats: two rows for VkFormat {}",
            w[0].0
        )));
    }
    let rows: Vec<String> = t
        .rows
        .iter()
        .map(|(_, r)| r.trim_end().to_owned())
        .collect();
    let data = format!(
        "{}{}{}{}",
        array("pub static FORMATS", "FormatRow", &rows),
        array("static COMPONENTS", "Component", &t.components),
        array("static PLANES", "Plane", &t.planes),
        t.strings.text(
            "Every format's name, class and SPIR-V image format, each once and followed by a NUL.",
            "STRINGS"
        ),
    );
    let out = super::format_file(
        "formats.rs",
        &format!(
            "Format table from vk.xml's `<formats>`: {} formats, sorted by VkFormat value.",
            rows.len()
        ),
        tokens(),
    )?;
    Ok(text::fill(&out, "__vkgen_formats!", &data))
}

fn tokens() -> proc_macro2::TokenStream {
    let types = types();
    quote! {
        use crate::phf::BlobStr;
        use crate::vk;

        #types

        __vkgen_formats!();

        /// The row of `format`; `None` for `VK_FORMAT_UNDEFINED` and values the registry does
        /// not describe.
        pub fn lookup(format: vk::Format) -> Option<&'static FormatRow> {
            FORMATS
                .binary_search_by_key(&format.as_raw(), |r| r.format.as_raw())
                .ok()
                .map(|i| &FORMATS[i])
        }

        impl FormatRow {
            /// `VK_FORMAT_…`.
            pub fn name(&self) -> &'static str {
                self.name.get(STRINGS).unwrap_or_default()
            }
            /// The compatibility class (`32-bit`, `BC7`, `8-bit 2-plane 420`, …).
            pub fn class(&self) -> &'static str {
                self.class.get(STRINGS).unwrap_or_default()
            }
            /// `<spirvimageformat>` (`Rgba8`), where the format has one.
            pub fn spirv_image_format(&self) -> Option<&'static str> {
                self.spirv_image_format.get(STRINGS)
            }
            /// In the registry's order: MSB first for a PACK format.
            pub fn components(&self) -> &'static [Component] {
                let [at, n] = self.components;
                COMPONENTS.get(at as usize..(at + n) as usize).unwrap_or(&[])
            }
            /// Plane `i` at index `i`; empty for a single-plane format.
            pub fn planes(&self) -> &'static [Plane] {
                let [at, n] = self.planes;
                PLANES.get(at as usize..(at + n) as usize).unwrap_or(&[])
            }
        }

        impl core::fmt::Debug for Plane {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.debug_struct("Plane")
                    .field("width_divisor", &self.width_divisor)
                    .field("height_divisor", &self.height_divisor)
                    .field("compatible", &lookup(self.compatible).map(FormatRow::name))
                    .finish()
            }
        }

        impl core::fmt::Debug for FormatRow {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.debug_struct("FormatRow")
                    .field("name", &self.name())
                    .field("class", &self.class())
                    .field("block_size", &self.block_size)
                    .field("texels_per_block", &self.texels_per_block)
                    .field("block_extent", &self.block_extent)
                    .field("packed", &self.packed)
                    .field("compressed", &self.compressed)
                    .field("chroma", &self.chroma)
                    .field("components", &self.components())
                    .field("planes", &self.planes())
                    .field("spirv_image_format", &self.spirv_image_format())
                    .finish()
            }
        }

        #[cfg(test)]
        mod tests {
            use super::*;

            #[test]
            fn every_row_is_found_by_its_format_and_reads_back() {
                for r in &FORMATS {
                    assert!(core::ptr::eq(lookup(r.format).unwrap(), r));
                    assert!(r.name().starts_with("VK_FORMAT_"));
                    assert!(!r.components().is_empty(), "{}", r.name());
                    assert!(r.planes().iter().all(|p| lookup(p.compatible).is_some()));
                }
                assert!(lookup(vk::Format::UNDEFINED).is_none());
            }
        }
    }
}

fn types() -> proc_macro2::TokenStream {
    quote! {
        /// How a component's bits are read (`numericFormat`).
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
        pub enum NumericFormat { Unorm, Snorm, Uscaled, Sscaled, Uint, Sint, Srgb, Sfloat, Ufloat, Sfixed5, Bool }

        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
        pub enum ComponentName { R, G, B, A, D, S }

        /// `compressed=`: the block-compression scheme.
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
        pub enum Compression { Bc, Etc2, Eac, AstcLdr, AstcHdr, Pvrtc }

        /// `chroma=`: the chroma subsampling of a YCbCr format.
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
        pub enum Chroma { C420, C422, C444 }

        /// One `<component>`.
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
        pub struct Component {
            pub name: ComponentName,
            /// Bit width; 0 for a compressed format's components (`bits="compressed"`).
            pub bits: u8,
            pub numeric_format: NumericFormat,
            /// The plane that holds it (0 for a single-plane format).
            pub plane: u8,
        }

        /// One `<plane>`: its subsampling and the single-plane format a view of it has.
        #[derive(Clone, Copy, PartialEq, Eq, Hash)]
        pub struct Plane {
            pub width_divisor: u8,
            pub height_divisor: u8,
            pub compatible: vk::Format,
        }

        /// A row of [`FORMATS`]. Strings, components and planes are offsets (read through the
        /// methods), so the table holds no pointers and needs no load-time relocation.
        #[derive(Clone, Copy)]
        pub struct FormatRow {
            pub format: vk::Format,
            name: BlobStr,
            class: BlobStr,
            /// Bytes per texel block; for depth/stencil formats the registry's copy size
            /// (D24S8 4, D32S8 5), not a memory layout.
            pub block_size: u8,
            /// Texels per block; not always the product of `block_extent` (4:2:2, PVRTC).
            pub texels_per_block: u8,
            pub block_extent: [u8; 3],
            /// Bit width of the packed word (`_PACKnn`); 0 when not packed.
            pub packed: u8,
            pub compressed: Option<Compression>,
            pub chroma: Option<Chroma>,
            components: [u16; 2],
            planes: [u8; 2],
            spirv_image_format: BlobStr,
        }
    }
}
