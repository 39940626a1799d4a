//! `vkgen vkjson`: the instance and every physical device as one JSON document — the role of
//! Android's `vkjson` (`cmd gpu vkjson`), in vkgen's own layout.
//!
//! ```text
//! { "vkgen": { loader, registry },
//!   "instance": { apiVersion, apiVersionText, extensions[], layers[] },
//!   "devices": [ {
//!       "properties": VkPhysicalDeviceProperties (limits and sparseProperties inside),
//!       "features": VkPhysicalDeviceFeatures,
//!       "extendedProperties": { "VkPhysicalDeviceVulkan11Properties": {…}, … },
//!       "extendedFeatures": { "VkPhysicalDeviceVulkan12Features": {…}, … },
//!       "memory": VkPhysicalDeviceMemoryProperties (arrays cut to their counts),
//!       "queues": [VkQueueFamilyProperties],
//!       "extensions": [], "layers": [],
//!       "formats": { "VK_FORMAT_…": VkFormatProperties } (formats with any feature bit),
//!       "externalFenceProperties": { "VK_EXTERNAL_FENCE_HANDLE_TYPE_…_BIT": VkExternalFenceProperties },
//!       "externalSemaphoreProperties": { … },
//!       "skippedStructures": [ { structure, reason } ] } ] }
//! ```
//!
//! `properties`/`features` keep Android vkjson's names, so CTS-style readers find
//! `properties.limits.maxPerStageDescriptorStorageBuffers` and `features.textureCompressionETC2`.
//! Enums are value names, flags are arrays of bit names, `VkBool32` is `true`/`false`. Object keys
//! are sorted and lists are in enumeration order, so two runs on one device give identical output.

use std::collections::BTreeMap;

use ash::vk;
use serde_json::{json, Map, Value};

use super::layout::{self, Layout, Scalar};
use super::session::{Device, Session};
use super::{version_string, DeviceError};
use crate::model::Registry;

/// One device's document.
pub fn device_json(s: &Session, dev: &Device) -> Result<Value, DeviceError> {
    let (fstructs, mut skipped) = s.extending_structs(dev, "VkPhysicalDeviceFeatures2");
    let (pstructs, pskipped) = s.extending_structs(dev, "VkPhysicalDeviceProperties2");
    skipped.extend(pskipped);
    let mut features = s.features(dev, &fstructs)?;
    let mut properties = s.properties(dev, &pstructs)?;
    let core_features = features
        .remove("VkPhysicalDeviceFeatures")
        .unwrap_or_default();
    let core_properties = properties
        .remove("VkPhysicalDeviceProperties")
        .unwrap_or_else(|| dev.properties.clone());
    let mut formats = Map::new();
    for (name, value) in s.formats(dev) {
        let p = s.format_properties(dev, value)?;
        let any = p
            .values()
            .any(|v| v.as_array().is_some_and(|a| !a.is_empty()));
        if any {
            formats.insert(name, Value::Object(p));
        }
    }
    let queues: Vec<Value> = s
        .queue_families(dev)?
        .into_iter()
        .map(Value::Object)
        .collect();
    Ok(json!({
        "properties": core_properties,
        "features": core_features,
        "extendedProperties": properties,
        "extendedFeatures": features,
        "memory": s.memory(dev)?,
        "queues": queues,
        "extensions": dev.extensions,
        "layers": dev.layers,
        "formats": formats,
        "externalFenceProperties": s.external_sync(dev, false)?,
        "externalSemaphoreProperties": s.external_sync(dev, true)?,
        "skippedStructures": skipped,
    }))
}

/// The whole document.
pub fn document(s: &Session, registry: &str) -> Result<Value, DeviceError> {
    let devices = s
        .devices
        .iter()
        .map(|d| device_json(s, d))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(json!({
        "vkgen": {
            "loader": s.loader.display(),
            "registry": registry,
        },
        "instance": {
            "apiVersion": s.instance_version,
            "apiVersionText": version_string(s.instance_version),
            "extensions": s.instance_extensions,
            "layers": s.instance_layers,
        },
        "devices": devices,
    }))
}

