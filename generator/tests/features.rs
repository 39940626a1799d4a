//! The generated feature and property tables (`src/features.rs`).
//!
//! - `behaviour`: hand-written checks (aliases agree, random chain order with an unknown sType,
//!   create-info union, `first_missing`, properties) against the checked-in crate.
//! - `fill_matrix`: for vk-1.3.239 and vk-1.4.359, generates the crate into `target/features-matrix/`
//!   and compiles and runs there the same `behaviour` checks plus a fill test written from the
//!   registry: every `VkPhysicalDevice*Features`/`*Properties` structure of the selection, each
//!   member at the offset `vkgen::device::layout` computes independently from vk.xml, every flat
//!   field set alone and found in exactly the members that carry it; sizes and offsets of every
//!   structure checked against ash's definitions where ash has them (ours elsewhere).

mod common;

#[path = "features/behaviour.rs"]
mod behaviour;

use std::fmt::Write;
use std::process::Command;

use vkgen::device::layout::{layout, Layout, Scalar};
use vkgen::emit::features::{tables, FieldKind, Kind, Table};
use vkgen::emit::Ctx;

/// `(offset, size, kind)` of a member path in a layout: kind 0 bool, 1 bytes, 2 list.
fn locate(l: &Layout, path: &[String]) -> (usize, usize) {
    let m = l
        .member(&path[0])
        .unwrap_or_else(|| panic!("{}.{} not in layout", l.name, path[0]));
    if path.len() == 1 {
        return (m.offset, m.elem_size * m.dims.iter().product::<usize>());
    }
    let Scalar::Struct(inner) = &m.scalar else {
        panic!("{}.{} is not a structure", l.name, path[0])
    };
    let (o, s) = locate(inner, &path[1..]);
    (m.offset + o, s)
}

fn rust_path(cx: &Ctx, ty: &vkgen::model::CType) -> String {
    vkgen::emit::text::type_str(cx, ty, vkgen::emit::Place::Field)
        .replace("crate::", "vkgen_generated::")
}

/// The `static` describing every chain structure of `t` and its members.
fn layouts(cx: &Ctx, t: &Table, name: &str, out: &mut String) {
    let reg = cx.reg();
    let _ = writeln!(out, "static {name}: &[S] = &[");
    for s in &t.structs {
        let l = layout(reg, &s.name).unwrap();
        let st = s.s_type.as_ref().map(|x| x.1).unwrap_or(0);
        let _ = writeln!(
            out,
            "    S {{ name: {:?}, s_type: {st}, size: {}, members: &[",
            s.name, l.size
        );
        for m in &s.members {
            let f = &t.fields[m.field];
            let (off, size) = locate(&l, &m.path);
            let header = matches!(f.kind, FieldKind::List { has_header: true });
            let (kind, count, elem) = match (&f.kind, &m.count) {
                (FieldKind::Bool, _) => (0, 0, "0".to_owned()),
                (FieldKind::List { .. }, Some(c)) => (
                    2,
                    l.member(c).unwrap().offset,
                    format!("core::mem::size_of::<{}>()", rust_path(cx, &f.ty)),
                ),
                _ => (1, 0, "0".to_owned()),
            };
            let _ = writeln!(
                out,
                "        M {{ name: {:?}, offset: {off}, size: {size}, field: {}, kind: {kind}, count: {count}, elem: {elem}, header: {header} }},",
                m.path.join("."),
                m.field
            );
        }
        out.push_str("    ] },\n");
    }
    out.push_str("];\n");
}

