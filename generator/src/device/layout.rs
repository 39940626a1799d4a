//! C memory layouts of Vulkan structures, computed from the registry model, and the decoding of
//! driver-filled bytes into JSON.
//!
//! This is what lets `vkjson` and `profile check` query *any* `VkPhysicalDevice*Features` /
//! `*Properties` structure the registry defines, not a hand-written list: a structure's layout
//! follows from its members (LP64 C rules: natural alignment, 8-byte pointers and handles, 4-byte
//! enums and `VkBool32`, arrays sized from `API Constants`). Members decode by their registry type:
//! `VkBool32` → `true`/`false`, enums → value names, bitmasks → arrays of bit names (unknown bits as
//! `"0x…"`), `char[N]` → strings, nested structures → objects. Pointers, handles and unions are laid
//! out but not decoded. Structures with bitfields are refused (no device query structure has any).
//!
//! Layouts are checked against ash's `#[repr(C)]` definitions in the unit tests below.

use std::collections::BTreeMap;
use std::fmt;

use serde_json::{Map, Number, Value};

use crate::model::{ArrayLen, CType, EnumVal, Registry, TypeKind};
use crate::registry::enum_value;

const POINTER: usize = std::mem::size_of::<usize>();

/// How one member (or array element) is decoded.
#[derive(Debug, Clone)]
pub enum Scalar {
    Bool32,
    Int {
        bytes: u8,
        signed: bool,
    },
    Float {
        bytes: u8,
    },
    /// `char`: arrays of it decode as NUL-terminated strings.
    Char,
    /// A value of the enum group `group`.
    Enum {
        group: String,
        bytes: u8,
    },
    /// A flags value; `bits` names the FlagBits group (absent for reserved flags).
    Bitmask {
        bits: Option<String>,
        bytes: u8,
    },
    Struct(Box<Layout>),
    /// Pointers, handles, unions, function pointers: laid out, never decoded.
    Opaque,
}

#[derive(Debug, Clone)]
pub struct Member {
    pub name: String,
    pub offset: usize,
    /// Size of one element.
    pub elem_size: usize,
    /// Array dimensions, outermost first (empty for a scalar).
    pub dims: Vec<usize>,
    pub scalar: Scalar,
    /// `values=` (the fixed `sType`).
    pub values: Option<String>,
}

#[derive(Debug, Clone)]
pub struct Layout {
    pub name: String,
    pub size: usize,
    pub align: usize,
    pub members: Vec<Member>,
}

impl Layout {
    pub fn member(&self, name: &str) -> Option<&Member> {
        self.members.iter().find(|m| m.name == name)
    }

    /// The `VkStructureType` value this structure's `sType` must hold.
    pub fn s_type(&self, reg: &Registry) -> Option<i32> {
        let name = self.member("sType")?.values.as_deref()?;
        enum_named(reg, "VkStructureType", name).map(|v| v as i32)
    }
}

/// Why a layout cannot be computed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LayoutError(pub String);

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The layout of the structure (or union) `name`, following aliases.
pub fn layout(reg: &Registry, name: &str) -> Result<Layout, LayoutError> {
    layout_depth(reg, name, 0)
}