// ---------------------------------------------------------------------------------------------
// AOSP's schema (`vkgen vkjson --aosp`)
// ---------------------------------------------------------------------------------------------

/// vkjson.cc's `Iterate` key lists, the 1.1 section and the extension sections of
/// `VkJsonDevice`, extracted from AOSP frameworks/native android16-release (`vulkan/vkjson`).
const AOSP_SCHEMA: &str = include_str!("vkjson_aosp.json");

/// What `vkjson_info` prints last in the instance object (vkjson.cc's `depString`).
pub const AOSP_COMMENT: &str = "vkjson is deprecated, and will be replaced in a future release";

/// Most layouts or layers a driver is believed about (a larger count is corruption).
const MAX_LIST: u32 = 4096;

/// `(JSON key, structure)` pairs.
type Sections = Vec<(String, String)>;

/// AOSP's schema (`AOSP_SCHEMA`) over one registry.
pub struct Aosp<'r> {
    reg: &'r Registry,
    /// Per structure (AOSP's spelling, possibly an alias), the members vkjson writes, in order.
    pub structs: BTreeMap<String, Vec<String>>,
    /// The `VkJsonDevice` keys of the 1.1 section that are structures.
    pub core11: Sections,
    /// `VK_…` section key → its `(key, structure)` pairs, in vkjson's order.
    pub extensions: Vec<(String, Sections)>,
}

fn pairs(v: &Value) -> Sections {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|p| Some((p[0].as_str()?.to_owned(), p[1].as_str()?.to_owned())))
                .collect()
        })
        .unwrap_or_default()
}

