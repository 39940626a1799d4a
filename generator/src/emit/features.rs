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

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use super::{ident, text, Ctx, Place, PREAMBLE};
use crate::device::layout::enum_named;
use crate::error::Result;
use crate::model::*;
use crate::names;

/// `(structure, member, flat name)`: members core renamed when promoting, mapped to the core name
/// so that they merge with it (Mesa does the same).
pub const PROMOTED_RENAMES: &[(&str, &str, &str)] = &[
    (
        "VkPhysicalDeviceSubgroupProperties",
        "supportedStages",
        "subgroupSupportedStages",
    ),
    (
        "VkPhysicalDeviceSubgroupProperties",
        "supportedOperations",
        "subgroupSupportedOperations",
    ),
    (
        "VkPhysicalDeviceSubgroupProperties",
        "quadOperationsInAllStages",
        "subgroupQuadOperationsInAllStages",
    ),
];

/// Features or properties.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Features,
    Properties,
}

impl Kind {
    fn base(self) -> &'static str {
        match self {
            Kind::Features => "VkPhysicalDeviceFeatures",
            Kind::Properties => "VkPhysicalDeviceProperties",
        }
    }
    fn extends(self) -> &'static str {
        match self {
            Kind::Features => "VkPhysicalDeviceFeatures2",
            Kind::Properties => "VkPhysicalDeviceProperties2",
        }
    }
}

/// How a flat field is stored and copied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldKind {
    /// `VkBool32` ↔ `bool`.
    Bool,
    /// Any other value (numbers, enums, flags, arrays, plain structures), copied as is.
    Value,
    /// An output array with a count member: `Vec<elem>`; `has_header` when the elements carry
    /// `sType`/`pNext`.
    List { has_header: bool },
}

/// One member of one chain structure.
#[derive(Debug, Clone)]
pub struct ChainMember {
    /// The member's path from the structure (`["limits", "maxImageDimension1D"]` in the flattened
    /// 1.0 properties, one name elsewhere).
    pub path: Vec<String>,
    /// For lists, the count member's name.
    pub count: Option<String>,
    /// Index into [`Table::fields`].
    pub field: usize,
}

/// A structure the chain code knows.
#[derive(Debug, Clone)]
pub struct ChainStruct {
    /// The canonical (non-alias) name.
    pub name: String,
    /// Other names of the structure in this registry.
    pub aliases: Vec<String>,
    /// `VK_STRUCTURE_TYPE_…` name and value (none for the 1.0 base structure).
    pub s_type: Option<(String, i64)>,
    pub members: Vec<ChainMember>,
}

/// One field of the flat table.
#[derive(Debug, Clone)]
pub struct FlatField {
    /// Rust field name.
    pub rust: String,
    /// The Vulkan member name, or its rename (`taskShaderNV`); lists drop the `p`.
    pub flat: String,
    /// The member type (for lists, the element type without the pointer).
    pub ty: CType,
    pub kind: FieldKind,
    /// `(structure, member)` pairs that carry it.
    pub carriers: Vec<(String, String)>,
    /// Why it was renamed, if it was.
    pub renamed_from: Option<String>,
}

#[derive(Debug, Clone)]
pub struct Table {
    pub kind: Kind,
    /// The base (1.0) structure first, then the chain structures.
    pub structs: Vec<ChainStruct>,
    pub fields: Vec<FlatField>,
    /// `Struct::member: why` for members that could not be mapped.
    pub skipped: Vec<String>,
}

/// Registry facts the merge rule needs.
struct Facts<'r> {
    reg: &'r Registry,
    /// Type names any core `<feature>` requires.
    core: BTreeSet<&'r str>,
    /// Type name → first extension requiring it.
    ext_of: BTreeMap<&'r str, &'r str>,
}

