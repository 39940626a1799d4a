//! Checks on a parsed (and overlaid) registry: enum additions merged without conflicts, every
//! reference resolved, every alias chain finite, every value in range, no type containing itself.
//! Separate from the parser because these need the whole registry, not one element.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::text::clip;
use super::values::array_len;
use crate::error::{Error, Result};
use crate::model::*;

/// Merges values that features and extensions add to enum groups, then checks references. A value
/// added under a name its group already has must be the same value (vk.xml repeats some in several
/// extensions' `<require>` blocks); a different one is an error naming both places.
///
/// The one exception is a definition that can never reach the output: an extension not supported
/// for Vulkan (`supported="disabled"`, a reserved number) is never selected, and Khronos'
/// generators emit nothing for it either (`reg.py` keeps the first definition with an "Attempt to
/// redefine" warning). Vulkan-Headers v1.2.154 to v1.2.190 define `VK_EXT_EXTENSION_357` twice in
/// such an extension, once as `0` and once as a string; those conflicts are warnings located at
/// the second definition, and only definitions that can be emitted take part in the check.
pub(super) fn finish(reg: &mut Registry, path: &Path, warnings: &mut Vec<String>) -> Result<()> {
    let origin = reg.overlay_origin.clone();
    // The file an extension (or, for `None`, a feature or `<enums>` block) was read from.
    let file_of = |ext: Option<&String>, group: &str| -> PathBuf {
        origin
            .as_ref()
            .filter(|o| match ext {
                Some(x) => o.extensions.contains(x),
                None => o.enums.contains(group),
            })
            .map_or_else(|| path.to_owned(), |o| o.path.clone())
    };
    // Extensions whose definitions are never emitted (see above).
    let unused: std::collections::HashSet<String> = reg
        .extensions
        .iter()
        .filter(|x| !x.supports_vulkan())
        .map(|x| x.name.clone())
        .collect();
    let never_emitted = |ext: Option<&String>| ext.is_some_and(|x| unused.contains(x));
    let additions = merge_literals(reg, &file_of, &never_emitted, warnings)?;
    // Names already in each group, so that merging stays linear in the registry's size.
    let mut present: std::collections::HashMap<String, std::collections::HashMap<String, usize>> =
        std::collections::HashMap::new();
    for (group, value) in additions {
        if let Some(g) = reg.enums.get_mut(&group) {
            let names = present.entry(group).or_insert_with(|| {
                g.values
                    .iter()
                    .enumerate()
                    .map(|(i, v)| (v.name.clone(), i))
                    .collect()
            });
            match names.get(&value.name) {
                None => {
                    names.insert(value.name.clone(), g.values.len());
                    g.values.push(value);
                }
                Some(&i) => {
                    let old = &g.values[i];
                    if same_enum_value(&old.value, &value.value) {
                        continue;
                    }
                    let (old_file, new_file) = (
                        file_of(old.extension.as_ref(), &g.name),
                        file_of(value.extension.as_ref(), &g.name),
                    );
                    let message = format!(
                        "enum `{}` of {} is defined again, differently; the first definition is at {}:{}:{}",
                        clip(&value.name),
                        g.name,
                        old_file.display(),
                        old.line,
                        old.col
                    );
                    let (here, first) = (
                        (&*new_file, value.line, value.col),
                        (&*old_file, old.line, old.col),
                    );
                    if let Some(x) = value.extension.as_ref().filter(|x| never_emitted(Some(x))) {
                        warnings.push(ignored(&value.name, here, first, x));
                    } else if let Some(x) =
                        old.extension.as_ref().filter(|x| never_emitted(Some(x)))
                    {
                        // The emitted definition replaces the one that never is.
                        warnings.push(ignored(&value.name, first, here, x));
                        g.values[i] = value;
                    } else {
                        return Err(Error::Schema {
                            path: new_file,
                            line: value.line,
                            col: value.col,
                            message,
                        });
                    }
                }
            }
        }
    }
    validate(reg, path)
}

/// A conflict with a definition that is never emitted, as a warning located at that definition
/// and naming the other one.
fn ignored(name: &str, dropped: (&Path, u32, u32), other: (&Path, u32, u32), ext: &str) -> String {
    format!(
        "{}:{}:{}: enum `{}` is defined differently at {}:{}:{}; this definition is ignored: extension `{}` is not supported for Vulkan and nothing of it is generated",
        dropped.0.display(),
        dropped.1,
        dropped.2,
        clip(name),
        other.0.display(),
        other.1,
        other.2,
        clip(ext)
    )
}

