//! `src/features.rs`: the flat feature and property tables a driver fills once, and the generated
//! code that answers any `VkPhysicalDeviceFeatures2` / `VkPhysicalDeviceProperties2` pNext chain
//! from them (what Mesa's `vk_features` / `vk_properties` generators give their drivers).
//!
//! [`tables`] builds the model, shared with the tests: every selected structure extending
//! `VkPhysicalDeviceFeatures2` (resp. `…Properties2`), plus `VkPhysicalDeviceFeatures` (resp. the
//! flattened `VkPhysicalDeviceProperties`), and one flat field per distinct member.
//!
//! **Merging.** Members with the same name are one field when their structures are *linked*: both
//! are core (required by a `VK_VERSION_*` feature: `VkPhysicalDeviceVulkan11Features` and
//! `VkPhysicalDeviceMultiviewFeatures` share `multiview`), or one's extension was promoted
//! (transitively) to the other's extension or to a core version. Struct aliases are one structure
//! (one sType). Properties also need the same C type. This derives Mesa's hand-kept
//! `KNOWN_ALIASES` table from the registry.
//!
//! **Renaming.** Same-named members of unlinked structures mean different things
//! (`VkPhysicalDeviceMeshShaderFeaturesNV::taskShader` vs the EXT one). As Mesa's
//! `RENAMED_FEATURES`, one group keeps the plain name, chosen by rank: core, then KHR, then EXT,
//! then other vendors, then registry order; each other group gets its structure's vendor suffix
//! (`taskShaderNV`), or its structure's name stem when that is taken. Mesa's one semantic rename,
//! `VkPhysicalDeviceSubgroupProperties::supportedStages` → `subgroupSupportedStages` (and the two
//! other members core 1.2 renamed in `VkPhysicalDeviceVulkan11Properties`), is [`PROMOTED_RENAMES`].
//!
//! **Output arrays.** A pointer member with a `len=` count member (`pCopySrcLayouts` /
//! `copySrcLayoutCount`, `pLayeredApis` / `layeredApiCount`) is a `Vec` field named without the
//! `p` (`copy_src_layouts`); writing follows the two-call idiom: a NULL array gets the count, a
//! non-NULL one gets `min(count, len)` elements and that count. Elements that are structures keep
//! the application's `sType`/`pNext` (their own chains are left to the driver). Pointer members
//! without a count cannot be filled from a table; they are skipped and listed in the output.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::{ident, text, Ctx, Place, PREAMBLE};
use crate::model::*;
use crate::names;

mod table;

pub use super::feature_table::{
    ChainMember, ChainStruct, FieldKind, FlatField, Kind, Table, PROMOTED_RENAMES,
};
pub use table::tables;

/// The flat tables' part of `src/features.rs`, as three parts written on threads of their own
/// (`super::in_parallel`): the head (with what was not mapped), the feature table's items, the
/// property table's. Each waits only for the table it writes.
pub fn parts<'a>(cx: &'a Ctx) -> Vec<super::Part<'a>> {
    vec![
        Box::new(move |out| head(cx, out)),
        Box::new(move |out| emit_features(cx, tables(cx, Kind::Features), out)),
        Box::new(move |out| emit_properties(cx, tables(cx, Kind::Properties), out)),
    ]
}

fn head(cx: &Ctx, out: &mut String) {
    let (f, p) = (tables(cx, Kind::Features), tables(cx, Kind::Properties));
    let _ = write!(
        out,
        r#"// {PREAMBLE}
//! Flat feature and property tables, and the code that answers any `VkPhysicalDeviceFeatures2` /
//! `VkPhysicalDeviceProperties2` pNext chain from them. {}
//!
//! Members of the same name are one field where their structures are linked (both core, or one's
//! extension promoted to the other's or to core). A name meaning different things in unlinked
//! structures keeps its plain name in one (core, then KHR, then EXT) and gets its structure's
//! vendor suffix elsewhere (see the "Renamed" notes on fields). Output arrays with a count member
//! are `Vec`s written with the two-call idiom. The chain code is table-driven: per structure, the
//! offsets (`offset_of!`) of its members and of the flat fields that fill them.

use crate::vk;
"#,
        super::selection_summary(cx.sel)
    );
    out.push_str(RUNTIME);
    for t in [f, p] {
        if !t.skipped.is_empty() {
            out.push_str("\n// Members not mapped to the flat table:\n");
            for s in &t.skipped {
                let _ = writeln!(out, "// - {s}");
            }
        }
    }
}