impl<'r> Aosp<'r> {
    /// The schema, for `reg`'s layouts.
    pub fn new(reg: &'r Registry) -> Self {
        let doc: Value = serde_json::from_str(AOSP_SCHEMA).unwrap_or_default();
        let structs = doc["structs"]
            .as_object()
            .map(|o| {
                o.iter()
                    .map(|(k, v)| {
                        let keys = v.as_array().map_or_else(Vec::new, |a| {
                            a.iter()
                                .filter_map(|s| s.as_str().map(str::to_owned))
                                .collect()
                        });
                        (k.clone(), keys)
                    })
                    .collect()
            })
            .unwrap_or_default();
        let extensions = doc["extensions"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|e| Some((e[0].as_str()?.to_owned(), pairs(&e[1]))))
                    .collect()
            })
            .unwrap_or_default();
        Self {
            reg,
            structs,
            core11: pairs(&doc["core11"]),
            extensions,
        }
    }

    /// `name` with `alias=` followed to the defining structure.
    pub fn canonical(&self, name: &str) -> String {
        self.reg
            .resolve_type(name)
            .map_or_else(|| name.to_owned(), |t| t.name.clone())
    }

    /// The members vkjson writes for `ty` (found through any alias spelling). A registry older
    /// than AOSP's headers lacks the promoted spelling (`…IndexTypeUint8Features` before 1.4):
    /// names that differ only by a vendor suffix are the same structure then.
    pub fn keys(&self, ty: &str) -> Option<&[String]> {
        let want = self.canonical(ty);
        let bare = |n: &str| {
            let n = self.canonical(n);
            ["KHR", "EXT"]
                .iter()
                .find_map(|v| n.strip_suffix(v).map(str::to_owned))
                .unwrap_or(n)
        };
        self.structs
            .iter()
            .find(|(k, _)| self.canonical(k) == want)
            .or_else(|| {
                let want = bare(ty);
                self.structs.iter().find(|(k, _)| bare(k) == want)
            })
            .map(|(_, v)| v.as_slice())
    }

    /// `value`, vkgen's decoding of a `layout.name`, in vkjson's encoding and with its keys:
    /// `VkBool32`, enums, 32-bit flags and every other arithmetic type as numbers, `uint64_t`
    /// (`VkDeviceSize`, 64-bit flags and, on LP64, `size_t`) as `"0x%016x"` strings, `char`
    /// arrays as strings, other arrays as arrays. A member the registry does not know is left
    /// out (the test names them); pointers come out `null` for the caller to fill.
    pub fn encode(&self, layout: &Layout, value: &Map<String, Value>) -> Value {
        let all: Vec<String>;
        let keys = match self.keys(&layout.name) {
            Some(k) => k,
            None => {
                all = layout
                    .members
                    .iter()
                    .filter(|m| m.name != "sType" && m.name != "pNext")
                    .map(|m| m.name.clone())
                    .collect();
                &all
            }
        };
        let mut out = Map::new();
        for key in keys {
            let Some(m) = layout.member(key) else {
                continue;
            };
            let v = value.get(key).unwrap_or(&Value::Null);
            out.insert(key.clone(), self.encode_member(&m.scalar, &m.dims, v));
        }
        Value::Object(out)
    }

    fn encode_member(&self, s: &Scalar, dims: &[usize], v: &Value) -> Value {
        match dims.split_first() {
            Some((_, [])) if matches!(s, Scalar::Char) => v.clone(),
            Some((_, inner)) => Value::Array(
                v.as_array()
                    .map(|a| a.iter().map(|e| self.encode_member(s, inner, e)).collect())
                    .unwrap_or_default(),
            ),
            None => self.encode_scalar(s, v),
        }
    }

    fn encode_scalar(&self, s: &Scalar, v: &Value) -> Value {
        match s {
            Scalar::Bool32 => Value::from(u32::from(v.as_bool().unwrap_or(false))),
            Scalar::Int {
                bytes: 8,
                signed: false,
            } => hex64(v.as_u64().unwrap_or(0)),
            Scalar::Int { .. } | Scalar::Float { .. } | Scalar::Char => v.clone(),
            Scalar::Enum { group, .. } => match v {
                Value::String(n) => {
                    layout::enum_named(self.reg, group, n).map_or(Value::Null, Value::from)
                }
                other => other.clone(),
            },
            Scalar::Bitmask { bits, bytes } => {
                let names = v.as_array().map_or(&[][..], Vec::as_slice);
                let x = layout::flags_value(self.reg, bits.as_deref(), names).unwrap_or(0);
                if *bytes == 8 {
                    hex64(x)
                } else {
                    Value::from(x)
                }
            }
            Scalar::Struct(l) => self.encode(l, v.as_object().unwrap_or(&Map::new())),
            Scalar::Opaque => Value::Null,
        }
    }

    /// The structure `ty` from `decoded` (keyed by canonical name), encoded; a zeroed one
    /// (what vkjson prints for a structure nobody filled) when the query left it out. `None`
    /// when the registry does not define `ty`.
    fn structure(&self, decoded: &Decoded, ty: &str) -> Option<Value> {
        let name = self.canonical(ty);
        let l = layout::layout(self.reg, &name).ok()?;
        let zero;
        let value = match decoded.get(&name) {
            Some(v) => v,
            None => {
                zero = layout::decode(self.reg, &l, &vec![0; l.size]);
                &zero
            }
        };
        Some(self.encode(&l, value))
    }
}

/// vkjson's `uint64_t` encoding.
fn hex64(x: u64) -> Value {
    Value::String(format!("0x{x:016x}"))
}

type Decoded = BTreeMap<String, Map<String, Value>>;

/// What vkjson asks the loader directly and `Session` does not keep: the enumeration-order
/// extension lists, the layers' own extension lists, device groups and the 1.4 copy layouts.
struct Raw {
    entry: ash::Entry,
    instance: ash::Instance,
}

impl Drop for Raw {
    fn drop(&mut self) {
        // SAFETY: the instance was created by `Raw::open`, has no child objects, and nothing
        // uses it after this.
        unsafe { self.instance.destroy_instance(None) };
    }
}