/// Checks the values that features and extensions define outside any group (spec versions,
/// names) for conflicting redefinitions, and returns the values they add to groups, in order.
fn merge_literals(
    reg: &Registry,
    file_of: &dyn Fn(Option<&String>, &str) -> PathBuf,
    never_emitted: &dyn Fn(Option<&String>) -> bool,
    warnings: &mut Vec<String>,
) -> Result<Vec<(String, EnumValue)>> {
    // Features add values with no owning extension; extensions tag theirs.
    let owners = reg
        .features
        .iter()
        .map(|f| (None, &f.requires))
        .chain(reg.extensions.iter().map(|x| (Some(&x.name), &x.requires)));
    let mut additions: Vec<(String, EnumValue)> = Vec::new();
    let mut literals: std::collections::HashMap<&str, (&str, Option<&String>, u32, u32)> =
        std::collections::HashMap::new();
    for (owner, requires) in owners {
        for e in requires.iter().flat_map(|r| &r.enums) {
            if let (Some(group), Some(v)) = (&e.extends, &e.value) {
                let value = EnumValue {
                    name: e.name.clone(),
                    value: v.clone(),
                    extension: owner.cloned(),
                    line: e.line,
                    col: e.col,
                };
                additions.push((group.clone(), value));
            } else if let (None, Some(lit)) = (&e.extends, &e.literal) {
                let Some(&(first, first_owner, line, col)) = literals.get(e.name.as_str()) else {
                    literals.insert(&e.name, (lit, owner, e.line, e.col));
                    continue;
                };
                if first == lit {
                    continue;
                }
                let (first_file, here) = (file_of(first_owner, ""), file_of(owner, ""));
                let message = format!(
                    "enum `{}` is defined again, differently; the first definition is at {}:{line}:{col}",
                    clip(&e.name),
                    first_file.display()
                );
                let (this, that) = ((&*here, e.line, e.col), (&*first_file, line, col));
                if let Some(x) = owner.filter(|x| never_emitted(Some(x))) {
                    warnings.push(ignored(&e.name, this, that, x));
                } else if let Some(x) = first_owner.filter(|x| never_emitted(Some(x))) {
                    warnings.push(ignored(&e.name, that, this, x));
                    literals.insert(&e.name, (lit, owner, e.line, e.col));
                } else {
                    return Err(Error::Schema {
                        path: here,
                        line: e.line,
                        col: e.col,
                        message,
                    });
                }
            }
        }
    }
    Ok(additions)
}

/// Two spellings of one enumerant value: equal, or `bitpos="b"` and `value="1<<b"`.
fn same_enum_value(a: &EnumVal, b: &EnumVal) -> bool {
    let bits = |v: &EnumVal| match v {
        EnumVal::Value(x) => Some(*x as i64),
        EnumVal::Bitpos(p) => 1i64.checked_shl(*p),
        EnumVal::Alias(_) => None,
    };
    a == b || matches!((bits(a), bits(b)), (Some(x), Some(y)) if x == y)
}

/// Where the checks report an element: elements the overlay contributed are reported against the
/// overlay's file, the rest against vk.xml.
struct Files<'a> {
    origin: Option<&'a OverlayOrigin>,
    path: &'a Path,
}

impl Files<'_> {
    fn of(&self, set: fn(&OverlayOrigin) -> &BTreeSet<String>, name: &str) -> PathBuf {
        self.origin
            .filter(|o| set(o).contains(name))
            .map_or_else(|| self.path.to_owned(), |o| o.path.clone())
    }

    fn of_type(&self, name: &str) -> PathBuf {
        self.of(|o| &o.types, name)
    }

    fn of_command(&self, name: &str) -> PathBuf {
        self.of(|o| &o.commands, name)
    }
}

fn schema(path: PathBuf, line: u32, col: u32, message: String) -> Error {
    Error::Schema {
        path,
        line,
        col,
        message,
    }
}

fn dangling(
    path: PathBuf,
    (line, col): (u32, u32),
    element: String,
    what: &'static str,
    name: &str,
) -> Error {
    Error::Dangling {
        path,
        line,
        col,
        element,
        what,
        name: name.to_owned(),
    }
}