/// Size and offset checks of every chain structure against ash (where ash has it) or ours.
fn layout_checks(cx: &Ctx, t: &Table, out: &mut String) {
    let reg = cx.reg();
    for s in &t.structs {
        let l = layout(reg, &s.name).unwrap();
        for name in std::iter::once(&s.name).chain(&s.aliases) {
            let rust = vkgen::names::type_name(name);
            let lifetime = if cx.has_lifetime(name) {
                "<'static>"
            } else {
                ""
            };
            let path = if cx.emits_type(name) {
                format!("vkgen_generated::vk::{rust}{lifetime}")
            } else {
                format!("ash::vk::{rust}{lifetime}")
            };
            // ash 0.38 follows vk.xml 1.3.281: for an older registry its structure may have
            // members appended (VkPhysicalDeviceClusterCullingShaderPropertiesHUAWEI in 1.3.239),
            // which the generated code never writes; the registry's members must sit where
            // vk.xml puts them.
            let cmp = if cx.emits_type(name) { "==" } else { ">=" };
            let _ = writeln!(
                out,
                "    assert!(core::mem::size_of::<{path}>() {cmp} {}, \"{name}: size {{}}\", core::mem::size_of::<{path}>());",
                l.size
            );
            for m in &l.members {
                let field = vkgen::emit::ident(&vkgen::names::field_name(&m.name));
                let _ = writeln!(
                    out,
                    "    assert_eq!(core::mem::offset_of!({path}, {field}), {}, \"{name}.{}\");",
                    m.offset, m.name
                );
            }
        }
    }
}

/// The registry-driven fill test for one selection.
fn fill_test(cx: &Ctx) -> String {
    let f = tables(cx, Kind::Features);
    let p = tables(cx, Kind::Properties);
    let mut out = String::from(FILL_PRELUDE);
    layouts(cx, f, "FEATURE_LAYOUTS", &mut out);
    layouts(cx, p, "PROPERTY_LAYOUTS", &mut out);
    // Flat names in field order, as the model says.
    out.push_str("static FEATURE_FLAT: &[&str] = &[");
    for x in &f.fields {
        let _ = write!(out, "{:?}, ", x.flat);
    }
    out.push_str("];\n\n/// Sets feature field `i` through its Rust name.\nfn set_feature(f: &mut Features, i: usize) {\n    match i {\n");
    for (i, x) in f.fields.iter().enumerate() {
        let _ = writeln!(out, "        {i} => f.{} = true,", x.rust);
    }
    out.push_str("        _ => unreachable!(),\n    }\n}\n\n/// Sets property field `i`: bools on, values to `pattern(i)`, lists to 3 patterned elements.\nfn set_property(p: &mut Properties, i: usize) {\n    match i {\n");
    for (i, x) in p.fields.iter().enumerate() {
        let what = match x.kind {
            FieldKind::Bool => format!("p.{} = true", x.rust),
            FieldKind::Value => format!("fill(&mut p.{}, {i})", x.rust),
            FieldKind::List { .. } => format!("p.{} = list({i})", x.rust),
        };
        let _ = writeln!(out, "        {i} => {what},");
    }
    let _ = writeln!(
        out,
        "        _ => unreachable!(),\n    }}\n}}\n\nconst PROPERTY_FIELDS: usize = {};\n",
        p.fields.len()
    );
    out.push_str("#[test]\nfn layouts_match_ash() {\n");
    layout_checks(cx, f, &mut out);
    layout_checks(cx, p, &mut out);
    out.push_str("}\n");
    out
}

const FILL_PRELUDE: &str = r#"// Written by generator/tests/features.rs from the registry: do not edit.
#![allow(clippy::all, unused)]
use vkgen_generated::features::*;
use vkgen_generated::vk;

struct M {
    name: &'static str,
    offset: usize,
    size: usize,
    field: usize,
    /// 0 VkBool32, 1 bytes, 2 output array.
    kind: u8,
    count: usize,
    elem: usize,
    header: bool,
}

struct S {
    name: &'static str,
    s_type: i32,
    size: usize,
    members: &'static [M],
}

const UNKNOWN: i32 = 0x7FFF_0123;

fn pattern(seed: usize, k: usize) -> u8 {
    ((seed * 31 + k * 7) % 251 + 1) as u8
}