impl<'r> Facts<'r> {
    fn new(reg: &'r Registry) -> Self {
        let mut core = BTreeSet::new();
        for f in &reg.features {
            if f.api.is_empty() || f.api.iter().any(|a| a == "vulkan") {
                for r in &f.requires {
                    core.extend(r.types.iter().map(String::as_str));
                }
            }
        }
        let mut ext_of = BTreeMap::new();
        for e in &reg.extensions {
            for r in &e.requires {
                for t in &r.types {
                    ext_of.entry(t.as_str()).or_insert(e.name.as_str());
                }
            }
        }
        Facts { reg, core, ext_of }
    }

    fn names_of<'a>(&self, s: &'a ChainStruct) -> impl Iterator<Item = &'a str> {
        std::iter::once(s.name.as_str()).chain(s.aliases.iter().map(String::as_str))
    }

    fn is_core(&self, s: &ChainStruct) -> bool {
        self.names_of(s).any(|n| self.core.contains(n))
    }

    /// The extensions and versions the structure's extensions were promoted to, transitively, and
    /// those extensions themselves.
    fn promotions(&self, s: &ChainStruct) -> BTreeSet<&'r str> {
        let mut out = BTreeSet::new();
        let mut stack: Vec<&str> = self
            .names_of(s)
            .filter_map(|n| self.ext_of.get(n).copied())
            .collect();
        while let Some(e) = stack.pop() {
            if !out.insert(e) {
                continue;
            }
            if let Some(p) = self.reg.extension(e).and_then(|x| x.promoted_to.as_deref()) {
                stack.push(p);
            }
        }
        out
    }

    /// What `linked` needs of a structure, computed once.
    fn link(&self, s: &ChainStruct) -> Link<'r> {
        let promotions = self.promotions(s);
        Link {
            core: self.is_core(s),
            to_core: promotions.iter().any(|x| x.starts_with("VK_VERSION_")),
            promotions,
        }
    }

    /// 0 core, 1 KHR, 2 EXT, 3 other.
    fn rank(&self, s: &ChainStruct) -> u8 {
        if self.is_core(s) {
            0
        } else if s.name.ends_with("KHR") {
            1
        } else if s.name.ends_with("EXT") {
            2
        } else {
            3
        }
    }
}

struct Link<'r> {
    core: bool,
    /// Promoted (transitively) to a core version.
    to_core: bool,
    promotions: BTreeSet<&'r str>,
}

/// Whether same-named members of two structures are one feature: both core, or promotion
/// connects them.
fn linked(a: &Link, b: &Link) -> bool {
    (a.core && (b.core || b.to_core))
        || (b.core && a.to_core)
        || !a.promotions.is_disjoint(&b.promotions)
}

/// A candidate flat member before merging.
struct Raw {
    strukt: usize,
    path: Vec<String>,
    member: String,
    flat: String,
    ty: CType,
    kind: FieldKind,
    count: Option<String>,
}

fn struct_fields<'r>(reg: &'r Registry, name: &str) -> Option<&'r [Field]> {
    match &reg.resolve_type(name)?.kind {
        TypeKind::Struct(a) => Some(&a.members),
        _ => None,
    }
}

/// The table of `kind` for the selection.
pub fn tables(cx: &Ctx, kind: Kind) -> Table {
    let reg = cx.reg();
    let facts = Facts::new(reg);
    let mut structs = chain_structs(cx, &facts, kind);
    let mut skipped = Vec::new();
    let mut raws: Vec<Raw> = Vec::new();
    for (si, s) in structs.iter().enumerate() {
        let flattened = flattened_members(reg, kind, si, s);
        struct_candidates(reg, kind, si, s, &flattened, &mut skipped, &mut raws);
    }
    let (by_name, class_of) = linked_classes(&raws, &structs, &facts);
    let class_name = class_names(&raws, &structs, &facts, &by_name, &class_of);
    let fields = flat_fields(&raws, &mut structs, &class_of, &class_name);
    Table {
        kind,
        structs,
        fields,
        skipped,
    }
}

