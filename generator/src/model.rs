//! The one model every emitter reads: what vk.xml (plus our Android native-buffer description) says,
//! with the XML schema's revisions already folded away. Parsing fills it once (`registry`); selection
//! (`select`) picks a version and an extension set out of it; emitters never look at XML.

use std::collections::BTreeMap;

/// A parsed registry. Maps are ordered so that everything derived from them is deterministic.
#[derive(Debug, Default, Clone)]
pub struct Registry {
    /// `VK_HEADER_VERSION`.
    pub header_version: u32,
    /// Lower-case hex SHA-256 of the vk.xml file the registry was parsed from (the generated
    /// crate records it, so its freshness check regenerates from exactly that file).
    pub source_sha256: String,
    pub types: BTreeMap<String, Type>,
    pub commands: BTreeMap<String, Command>,
    /// `<enums name=…>` blocks, with the values extensions and features add merged in.
    pub enums: BTreeMap<String, EnumGroup>,
    /// `API Constants` (VK_UUID_SIZE, …).
    pub constants: BTreeMap<String, Constant>,
    /// `<feature>` elements in document order (internal BASE/COMPUTE/GRAPHICS ones included).
    pub features: Vec<Feature>,
    /// `<extension>` elements in document order.
    pub extensions: Vec<Extension>,
    /// Command names in document order (for stable, registry-like ordering of emitted items).
    pub command_order: Vec<String>,
    /// Types and commands the overlay (registry/) added or changed relative to vk.xml: these are
    /// always emitted, even where ash has an older definition of the same name.
    pub overlay_changed: std::collections::BTreeSet<String>,
    /// Where the overlay came from and which of its elements replaced or added to vk.xml's, so
    /// that errors in them name the overlay file rather than vk.xml.
    pub overlay_origin: Option<OverlayOrigin>,
    /// `<formats>`' `<format>` elements in document order (none before 1.2.1xx's registries).
    pub formats: Vec<Format>,
}

/// The overlay's file and the names of the elements it contributed.
#[derive(Debug, Default, Clone)]
pub struct OverlayOrigin {
    pub path: std::path::PathBuf,
    pub types: std::collections::BTreeSet<String>,
    pub commands: std::collections::BTreeSet<String>,
    pub extensions: std::collections::BTreeSet<String>,
    pub enums: std::collections::BTreeSet<String>,
    pub constants: std::collections::BTreeSet<String>,
    pub features: std::collections::BTreeSet<String>,
}

/// Longest `alias=` chain the registry may contain (vk.xml's longest is 2: EXT → KHR → core).
/// Loading rejects longer chains and cycles, so every resolver below terminates within it.
pub const MAX_ALIAS_CHAIN: usize = 8;

impl Registry {
    pub fn extension(&self, name: &str) -> Option<&Extension> {
        self.extensions.iter().find(|e| e.name == name)
    }

    /// Follows `alias=` chains of types to the defining type.
    pub fn resolve_type(&self, name: &str) -> Option<&Type> {
        let mut ty = self.types.get(name)?;
        for _ in 0..=MAX_ALIAS_CHAIN {
            match &ty.alias {
                Some(target) => ty = self.types.get(target)?,
                None => return Some(ty),
            }
        }
        None
    }