/// The two-call idiom over a raw enumeration, capped at [`MAX_LIST`] entries.
fn enumerate_raw<T: Default + Clone>(
    call: &str,
    mut f: impl FnMut(&mut u32, *mut T) -> vk::Result,
) -> Result<Vec<T>, DeviceError> {
    let fail = |result| DeviceError::Vulkan {
        call: "enumeration",
        result,
        loader: call.to_owned(),
    };
    let mut count = 0u32;
    let r = f(&mut count, std::ptr::null_mut());
    if r != vk::Result::SUCCESS {
        return Err(fail(r));
    }
    let mut count = count.min(MAX_LIST);
    let mut out = vec![T::default(); count as usize];
    let r = f(&mut count, out.as_mut_ptr());
    if r != vk::Result::SUCCESS && r != vk::Result::INCOMPLETE {
        return Err(fail(r));
    }
    out.truncate(count as usize);
    Ok(out)
}

fn extension_json(e: &vk::ExtensionProperties) -> Value {
    json!({
        "extensionName": e.extension_name_as_c_str().map_or_else(|_| String::new(), |s| s.to_string_lossy().into_owned()),
        "specVersion": e.spec_version,
    })
}

fn layer_json(l: &vk::LayerProperties, extensions: &[vk::ExtensionProperties]) -> Value {
    let text = |r: Result<&std::ffi::CStr, _>| {
        r.map_or_else(
            |_| String::new(),
            |s: &std::ffi::CStr| s.to_string_lossy().into_owned(),
        )
    };
    json!({
        "properties": {
            "layerName": text(l.layer_name_as_c_str()),
            "specVersion": l.spec_version,
            "implementationVersion": l.implementation_version,
            "description": text(l.description_as_c_str()),
        },
        "extensions": extensions.iter().map(extension_json).collect::<Vec<_>>(),
    })
}

impl Raw {
    /// `VkJsonGetInstance`'s instance: application "vkjson_info", apiVersion 1.1, nothing
    /// enabled.
    fn open(s: &Session) -> Result<Self, DeviceError> {
        let loader = s.loader.display();
        // SAFETY: the loader `Session` already loaded; loading it again only bumps its count.
        let entry = unsafe { ash::Entry::load_from(&s.loader.library) }.map_err(|e| {
            DeviceError::Loader {
                loader: loader.clone(),
                message: e.to_string(),
            }
        })?;
        let app = vk::ApplicationInfo::default()
            .application_name(c"vkjson_info")
            .application_version(1)
            .engine_name(c"")
            .api_version(vk::API_VERSION_1_1);
        let ci = vk::InstanceCreateInfo::default().application_info(&app);
        // SAFETY: a valid create info whose pointers outlive the call.
        let instance =
            unsafe { entry.create_instance(&ci, None) }.map_err(|result| DeviceError::Vulkan {
                call: "vkCreateInstance",
                result,
                loader,
            })?;
        Ok(Self { entry, instance })
    }

    /// `layer`'s extensions (`None`: the implementation's), instance-level or of `device`.
    fn extensions(
        &self,
        device: Option<vk::PhysicalDevice>,
        layer: Option<&std::ffi::CStr>,
    ) -> Result<Vec<vk::ExtensionProperties>, DeviceError> {
        let name = layer.map_or(std::ptr::null(), std::ffi::CStr::as_ptr);
        match device {
            None => {
                let f = self.entry.fp_v1_0().enumerate_instance_extension_properties;
                // SAFETY: the loader's global command with a null or NUL-terminated layer name
                // and the idiom's pointers.
                enumerate_raw("vkEnumerateInstanceExtensionProperties", |c, p| unsafe {
                    f(name, c, p)
                })
            }
            Some(pd) => {
                let f = self
                    .instance
                    .fp_v1_0()
                    .enumerate_device_extension_properties;
                // SAFETY: a physical device of this instance, a null or NUL-terminated layer
                // name and the idiom's pointers.
                enumerate_raw("vkEnumerateDeviceExtensionProperties", |c, p| unsafe {
                    f(pd, name, c, p)
                })
            }
        }
    }