fn layout_depth(reg: &Registry, name: &str, depth: u32) -> Result<Layout, LayoutError> {
    if depth > 16 {
        return Err(LayoutError(format!("{name}: structures nest too deeply")));
    }
    let ty = reg
        .resolve_type(name)
        .ok_or_else(|| LayoutError(format!("{name} is not a type in this registry")))?;
    let (agg, union) = match &ty.kind {
        TypeKind::Struct(a) => (a, false),
        TypeKind::Union(a) => (a, true),
        _ => return Err(LayoutError(format!("{name} is not a structure"))),
    };
    let mut members = Vec::new();
    let (mut offset, mut align, mut size) = (0usize, 1usize, 0usize);
    for f in &agg.members {
        if f.ty.bitfield.is_some() {
            return Err(LayoutError(format!(
                "{name}.{}: bitfields are not supported",
                f.name
            )));
        }
        let (scalar, esize, ealign) = scalar_of(reg, &f.ty, depth)
            .map_err(|e| LayoutError(format!("{name}.{}: {}", f.name, e.0)))?;
        let dims =
            f.ty.array
                .iter()
                .map(|a| array_len(reg, a))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| LayoutError(format!("{name}.{}: {}", f.name, e.0)))?;
        // Checked and capped: a hostile registry must not make vkjson overflow or allocate huge
        // buffers (real structures are a few KiB).
        let total = dims
            .iter()
            .try_fold(esize, |acc, &d| acc.checked_mul(d))
            .filter(|&t| t <= MAX_LAYOUT_SIZE)
            .ok_or_else(|| {
                LayoutError(format!(
                    "{name}.{}: member larger than {MAX_LAYOUT_SIZE} bytes",
                    f.name
                ))
            })?;
        align = align.max(ealign);
        let at = if union {
            0
        } else {
            offset.next_multiple_of(ealign)
        };
        members.push(Member {
            name: f.name.clone(),
            offset: at,
            elem_size: esize,
            dims,
            scalar,
            values: f.values.clone(),
        });
        if union {
            size = size.max(total);
        } else {
            offset = at + total;
            if offset > MAX_LAYOUT_SIZE {
                return Err(LayoutError(format!(
                    "{name}: larger than {MAX_LAYOUT_SIZE} bytes"
                )));
            }
        }
    }
    let end = if union { size } else { offset };
    Ok(Layout {
        name: ty.name.clone(),
        size: end.next_multiple_of(align),
        align,
        members,
    })
}

/// Largest structure vkjson lays out (the largest real one is a few KiB).
pub const MAX_LAYOUT_SIZE: usize = 1 << 20;

fn array_len(reg: &Registry, a: &ArrayLen) -> Result<usize, LayoutError> {
    crate::registry::array_len(reg, a).map_err(LayoutError)
}

/// (decoder, size, alignment) of one element of a member's type.
fn scalar_of(
    reg: &Registry,
    ty: &CType,
    depth: u32,
) -> Result<(Scalar, usize, usize), LayoutError> {
    if ty.is_pointer() {
        return Ok((Scalar::Opaque, POINTER, POINTER));
    }
    named_scalar(reg, &ty.base, depth)
}

fn int(bytes: u8, signed: bool) -> (Scalar, usize, usize) {
    (
        Scalar::Int { bytes, signed },
        bytes as usize,
        bytes as usize,
    )
}

fn named_scalar(
    reg: &Registry,
    base: &str,
    depth: u32,
) -> Result<(Scalar, usize, usize), LayoutError> {
    match base {
        "VkBool32" => return Ok((Scalar::Bool32, 4, 4)),
        "char" => return Ok((Scalar::Char, 1, 1)),
        "int8_t" => return Ok(int(1, true)),
        "uint8_t" => return Ok(int(1, false)),
        "int16_t" => return Ok(int(2, true)),
        "uint16_t" => return Ok(int(2, false)),
        "int32_t" | "int" => return Ok(int(4, true)),
        "uint32_t" => return Ok(int(4, false)),
        "int64_t" => return Ok(int(8, true)),
        "uint64_t" => return Ok(int(8, false)),
        "size_t" => return Ok(int(POINTER as u8, false)),
        "float" => return Ok((Scalar::Float { bytes: 4 }, 4, 4)),
        "double" => return Ok((Scalar::Float { bytes: 8 }, 8, 8)),
        _ => {}
    }
    let Some(ty) = reg.resolve_type(base) else {
        if reg.enums.contains_key(base) {
            return Ok(enum_scalar(reg, base));
        }
        return Err(LayoutError(format!("unknown type {base}")));
    };
    match &ty.kind {
        TypeKind::Basetype { pointer: true, .. } | TypeKind::Funcpointer { .. } => {
            Ok((Scalar::Opaque, POINTER, POINTER))
        }
        TypeKind::Basetype {
            underlying: Some(u),
            ..
        } if depth < 16 => named_scalar(reg, u, depth + 1),
        TypeKind::Handle { .. } => Ok((Scalar::Opaque, 8, 8)),
        TypeKind::Bitmask { bits, width64 } => {
            let bytes = if *width64 { 8 } else { 4 };
            Ok((
                Scalar::Bitmask {
                    bits: bits.clone(),
                    bytes,
                },
                bytes as usize,
                bytes as usize,
            ))
        }
        TypeKind::Enum => Ok(enum_scalar(reg, &ty.name)),
        TypeKind::Struct(_) | TypeKind::Union(_) => {
            let l = layout_depth(reg, &ty.name, depth + 1)?;
            let (size, align) = (l.size, l.align);
            let scalar = if matches!(ty.kind, TypeKind::Union(_)) {
                Scalar::Opaque
            } else {
                Scalar::Struct(Box::new(l))
            };
            Ok((scalar, size, align))
        }
        _ => Err(LayoutError(format!("{base} has no layout known to vkgen"))),
    }
}