fn validate(reg: &Registry, path: &Path) -> Result<()> {
    let files = Files {
        origin: reg.overlay_origin.as_ref(),
        path,
    };
    let files = &files;
    let cycle = || match containment_cycle(reg) {
        Some((ty, cycle)) => Err(schema(
            files.of_type(&ty.name),
            ty.line,
            ty.col,
            format!(
                "`{}` contains itself by value ({}); it would have infinite size",
                ty.name,
                cycle.join(" → ")
            ),
        )),
        None => Ok(()),
    };
    // The checks only read the registry, so they run on threads of their own; the error
    // reported is the first in this order, as when they ran one after another.
    let checks: [&(dyn Fn() -> Result<()> + Sync); 7] = [
        &|| check_aliases(reg, path),
        &|| check_lookup_sizes(reg, files),
        &|| check_type_references(reg, files),
        &|| check_command_references(reg, files),
        &|| check_requires(reg, files),
        &|| check_handle_parents(reg, files),
        &cycle,
    ];
    std::thread::scope(|s| {
        let later: Vec<_> = checks[1..].iter().map(|check| s.spawn(check)).collect();
        let first = checks[0]();
        let later = later.into_iter().map(crate::par::joined);
        std::iter::once(first).chain(later).collect()
    })
}

fn known_type(reg: &Registry, n: &str) -> bool {
    reg.types.contains_key(n) || reg.enums.contains_key(n)
}

/// The generated lookups hash every command and extension name into `u16` slots.
fn check_lookup_sizes(reg: &Registry, files: &Files) -> Result<()> {
    let max = crate::model::MAX_LOOKUP_NAMES;
    if let Some(c) = reg.command_order.get(max).and_then(|n| reg.commands.get(n)) {
        return Err(schema(
            files.of_command(&c.name),
            c.line,
            c.col,
            format!("more than {max} commands: the generated lookup holds at most {max}"),
        ));
    }
    if let Some(x) = reg.extensions.get(max) {
        return Err(schema(
            files.of(|o| &o.extensions, &x.name),
            x.line,
            x.col,
            format!("more than {max} extensions: the generated lookup holds at most {max}"),
        ));
    }
    Ok(())
}

/// Type aliases, and the types and array lengths of struct, union and function pointer members.
fn check_type_references(reg: &Registry, files: &Files) -> Result<()> {
    for ty in reg.types.values() {
        if let Some(a) = &ty.alias {
            if !reg.types.contains_key(a) {
                return Err(dangling(
                    files.of_type(&ty.name),
                    (ty.line, ty.col),
                    format!("<type name=\"{}\">", ty.name),
                    "type",
                    a,
                ));
            }
        }
        let members = match &ty.kind {
            TypeKind::Struct(a) | TypeKind::Union(a) => &a.members[..],
            TypeKind::Funcpointer { params, .. } => &params[..],
            _ => &[],
        };
        for m in members {
            for a in &m.ty.array {
                array_len(reg, a).map_err(|msg| {
                    schema(
                        files.of_type(&ty.name),
                        ty.line,
                        ty.col,
                        format!("<type name=\"{}\"> member {}: {msg}", ty.name, m.name),
                    )
                })?;
            }
            if !known_type(reg, &m.ty.base) {
                return Err(dangling(
                    files.of_type(&ty.name),
                    (ty.line, ty.col),
                    format!("<type name=\"{}\"> member {}", ty.name, m.name),
                    "type",
                    &m.ty.base,
                ));
            }
        }
    }
    Ok(())
}

/// Command aliases, and the types and array lengths of parameters and return values.
fn check_command_references(reg: &Registry, files: &Files) -> Result<()> {
    for cmd in reg.commands.values() {
        let file = || files.of_command(&cmd.name);
        if let Some(a) = &cmd.alias {
            if !reg.commands.contains_key(a) {
                return Err(dangling(
                    file(),
                    (cmd.line, cmd.col),
                    format!("<command name=\"{}\">", cmd.name),
                    "command",
                    a,
                ));
            }
        }
        for p in &cmd.params {
            for a in &p.ty.array {
                array_len(reg, a).map_err(|msg| {
                    schema(
                        file(),
                        cmd.line,
                        cmd.col,
                        format!("<command> {} param {}: {msg}", cmd.name, p.name),
                    )
                })?;
            }
            if !known_type(reg, &p.ty.base) {
                return Err(dangling(
                    file(),
                    (cmd.line, cmd.col),
                    format!("<command> {} param {}", cmd.name, p.name),
                    "type",
                    &p.ty.base,
                ));
            }
        }
        if !cmd.ret.base.is_empty() && !known_type(reg, &cmd.ret.base) {
            return Err(dangling(
                file(),
                (cmd.line, cmd.col),
                format!("<command> {}", cmd.name),
                "type",
                &cmd.ret.base,
            ));
        }
    }
    Ok(())
}