/// The chain structures: `kind`'s base structure, then the canonical names of selected structs
/// extending its `…2` structure (the Vulkan 1.x roll-ups first, then core, then by name), each
/// with its aliases and sType; a structure without an sType cannot be chained and is left out.
fn chain_structs(cx: &Ctx, facts: &Facts, kind: Kind) -> Vec<ChainStruct> {
    let reg = cx.reg();
    let mut canon: BTreeSet<&str> = BTreeSet::new();
    for t in &cx.sel.types {
        let Some(ty) = reg.resolve_type(t) else {
            continue;
        };
        if let TypeKind::Struct(a) = &ty.kind {
            if a.extends.iter().any(|e| e == kind.extends()) {
                canon.insert(ty.name.as_str());
            }
        }
    }
    let mut aliases: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for (n, t) in &reg.types {
        if t.alias.is_some() {
            if let Some(c) = reg.resolve_type(n) {
                if canon.contains(c.name.as_str()) && cx.sel.types.contains(n) {
                    aliases.entry(c.name.as_str()).or_default().push(n.clone());
                }
            }
        }
    }
    let rollup = |n: &str| {
        n.strip_prefix("VkPhysicalDeviceVulkan")
            .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()))
    };
    let mut order: Vec<&str> = canon.iter().copied().collect();
    order.sort_by_key(|n| (!rollup(n), !facts.core.contains(n), *n));

    let mut structs = vec![ChainStruct {
        name: kind.base().to_owned(),
        aliases: Vec::new(),
        s_type: None,
        members: Vec::new(),
    }];
    for n in order {
        let s_type = struct_fields(reg, n)
            .and_then(|m| m.iter().find(|f| f.name == "sType"))
            .and_then(|f| f.values.clone())
            .and_then(|v| enum_named(reg, "VkStructureType", &v).map(|x| (v, x)));
        structs.push(ChainStruct {
            name: n.to_owned(),
            aliases: aliases.remove(n).unwrap_or_default(),
            s_type,
            members: Vec::new(),
        });
    }
    structs.retain(|s| s.s_type.is_some() || s.name == kind.base());

    structs
}

/// A structure's members with `sType`/`pNext` left out, each with its path; the 1.0 properties'
/// nested structures (`limits`, `sparseProperties`) are flattened.
fn flattened_members<'r>(
    reg: &'r Registry,
    kind: Kind,
    si: usize,
    s: &ChainStruct,
) -> Vec<(Vec<String>, &'r Field)> {
    let members = struct_fields(reg, &s.name).unwrap_or(&[]);
    let mut flattened: Vec<(Vec<String>, &Field)> = Vec::new();
    for m in members {
        if m.name == "sType" || m.name == "pNext" {
            continue;
        }
        let nested = (si == 0 && kind == Kind::Properties && !m.ty.is_pointer())
            .then(|| struct_fields(reg, &m.ty.base))
            .flatten();
        match nested {
            Some(inner) => {
                for i in inner {
                    flattened.push((vec![m.name.clone(), i.name.clone()], i));
                }
            }
            None => flattened.push((vec![m.name.clone()], m)),
        }
    }
    flattened
}

/// The candidate flat members of structure `si`: every bool (features), or every value and
/// output array (properties); what cannot be mapped is added to `skipped` with why.
fn struct_candidates(
    reg: &Registry,
    kind: Kind,
    si: usize,
    s: &ChainStruct,
    flattened: &[(Vec<String>, &Field)],
    skipped: &mut Vec<String>,
    raws: &mut Vec<Raw>,
) {
    let counts: BTreeSet<&str> = flattened
        .iter()
        .filter(|(_, f)| f.ty.is_pointer())
        .filter_map(|(_, f)| f.len.as_deref())
        .collect();
    for (path, f) in flattened {
        let member = path.last().expect("non-empty").clone();
        if counts.contains(member.as_str()) && !f.ty.is_pointer() {
            continue; // written with its array
        }
        let is_bool = f.ty.base == "VkBool32" && !f.ty.is_pointer() && f.ty.array.is_empty();
        if kind == Kind::Features && !is_bool {
            skipped.push(format!("{}::{}: not a VkBool32", s.name, f.name));
            continue;
        }
        let (ty, fkind, count, flat) = if f.ty.is_pointer() {
            let Some(list) = list_member(reg, &s.name, f, &flattened, skipped) else {
                continue;
            };
            list
        } else {
            let flat = PROMOTED_RENAMES
                .iter()
                .find(|(st, m, _)| *st == s.name && *m == f.name)
                .map(|(_, _, r)| (*r).to_owned())
                .unwrap_or_else(|| f.name.clone());
            let k = if is_bool {
                FieldKind::Bool
            } else {
                FieldKind::Value
            };
            (f.ty.clone(), k, None, flat)
        };
        raws.push(Raw {
            strukt: si,
            path: path.clone(),
            member,
            flat,
            ty,
            kind: fkind,
            count,
        });
    }
}