fn enum_scalar(reg: &Registry, name: &str) -> (Scalar, usize, usize) {
    let g = reg.enums.get(name);
    if g.is_some_and(|g| g.width64) {
        // A 64-bit FlagBits type used directly: decode like its flags.
        return (
            Scalar::Bitmask {
                bits: Some(name.to_owned()),
                bytes: 8,
            },
            8,
            8,
        );
    }
    (
        Scalar::Enum {
            group: name.to_owned(),
            bytes: 4,
        },
        4,
        4,
    )
}

/// The integer value of the enumerant `name` in group `group` (aliases followed).
pub fn enum_named(reg: &Registry, group: &str, name: &str) -> Option<i64> {
    let g = reg.enums.get(group)?;
    let v = g.values.iter().find(|v| v.name == name)?;
    enum_value(g, &v.value, 0)
}

/// The name of `value` in enum group `group` (the first non-alias enumerant with that value).
pub fn enum_name(reg: &Registry, group: &str, value: i64) -> Option<String> {
    let g = reg.enums.get(group)?;
    g.values
        .iter()
        .filter(|v| !matches!(v.value, EnumVal::Alias(_)))
        .find(|v| enum_value(g, &v.value, 0) == Some(value))
        .map(|v| v.name.clone())
}

/// The single-bit enumerants of a FlagBits group, lowest bit first.
pub fn flag_bits(reg: &Registry, group: &str) -> Vec<(String, u64)> {
    let Some(g) = reg.enums.get(group) else {
        return Vec::new();
    };
    let mut bits: BTreeMap<u64, String> = BTreeMap::new();
    for v in &g.values {
        if matches!(v.value, EnumVal::Alias(_)) {
            continue;
        }
        if let Some(x) = enum_value(g, &v.value, 0) {
            let x = x as u64;
            if x.is_power_of_two() {
                bits.entry(x).or_insert_with(|| v.name.clone());
            }
        }
    }
    bits.into_iter().map(|(b, n)| (n, b)).collect()
}

/// `value` as bit names of `group`; bits the group does not name come last as one `"0x…"`.
pub fn flag_names(reg: &Registry, group: Option<&str>, value: u64) -> Vec<String> {
    let mut rest = value;
    let mut out = Vec::new();
    if let Some(g) = group {
        for (name, bit) in flag_bits(reg, g) {
            if rest & bit != 0 {
                out.push(name);
                rest &= !bit;
            }
        }
    }
    if rest != 0 {
        out.push(format!("{rest:#x}"));
    }
    out
}

/// The inverse of [`flag_names`]: bit names (aliases allowed) or `"0x…"` strings → a value.
pub fn flags_value(reg: &Registry, group: Option<&str>, names: &[Value]) -> Result<u64, String> {
    let mut v = 0u64;
    for n in names {
        let s = n
            .as_str()
            .ok_or_else(|| format!("flag {n} is not a string"))?;
        if let Some(hex) = s.strip_prefix("0x") {
            v |= u64::from_str_radix(hex, 16).map_err(|_| format!("bad flag value {s}"))?;
            continue;
        }
        let g = group.ok_or_else(|| format!("{s}: these flags have no bits"))?;
        let bit = enum_named(reg, g, s).ok_or_else(|| format!("{s} is not a bit of {g}"))?;
        v |= bit as u64;
    }
    Ok(v)
}

fn read_uint(b: &[u8], bytes: u8) -> u64 {
    match bytes {
        1 => u64::from(b[0]),
        2 => u64::from(u16::from_ne_bytes([b[0], b[1]])),
        4 => u64::from(u32::from_ne_bytes([b[0], b[1], b[2], b[3]])),
        _ => u64::from_ne_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]),
    }
}