    /// Follows `alias=` chains of commands to the defining command.
    pub fn resolve_command(&self, name: &str) -> Option<&Command> {
        let mut cmd = self.commands.get(name)?;
        for _ in 0..=MAX_ALIAS_CHAIN {
            match &cmd.alias {
                Some(target) => cmd = self.commands.get(target)?,
                None => return Some(cmd),
            }
        }
        None
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Type {
    pub name: String,
    /// Set for `<type name=… alias=…>`; `kind` then repeats the category only.
    pub alias: Option<String>,
    pub kind: TypeKind,
    /// `requires=` (a header for external types, the FlagBits enum for old-style bitmasks).
    pub requires: Option<String>,
    /// The line of the element in its file, for error messages.
    pub line: u32,
    /// The column of the element on that line.
    pub col: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub enum TypeKind {
    /// `#define`s and `#include`s: not types for Rust.
    Define,
    Include,
    /// `typedef uint32_t VkBool32;` or an opaque platform type (`<type category="basetype">struct X;`).
    Basetype {
        underlying: Option<String>,
        pointer: bool,
    },
    /// `typedef VkFlags VkFooFlags;` — `bits` names the FlagBits enum (absent for reserved flags).
    Bitmask {
        bits: Option<String>,
        width64: bool,
    },
    Handle {
        dispatchable: bool,
        parent: Option<String>,
        object_type: Option<String>,
    },
    Enum,
    Struct(Aggregate),
    Union(Aggregate),
    Funcpointer {
        ret: CType,
        params: Vec<Field>,
    },
    /// A type defined outside vk.xml (`requires="X11/Xlib.h"`, `vk_video/…`) or a C primitive.
    External,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Aggregate {
    pub members: Vec<Field>,
    pub returned_only: bool,
    pub extends: Vec<String>,
}

/// A C type as written in a member or parameter declaration.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CType {
    /// The named type (`VkFoo`, `uint32_t`, `void`, `char`).
    pub base: String,
    /// `const` applies to the base type.
    pub base_const: bool,
    /// One entry per `*`, innermost first: whether that pointer itself is `const` (`* const`).
    pub pointers: Vec<bool>,
    /// Array dimensions, outermost first.
    pub array: Vec<ArrayLen>,
    /// A `: N` bitfield width.
    pub bitfield: Option<u8>,
}

impl CType {
    pub fn named(base: &str) -> Self {
        CType {
            base: base.to_owned(),
            ..Default::default()
        }
    }

    pub fn is_void(&self) -> bool {
        self.base == "void" && self.pointers.is_empty() && self.array.is_empty()
    }

    pub fn is_pointer(&self) -> bool {
        !self.pointers.is_empty()
    }

    /// The bits of the storage unit a bitfield of this base type packs into: a width must be in
    /// `1..=` this (C forbids wider ones, and a zero-width member has no name).
    pub fn bitfield_unit_bits(&self) -> u32 {
        match self.base.as_str() {
            "uint64_t" | "int64_t" | "VkDeviceAddress" | "VkDeviceSize" => 64,
            "uint16_t" | "int16_t" => 16,
            "uint8_t" | "int8_t" => 8,
            _ => 32,
        }
    }

    /// C spelling, used in diffs and error messages.
    pub fn to_c(&self) -> String {
        let mut s = String::new();
        if self.base_const {
            s.push_str("const ");
        }
        s.push_str(&self.base);
        for &c in &self.pointers {
            s.push('*');
            if c {
                s.push_str(" const");
            }
        }
        for a in &self.array {
            match a {
                ArrayLen::Literal(n) => s.push_str(&format!("[{n}]")),
                ArrayLen::Constant(c) => s.push_str(&format!("[{c}]")),
            }
        }
        if let Some(b) = self.bitfield {
            s.push_str(&format!(":{b}"));
        }
        s
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArrayLen {
    Literal(u32),
    Constant(String),
}

/// A struct member or command parameter.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub name: String,
    pub ty: CType,
    pub len: Option<String>,
    pub optional: bool,
    /// `values=` (the fixed sType value).
    pub values: Option<String>,
    /// `limittype=` of a property member (`max`, `min,mul`, `range`, …; none before 1.2.1xx).
    pub limittype: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Command {
    pub name: String,
    pub alias: Option<String>,
    pub ret: CType,
    pub params: Vec<Field>,
    pub success_codes: Vec<String>,
    pub error_codes: Vec<String>,
    pub line: u32,
    pub col: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct EnumGroup {
    pub name: String,
    pub bitmask: bool,
    pub width64: bool,
    pub values: Vec<EnumValue>,
    /// Position of the `<enums>` element in its file (0 for groups vkgen made up).
    pub line: u32,
    pub col: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct EnumValue {
    pub name: String,
    pub value: EnumVal,
    /// The extension that added it, for extension-added values.
    pub extension: Option<String>,
    /// Position of the `<enum>` element in its file.
    pub line: u32,
    pub col: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub enum EnumVal {
    /// The literal's exact C value: `-1` and `(~0ULL)` differ, so a 32-bit group can refuse the
    /// second (emitters take the bit pattern, [`crate::registry::enum_value`]).
    Value(i128),
    Bitpos(u32),
    Alias(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Constant {
    pub name: String,
    /// C type of the constant (`uint32_t`, `float`, `uint64_t`).
    pub ty: String,
    /// The C expression, e.g. `256`, `(~0U)`, `1000.0F`.
    pub value: String,
    pub alias: Option<String>,
    pub line: u32,
    pub col: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Feature {
    pub name: String,
    pub api: Vec<String>,
    pub version: (u32, u32),
    /// `apitype="internal"` (the VK_{BASE,COMPUTE,GRAPHICS}_VERSION_* groups).
    pub internal: bool,
    pub depends: Option<String>,
    pub requires: Vec<Require>,
    pub removes: Vec<Require>,
    pub line: u32,
    pub col: u32,
}

/// A `<require>` (or `<remove>`) block.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Require {
    /// The block's condition: `depends=`, or the older `feature=`/`extension=` attributes, as one
    /// dependency expression.
    pub depends: Option<String>,
    pub api: Vec<String>,
    pub types: Vec<String>,
    pub commands: Vec<String>,
    /// Enum values this block adds to an enum group (`extends=`) or defines (spec version, name).
    pub enums: Vec<RequiredEnum>,
    /// Device features the block requires (`<feature name="…" struct="…"/>`): `(struct, member)`.
    pub features: Vec<(String, String)>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct RequiredEnum {
    pub name: String,
    pub extends: Option<String>,
    pub value: Option<EnumVal>,
    /// The literal `value=` text of non-extending enums (spec version numbers, name strings).
    pub literal: Option<String>,
    pub line: u32,
    pub col: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ExtensionKind {
    Instance,
    Device,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Extension {
    pub name: String,
    pub number: u32,
    pub kind: Option<ExtensionKind>,
    pub supported: Vec<String>,
    pub platform: Option<String>,
    pub author: Option<String>,
    pub depends: Option<String>,
    pub promoted_to: Option<String>,
    pub deprecated_by: Option<String>,
    pub obsoleted_by: Option<String>,
    pub provisional: bool,
    pub spec_version: u32,
    pub requires: Vec<Require>,
    pub line: u32,
    pub col: u32,
}

impl Extension {
    pub fn supports_vulkan(&self) -> bool {
        self.supported.iter().any(|s| s == "vulkan")
    }
}

/// `"1.3"` → `(1, 3)`; `VK_VERSION_1_3` and `VK_API_VERSION_1_3` work too.
pub fn parse_version(s: &str) -> Option<(u32, u32)> {
    let s = s
        .trim_start_matches("VK_API_VERSION_")
        .trim_start_matches("VK_VERSION_")
        .trim_start_matches("VK_BASE_VERSION_")
        .trim_start_matches("VK_COMPUTE_VERSION_")
        .trim_start_matches("VK_GRAPHICS_VERSION_");
    let (a, b) = s.split_once(['.', '_'])?;
    let digits = |t: &str| !t.is_empty() && t.len() <= 4 && t.bytes().all(|c| c.is_ascii_digit());
    if !digits(a) || !digits(b) {
        return None;
    }
    let v: (u32, u32) = (a.parse().ok()?, b.parse().ok()?);
    // VK_MAKE_API_VERSION packs major into 7 bits and minor into 10.
    (v.0 <= MAX_MAJOR && v.1 <= MAX_MINOR).then_some(v)
}

/// Largest major version `VK_MAKE_API_VERSION` can encode.
pub const MAX_MAJOR: u32 = 0x7f;
/// Largest minor version `VK_MAKE_API_VERSION` can encode.
pub const MAX_MINOR: u32 = 0x3ff;

/// `VK_MAKE_API_VERSION(0, major, minor, 0)`.
pub fn api_version(v: (u32, u32)) -> u32 {
    (v.0 << 22) | (v.1 << 12)
}

/// Most names (commands, extensions) one generated lookup holds: its perfect hash stores key
/// indices as `u16`, and `u16::MAX` marks an empty slot. The registry refuses more at load.
pub const MAX_LOOKUP_NAMES: usize = u16::MAX as usize - 1;

/// One `<format>` of vk.xml's `<formats>`: the block layout the spec's "Compatible Formats" and
/// "Format Definition" tables give, as the registry spells it (see `registry/formats.rs`).
#[derive(Debug, Clone, PartialEq)]
pub struct Format {
    /// `VK_FORMAT_…`.
    pub name: String,
    /// Compatibility class (`32-bit`, `BC7`, `8-bit 2-plane 420`, …).
    pub class: String,
    /// Bytes per texel block (for depth/stencil formats: the copy size, not the memory size).
    pub block_size: u32,
    pub texels_per_block: u32,
    /// `blockExtent="x,y,z"`; `[1, 1, 1]` when absent.
    pub block_extent: [u32; 3],
    /// `packed=` bit width of the packed word.
    pub packed: Option<u32>,
    /// `compressed=` scheme (`BC`, `ETC2`, `EAC`, `ASTC LDR`, `ASTC HDR`, `PVRTC`).
    pub compressed: Option<String>,
    /// `chroma=` subsampling (420, 422, 444).
    pub chroma: Option<u32>,
    /// In the registry's order (MSB first for a PACK format).
    pub components: Vec<FormatComponent>,
    pub planes: Vec<FormatPlane>,
    /// `<spirvimageformat name=…>` (`Rgba8`, …).
    pub spirv_image_formats: Vec<String>,
    pub line: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct FormatComponent {
    /// `R`, `G`, `B`, `A`, `D` or `S`.
    pub name: String,
    /// Bit width; `None` for `bits="compressed"`.
    pub bits: Option<u32>,
    /// `UNORM`, `SRGB`, `SFLOAT`, … as written.
    pub numeric_format: String,
    pub plane_index: Option<u32>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct FormatPlane {
    pub index: u32,
    pub width_divisor: u32,
    pub height_divisor: u32,
    /// The single-plane format a view of this plane has.
    pub compatible: String,
}