/// An output array member: its element type, kind, count member and flat name, or `None` (and
/// a `skipped` line) when it has no `uint32_t` count member to write with it.
fn list_member(
    reg: &Registry,
    struct_name: &str,
    f: &Field,
    flattened: &[(Vec<String>, &Field)],
    skipped: &mut Vec<String>,
) -> Option<(CType, FieldKind, Option<String>, String)> {
    let count = f.len.as_deref().filter(|l| {
        flattened
            .iter()
            .any(|(p, c)| p.len() == 1 && p[0] == *l && !c.ty.is_pointer())
    });
    let count_is_u32 = |c: &&str| {
        flattened
            .iter()
            .any(|(p, m)| p.len() == 1 && p[0] == *c && m.ty == CType::named("uint32_t"))
    };
    let Some(count) = count
        .filter(count_is_u32)
        .filter(|_| f.ty.pointers.len() == 1 && f.ty.array.is_empty())
    else {
        skipped.push(format!(
            "{}::{}: a pointer without a uint32_t count member",
            struct_name, f.name
        ));
        return None;
    };
    let mut elem = f.ty.clone();
    elem.pointers.clear();
    elem.base_const = false;
    let has_header =
        struct_fields(reg, &elem.base).is_some_and(|m| m.iter().any(|x| x.name == "pNext"));
    let stripped = f.name.strip_prefix('p').unwrap_or(&f.name);
    let mut flat = stripped.to_owned();
    if let Some(c) = flat.get_mut(..1) {
        c.make_ascii_lowercase();
    }
    Some((
        elem,
        FieldKind::List { has_header },
        Some(count.to_owned()),
        flat,
    ))
}

/// Candidates grouped by flat name, and a class per candidate: same-named candidates of one type
/// whose structures are linked share a class (union-find, the class is its smallest member).
fn linked_classes<'a>(
    raws: &'a [Raw],
    structs: &[ChainStruct],
    facts: &Facts,
) -> (BTreeMap<&'a str, Vec<usize>>, Vec<usize>) {
    let links: Vec<Link> = structs.iter().map(|s| facts.link(s)).collect();
    // Group by flat name, then split into linked classes.
    let mut by_name: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, r) in raws.iter().enumerate() {
        by_name.entry(r.flat.as_str()).or_default().push(i);
    }
    // class id per raw; class → (rank, first raw index)
    let mut class_of: Vec<usize> = (0..raws.len()).collect();
    fn find(c: &mut [usize], i: usize) -> usize {
        let mut r = i;
        while c[r] != r {
            r = c[r];
        }
        c[i] = r;
        r
    }
    for idx in by_name.values() {
        for (a, &i) in idx.iter().enumerate() {
            for &j in &idx[a + 1..] {
                let (ri, rj) = (&raws[i], &raws[j]);
                let same_ty = ri.ty == rj.ty && ri.kind == rj.kind;
                if same_ty && linked(&links[ri.strukt], &links[rj.strukt]) {
                    let (x, y) = (find(&mut class_of, i), find(&mut class_of, j));
                    if x != y {
                        class_of[x.max(y)] = x.min(y);
                    }
                }
            }
        }
    }
    for i in 0..raws.len() {
        find(&mut class_of, i);
    }
    (by_name, class_of)
}