/// The fixed part of the file: the slot machinery both tables use (a hand-written Rust file,
/// copied verbatim).
const RUNTIME: &str = concat!("\n", include_str!("runtime/feature_slots.rs"));

/// The methods of `Features` after the tables (a hand-written Rust file, copied verbatim).
const FEATURES_IMPL: &str = concat!("\n", include_str!("runtime/features_impl.rs"));

fn link(cx: &Ctx, name: &str) -> String {
    format!(
        "[`{name}`]({})",
        cx.spec_link(name).trim_matches(['<', '>'])
    )
}

fn field_doc(f: &FlatField, out: &mut String) {
    let mut by_member: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (s, m) in &f.carriers {
        by_member.entry(m.as_str()).or_default().push(s.as_str());
    }
    for (m, structs) in by_member {
        let _ = writeln!(out, "    /// `{m}` of `{}`.", structs.join("`, `"));
    }
    if let Some(why) = &f.renamed_from {
        let _ = writeln!(out, "    ///\n    /// Renamed `{}`: {why}.", f.flat);
    }
    if let FieldKind::List { .. } = f.kind {
        let _ = writeln!(
            out,
            "    ///\n    /// Written with the two-call idiom (count member and array)."
        );
    }
    if f.rust != f.flat {
        let _ = writeln!(out, "    #[doc(alias = \"{}\")]", f.flat);
    }
}

fn struct_doc(cx: &Ctx, s: &ChainStruct) -> String {
    let mut d = link(cx, &s.name);
    if !s.aliases.is_empty() {
        d.push_str(&format!(" (also `{}`)", s.aliases.join("`, `")));
    }
    d
}

/// The Rust type of a chain structure, as seen through a pointer.
fn struct_ty(cx: &Ctx, name: &str) -> String {
    text::base_str(cx, name, Place::Field)
}

/// `a.b.c` for a member path.
fn path_expr(path: &[String]) -> String {
    path.iter()
        .map(|p| ident(&names::field_name(p)).to_string())
        .collect::<Vec<_>>()
        .join(".")
}

fn emit_struct_list(cx: &Ctx, t: &Table, name: &str, out: &mut String) {
    let what = match t.kind {
        Kind::Features => "feature",
        Kind::Properties => "property",
    };
    let _ = writeln!(
        out,
        "\n/// Every {what} structure the chain code fills, `(sType, name)`:\n///"
    );
    for s in t.structs.iter().skip(1) {
        let _ = writeln!(out, "/// - {}", struct_doc(cx, s));
    }
    let _ = writeln!(out, "pub const {name}: &[(vk::StructureType, &str)] = &[");
    for s in t.structs.iter().skip(1) {
        let (_, v) = s.s_type.as_ref().expect("chain structs have an sType");
        let _ = writeln!(out, "    (vk::StructureType::from_raw({v}), {:?}),", s.name);
    }
    out.push_str("];\n");
}

/// One `slots!` invocation for a structure's members.
fn slots_text(cx: &Ctx, t: &Table, s: &ChainStruct, table: &str, indent: &str) -> String {
    let mut out = format!("slots!({}, {table};\n", struct_ty(cx, &s.name));
    for m in &s.members {
        let f = &t.fields[m.field];
        let member = path_expr(&m.path);
        let rename = if f.rust == member {
            String::new()
        } else {
            format!(" = {}", f.rust)
        };
        let line = match (&f.kind, &m.count) {
            (FieldKind::Bool, _) => format!("bool {member}{rename};"),
            (FieldKind::List { has_header }, Some(c)) => format!(
                "list {member}[{}] = {}, {has_header};",
                ident(&names::field_name(c)),
                f.rust
            ),
            _ => format!("copy {member}{rename};"),
        };
        let _ = writeln!(out, "{indent}    {line}");
    }
    let _ = write!(out, "{indent})");
    out
}

/// `static NAME: &[(i32, &[Slot<Table>])]`, sorted by sType.
fn emit_slot_table(cx: &Ctx, t: &Table, name: &str, table: &str, out: &mut String) {
    let mut sorted: Vec<&ChainStruct> = t.structs.iter().skip(1).collect();
    sorted.sort_by_key(|s| s.s_type.as_ref().map(|x| x.1));
    let _ = writeln!(
        out,
        "\n/// The members of each structure of the chain and the fields that fill them, by sType.\nstatic {name}: &[(i32, &[Slot<{table}>])] = &["
    );
    for s in sorted {
        let (sn, v) = s.s_type.as_ref().expect("sType");
        let _ = writeln!(
            out,
            "    // {sn}\n    ({v}, {}),",
            slots_text(cx, t, s, table, "    ")
        );
    }
    out.push_str("];\n");
}