/// The commands and types one `<require>` block of `owner` names.
fn check_require(
    reg: &Registry,
    owner: &str,
    file: PathBuf,
    pos: (u32, u32),
    r: &Require,
) -> Result<()> {
    for c in &r.commands {
        if !reg.commands.contains_key(c) {
            return Err(dangling(
                file,
                pos,
                format!("<require> of {owner}"),
                "command",
                c,
            ));
        }
    }
    for t in &r.types {
        if !known_type(reg, t) {
            return Err(dangling(
                file,
                pos,
                format!("<require> of {owner}"),
                "type",
                t,
            ));
        }
    }
    Ok(())
}

/// The `<require>` blocks of features and (enabled) extensions, and the range of every value
/// they or an `<enums>` block add to a group.
fn check_requires(reg: &Registry, files: &Files) -> Result<()> {
    for f in &reg.features {
        for r in &f.requires {
            let file = files.of(|o| &o.features, &f.name);
            check_require(reg, &f.name, file, (f.line, f.col), r)?;
        }
    }
    for x in &reg.extensions {
        if x.supported.iter().any(|s| s == "disabled") {
            continue;
        }
        let xfile = files.of(|o| &o.extensions, &x.name);
        for r in &x.requires {
            check_require(reg, &x.name, xfile.clone(), (x.line, x.col), r)?;
        }
        // Values an extension adds must fit the group they extend.
        for e in x.requires.iter().flat_map(|r| &r.enums) {
            if let (Some(g), Some(v)) =
                (e.extends.as_ref().and_then(|g| reg.enums.get(g)), &e.value)
            {
                check_enum_range(g, &e.name, v)
                    .map_err(|m| schema(xfile.clone(), e.line, e.col, m))?;
            }
        }
    }
    for f in &reg.features {
        for e in f.requires.iter().flat_map(|r| &r.enums) {
            if let (Some(g), Some(v)) =
                (e.extends.as_ref().and_then(|g| reg.enums.get(g)), &e.value)
            {
                check_enum_range(g, &e.name, v)
                    .map_err(|m| schema(files.of(|o| &o.features, &f.name), e.line, e.col, m))?;
            }
        }
    }
    for g in reg.enums.values() {
        for v in &g.values {
            check_enum_range(g, &v.name, &v.value)
                .map_err(|m| schema(files.of(|o| &o.enums, &g.name), v.line, v.col, m))?;
        }
    }
    Ok(())
}

/// Every `parent=` of a handle names a handle.
fn check_handle_parents(reg: &Registry, files: &Files) -> Result<()> {
    for ty in reg.types.values() {
        if let TypeKind::Handle {
            parent: Some(parents),
            ..
        } = &ty.kind
        {
            for p in parents.split(',').map(str::trim) {
                if !matches!(
                    reg.resolve_type(p).map(|t| &t.kind),
                    Some(TypeKind::Handle { .. })
                ) {
                    return Err(dangling(
                        files.of_type(&ty.name),
                        (ty.line, ty.col),
                        format!("<type name=\"{}\"> parent", ty.name),
                        "handle",
                        p,
                    ));
                }
            }
        }
    }
    Ok(())
}

/// A struct or union that contains itself through members that are not pointers (directly or
/// through other structures), with the chain of type names; iterative (hostile nesting is deep).
fn containment_cycle(reg: &Registry) -> Option<(&Type, Vec<String>)> {
    let inner = |t: &Type| -> Vec<&str> {
        match &t.kind {
            TypeKind::Struct(a) | TypeKind::Union(a) => a
                .members
                .iter()
                .filter(|m| m.ty.pointers.is_empty())
                .filter_map(|m| reg.resolve_type(&m.ty.base))
                .filter(|t| matches!(t.kind, TypeKind::Struct(_) | TypeKind::Union(_)))
                .map(|t| t.name.as_str())
                .collect(),
            _ => Vec::new(),
        }
    };
    // 0 = unvisited, 1 = on the current path, 2 = done.
    let mut state: std::collections::HashMap<&str, u8> = std::collections::HashMap::new();
    for start in reg.types.values().filter(|t| t.alias.is_none()) {
        if state.contains_key(start.name.as_str()) {
            continue;
        }
        let mut path: Vec<(&str, Vec<&str>)> = vec![(start.name.as_str(), inner(start))];
        state.insert(&start.name, 1);
        while let Some((name, todo)) = path.last_mut() {
            let name: &str = name;
            match todo.pop() {
                None => {
                    state.insert(name, 2);
                    path.pop();
                }
                Some(next) => match state.get(next) {
                    Some(1) => {
                        let from = path.iter().position(|(n, _)| *n == next).unwrap_or(0);
                        let mut cycle: Vec<String> =
                            path[from..].iter().map(|(n, _)| (*n).to_owned()).collect();
                        cycle.push(next.to_owned());
                        return reg.types.get(next).map(|t| (t, cycle));
                    }
                    Some(_) => {}
                    None => {
                        state.insert(next, 1);
                        let t = reg.types.get(next).map(&inner).unwrap_or_default();
                        path.push((next, t));
                    }
                },
            }
        }
    }
    None
}