    /// Layers with their own extension lists, instance-level or of `device`.
    fn layers(&self, device: Option<vk::PhysicalDevice>) -> Result<Vec<Value>, DeviceError> {
        let layers = match device {
            None => {
                let f = self.entry.fp_v1_0().enumerate_instance_layer_properties;
                // SAFETY: the loader's global command with the idiom's pointers.
                enumerate_raw("vkEnumerateInstanceLayerProperties", |c, p| unsafe {
                    f(c, p)
                })?
            }
            Some(pd) => {
                let f = self.instance.fp_v1_0().enumerate_device_layer_properties;
                // SAFETY: a physical device of this instance and the idiom's pointers.
                enumerate_raw("vkEnumerateDeviceLayerProperties", |c, p| unsafe {
                    f(pd, c, p)
                })?
            }
        };
        layers
            .iter()
            .map(|l| {
                let name = l.layer_name_as_c_str().unwrap_or_default();
                Ok(layer_json(l, &self.extensions(device, Some(name))?))
            })
            .collect()
    }

    /// `VkPhysicalDeviceVulkan14Properties`' two layout lists (the pointers vkgen's decoding
    /// leaves out), queried as `VkJsonGetDevice` does: counts first, then the arrays.
    fn copy_layouts(&self, reg: &Registry, pd: vk::PhysicalDevice) -> Option<[Vec<i32>; 2]> {
        let l = layout::layout(reg, "VkPhysicalDeviceVulkan14Properties").ok()?;
        let s_type = l.s_type(reg)?;
        let off = |n: &str| l.member(n).map(|m| m.offset);
        let (st, src_n, src_p, dst_n, dst_p) = (
            off("sType")?,
            off("copySrcLayoutCount")?,
            off("pCopySrcLayouts")?,
            off("copyDstLayoutCount")?,
            off("pCopyDstLayouts")?,
        );
        let mut buf = vec![0u64; l.size.div_ceil(8) + 8];
        let bytes = |buf: &mut Vec<u64>| {
            // SAFETY: `buf` is `len * 8` initialised bytes; u8 has no alignment or validity
            // requirement, and the unique borrow makes the view exclusive.
            unsafe { std::slice::from_raw_parts_mut(buf.as_mut_ptr().cast::<u8>(), buf.len() * 8) }
        };
        bytes(&mut buf)[st..st + 4].copy_from_slice(&s_type.to_ne_bytes());
        let f = self.instance.fp_v1_1().get_physical_device_properties2;
        let query = |buf: &mut Vec<u64>| {
            let mut p2 = vk::PhysicalDeviceProperties2 {
                p_next: buf.as_mut_ptr().cast(),
                ..Default::default()
            };
            // SAFETY: a physical device of this instance and a chain of one zeroed structure
            // (the registry's layout of it, with its sType) whose arrays, if set, hold the counts
            // written into it.
            unsafe { f(pd, &mut p2) };
        };
        query(&mut buf);
        let read = |buf: &mut Vec<u64>, at: usize| {
            let b = &bytes(buf)[at..at + 4];
            u32::from_ne_bytes([b[0], b[1], b[2], b[3]]).min(MAX_LIST)
        };
        let mut src = vec![0i32; read(&mut buf, src_n) as usize];
        let mut dst = vec![0i32; read(&mut buf, dst_n) as usize];
        if src.is_empty() && dst.is_empty() {
            return Some([src, dst]);
        }
        for (count_at, ptr_at, v) in [(src_n, src_p, &mut src), (dst_n, dst_p, &mut dst)] {
            let n = v.len() as u32;
            let ptr = if v.is_empty() {
                0
            } else {
                v.as_mut_ptr() as usize
            };
            bytes(&mut buf)[count_at..count_at + 4].copy_from_slice(&n.to_ne_bytes());
            bytes(&mut buf)[ptr_at..ptr_at + 8].copy_from_slice(&ptr.to_ne_bytes());
        }
        query(&mut buf);
        let (sn, dn) = (
            read(&mut buf, src_n) as usize,
            read(&mut buf, dst_n) as usize,
        );
        src.truncate(sn);
        dst.truncate(dn);
        Some([src, dst])
    }