fn fill<T: Copy>(x: &mut T, seed: usize) {
    // SAFETY: used on plain Vulkan value types, for which every byte pattern is a value.
    let bytes = unsafe {
        core::slice::from_raw_parts_mut((x as *mut T).cast::<u8>(), core::mem::size_of::<T>())
    };
    for (k, b) in bytes.iter_mut().enumerate() {
        *b = pattern(seed, k);
    }
}

fn list<T: Copy>(seed: usize) -> Vec<T> {
    (0..3)
        .map(|j| {
            // SAFETY: plain Vulkan value types; every byte is overwritten below.
            let mut x: T = unsafe { core::mem::zeroed() };
            fill(&mut x, seed * 3 + j);
            x
        })
        .collect()
}

/// Buffers for every chain structure of `layouts[1..]` plus an unknown one, linked in a
/// shuffled order (seeded xorshift) behind a header structure `head` of layouts[0]'s `…2` kind.
struct Chain {
    bufs: Vec<Vec<u64>>,
    /// buffer index of each layout (layouts[0] is the `…2` structure's embedded member).
    order: Vec<usize>,
}

fn chain(layouts: &[S], head_s_type: i32, head_size: usize, seed: u64) -> Chain {
    let n = layouts.len();
    // bufs[0] = head (…2), bufs[1..n] = layouts[1..], bufs[n] = unknown.
    let mut bufs: Vec<Vec<u64>> = Vec::new();
    bufs.push(vec![0; head_size.div_ceil(8)]);
    for s in &layouts[1..] {
        bufs.push(vec![0; s.size.div_ceil(8) + 1]);
    }
    bufs.push(vec![0xA5A5_A5A5_A5A5_A5A5; 8]);
    let set_type = |b: &mut Vec<u64>, t: i32| b[0] = t as u32 as u64;
    set_type(&mut bufs[0], head_s_type);
    for (i, s) in layouts[1..].iter().enumerate() {
        set_type(&mut bufs[i + 1], s.s_type);
    }
    set_type(&mut bufs[n], UNKNOWN);
    let mut idx: Vec<usize> = (1..=n).collect();
    let mut x = seed | 1;
    for i in (1..idx.len()).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        idx.swap(i, (x % (i as u64 + 1)) as usize);
    }
    let mut prev = 0;
    for &i in &idx {
        let p = bufs[i].as_mut_ptr();
        bufs[prev][1] = p as u64;
        prev = i;
    }
    bufs[prev][1] = 0;
    Chain { bufs, order: (0..n).collect() }
}

impl Chain {
    /// The bytes of layout `i` (0: the base member inside the head).
    fn bytes(&self, i: usize, base_offset: usize) -> &[u8] {
        let b = &self.bufs[i];
        // SAFETY: a u64 buffer seen as bytes.
        let all = unsafe { core::slice::from_raw_parts(b.as_ptr().cast::<u8>(), b.len() * 8) };
        if i == 0 {
            &all[base_offset..]
        } else {
            all
        }
    }
    fn unknown_untouched(&self) -> bool {
        let u = self.bufs.last().unwrap();
        u[0] == UNKNOWN as u32 as u64 && u[2..].iter().all(|&w| w == 0xA5A5_A5A5_A5A5_A5A5)
    }
    fn headers_kept(&self, layouts: &[S]) -> bool {
        layouts[1..].iter().enumerate().all(|(i, s)| self.bufs[i + 1][0] == s.s_type as u32 as u64)
    }
}

fn u32_at(b: &[u8], o: usize) -> u32 {
    u32::from_ne_bytes(b[o..o + 4].try_into().unwrap())
}