fn emit_features(cx: &Ctx, t: &Table, out: &mut String) {
    out.push_str(
        r#"
/// Every feature of the selection: one `bool` per distinct member of `VkPhysicalDeviceFeatures` and
/// of every structure extending `VkPhysicalDeviceFeatures2` (see [`FEATURE_STRUCTS`]).
/// `#[repr(C)]` with only `bool`s: [`Features::as_slice`] views it in [`Features::NAMES`] order.
#[repr(C)]
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Features {
"#,
    );
    for f in &t.fields {
        field_doc(f, out);
        let _ = writeln!(out, "    pub {}: bool,", f.rust);
    }
    out.push_str("}\n");
    emit_struct_list(cx, t, "FEATURE_STRUCTS", out);
    let _ = write!(
        out,
        "\n/// `VkPhysicalDeviceFeatures`.\nstatic FEATURES10: &[Slot<Features>] = {};\n",
        slots_text(cx, t, &t.structs[0], "Features", "")
    );
    emit_slot_table(cx, t, "FEATURE_SLOTS", "Features", out);
    out.push_str("\nimpl Features {\n    /// The flat name of every field, in field order: the Vulkan member name, or its rename\n    /// (`taskShaderNV`).\n    pub const NAMES: &'static [&'static str] = &[\n");
    for f in &t.fields {
        let _ = writeln!(out, "        {:?},", f.flat);
    }
    out.push_str("    ];\n}\n");
    out.push_str(FEATURES_IMPL);
}

/// How a field prints in `Debug` (the generated crate builds ash without its `debug` feature):
/// numbers and arrays of them as themselves, enums and flags as their raw value, anything else
/// (structures, lists of non-numbers) as its type name or length.
fn debug_expr(cx: &Ctx, f: &FlatField) -> String {
    let reg = cx.reg();
    let mut base = f.ty.base.as_str();
    for _ in 0..8 {
        match reg.resolve_type(base).map(|t| &t.kind) {
            Some(TypeKind::Basetype {
                underlying: Some(u),
                pointer: false,
            }) => base = u,
            _ => break,
        }
    }
    let numeric = crate::select::is_primitive(base) || base == "VkBool32";
    let enumlike = matches!(
        reg.resolve_type(base).map(|t| &t.kind),
        Some(TypeKind::Enum | TypeKind::Bitmask { .. })
    ) || (!reg.types.contains_key(base) && reg.enums.contains_key(base));
    let r = &f.rust;
    match f.kind {
        FieldKind::Bool => format!("&self.{r}"),
        FieldKind::List { .. } if numeric => format!("&self.{r}"),
        FieldKind::List { .. } => {
            format!("&format_args!(\"[{{}} × {}]\", self.{r}.len())", f.ty.base)
        }
        FieldKind::Value if numeric => format!("&self.{r}"),
        FieldKind::Value if enumlike && f.ty.array.is_empty() => format!("&self.{r}.as_raw()"),
        FieldKind::Value => format!("&format_args!(\"{}\")", f.ty.to_c()),
    }
}

fn emit_properties(cx: &Ctx, t: &Table, out: &mut String) {
    out.push_str(
        r#"
/// Every property of the selection: the members of `VkPhysicalDeviceProperties` (`limits` and
/// `sparseProperties` flattened) and of every structure extending `VkPhysicalDeviceProperties2`
/// (see [`PROPERTY_STRUCTS`]). `VkBool32` members are `bool`s, output arrays `Vec`s (their count
/// members are not fields). `Default` is all zeroes.
#[derive(Clone)]
pub struct Properties {
"#,
    );
    let rust_ty = |f: &FlatField| match f.kind {
        FieldKind::Bool => "bool".to_owned(),
        FieldKind::Value => text::type_str(cx, &f.ty, Place::Field),
        FieldKind::List { .. } => format!("Vec<{}>", text::type_str(cx, &f.ty, Place::Field)),
    };
    for f in &t.fields {
        field_doc(f, out);
        let _ = writeln!(out, "    pub {}: {},", f.rust, rust_ty(f));
    }
    out.push_str("}\n");
    emit_struct_list(cx, t, "PROPERTY_STRUCTS", out);
    emit_slot_table(cx, t, "PROPERTY_SLOTS", "Properties", out);
    emit_properties_default_debug(cx, t, out);
    emit_properties_methods(t, out);
}

/// `Default` (all zeroes) and `Debug` of `Properties`.
fn emit_properties_default_debug(cx: &Ctx, t: &Table, out: &mut String) {
    out.push_str(
        r#"
/// An all-zero value of a plain Vulkan type.
fn zeroed<T: Copy>() -> T {
    // SAFETY: used only for Vulkan's plain C types (integers, floats, transparent enums and flags,
    // and arrays and structures of those), for which all-zero bytes are a valid value.
    unsafe { core::mem::zeroed() }
}

impl Default for Properties {
    fn default() -> Self {
        Self {
"#,
    );
    for f in &t.fields {
        let v = match f.kind {
            FieldKind::Bool => "false",
            FieldKind::Value => "zeroed()",
            FieldKind::List { .. } => "Vec::new()",
        };
        let _ = writeln!(out, "            {}: {v},", f.rust);
    }
    out.push_str("        }\n    }\n}\n\nimpl core::fmt::Debug for Properties {\n    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {\n        f.debug_struct(\"Properties\")\n");
    for f in &t.fields {
        let _ = writeln!(
            out,
            "            .field({:?}, {})",
            f.rust,
            debug_expr(cx, f)
        );
    }
    out.push_str("            .finish()\n    }\n}\n");
}

/// The 1.0 conversions and the pNext writers of `Properties`.
fn emit_properties_methods(t: &Table, out: &mut String) {
    out.push_str("\nimpl Properties {\n");
    let base = &t.structs[0];
    out.push_str("    /// The `VkPhysicalDeviceProperties` (`vkGetPhysicalDeviceProperties`) of the table.\n    pub fn properties10(&self) -> vk::PhysicalDeviceProperties {\n        let mut o = vk::PhysicalDeviceProperties::default();\n");
    for m in &base.members {
        let f = &t.fields[m.field];
        let rhs = match f.kind {
            FieldKind::Bool => format!("self.{}.into()", f.rust),
            _ => format!("self.{}", f.rust),
        };
        let _ = writeln!(out, "        o.{} = {rhs};", path_expr(&m.path));
    }
    out.push_str("        o\n    }\n\n    /// Takes every member of a `VkPhysicalDeviceProperties` (a driver starting from a 1.0 query).\n    pub fn from_properties10(&mut self, p: &vk::PhysicalDeviceProperties) {\n");
    for m in &base.members {
        let f = &t.fields[m.field];
        let rhs = match f.kind {
            FieldKind::Bool => format!("p.{} != 0", path_expr(&m.path)),
            _ => format!("p.{}", path_expr(&m.path)),
        };
        let _ = writeln!(out, "        self.{} = {rhs};", f.rust);
    }
    out.push_str(
        r#"    }

    /// Fills one structure of a pNext chain when its `sType` is one of [`PROPERTY_STRUCTS`];
    /// returns whether it was. Its `sType` and `pNext` are not touched.
    ///
    /// # Safety
    /// `s` is NULL or a writable structure whose `sType` tells its type; its output arrays are
    /// NULL or have room for the count the application put beside them.
    pub unsafe fn write_struct(&self, s: *mut vk::BaseOutStructure<'_>) -> bool {
        // SAFETY: `s` is NULL or readable (the caller's contract).
        let Some(header) = (unsafe { s.as_ref() }) else {
            return false;
        };
        match find(PROPERTY_SLOTS, header.s_type.as_raw()) {
            // SAFETY: the sType says `s` is the structure these slots describe.
            Some(slots) => unsafe { write_slots(self, s.cast(), slots) },
            None => return false,
        }
        true
    }

    /// `vkGetPhysicalDeviceProperties2`: fills `properties` and every known structure of the
    /// pNext chain, in any order; unknown structures are left untouched. NULL is ignored.
    ///
    /// # Safety
    /// `props2` is NULL or a writable `VkPhysicalDeviceProperties2` whose chain is valid.
    pub unsafe fn write_chain(&self, props2: *mut vk::PhysicalDeviceProperties2<'_>) {
        if props2.is_null() {
            return;
        }
        // SAFETY: `props2` is writable and its chain holds valid writable structures (the
        // caller's contract), each of which `write_struct` may fill; `for_each_out` reads each
        // link before the structure is written.
        unsafe {
            (*props2).properties = self.properties10();
            for_each_out((*props2).p_next, |s| {
                self.write_struct(s);
            });
        }
    }
}
"#,
    );
}