    /// `vkEnumeratePhysicalDeviceGroups` as vkjson lists it: each group's device indices and
    /// `subsetAllocation`. vkjson reuses one `VkJsonDeviceGroup` across the loop without
    /// clearing its list, so each group also lists the devices of the groups before it; that
    /// is what `vkjson_info` prints, so it is kept.
    fn device_groups(&self, devices: &[vk::PhysicalDevice]) -> Vec<Value> {
        // SAFETY: a valid instance; the count query.
        let Ok(count) = (unsafe { self.instance.enumerate_physical_device_groups_len() }) else {
            return Vec::new();
        };
        let mut groups = vec![vk::PhysicalDeviceGroupProperties::default(); count.min(64)];
        // SAFETY: `groups` holds `count` (capped) structures with their sType.
        if unsafe { self.instance.enumerate_physical_device_groups(&mut groups) }.is_err() {
            return Vec::new();
        }
        let mut indices: Vec<Value> = Vec::new();
        groups
            .iter()
            .map(|g| {
                let n = (g.physical_device_count as usize).min(g.physical_devices.len());
                for pd in &g.physical_devices[..n] {
                    let i = devices.iter().position(|d| d == pd).unwrap_or(0);
                    indices.push(Value::from(i));
                }
                json!({ "devices": indices.clone(), "subsetAllocation": g.subset_allocation })
            })
            .collect()
    }
}

/// The structures vkjson queries for a device: `VkJsonCore1x`, the 1.1 section and the
/// extension sections, each split into property and feature structures (canonical names the
/// registry defines).
fn aosp_queries(a: &Aosp, core: &[(String, String)]) -> (Vec<String>, Vec<String>) {
    let mut props = Vec::new();
    let mut feats = Vec::new();
    let all = core
        .iter()
        .chain(a.core11.iter())
        .chain(a.extensions.iter().flat_map(|(_, s)| s.iter()));
    for (_, ty) in all {
        let c = a.canonical(ty);
        if !a.reg.types.contains_key(&c) {
            continue;
        }
        let list = if c.contains("Features") {
            &mut feats
        } else {
            &mut props
        };
        if !list.contains(&c) {
            list.push(c);
        }
    }
    (props, feats)
}

/// `VkJsonCore1x` pairs for minor versions 1..=4.
fn core_pairs() -> Vec<(String, String)> {
    (1..=4)
        .flat_map(|m| {
            [
                (
                    format!("core1{m}.properties"),
                    format!("VkPhysicalDeviceVulkan1{m}Properties"),
                ),
                (
                    format!("core1{m}.features"),
                    format!("VkPhysicalDeviceVulkan1{m}Features"),
                ),
            ]
        })
        .collect()
}

/// vkjson's format map: formats with any feature bit, as `[format, VkFormatProperties]` pairs
/// by value; `VK_FORMAT_R4G4_UNORM_PACK8..=ASTC_12x12_SRGB_BLOCK`, and on 1.1 devices the
/// contiguous YCbCr range `G8B8G8R8_422_UNORM..=G16_B16_R16_3PLANE_444_UNORM`.
fn aosp_formats(a: &Aosp, s: &Session, dev: &Device, v11: bool) -> Result<Value, DeviceError> {
    let l = layout::layout(a.reg, "VkFormatProperties")?;
    let mut out = Vec::new();
    let mut values: Vec<i32> = s.formats(dev).into_iter().map(|(_, v)| v).collect();
    values.sort_unstable();
    for value in values {
        let core = (1..=184).contains(&value);
        let ycbcr = v11 && (1_000_156_000..=1_000_156_033).contains(&value);
        if !core && !ycbcr {
            continue;
        }
        let p = a.encode(&l, &s.format_properties(dev, value)?);
        if p.as_object()
            .is_some_and(|o| o.values().any(|x| x.as_u64().is_some_and(|x| x != 0)))
        {
            out.push(json!([value, p]));
        }
    }
    Ok(Value::Array(out))
}