fn read_int(b: &[u8], bytes: u8) -> i64 {
    let u = read_uint(b, bytes);
    match bytes {
        1 => i64::from(u as u8 as i8),
        2 => i64::from(u as u16 as i16),
        4 => i64::from(u as u32 as i32),
        _ => u as i64,
    }
}

/// An `f64` JSON number that prints as the shortest `f32` spelling (`0.1`, not `0.100000001…`).
fn float_value(f: f64, from_f32: bool) -> Value {
    let f = if from_f32 {
        format!("{}", f as f32).parse::<f64>().unwrap_or(f)
    } else {
        f
    };
    Number::from_f64(f).map_or_else(|| Value::String(format!("{f}")), Value::Number)
}

/// Decodes one structure from `bytes` (at least `layout.size` long). `sType` and `pNext` and the
/// members that are not decoded (pointers, handles, unions) are left out. An array member
/// `xs[N]` with a sibling `xCount` (`memoryTypes`/`memoryTypeCount`) is cut to that count.
pub fn decode(reg: &Registry, layout: &Layout, bytes: &[u8]) -> Map<String, Value> {
    let mut out = Map::new();
    for m in &layout.members {
        if m.name == "sType" || m.name == "pNext" {
            continue;
        }
        if let Some(v) = decode_member(reg, m, bytes) {
            out.insert(m.name.clone(), v);
        }
    }
    for m in &layout.members {
        let Some(stem) = m.name.strip_suffix('s') else {
            continue;
        };
        let count = out
            .get(&format!("{stem}Count"))
            .and_then(Value::as_u64)
            .map(|c| c as usize);
        if let (Some(c), Some(Value::Array(a))) = (count, out.get_mut(&m.name)) {
            a.truncate(c);
        }
    }
    out
}

fn decode_member(reg: &Registry, m: &Member, bytes: &[u8]) -> Option<Value> {
    if matches!(m.scalar, Scalar::Opaque) {
        return None;
    }
    let end = m.offset + m.elem_size * m.dims.iter().product::<usize>();
    let b = bytes.get(m.offset..end)?;
    Some(decode_array(reg, &m.scalar, m.elem_size, &m.dims, b))
}

fn decode_array(reg: &Registry, s: &Scalar, elem: usize, dims: &[usize], b: &[u8]) -> Value {
    match dims.split_first() {
        None => decode_scalar(reg, s, b),
        Some((_, [])) if matches!(s, Scalar::Char) => {
            let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
            Value::String(String::from_utf8_lossy(&b[..end]).into_owned())
        }
        Some((&n, inner)) => {
            let stride = elem * inner.iter().product::<usize>();
            Value::Array(
                (0..n)
                    .map(|i| decode_array(reg, s, elem, inner, &b[i * stride..(i + 1) * stride]))
                    .collect(),
            )
        }
    }
}