/// The flat name of each class: within each flat name the best-ranked class keeps it, the others
/// get their structure's vendor suffix or name stem, with a note saying why.
fn class_names(
    raws: &[Raw],
    structs: &[ChainStruct],
    facts: &Facts,
    by_name: &BTreeMap<&str, Vec<usize>>,
    class_of: &[usize],
) -> BTreeMap<usize, (String, Option<String>)> {
    let mut class_name: BTreeMap<usize, (String, Option<String>)> = BTreeMap::new();
    let mut taken: BTreeSet<String> = by_name.keys().map(|s| s.to_string()).collect();
    for (name, idx) in by_name {
        let mut classes: Vec<usize> = idx.iter().map(|&i| class_of[i]).collect();
        classes.sort_unstable();
        classes.dedup();
        let best_rank = |c: usize| {
            idx.iter()
                .filter(|&&i| class_of[i] == c)
                .map(|&i| facts.rank(&structs[raws[i].strukt]))
                .min()
                .unwrap_or(3)
        };
        classes.sort_by_key(|&c| (best_rank(c), c));
        for (k, &c) in classes.iter().enumerate() {
            if k == 0 {
                class_name.insert(c, (name.to_string(), None));
                continue;
            }
            let s = &structs[raws[c].strukt];
            let vendor = vendor_of(&s.name);
            let winner_vendor = vendor_of(&structs[raws[classes[0]].strukt].name);
            let mut candidate = format!("{name}{vendor}");
            if vendor.is_empty() || vendor == winner_vendor || taken.contains(&candidate) {
                candidate = format!("{name}{}", stem(&s.name));
            }
            while taken.contains(&candidate) {
                candidate.push('_');
            }
            taken.insert(candidate.clone());
            class_name.insert(
                c,
                (
                    candidate,
                    Some(format!(
                        "`{}::{}` means something else than `{name}` elsewhere",
                        s.name, raws[c].member
                    )),
                ),
            );
        }
    }
    class_name
}

/// One flat field per class, in order of first appearance; each chain structure's members are
/// pointed at their field.
fn flat_fields(
    raws: &[Raw],
    structs: &mut [ChainStruct],
    class_of: &[usize],
    class_name: &BTreeMap<usize, (String, Option<String>)>,
) -> Vec<FlatField> {
    let mut fields: Vec<FlatField> = Vec::new();
    let mut field_of_class: BTreeMap<usize, usize> = BTreeMap::new();
    let mut rust_taken: BTreeSet<String> = BTreeSet::new();
    for (i, r) in raws.iter().enumerate() {
        let c = class_of[i];
        let fi = *field_of_class.entry(c).or_insert_with(|| {
            let (flat, renamed_from) = class_name[&c].clone();
            let mut rust = ident(&names::field_name(&flat)).to_string();
            while !rust_taken.insert(rust.clone()) {
                rust.push('_');
            }
            fields.push(FlatField {
                rust,
                flat,
                ty: r.ty.clone(),
                kind: r.kind.clone(),
                carriers: Vec::new(),
                renamed_from,
            });
            fields.len() - 1
        });
        fields[fi]
            .carriers
            .push((structs[r.strukt].name.clone(), r.member.clone()));
        structs[r.strukt].members.push(ChainMember {
            path: r.path.clone(),
            count: r.count.clone(),
            field: fi,
        });
    }
    fields
}

fn vendor_of(name: &str) -> String {
    let tail: String = name
        .chars()
        .rev()
        .take_while(|c| c.is_ascii_uppercase())
        .collect();
    if tail.len() >= 2 {
        tail.chars().rev().collect()
    } else {
        String::new()
    }
}

/// `VkPhysicalDeviceMeshShaderFeaturesNV` → `MeshShaderFeaturesNV`.
fn stem(name: &str) -> &str {
    name.strip_prefix("VkPhysicalDevice").unwrap_or(name)
}

pub fn emit(cx: &Ctx) -> Result<String> {
    let f = tables(cx, Kind::Features);
    let p = tables(cx, Kind::Properties);
    let mut out = format!(
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
    for t in [&f, &p] {
        if !t.skipped.is_empty() {
            out.push_str("\n// Members not mapped to the flat table:\n");
            for s in &t.skipped {
                let _ = writeln!(out, "// - {s}");
            }
        }
    }
    emit_features(cx, &f, &mut out);
    emit_properties(cx, &p, &mut out);
    Ok(out)
}

/// The fixed part of the file: the slot machinery both tables use (a hand-written Rust file,
/// copied verbatim).
const RUNTIME: &str = concat!("\n", include_str!("runtime/feature_slots.rs"));

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
    out.push_str("    ];\n");
    out.push_str(FEATURES_METHODS);
    out.push_str("}\n");
}

