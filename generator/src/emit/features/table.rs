//! The model behind `src/features.rs`: which structures a chain holds and which flat field each
//! of their members fills, with the merging, renaming and output-array rules the parent module's
//! notes describe. Pure registry work, shared with the tests; the parent turns it into text.

use std::collections::{BTreeMap, BTreeSet};

use crate::device::layout::enum_named;
use crate::emit::feature_table::*;
use crate::emit::{ident, Ctx};
use crate::model::*;
use crate::names;

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

/// The table of `kind` for the selection, made on first use.
pub fn tables<'c>(cx: &'c Ctx, kind: Kind) -> &'c Table {
    cx.tables[kind as usize].get_or_init(|| make(cx, kind))
}

fn make(cx: &Ctx, kind: Kind) -> Table {
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
            let Some(list) = list_member(reg, &s.name, f, flattened, skipped) else {
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