fn decode_scalar(reg: &Registry, s: &Scalar, b: &[u8]) -> Value {
    match s {
        Scalar::Bool32 => Value::Bool(read_uint(b, 4) != 0),
        Scalar::Int {
            bytes,
            signed: true,
        } => Value::from(read_int(b, *bytes)),
        Scalar::Int { bytes, .. } => Value::from(read_uint(b, *bytes)),
        Scalar::Float { bytes: 4 } => {
            float_value(f64::from(f32::from_bits(read_uint(b, 4) as u32)), true)
        }
        Scalar::Float { .. } => float_value(f64::from_bits(read_uint(b, 8)), false),
        Scalar::Char => Value::from(b[0]),
        Scalar::Enum { group, bytes } => {
            let v = read_int(b, *bytes);
            enum_name(reg, group, v).map_or_else(|| Value::from(v), Value::String)
        }
        Scalar::Bitmask { bits, bytes } => Value::Array(
            flag_names(reg, bits.as_deref(), read_uint(b, *bytes))
                .into_iter()
                .map(Value::String)
                .collect(),
        ),
        Scalar::Struct(l) => Value::Object(decode(reg, l, b)),
        Scalar::Opaque => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use std::mem::{align_of, offset_of, size_of};

    use ash::vk;

    use super::*;

    fn registry() -> Registry {
        let (loaded, _) = crate::load(&crate::Options {
            registry: Some(crate::registry::DEBIAN_REGISTRY.into()),
            ..Default::default()
        })
        .expect("Debian's vk.xml (libvulkan-dev)");
        loaded.registry
    }

    macro_rules! same_layout {
        ($reg:expr, $($vk:literal => $ash:ty),* $(,)?) => {$(
            let l = layout($reg, $vk).unwrap_or_else(|e| panic!("{}: {e}", $vk));
            assert_eq!(l.size, size_of::<$ash>(), "size of {}", $vk);
            assert_eq!(l.align, align_of::<$ash>(), "alignment of {}", $vk);
        )*};
    }

    #[test]
    fn layouts_match_ash() {
        let reg = registry();
        same_layout!(&reg,
            "VkPhysicalDeviceProperties" => vk::PhysicalDeviceProperties,
            "VkPhysicalDeviceLimits" => vk::PhysicalDeviceLimits,
            "VkPhysicalDeviceSparseProperties" => vk::PhysicalDeviceSparseProperties,
            "VkPhysicalDeviceFeatures" => vk::PhysicalDeviceFeatures,
            "VkPhysicalDeviceFeatures2" => vk::PhysicalDeviceFeatures2,
            "VkPhysicalDeviceProperties2" => vk::PhysicalDeviceProperties2,
            "VkPhysicalDeviceVulkan11Features" => vk::PhysicalDeviceVulkan11Features,
            "VkPhysicalDeviceVulkan12Features" => vk::PhysicalDeviceVulkan12Features,
            "VkPhysicalDeviceVulkan13Features" => vk::PhysicalDeviceVulkan13Features,
            "VkPhysicalDeviceVulkan11Properties" => vk::PhysicalDeviceVulkan11Properties,
            "VkPhysicalDeviceVulkan12Properties" => vk::PhysicalDeviceVulkan12Properties,
            "VkPhysicalDeviceVulkan13Properties" => vk::PhysicalDeviceVulkan13Properties,
            "VkPhysicalDeviceDriverProperties" => vk::PhysicalDeviceDriverProperties,
            "VkPhysicalDeviceIDProperties" => vk::PhysicalDeviceIDProperties,
            "VkPhysicalDeviceMemoryProperties" => vk::PhysicalDeviceMemoryProperties,
            "VkQueueFamilyProperties" => vk::QueueFamilyProperties,
            "VkFormatProperties" => vk::FormatProperties,
            "VkFormatProperties2" => vk::FormatProperties2,
            "VkFormatProperties3" => vk::FormatProperties3,
            "VkExternalFenceProperties" => vk::ExternalFenceProperties,
            "VkExternalSemaphoreProperties" => vk::ExternalSemaphoreProperties,
            "VkPhysicalDeviceExternalFenceInfo" => vk::PhysicalDeviceExternalFenceInfo,
            "VkPhysicalDeviceSubgroupProperties" => vk::PhysicalDeviceSubgroupProperties,
            "VkPhysicalDeviceMeshShaderPropertiesEXT" => vk::PhysicalDeviceMeshShaderPropertiesEXT,
            "VkPhysicalDeviceFragmentShadingRatePropertiesKHR" => vk::PhysicalDeviceFragmentShadingRatePropertiesKHR,
            "VkPhysicalDeviceDescriptorBufferPropertiesEXT" => vk::PhysicalDeviceDescriptorBufferPropertiesEXT,
            "VkPhysicalDeviceRayTracingPipelinePropertiesKHR" => vk::PhysicalDeviceRayTracingPipelinePropertiesKHR,
            "VkClearValue" => vk::ClearValue,
            "VkPipelineExecutableStatisticKHR" => vk::PipelineExecutableStatisticKHR,
        );
        let l = layout(&reg, "VkPhysicalDeviceLimits").unwrap();
        let off = |n: &str| l.member(n).unwrap().offset;
        assert_eq!(
            off("maxComputeWorkGroupSize"),
            offset_of!(vk::PhysicalDeviceLimits, max_compute_work_group_size)
        );
        assert_eq!(
            off("nonCoherentAtomSize"),
            offset_of!(vk::PhysicalDeviceLimits, non_coherent_atom_size)
        );
        assert_eq!(
            off("viewportBoundsRange"),
            offset_of!(vk::PhysicalDeviceLimits, viewport_bounds_range)
        );
        let p = layout(&reg, "VkPhysicalDeviceProperties").unwrap();
        assert_eq!(
            p.member("limits").unwrap().offset,
            offset_of!(vk::PhysicalDeviceProperties, limits)
        );
        assert_eq!(
            p.member("sparseProperties").unwrap().offset,
            offset_of!(vk::PhysicalDeviceProperties, sparse_properties)
        );
        let f2 = layout(&reg, "VkPhysicalDeviceFeatures2").unwrap();
        assert_eq!(f2.member("pNext").unwrap().offset, 8);
        assert_eq!(
            f2.s_type(&reg),
            Some(vk::StructureType::PHYSICAL_DEVICE_FEATURES_2.as_raw())
        );
    }

    #[test]
    fn bitfields_are_refused_with_the_member_named() {
        let reg = registry();
        let e = layout(&reg, "VkAccelerationStructureInstanceKHR").unwrap_err();
        assert!(e.0.contains("bitfield"), "{e}");
        assert!(layout(&reg, "VkNoSuchStruct").is_err());
        assert!(layout(&reg, "VkFormat").is_err());
    }

    #[test]
    fn decodes_members_by_registry_type() {
        let reg = registry();
        let l = layout(&reg, "VkPhysicalDeviceProperties").unwrap();
        let limits = match &l.member("limits").unwrap().scalar {
            Scalar::Struct(s) => (**s).clone(),
            other => panic!("limits is {other:?}"),
        };
        let base = l.member("limits").unwrap().offset;
        let at = |m: &str| l.member(m).unwrap().offset;
        let lim = |m: &str| base + limits.member(m).unwrap().offset;
        let mut buf = vec![0u8; l.size];
        let mut put = |off: usize, bytes: &[u8]| buf[off..off + bytes.len()].copy_from_slice(bytes);
        put(
            at("apiVersion"),
            &vk::make_api_version(0, 1, 3, 7).to_ne_bytes(),
        );
        put(
            at("deviceType"),
            &vk::PhysicalDeviceType::CPU.as_raw().to_ne_bytes(),
        );
        put(at("deviceName"), b"abc\0junk");
        for (i, v) in [1u32, 2, 3].iter().enumerate() {
            put(lim("maxComputeWorkGroupSize") + 4 * i, &v.to_ne_bytes());
        }
        put(lim("pointSizeGranularity"), &0.1f32.to_ne_bytes());
        put(lim("standardSampleLocations"), &1u32.to_ne_bytes());
        put(lim("framebufferColorSampleCounts"), &5u32.to_ne_bytes());
        let v = decode(&reg, &l, &buf);
        assert_eq!(v["deviceName"], "abc");
        assert_eq!(v["deviceType"], "VK_PHYSICAL_DEVICE_TYPE_CPU");
        assert_eq!(v["apiVersion"], vk::make_api_version(0, 1, 3, 7));
        let limits = &v["limits"];
        assert_eq!(
            limits["maxComputeWorkGroupSize"],
            serde_json::json!([1, 2, 3])
        );
        assert_eq!(limits["pointSizeGranularity"], 0.1);
        assert_eq!(limits["standardSampleLocations"], true);
        assert_eq!(
            limits["framebufferColorSampleCounts"],
            serde_json::json!(["VK_SAMPLE_COUNT_1_BIT", "VK_SAMPLE_COUNT_4_BIT"])
        );
        let names = [
            Value::from("VK_SAMPLE_COUNT_4_BIT"),
            Value::from("VK_SAMPLE_COUNT_1_BIT"),
        ];
        assert_eq!(
            flags_value(&reg, Some("VkSampleCountFlagBits"), &names),
            Ok(5)
        );
        assert_eq!(
            flag_names(&reg, Some("VkSampleCountFlagBits"), 0x1_0001),
            ["VK_SAMPLE_COUNT_1_BIT", "0x10000"]
        );
        assert!(flags_value(
            &reg,
            Some("VkSampleCountFlagBits"),
            &[Value::from("VK_NOPE")]
        )
        .is_err());
    }
}