/// The methods of `impl Features` after `NAMES`: the slice views and the chain readers and
/// writers, the same text for every selection (the per-selection part is the slot tables they
/// walk). The caller closes the `impl`.
const FEATURES_METHODS: &str = r#"
    /// The fields in [`Self::NAMES`] order.
    pub fn as_slice(&self) -> &[bool] {
        // SAFETY: `Features` is `#[repr(C)]` with only `bool` fields (size and alignment 1), so it
        // is laid out as `[bool; NAMES.len()]`.
        unsafe { core::slice::from_raw_parts((self as *const Self).cast::<bool>(), Self::NAMES.len()) }
    }

    /// The fields in [`Self::NAMES`] order, writable.
    pub fn as_mut_slice(&mut self) -> &mut [bool] {
        // SAFETY: as in `as_slice`; the borrow is unique.
        unsafe { core::slice::from_raw_parts_mut((self as *mut Self).cast::<bool>(), Self::NAMES.len()) }
    }

    /// Every feature on (tests, and drivers that support everything).
    pub fn all_true() -> Self {
        let mut f = Self::default();
        f.as_mut_slice().fill(true);
        f
    }

    /// The field named `name` (a name from [`Self::NAMES`]).
    pub fn get(&self, name: &str) -> Option<bool> {
        let i = Self::NAMES.iter().position(|n| *n == name)?;
        Some(self.as_slice()[i])
    }

    /// Sets the field named `name`; false when there is none.
    pub fn set(&mut self, name: &str, value: bool) -> bool {
        match Self::NAMES.iter().position(|n| *n == name) {
            Some(i) => {
                self.as_mut_slice()[i] = value;
                true
            }
            None => false,
        }
    }

    /// Turns on every feature `other` has on.
    pub fn union_with(&mut self, other: &Features) {
        for (a, b) in self.as_mut_slice().iter_mut().zip(other.as_slice()) {
            *a |= *b;
        }
    }

    /// The name (from [`Self::NAMES`]) of the first feature `requested` has on and `self` lacks:
    /// `vkCreateDevice` then fails with `VK_ERROR_FEATURE_NOT_PRESENT`.
    pub fn first_missing(&self, requested: &Features) -> Option<&'static str> {
        let have = self.as_slice();
        let i = requested.as_slice().iter().zip(have).position(|(r, h)| *r && !*h)?;
        Some(Self::NAMES[i])
    }

    /// Fills a `VkPhysicalDeviceFeatures` (`vkGetPhysicalDeviceFeatures`). NULL is ignored.
    ///
    /// # Safety
    /// `out` is NULL or valid for writes.
    pub unsafe fn write_features10(&self, out: *mut vk::PhysicalDeviceFeatures) {
        if !out.is_null() {
            // SAFETY: `out` is a writable `VkPhysicalDeviceFeatures`, what `FEATURES10` describes.
            unsafe { write_slots(self, out.cast(), FEATURES10) }
        }
    }

    /// Turns on the features a `VkPhysicalDeviceFeatures` has on.
    pub fn read_features10(&mut self, p: &vk::PhysicalDeviceFeatures) {
        // SAFETY: `p` is a `VkPhysicalDeviceFeatures`, what `FEATURES10` describes.
        unsafe { read_bools(self, (p as *const vk::PhysicalDeviceFeatures).cast(), FEATURES10) }
    }

    /// Fills one structure of a pNext chain when its `sType` is one of [`FEATURE_STRUCTS`];
    /// returns whether it was. Its `sType` and `pNext` are not touched.
    ///
    /// # Safety
    /// `s` is NULL or a writable structure whose `sType` tells its type.
    pub unsafe fn write_struct(&self, s: *mut vk::BaseOutStructure<'_>) -> bool {
        // SAFETY: `s` is NULL or readable (the caller's contract).
        let Some(header) = (unsafe { s.as_ref() }) else {
            return false;
        };
        match find(FEATURE_SLOTS, header.s_type.as_raw()) {
            // SAFETY: the sType says `s` is the structure these slots describe.
            Some(slots) => unsafe { write_slots(self, s.cast(), slots) },
            None => return false,
        }
        true
    }

    /// Turns on the features one pNext structure has on, when its `sType` is one of
    /// [`FEATURE_STRUCTS`]; returns whether it was.
    ///
    /// # Safety
    /// `s` is NULL or a readable structure whose `sType` tells its type.
    pub unsafe fn read_struct(&mut self, s: *const vk::BaseInStructure<'_>) -> bool {
        // SAFETY: `s` is NULL or readable (the caller's contract).
        let Some(header) = (unsafe { s.as_ref() }) else {
            return false;
        };
        match find(FEATURE_SLOTS, header.s_type.as_raw()) {
            // SAFETY: the sType says `s` is the structure these slots describe.
            Some(slots) => unsafe { read_bools(self, s.cast(), slots) },
            None => return false,
        }
        true
    }

    /// `vkGetPhysicalDeviceFeatures2`: fills `features` and every known structure of the pNext
    /// chain, in any order; unknown structures are left untouched. NULL is ignored.
    ///
    /// # Safety
    /// `features2` is NULL or a writable `VkPhysicalDeviceFeatures2` whose chain is valid.
    pub unsafe fn write_chain(&self, features2: *mut vk::PhysicalDeviceFeatures2<'_>) {
        if features2.is_null() {
            return;
        }
        // SAFETY: `features2` is writable and its chain holds valid structures (the caller's
        // contract); each link is read before it is followed.
        unsafe {
            self.write_features10(&mut (*features2).features);
            let mut next = (*features2).p_next.cast::<vk::BaseOutStructure<'_>>();
            let mut n = 0;
            while !next.is_null() && n < MAX_CHAIN {
                self.write_struct(next);
                next = (*next).p_next;
                n += 1;
            }
        }
    }

    /// The features a `VkDeviceCreateInfo` enables: the union of `pEnabledFeatures` and of every
    /// feature structure in its pNext chain (a `VkPhysicalDeviceFeatures2` there included).
    ///
    /// # Safety
    /// `info` is NULL or a valid `VkDeviceCreateInfo` with a valid chain.
    pub unsafe fn from_device_create_info(info: *const vk::DeviceCreateInfo<'_>) -> Features {
        let mut out = Features::default();
        // SAFETY: `info`, `pEnabledFeatures` and the chain are valid or NULL (the caller's
        // contract); each link is read before it is followed.
        unsafe {
            let Some(info) = info.as_ref() else {
                return out;
            };
            if let Some(f) = info.p_enabled_features.as_ref() {
                out.read_features10(f);
            }
            let mut next = info.p_next.cast::<vk::BaseInStructure<'_>>();
            let mut n = 0;
            while !next.is_null() && n < MAX_CHAIN {
                if (*next).s_type == vk::StructureType::PHYSICAL_DEVICE_FEATURES_2 {
                    out.read_features10(&(*next.cast::<vk::PhysicalDeviceFeatures2<'_>>()).features);
                } else {
                    out.read_struct(next);
                }
                next = (*next).p_next;
                n += 1;
            }
        }
        out
    }
"#;

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
    out.push_str("            .finish()\n    }\n}\n\nimpl Properties {\n");
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
        // SAFETY: `props2` is writable and its chain holds valid structures (the caller's
        // contract); each link is read before it is followed.
        unsafe {
            (*props2).properties = self.properties10();
            let mut next = (*props2).p_next.cast::<vk::BaseOutStructure<'_>>();
            let mut n = 0;
            while !next.is_null() && n < MAX_CHAIN {
                self.write_struct(next);
                next = (*next).p_next;
                n += 1;
            }
        }
    }
}
"#,
    );
}