/// vkjson's external fence or semaphore map: handle types `OPAQUE_FD..=SYNC_FD` with any
/// non-zero property, as `[handleType, properties]` pairs.
fn aosp_external(
    a: &Aosp,
    s: &Session,
    dev: &Device,
    semaphore: bool,
) -> Result<Value, DeviceError> {
    let (group, props, last) = if semaphore {
        (
            "VkExternalSemaphoreHandleTypeFlagBits",
            "VkExternalSemaphoreProperties",
            "VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_SYNC_FD_BIT",
        )
    } else {
        (
            "VkExternalFenceHandleTypeFlagBits",
            "VkExternalFenceProperties",
            "VK_EXTERNAL_FENCE_HANDLE_TYPE_SYNC_FD_BIT",
        )
    };
    let l = layout::layout(a.reg, props)?;
    let last = layout::enum_named(a.reg, group, last).unwrap_or(0) as u64;
    let bits: BTreeMap<String, u64> = layout::flag_bits(a.reg, group).into_iter().collect();
    let mut out = Vec::new();
    for (name, value) in s.external_sync(dev, semaphore)? {
        let Some(&bit) = bits.get(&name).filter(|&&b| b <= last) else {
            continue;
        };
        let p = a.encode(&l, value.as_object().unwrap_or(&Map::new()));
        if p.as_object()
            .is_some_and(|o| o.values().any(|x| x.as_u64().is_some_and(|x| x != 0)))
        {
            out.push((bit, p));
        }
    }
    out.sort_by_key(|(b, _)| *b);
    Ok(Value::Array(
        out.into_iter().map(|(b, p)| json!([b, p])).collect(),
    ))
}

/// `Iterate(VkJsonDevice)`: the sections of the device's exact `major.minor` and those below
/// (no section at all for a version vkjson does not know, as its `switch` has no default).
fn aosp_device(
    a: &Aosp,
    s: &Session,
    dev: &Device,
    raw: &Raw,
    pd: vk::PhysicalDevice,
) -> Result<Value, DeviceError> {
    let v = dev.api_version & !0xfff;
    let level = (0..=4u32).find(|m| v == vk::make_api_version(0, 1, *m, 0));
    let mut out = Map::new();
    let Some(level) = level else {
        return Ok(Value::Object(out));
    };
    let core = core_pairs();
    let (props, feats) = aosp_queries(a, &core);
    let mut decoded = s.properties(dev, &props)?;
    decoded.extend(s.features(dev, &feats)?);
    let put = |key: &str, ty: &str, out: &mut Map<String, Value>| {
        if let Some(v) = a.structure(&decoded, ty) {
            out.insert(key.to_owned(), v);
        }
    };
    for m in 1..=level {
        if m == 1 && level < 2 {
            continue;
        }
        let mut c = Map::new();
        put(
            "properties",
            &format!("VkPhysicalDeviceVulkan1{m}Properties"),
            &mut c,
        );
        put(
            "features",
            &format!("VkPhysicalDeviceVulkan1{m}Features"),
            &mut c,
        );
        if m == 4 {
            if let (Some(Value::Object(p)), Some([src, dst])) =
                (c.get_mut("properties"), raw.copy_layouts(a.reg, pd))
            {
                p.insert("pCopySrcLayouts".into(), json!(src));
                p.insert("pCopyDstLayouts".into(), json!(dst));
            }
        }
        if !c.is_empty() {
            out.insert(format!("core1{m}"), Value::Object(c));
        }
    }
    if level >= 1 {
        for (key, ty) in &a.core11 {
            put(key, ty, &mut out);
        }
        out.insert(
            "externalFenceProperties".into(),
            aosp_external(a, s, dev, false)?,
        );
        out.insert(
            "externalSemaphoreProperties".into(),
            aosp_external(a, s, dev, true)?,
        );
    }
    put("properties", "VkPhysicalDeviceProperties", &mut out);
    put("features", "VkPhysicalDeviceFeatures", &mut out);
    let memory = layout::layout(a.reg, "VkPhysicalDeviceMemoryProperties")?;
    out.insert("memory".into(), a.encode(&memory, &s.memory(dev)?));
    let queue = layout::layout(a.reg, "VkQueueFamilyProperties")?;
    let queues: Vec<Value> = s
        .queue_families(dev)?
        .iter()
        .map(|q| a.encode(&queue, q))
        .collect();
    out.insert("queues".into(), Value::Array(queues));
    let extensions = raw.extensions(Some(pd), None)?;
    out.insert(
        "extensions".into(),
        Value::Array(extensions.iter().map(extension_json).collect()),
    );
    out.insert("layers".into(), Value::Array(raw.layers(Some(pd))?));
    out.insert("formats".into(), aosp_formats(a, s, dev, level >= 1)?);
    for (key, sections) in &a.extensions {
        if !dev.has_extension(key) {
            continue;
        }
        let mut e = Map::new();
        for (k, ty) in sections {
            put(k, ty, &mut e);
        }
        out.insert(key.clone(), Value::Object(e));
    }
    Ok(Value::Object(out))
}