#[test]
fn names_follow_the_model() {
    assert_eq!(Features::NAMES, FEATURE_FLAT);
    let listed: Vec<&str> = FEATURE_STRUCTS.iter().map(|s| s.1).collect();
    let laid: Vec<&str> = FEATURE_LAYOUTS[1..].iter().map(|s| s.name).collect();
    assert_eq!(listed, laid);
    let listed: Vec<&str> = PROPERTY_STRUCTS.iter().map(|s| s.1).collect();
    let laid: Vec<&str> = PROPERTY_LAYOUTS[1..].iter().map(|s| s.name).collect();
    assert_eq!(listed, laid);
    for (t, s) in FEATURE_STRUCTS.iter().zip(&FEATURE_LAYOUTS[1..]) {
        assert_eq!(t.0.as_raw(), s.s_type, "{}", s.name);
    }
}

/// Every feature field alone, through a shuffled chain of every feature structure: exactly the
/// members that carry it are VK_TRUE; the unknown structure and every header are untouched; and
/// the filled chain read back as a VkDeviceCreateInfo gives the same table.
#[test]
fn every_feature_structure_fills() {
    let base = core::mem::offset_of!(vk::PhysicalDeviceFeatures2<'static>, features);
    let head = core::mem::size_of::<vk::PhysicalDeviceFeatures2<'static>>();
    for i in 0..Features::NAMES.len() {
        let mut f = Features::default();
        set_feature(&mut f, i);
        assert_eq!(f.as_slice().iter().filter(|b| **b).count(), 1);
        assert!(f.as_slice()[i], "field {i} is not NAMES[{i}]");
        let mut c = chain(
            FEATURE_LAYOUTS,
            vk::StructureType::PHYSICAL_DEVICE_FEATURES_2.as_raw(),
            head,
            i as u64 + 7,
        );
        // SAFETY: a chain of zeroed buffers of each structure's size with its sType.
        unsafe { f.write_chain(c.bufs[0].as_mut_ptr().cast()) };
        for (si, s) in FEATURE_LAYOUTS.iter().enumerate() {
            let b = c.bytes(si, if si == 0 { base } else { 0 });
            for m in s.members {
                let want = u32::from(m.field == i);
                assert_eq!(u32_at(b, m.offset), want, "{}: {}.{}", Features::NAMES[i], s.name, m.name);
            }
        }
        assert!(c.unknown_untouched(), "unknown sType written");
        assert!(c.headers_kept(FEATURE_LAYOUTS));
        let info = vk::DeviceCreateInfo {
            p_next: c.bufs[0].as_ptr().cast(),
            ..Default::default()
        };
        // SAFETY: the chain above, now filled.
        let back = unsafe { Features::from_device_create_info(&info) };
        assert_eq!(back, f, "{} read back", Features::NAMES[i]);
    }
}

/// Every property field: values patterned, bools on, output arrays of 3; then every member of
/// every structure holds its field's bytes; output arrays follow the two-call idiom.
#[test]
fn every_property_structure_fills() {
    let base = core::mem::offset_of!(vk::PhysicalDeviceProperties2<'static>, properties);
    let head = core::mem::size_of::<vk::PhysicalDeviceProperties2<'static>>();
    let mut p = Properties::default();
    for i in 0..PROPERTY_FIELDS {
        set_property(&mut p, i);
    }
    let mut c = chain(
        PROPERTY_LAYOUTS,
        vk::StructureType::PHYSICAL_DEVICE_PROPERTIES_2.as_raw(),
        head,
        99,
    );
    // SAFETY: zeroed buffers of each structure's size with its sType; output arrays NULL.
    unsafe { p.write_chain(c.bufs[0].as_mut_ptr().cast()) };
    assert!(c.unknown_untouched(), "unknown sType written");
    assert!(c.headers_kept(PROPERTY_LAYOUTS));
    for (si, s) in PROPERTY_LAYOUTS.iter().enumerate() {
        let b = c.bytes(si, if si == 0 { base } else { 0 });
        for m in s.members {
            match m.kind {
                0 => assert_eq!(u32_at(b, m.offset), 1, "{}.{}", s.name, m.name),
                1 => {
                    let want: Vec<u8> = (0..m.size).map(|k| pattern(m.field, k)).collect();
                    assert_eq!(&b[m.offset..m.offset + m.size], &want[..], "{}.{}", s.name, m.name);
                }
                _ => {
                    assert_eq!(u32_at(b, m.count), 3, "{}.{}: count of a NULL array", s.name, m.name);
                    assert_eq!(&b[m.offset..m.offset + 8], &[0; 8], "{}.{}: array stays NULL", s.name, m.name);
                }
            }
        }
    }
    // Second call for every output array: room for 2 of 3, element headers kept.
    for s in &PROPERTY_LAYOUTS[1..] {
        for m in s.members.iter().filter(|m| m.kind == 2) {
            let mut buf = vec![0u64; s.size.div_ceil(8)];
            buf[0] = s.s_type as u32 as u64;
            let mut arr = vec![0xEEu8; m.elem * 3];
            let bytes = buf.as_mut_ptr().cast::<u8>();
            // SAFETY: within `buf`, at the offsets of the layout.
            unsafe {
                bytes.add(m.offset).cast::<*mut u8>().write(arr.as_mut_ptr());
                bytes.add(m.count).cast::<u32>().write(2);
                assert!(p.write_struct(bytes.cast()));
                assert_eq!(bytes.add(m.count).cast::<u32>().read(), 2, "{}.{}", s.name, m.name);
            }
            let header = if m.header { 16 } else { 0 };
            for j in 0..2 {
                let e = &arr[j * m.elem..(j + 1) * m.elem];
                assert!(e[..header].iter().all(|&x| x == 0xEE), "{}: element header kept", m.name);
                let want: Vec<u8> = (header..m.elem).map(|k| pattern(m.field * 3 + j, k)).collect();
                assert_eq!(&e[header..], &want[..], "{}.{}[{j}]", s.name, m.name);
            }
            assert!(arr[2 * m.elem..].iter().all(|&x| x == 0xEE), "{}: third element untouched", m.name);
        }
    }
}

/// Each bool property alone reaches exactly the members that carry it.
#[test]
fn every_property_bool_maps_to_its_members() {
    let head = core::mem::size_of::<vk::PhysicalDeviceProperties2<'static>>();
    let base = core::mem::offset_of!(vk::PhysicalDeviceProperties2<'static>, properties);
    let bools: std::collections::BTreeSet<usize> = PROPERTY_LAYOUTS
        .iter()
        .flat_map(|s| s.members.iter().filter(|m| m.kind == 0).map(|m| m.field))
        .collect();
    for &i in &bools {
        let mut p = Properties::default();
        set_property(&mut p, i);
        let mut c = chain(PROPERTY_LAYOUTS, vk::StructureType::PHYSICAL_DEVICE_PROPERTIES_2.as_raw(), head, i as u64);
        // SAFETY: `chain` built a `VkPhysicalDeviceProperties2` head of `head` zeroed bytes
        // linked to zeroed buffers of each property structure's size with its sType, and `c`
        // keeps them alive across the call.
        unsafe { p.write_chain(c.bufs[0].as_mut_ptr().cast()) };
        for (si, s) in PROPERTY_LAYOUTS.iter().enumerate() {
            let b = c.bytes(si, if si == 0 { base } else { 0 });
            for m in s.members.iter().filter(|m| m.kind == 0) {
                assert_eq!(u32_at(b, m.offset), u32::from(m.field == i), "{}.{}", s.name, m.name);
            }
        }
    }
}
"#;

fn selection_ctx<R>(version: &str, f: impl FnOnce(&Ctx) -> R) -> R {
    let (loaded, _) = vkgen::load(&common::options(version)).unwrap();
    let reg = &loaded.registry;
    let ash = vkgen::ash_types::AshTypes::load();
    let sel = vkgen::select::select(reg, vkgen::select::highest_version(reg), &ash);
    f(&Ctx::new(&sel, &ash))
}

#[test]
fn fill_matrix() {
    let root = common::workspace().join("target/features-matrix");
    let target = common::workspace().join("target/matrix");
    let behaviour =
        std::fs::read_to_string(common::workspace().join("generator/tests/features/behaviour.rs"))
            .unwrap();
    for v in ["1.3.239", "1.4.359"] {
        let dir = root.join(v);
        let g = vkgen::generate(&common::options(v)).unwrap();
        vkgen::write(&g.files, &dir).unwrap();
        // Its own workspace: it lives under ours.
        let toml = dir.join("Cargo.toml");
        let mut manifest = std::fs::read_to_string(&toml).unwrap();
        if !manifest.contains("\n[workspace]") {
            manifest.push_str("\n[workspace]\n");
            std::fs::write(&toml, manifest).unwrap();
        }
        let tests = dir.join("tests");
        std::fs::create_dir_all(&tests).unwrap();
        let fill = selection_ctx(v, fill_test);
        write_if_changed(&tests.join("fill.rs"), &fill);
        write_if_changed(
            &tests.join("behaviour.rs"),
            &format!("#![allow(clippy::all)]\n{behaviour}"),
        );
        let out = Command::new(env!("CARGO"))
            .args(["test", "--quiet", "--tests", "--manifest-path"])
            .arg(&toml)
            .env("CARGO_TARGET_DIR", &target)
            .env_remove("RUSTFLAGS")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "vk-{v}.xml: feature/property tests failed:\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

fn write_if_changed(path: &std::path::Path, text: &str) {
    if std::fs::read_to_string(path).ok().as_deref() != Some(text) {
        std::fs::write(path, text).unwrap();
    }
}

/// Structure-level facts of the model that do not need a compiler.
#[test]
fn merge_and_rename_rules() {
    selection_ctx("1.4.359", |cx| {
        let f = tables(cx, Kind::Features);
        let by = |flat: &str| f.fields.iter().find(|x| x.flat == flat).unwrap();
        let sdp = by("shaderDrawParameters");
        let carriers: Vec<&str> = sdp.carriers.iter().map(|c| c.0.as_str()).collect();
        assert!(carriers.contains(&"VkPhysicalDeviceVulkan11Features"));
        assert!(carriers.contains(&"VkPhysicalDeviceShaderDrawParametersFeatures"));
        // Mesa's RENAMED_FEATURES, derived.
        for (flat, from) in [
            ("taskShaderNV", "VkPhysicalDeviceMeshShaderFeaturesNV"),
            ("meshShaderNV", "VkPhysicalDeviceMeshShaderFeaturesNV"),
            (
                "bufferDeviceAddressCaptureReplayEXT",
                "VkPhysicalDeviceBufferDeviceAddressFeaturesEXT",
            ),
            (
                "deviceGeneratedCommandsNV",
                "VkPhysicalDeviceDeviceGeneratedCommandsFeaturesNV",
            ),
        ] {
            assert_eq!(by(flat).carriers[0].0, from, "{flat}");
            assert!(by(flat).renamed_from.is_some());
        }
        assert!(by("taskShader")
            .carriers
            .iter()
            .all(|c| c.0 == "VkPhysicalDeviceMeshShaderFeaturesEXT"));
        let p = tables(cx, Kind::Properties);
        let pby = |flat: &str| p.fields.iter().find(|x| x.flat == flat).unwrap();
        let stages: Vec<&str> = pby("subgroupSupportedStages")
            .carriers
            .iter()
            .map(|c| c.0.as_str())
            .collect();
        assert!(stages.contains(&"VkPhysicalDeviceSubgroupProperties"));
        assert!(stages.contains(&"VkPhysicalDeviceVulkan11Properties"));
        assert!(matches!(
            pby("copySrcLayouts").kind,
            FieldKind::List { has_header: false }
        ));
        assert!(matches!(
            pby("layeredApis").kind,
            FieldKind::List { has_header: true }
        ));
        assert!(f.skipped.is_empty() && p.skipped.is_empty());
    });
}