/// An enumerant must be representable in its group: `int` for enums, 32 or 64 bits for flags.
fn check_enum_range(g: &EnumGroup, name: &str, v: &EnumVal) -> std::result::Result<(), String> {
    let ok = match (v, g.bitmask, g.width64) {
        (EnumVal::Alias(_), ..) => true,
        (EnumVal::Bitpos(b), true, false) => *b < 32,
        (EnumVal::Bitpos(b), true, true) => *b < 64,
        (EnumVal::Bitpos(b), false, _) => *b < 31,
        (EnumVal::Value(x), true, false) => i32::try_from(*x).is_ok() || u32::try_from(*x).is_ok(),
        (EnumVal::Value(x), true, true) => i64::try_from(*x).is_ok() || u64::try_from(*x).is_ok(),
        (EnumVal::Value(x), false, _) => i32::try_from(*x).is_ok(),
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{name}: value {} does not fit {} {}",
            match v {
                EnumVal::Value(x) => x.to_string(),
                EnumVal::Bitpos(b) => format!("bitpos {b}"),
                EnumVal::Alias(a) => format!("alias {}", clip(a)),
            },
            if g.bitmask { "flags" } else { "enum" },
            g.name
        ))
    }
}

/// Every `alias=` chain (types, commands, API constants, enum values) ends at a definition within
/// [`MAX_ALIAS_CHAIN`] steps: a cycle or an overlong chain is an error naming its first element.
fn check_aliases(reg: &Registry, path: &Path) -> Result<()> {
    let origin = reg.overlay_origin.as_ref();
    let err = |set: fn(&OverlayOrigin) -> &BTreeSet<String>,
               what: &str,
               name: &str,
               (line, col): (u32, u32),
               cycle: bool| {
        let path = origin
            .filter(|o| set(o).contains(name))
            .map_or_else(|| path.to_owned(), |o| o.path.clone());
        Error::Schema {
            path,
            line,
            col,
            message: if cycle {
                format!("{what} `{name}`: alias cycle")
            } else {
                format!("{what} `{name}`: alias chain longer than {MAX_ALIAS_CHAIN}")
            },
        }
    };
    // Follows `next` from `start`; Err(true) for a cycle, Err(false) for an overlong chain.
    fn walk<'a>(
        start: &'a str,
        next: impl Fn(&str) -> Option<&'a str>,
    ) -> std::result::Result<(), bool> {
        let mut seen: Vec<&str> = vec![start];
        let mut at = start;
        while let Some(n) = next(at) {
            if seen.contains(&n) {
                return Err(true);
            }
            if seen.len() > MAX_ALIAS_CHAIN {
                return Err(false);
            }
            seen.push(n);
            at = n;
        }
        Ok(())
    }
    for t in reg.types.values() {
        walk(&t.name, |n| {
            reg.types.get(n).and_then(|t| t.alias.as_deref())
        })
        .map_err(|c| err(|o| &o.types, "type", &t.name, (t.line, t.col), c))?;
    }
    for c in reg.commands.values() {
        walk(&c.name, |n| {
            reg.commands.get(n).and_then(|c| c.alias.as_deref())
        })
        .map_err(|cy| err(|o| &o.commands, "command", &c.name, (c.line, c.col), cy))?;
    }
    for k in reg.constants.values() {
        walk(&k.name, |n| {
            reg.constants.get(n).and_then(|k| k.alias.as_deref())
        })
        .map_err(|c| err(|o| &o.constants, "constant", &k.name, (k.line, k.col), c))?;
    }
    for g in reg.enums.values() {
        let by_name: std::collections::HashMap<&str, &EnumValue> =
            g.values.iter().map(|v| (v.name.as_str(), v)).collect();
        for v in &g.values {
            walk(&v.name, |n| match by_name.get(n).map(|v| &v.value) {
                Some(EnumVal::Alias(a)) => Some(a.as_str()),
                _ => None,
            })
            .map_err(|c| err(|o| &o.enums, "enum", &v.name, (v.line, v.col), c))?;
        }
    }
    Ok(())
}