/// What AOSP's `vkjson_info` prints (`VkJsonInstanceToJson(VkJsonGetInstance())`), built on
/// `s`'s loader: the instance's layers (with their extensions), extensions, devices and, by
/// the instance version, `deviceGroups` (1.1+) and `apiVersion` (1.2+).
pub fn aosp_document(s: &Session) -> Result<Value, DeviceError> {
    let a = Aosp::new(s.reg);
    let raw = Raw::open(s)?;
    let layers = raw.layers(None)?;
    let extensions = raw.extensions(None, None)?;
    // SAFETY: a valid instance.
    let handles = unsafe { raw.instance.enumerate_physical_devices() }.map_err(|result| {
        DeviceError::Vulkan {
            call: "vkEnumeratePhysicalDevices",
            result,
            loader: s.loader.display(),
        }
    })?;
    if handles.len() != s.devices.len() {
        return Err(DeviceError::Layout(format!(
            "the loader listed {} devices to vkjson's instance and {} to the session's",
            handles.len(),
            s.devices.len()
        )));
    }
    let devices = s
        .devices
        .iter()
        .zip(&handles)
        .map(|(d, &pd)| aosp_device(&a, s, d, &raw, pd))
        .collect::<Result<Vec<_>, _>>()?;
    let mut out = Map::new();
    let v = s.instance_version & !0xfff;
    let level = (0..=4u32).find(|m| v == vk::make_api_version(0, 1, *m, 0));
    if level.is_some_and(|l| l >= 2) {
        out.insert("apiVersion".into(), Value::from(s.instance_version));
    }
    if level.is_some_and(|l| l >= 1) {
        out.insert(
            "deviceGroups".into(),
            Value::Array(raw.device_groups(&handles)),
        );
    }
    if level.is_some() {
        out.insert("layers".into(), Value::Array(layers));
        out.insert(
            "extensions".into(),
            Value::Array(extensions.iter().map(extension_json).collect()),
        );
        out.insert("devices".into(), Value::Array(devices));
        out.insert("_comment".into(), Value::from(AOSP_COMMENT));
    }
    let mut doc = Value::Object(out);
    as_reals(&mut doc);
    Ok(doc)
}

/// vkjson's `ToJsonValue` makes every arithmetic value and enum a `double` (`Json::Value(double)`),
/// which jsoncpp writes with a fraction (`1.0`), and its reader (`AsValue`) refuses anything but
/// `Json::realValue`: every number becomes an `f64`, which serde_json writes the same way.
/// (`uint64_t`s are already `"0x%016x"` strings.)
fn as_reals(v: &mut Value) {
    match v {
        Value::Number(n) => {
            if let Some(real) = n.as_f64().and_then(serde_json::Number::from_f64) {
                *n = real;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(as_reals),
        Value::Object(map) => map.values_mut().for_each(as_reals),
        Value::Null | Value::Bool(_) | Value::String(_) => {}
    }
}
