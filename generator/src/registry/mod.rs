//! Reading vk.xml into the model. One roxmltree pass over each file; the Android native-buffer
//! description from `registry/` is parsed the same way and laid over vk.xml by element name.
//!
//! Schema drift policy: unknown elements and attributes are tolerated with a warning (revisions we
//! have never seen must still generate), unknown values of attributes whose meaning we rely on
//! (`category`, extension `type`) are errors, and references to things nothing defines are errors
//! naming the referring element.

pub mod cdecl;
pub mod depends;

use std::path::{Path, PathBuf};

use roxmltree::{Document, Node};

use crate::error::{Error, Result};
use crate::model::*;
use crate::names;

/// The parsed registry plus what the parser had to say about it.
#[derive(Debug)]
pub struct Loaded {
    pub registry: Registry,
    pub warnings: Vec<String>,
}

/// Reads and parses `vk_xml`, then lays `overlay` (our Android native-buffer description) over it.
pub fn load(vk_xml: &Path, overlay: Option<&Path>) -> Result<Loaded> {
    let bytes = std::fs::read(vk_xml).map_err(|e| Error::io(vk_xml, e))?;
    let mut warnings = Vec::new();
    let mut registry = parse_str(decode(&bytes, vk_xml)?, vk_xml, &mut warnings)?;
    if let Some(path) = overlay {
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        let over = parse_str(decode(&bytes, path)?, path, &mut warnings)?;
        overlay_from(&mut registry, over, vk_xml, path)?;
    } else {
        finish(&mut registry, vk_xml)?;
    }
    Ok(Loaded { registry, warnings })
}

/// Lower-case hex SHA-256 of `bytes` (what `sha256sum` prints).
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Largest registry file vkgen reads (vk.xml 1.4 is about 3.3 MB).
pub const MAX_REGISTRY_BYTES: usize = 64 << 20;

/// The registry text, or `FILE:LINE:COL` of the first byte that is not UTF-8.
pub fn decode<'a>(bytes: &'a [u8], path: &Path) -> Result<&'a str> {
    if bytes.len() > MAX_REGISTRY_BYTES {
        return Err(Error::Xml {
            path: path.to_owned(),
            line: 1,
            col: 1,
            message: format!(
                "file is {} bytes; registries over {MAX_REGISTRY_BYTES} bytes are refused",
                bytes.len()
            ),
        });
    }
    std::str::from_utf8(bytes).map_err(|e| {
        let good = &bytes[..e.valid_up_to()];
        let line = good.iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = good.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        // The prefix is valid UTF-8, so counting characters is exact.
        let col = String::from_utf8_lossy(&good[line_start..]).chars().count() + 1;
        Error::Xml {
            path: path.to_owned(),
            line: u32::try_from(line).unwrap_or(u32::MAX),
            col: u32::try_from(col).unwrap_or(u32::MAX),
            message: format!("invalid UTF-8 (byte 0x{:02x})", bytes[e.valid_up_to()]),
        }
    })
}

/// Lays `over` over `base` by element name, then merges enum additions and checks references.
/// Errors in the overlay's elements are reported against `path` too; prefer [`overlay_from`].
pub fn overlay_and_finish(base: &mut Registry, over: Registry, path: &Path) -> Result<()> {
    overlay_from(base, over, path, path)
}

/// Lays `over` (read from `over_path`) over `base` (read from `base_path`), merges enum additions
/// and checks the result; errors in elements the overlay contributed name `over_path`.
pub fn overlay_from(
    base: &mut Registry,
    over: Registry,
    base_path: &Path,
    over_path: &Path,
) -> Result<()> {
    let origin = OverlayOrigin {
        path: over_path.to_owned(),
        types: over.types.keys().cloned().collect(),
        commands: over.commands.keys().cloned().collect(),
        extensions: over.extensions.iter().map(|e| e.name.clone()).collect(),
        enums: over.enums.keys().cloned().collect(),
        constants: over.constants.keys().cloned().collect(),
        features: over.features.iter().map(|f| f.name.clone()).collect(),
    };
    apply_overlay(base, over);
    base.overlay_origin = Some(origin);
    finish(base, base_path)
}

/// Parses registry text without overlay or validation.
pub fn parse_str(text: &str, path: &Path, warnings: &mut Vec<String>) -> Result<Registry> {
    let doc = Document::parse_with_options(
        text,
        roxmltree::ParsingOptions {
            allow_dtd: true,
            ..Default::default()
        },
    )
    .map_err(|e| {
        let pos = e.pos();
        Error::Xml {
            path: path.to_owned(),
            line: pos.row,
            col: pos.col,
            message: e.to_string(),
        }
    })?;
    let root = doc.root_element();
    let line_starts: Vec<usize> = std::iter::once(0)
        .chain(
            text.bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i + 1),
        )
        .collect();
    let cx = Cx {
        path,
        text,
        line_starts,
    };
    if root.tag_name().name() != "registry" {
        return Err(cx.schema(
            root,
            format!(
                "root element is <{}>, expected <registry>",
                root.tag_name().name()
            ),
        ));
    }
    let mut reg = Registry {
        source_sha256: sha256_hex(text.as_bytes()),
        ..Registry::default()
    };
    for child in root.children().filter(Node::is_element) {
        match child.tag_name().name() {
            "types" => {
                for t in child.children().filter(Node::is_element) {
                    if t.tag_name().name() == "type" {
                        if !api_matches(t) {
                            continue;
                        }
                        let ty = cx.parse_type(t, warnings)?;
                        if ty.name == "VK_HEADER_VERSION" {
                            reg.header_version = header_version(t)
                                .ok_or_else(|| cx.schema(t, "bad VK_HEADER_VERSION".into()))?;
                        }
                        reg.types.insert(ty.name.clone(), ty);
                    }
                }
            }
            "enums" => cx.parse_enums(child, &mut reg, warnings)?,
            "commands" => {
                for c in child.children().filter(|n| n.has_tag_name("command")) {
                    if !api_matches(c) {
                        continue;
                    }
                    let cmd = cx.parse_command(c)?;
                    if !reg.commands.contains_key(&cmd.name) {
                        reg.command_order.push(cmd.name.clone());
                    }
                    reg.commands.insert(cmd.name.clone(), cmd);
                }
            }
            "feature" => {
                if let Some(f) = cx.parse_feature(child, warnings)? {
                    reg.features.push(f);
                }
            }
            "extensions" => {
                for e in child.children().filter(|n| n.has_tag_name("extension")) {
                    reg.extensions.push(cx.parse_extension(e, warnings)?);
                }
            }
            "comment" | "platforms" | "tags" | "formats" | "spirvextensions"
            | "spirvcapabilities" | "sync" | "videocodecs" => {}
            other => warnings.push(format!(
                "{}:{}: ignored unknown element <{other}>",
                path.display(),
                cx.line(child)
            )),
        }
    }
    Ok(reg)
}

/// Replaces vk.xml's elements by the overlay's elements of the same name and adds new ones.
fn apply_overlay(base: &mut Registry, over: Registry) {
    for (name, ty) in over.types {
        if base.types.get(&name).map(|t| &t.kind) != Some(&ty.kind) {
            base.overlay_changed.insert(name.clone());
        }
        base.types.insert(name, ty);
    }
    for (name, cmd) in over.commands {
        match base.commands.get(&name) {
            None => {
                base.command_order.push(name.clone());
                base.overlay_changed.insert(name.clone());
            }
            Some(old) if old.params != cmd.params || old.ret != cmd.ret => {
                base.overlay_changed.insert(name.clone());
            }
            Some(_) => {}
        }
        base.commands.insert(name, cmd);
    }
    base.enums.extend(over.enums);
    base.constants.extend(over.constants);
    for ext in over.extensions {
        match base.extensions.iter_mut().find(|e| e.name == ext.name) {
            Some(slot) => *slot = ext,
            None => base.extensions.push(ext),
        }
    }
    base.features.extend(over.features);
}

/// Merges values that features and extensions add to enum groups, then checks references.
fn finish(reg: &mut Registry, path: &Path) -> Result<()> {
    // Features add values with no owning extension; extensions tag theirs.
    let owners = reg
        .features
        .iter()
        .map(|f| (None, &f.requires))
        .chain(reg.extensions.iter().map(|x| (Some(&x.name), &x.requires)));
    let mut additions: Vec<(String, EnumValue)> = Vec::new();
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
            }
        }
    }
    // Names already in each group, so that merging stays linear in the registry's size.
    let mut present: std::collections::HashMap<String, std::collections::HashSet<String>> =
        std::collections::HashMap::new();
    for (group, value) in additions {
        if let Some(g) = reg.enums.get_mut(&group) {
            let names = present
                .entry(group)
                .or_insert_with(|| g.values.iter().map(|v| v.name.clone()).collect());
            if names.insert(value.name.clone()) {
                g.values.push(value);
            }
        }
    }
    validate(reg, path)
}

fn validate(reg: &Registry, path: &Path) -> Result<()> {
    // Elements the overlay contributed are reported against the overlay's file.
    let origin = reg.overlay_origin.as_ref();
    let file = |set: fn(&OverlayOrigin) -> &std::collections::BTreeSet<String>, name: &str| {
        origin
            .filter(|o| set(o).contains(name))
            .map_or_else(|| path.to_owned(), |o| o.path.clone())
    };
    let type_file = |n: &str| file(|o| &o.types, n);
    let command_file = |n: &str| file(|o| &o.commands, n);
    let schema = |path: PathBuf, line: u32, col: u32, message: String| Error::Schema {
        path,
        line,
        col,
        message,
    };
    let dangling = |path: PathBuf,
                    (line, col): (u32, u32),
                    element: String,
                    what: &'static str,
                    name: &str| Error::Dangling {
        path,
        line,
        col,
        element,
        what,
        name: name.to_owned(),
    };
    check_aliases(reg, path)?;
    let known_type = |n: &str| reg.types.contains_key(n) || reg.enums.contains_key(n);
    for ty in reg.types.values() {
        if let Some(a) = &ty.alias {
            if !reg.types.contains_key(a) {
                return Err(dangling(
                    type_file(&ty.name),
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
                        type_file(&ty.name),
                        ty.line,
                        ty.col,
                        format!("<type name=\"{}\"> member {}: {msg}", ty.name, m.name),
                    )
                })?;
            }
            if !known_type(&m.ty.base) {
                return Err(dangling(
                    type_file(&ty.name),
                    (ty.line, ty.col),
                    format!("<type name=\"{}\"> member {}", ty.name, m.name),
                    "type",
                    &m.ty.base,
                ));
            }
        }
    }
    for cmd in reg.commands.values() {
        if let Some(a) = &cmd.alias {
            if !reg.commands.contains_key(a) {
                return Err(dangling(
                    command_file(&cmd.name),
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
                        command_file(&cmd.name),
                        cmd.line,
                        cmd.col,
                        format!("<command> {} param {}: {msg}", cmd.name, p.name),
                    )
                })?;
            }
            if !known_type(&p.ty.base) {
                return Err(dangling(
                    command_file(&cmd.name),
                    (cmd.line, cmd.col),
                    format!("<command> {} param {}", cmd.name, p.name),
                    "type",
                    &p.ty.base,
                ));
            }
        }
        if !cmd.ret.base.is_empty() && !known_type(&cmd.ret.base) {
            return Err(dangling(
                command_file(&cmd.name),
                (cmd.line, cmd.col),
                format!("<command> {}", cmd.name),
                "type",
                &cmd.ret.base,
            ));
        }
    }
    let check_require = |owner: &str, file: PathBuf, pos: (u32, u32), r: &Require| -> Result<()> {
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
            if !known_type(t) {
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
    };
    for f in &reg.features {
        for r in &f.requires {
            check_require(&f.name, file(|o| &o.features, &f.name), (f.line, f.col), r)?;
        }
    }
    for x in &reg.extensions {
        if x.supported.iter().any(|s| s == "disabled") {
            continue;
        }
        let xfile = file(|o| &o.extensions, &x.name);
        for r in &x.requires {
            check_require(&x.name, xfile.clone(), (x.line, x.col), r)?;
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
                    .map_err(|m| schema(file(|o| &o.features, &f.name), e.line, e.col, m))?;
            }
        }
    }
    for g in reg.enums.values() {
        for v in &g.values {
            check_enum_range(g, &v.name, &v.value)
                .map_err(|m| schema(file(|o| &o.enums, &g.name), v.line, v.col, m))?;
        }
    }
    Ok(())
}

/// An enumerant must be representable in its group: `int` for enums, 32 or 64 bits for flags.
fn check_enum_range(g: &EnumGroup, name: &str, v: &EnumVal) -> std::result::Result<(), String> {
    let ok = match (v, g.bitmask, g.width64) {
        (EnumVal::Alias(_), ..) => true,
        (EnumVal::Bitpos(b), true, false) => *b < 32,
        (EnumVal::Bitpos(b), true, true) => *b < 64,
        (EnumVal::Bitpos(b), false, _) => *b < 31,
        (EnumVal::Value(x), true, false) => i32::try_from(*x).is_ok() || u32::try_from(*x).is_ok(),
        (EnumVal::Value(_), true, true) => true,
        (EnumVal::Value(x), false, _) => i32::try_from(*x).is_ok(),
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{name}: value {v:?} does not fit {} {}",
            if g.bitmask { "flags" } else { "enum" },
            g.name
        ))
    }
}

/// Every `alias=` chain (types, commands, API constants, enum values) ends at a definition within
/// [`MAX_ALIAS_CHAIN`] steps: a cycle or an overlong chain is an error naming its first element.
fn check_aliases(reg: &Registry, path: &Path) -> Result<()> {
    let origin = reg.overlay_origin.as_ref();
    let err = |set: fn(&OverlayOrigin) -> &std::collections::BTreeSet<String>,
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

/// `api="vulkan,vulkanbase"` keeps the element for Vulkan; absent means every API.
fn api_matches(n: Node) -> bool {
    match n.attribute("api") {
        None => true,
        Some(a) => a.split(',').any(|t| t.trim() == "vulkan"),
    }
}

fn api_list(n: Node) -> Vec<String> {
    n.attribute("api")
        .map(|a| a.split(',').map(|s| s.trim().to_owned()).collect())
        .unwrap_or_default()
}

fn header_version(n: Node) -> Option<u32> {
    let text: String = n
        .descendants()
        .filter(|d| d.is_text())
        .filter_map(|d| d.text())
        .collect();
    text.split_whitespace().last()?.parse().ok()
}

struct Cx<'a> {
    path: &'a Path,
    text: &'a str,
    /// Byte offset of each line start: roxmltree's `text_pos_at` rescans from the top each call.
    line_starts: Vec<usize>,
}

impl Cx<'_> {
    fn line(&self, n: Node) -> u32 {
        let pos = n.range().start;
        self.line_starts.partition_point(|&s| s <= pos) as u32
    }

    /// Literal array dimensions must be in `1..=MAX_ARRAY_LEN`; named ones are checked once the
    /// constants are known (`validate`).
    fn check_array(&self, n: Node, name: &str, ty: &CType) -> Result<()> {
        for a in &ty.array {
            if let ArrayLen::Literal(_) = a {
                // A constant-free registry suffices for a literal.
                array_len(&Registry::default(), a)
                    .map_err(|m| self.schema(n, format!("{}: {m}", clip(name))))?;
            }
        }
        Ok(())
    }

    /// `(line, column)` of the node's start; the column counts characters, as roxmltree's do.
    fn pos(&self, n: Node) -> (u32, u32) {
        let at = n.range().start;
        let line = self.line_starts.partition_point(|&s| s <= at);
        let start = self.line_starts[line.saturating_sub(1)];
        let col = self
            .text
            .get(start..at)
            .map_or(1, |t| t.chars().count() + 1);
        (line as u32, u32::try_from(col).unwrap_or(u32::MAX))
    }

    fn schema(&self, n: Node, message: String) -> Error {
        let (line, col) = self.pos(n);
        Error::Schema {
            path: self.path.to_owned(),
            line,
            col,
            message,
        }
    }

    /// A name that becomes a Rust identifier (or a linker symbol) must be a C identifier that
    /// vkgen can spell in Rust: `self` becomes `self_` where it is a member or parameter, and
    /// `Self`, `crate`, `super`, `_` and anything that is not a C identifier are refused here.
    fn check_name(&self, n: Node, what: &str, name: &str, rendered: &str) -> Result<()> {
        if let Err(why) = names::check_identifier(name, rendered) {
            return Err(self.schema(n, format!("{what} `{}`: {why}", clip(name))));
        }
        Ok(())
    }

    fn name_of(&self, n: Node) -> Result<String> {
        if let Some(name) = n.attribute("name") {
            return Ok(name.to_owned());
        }
        n.children()
            .find(|c| c.has_tag_name("name"))
            .and_then(|c| c.text())
            .map(|s| s.trim().to_owned())
            .or_else(|| {
                n.children()
                    .find(|c| c.has_tag_name("proto"))
                    .and_then(|p| {
                        p.children()
                            .find(|c| c.has_tag_name("name"))
                            .and_then(|c| c.text())
                            .map(|s| s.trim().to_owned())
                    })
            })
            .ok_or_else(|| self.schema(n, format!("<{}> without a name", n.tag_name().name())))
    }

    fn parse_type(&self, t: Node, warnings: &mut Vec<String>) -> Result<Type> {
        let name = self.name_of(t)?;
        let (line, col) = self.pos(t);
        let category = t.attribute("category");
        if category != Some("include") {
            self.check_name(t, "type", &name, &names::type_name(&name))?;
        }
        let alias = t.attribute("alias").map(str::to_owned);
        let requires = t.attribute("requires").map(str::to_owned);
        let kind = match category {
            _ if alias.is_some() => match category {
                Some("struct") => TypeKind::Struct(Aggregate::default()),
                Some("union") => TypeKind::Union(Aggregate::default()),
                Some("handle") => TypeKind::Handle {
                    dispatchable: false,
                    parent: None,
                    object_type: None,
                },
                Some("enum") => TypeKind::Enum,
                Some("bitmask") => TypeKind::Bitmask {
                    bits: None,
                    width64: false,
                },
                _ => TypeKind::External,
            },
            None => TypeKind::External,
            Some("include") => TypeKind::Include,
            Some("define") => TypeKind::Define,
            Some("basetype") => {
                let toks = cdecl::tokenize(t);
                let underlying = toks.iter().find_map(|k| match k {
                    cdecl::Token::Type(s) => Some(s.clone()),
                    _ => None,
                });
                let pointer = toks.contains(&cdecl::Token::Punct('*'));
                TypeKind::Basetype {
                    underlying,
                    pointer,
                }
            }
            Some("bitmask") => {
                let toks = cdecl::tokenize(t);
                let width64 = toks
                    .iter()
                    .any(|k| matches!(k, cdecl::Token::Type(s) if s == "VkFlags64"));
                let bits = t
                    .attribute("bitvalues")
                    .or(t.attribute("requires"))
                    .map(str::to_owned);
                TypeKind::Bitmask { bits, width64 }
            }
            Some("handle") => {
                let toks = cdecl::tokenize(t);
                let dispatchable = toks
                    .iter()
                    .any(|k| matches!(k, cdecl::Token::Type(s) if s == "VK_DEFINE_HANDLE"));
                TypeKind::Handle {
                    dispatchable,
                    parent: t.attribute("parent").map(str::to_owned),
                    object_type: t.attribute("objtypeenum").map(str::to_owned),
                }
            }
            Some("enum") => TypeKind::Enum,
            Some(c @ ("struct" | "union")) => {
                let mut members = Vec::new();
                for m in t.children().filter(|n| n.has_tag_name("member")) {
                    if !api_matches(m) {
                        continue;
                    }
                    members.push(self.parse_field(m)?);
                }
                let agg = Aggregate {
                    members,
                    returned_only: t.attribute("returnedonly") == Some("true"),
                    extends: t
                        .attribute("structextends")
                        .map(|s| s.split(',').map(str::to_owned).collect())
                        .unwrap_or_default(),
                };
                if c == "struct" {
                    TypeKind::Struct(agg)
                } else {
                    TypeKind::Union(agg)
                }
            }
            Some("funcpointer") => {
                if let Some(proto) = t.children().find(|c| c.has_tag_name("proto")) {
                    let (_, ret) = cdecl::parse_proto(&cdecl::tokenize(proto))
                        .map_err(|m| self.schema(proto, m))?;
                    let mut params = Vec::new();
                    for p in t.children().filter(|c| c.has_tag_name("param")) {
                        params.push(self.parse_field(p)?);
                    }
                    TypeKind::Funcpointer { ret, params }
                } else {
                    let (_, ret, params) = cdecl::parse_old_funcpointer(&cdecl::tokenize(t))
                        .map_err(|m| self.schema(t, m))?;
                    for p in &params {
                        self.check_name(t, "parameter", &p.name, &names::field_name(&p.name))?;
                        self.check_array(t, &p.name, &p.ty)?;
                    }
                    TypeKind::Funcpointer { ret, params }
                }
            }
            Some(other) => {
                return Err(self.schema(t, format!("unknown type category `{other}` for {name}")))
            }
        };
        let _ = warnings;
        Ok(Type {
            name,
            alias,
            kind,
            requires,
            line,
            col,
        })
    }

    fn parse_field(&self, m: Node) -> Result<Field> {
        let (name, ty) =
            cdecl::parse_decl(&cdecl::tokenize(m)).map_err(|msg| self.schema(m, msg))?;
        self.check_name(m, "member", &name, &names::field_name(&name))?;
        self.check_array(m, &name, &ty)?;
        Ok(Field {
            name,
            ty,
            len: m.attribute("len").map(str::to_owned),
            optional: m
                .attribute("optional")
                .is_some_and(|o| o.starts_with("true")),
            values: m.attribute("values").map(str::to_owned),
        })
    }

    fn parse_enums(&self, n: Node, reg: &mut Registry, warnings: &mut Vec<String>) -> Result<()> {
        let name = n
            .attribute("name")
            .ok_or_else(|| self.schema(n, "<enums> without a name".into()))?;
        let kind = n.attribute("type");
        if kind == Some("constants") || name == "API Constants" {
            for e in n.children().filter(|c| c.has_tag_name("enum")) {
                if !api_matches(e) {
                    continue;
                }
                let cname = self.name_of(e)?;
                self.check_name(e, "constant", &cname, &names::constant_name(&cname))?;
                let (line, col) = self.pos(e);
                reg.constants.insert(
                    cname.clone(),
                    Constant {
                        name: cname,
                        ty: e.attribute("type").unwrap_or("uint32_t").to_owned(),
                        value: e.attribute("value").unwrap_or("").to_owned(),
                        alias: e.attribute("alias").map(str::to_owned),
                        line,
                        col,
                    },
                );
            }
            return Ok(());
        }
        self.check_name(n, "enum group", name, &names::type_name(name))?;
        let bitmask = match kind {
            Some("bitmask") => true,
            Some("enum") | None => false,
            Some(other) => {
                warnings.push(format!(
                    "{}:{}: <enums type=\"{other}\"> treated as enum",
                    self.path.display(),
                    self.line(n)
                ));
                false
            }
        };
        let mut values = Vec::new();
        for e in n.children().filter(|c| c.has_tag_name("enum")) {
            if !api_matches(e) {
                continue;
            }
            let vname = self.name_of(e)?;
            self.check_name(e, "enum", &vname, &names::variant_name(name, &vname))?;
            let value = self
                .enum_val(e, None)?
                .ok_or_else(|| self.schema(e, format!("enum {vname} has no value")))?;
            let (line, col) = self.pos(e);
            values.push(EnumValue {
                name: vname,
                value,
                extension: None,
                line,
                col,
            });
        }
        reg.enums.insert(
            name.to_owned(),
            EnumGroup {
                name: name.to_owned(),
                bitmask,
                width64: n.attribute("bitwidth") == Some("64"),
                values,
            },
        );
        Ok(())
    }

    /// The value of an `<enum>`: `value=`, `bitpos=`, `offset=` (+`extnumber=`, `dir=`) or `alias=`.
    fn enum_val(&self, e: Node, ext_number: Option<u32>) -> Result<Option<EnumVal>> {
        if let Some(v) = e.attribute("value") {
            let c = parse_c_literal(v)
                .ok_or_else(|| self.schema(e, format!("bad integer literal `{}`", clip(v))))?;
            // Enumerants are `int` (or a 64-bit flag): anything wider is a wrong value, not data.
            let value = i64::try_from(c.value)
                .ok()
                .or_else(|| u64::try_from(c.value).ok().map(|u| u as i64))
                .ok_or_else(|| {
                    self.schema(e, format!("value `{}` does not fit 64 bits", clip(v)))
                })?;
            return Ok(Some(EnumVal::Value(value)));
        }
        if let Some(b) = e.attribute("bitpos") {
            let b: u32 = b
                .parse()
                .map_err(|_| self.schema(e, format!("bad bitpos `{}`", clip(b))))?;
            if b >= 64 {
                return Err(self.schema(e, format!("bitpos {b} out of range")));
            }
            return Ok(Some(EnumVal::Bitpos(b)));
        }
        if let Some(off) = e.attribute("offset") {
            // `1000000000 + (extnumber - 1) * 1000 + offset`: offset picks one of the extension's
            // 1000 values, and the result must be an `int` enumerant.
            let off: i64 = off
                .parse()
                .ok()
                .filter(|o| (0..1000).contains(o))
                .ok_or_else(|| self.schema(e, format!("bad offset `{}` (0..=999)", clip(off))))?;
            let number = match e.attribute("extnumber") {
                Some(n) => n
                    .parse::<i64>()
                    .ok()
                    .filter(|&n| n >= 1)
                    .ok_or_else(|| self.schema(e, format!("bad extnumber `{}`", clip(n))))?,
                None => i64::from(
                    ext_number
                        .ok_or_else(|| self.schema(e, "offset enum outside an extension".into()))?,
                ),
            };
            let v = (number - 1)
                .checked_mul(1000)
                .and_then(|x| x.checked_add(1_000_000_000 + off))
                .filter(|&v| v <= i64::from(i32::MAX))
                .ok_or_else(|| {
                    self.schema(
                        e,
                        format!("extnumber {number} with offset {off} does not fit an enumerant"),
                    )
                })?;
            return Ok(Some(EnumVal::Value(if e.attribute("dir") == Some("-") {
                -v
            } else {
                v
            })));
        }
        if let Some(a) = e.attribute("alias") {
            return Ok(Some(EnumVal::Alias(a.to_owned())));
        }
        Ok(None)
    }

    fn parse_command(&self, c: Node) -> Result<Command> {
        let (line, col) = self.pos(c);
        if let Some(alias) = c.attribute("alias") {
            let name = c
                .attribute("name")
                .ok_or_else(|| self.schema(c, "aliased <command> without name".into()))?;
            self.check_name(c, "command", name, &names::command_field(name))?;
            return Ok(Command {
                name: name.to_owned(),
                alias: Some(alias.to_owned()),
                ret: CType::default(),
                params: Vec::new(),
                success_codes: Vec::new(),
                error_codes: Vec::new(),
                line,
                col,
            });
        }
        let proto = c
            .children()
            .find(|n| n.has_tag_name("proto"))
            .ok_or_else(|| self.schema(c, "<command> without <proto>".into()))?;
        let (name, ret) =
            cdecl::parse_proto(&cdecl::tokenize(proto)).map_err(|m| self.schema(proto, m))?;
        self.check_name(proto, "command", &name, &names::command_field(&name))?;
        let mut params = Vec::new();
        for p in c.children().filter(|n| n.has_tag_name("param")) {
            if !api_matches(p) {
                continue;
            }
            params.push(self.parse_field(p)?);
        }
        let codes = |a: &str| -> Vec<String> {
            c.attribute(a)
                .map(|s| s.split(',').map(str::to_owned).collect())
                .unwrap_or_default()
        };
        Ok(Command {
            name,
            alias: None,
            ret,
            params,
            success_codes: codes("successcodes"),
            error_codes: codes("errorcodes"),
            line,
            col,
        })
    }

    fn parse_require(
        &self,
        r: Node,
        ext_number: Option<u32>,
        warnings: &mut Vec<String>,
    ) -> Result<Require> {
        // Older registries spell the condition as feature=/extension= attributes.
        let mut conds: Vec<String> = Vec::new();
        if let Some(d) = r.attribute("depends") {
            conds.push(d.to_owned());
        }
        if let Some(f) = r.attribute("feature") {
            conds.push(f.to_owned());
        }
        if let Some(x) = r.attribute("extension") {
            conds.push(x.to_owned());
        }
        let depends = match conds.len() {
            0 => None,
            1 => conds.pop(),
            _ => Some(
                conds
                    .iter()
                    .map(|c| format!("({c})"))
                    .collect::<Vec<_>>()
                    .join("+"),
            ),
        };
        if let Some(d) = &depends {
            depends::Expr::parse(d).map_err(|m| self.schema(r, m))?;
        }
        let mut req = Require {
            depends,
            api: api_list(r),
            ..Default::default()
        };
        for item in r.children().filter(Node::is_element) {
            if !api_matches(item) {
                continue;
            }
            match item.tag_name().name() {
                "type" => req.types.push(self.name_of(item)?),
                "command" => req.commands.push(self.name_of(item)?),
                "enum" => {
                    let name = self.name_of(item)?;
                    let extends = item.attribute("extends").map(str::to_owned);
                    let value = match &extends {
                        Some(group) => {
                            self.check_name(
                                item,
                                "enum",
                                &name,
                                &names::variant_name(group, &name),
                            )?;
                            self.enum_val(item, ext_number)?
                        }
                        None => {
                            self.check_name(item, "enum", &name, &name)?;
                            None
                        }
                    };
                    let (line, col) = self.pos(item);
                    req.enums.push(RequiredEnum {
                        name,
                        extends,
                        value,
                        literal: item.attribute("value").map(str::to_owned),
                        line,
                        col,
                    });
                }
                "comment" | "feature" => {}
                other => warnings.push(format!(
                    "{}:{}: ignored unknown <{other}> in <require>",
                    self.path.display(),
                    self.line(item)
                )),
            }
        }
        Ok(req)
    }

    fn parse_feature(&self, f: Node, warnings: &mut Vec<String>) -> Result<Option<Feature>> {
        let name = self.name_of(f)?;
        self.check_name(f, "feature", &name, &name)?;
        let api = api_list(f);
        if !api.iter().any(|a| a == "vulkan") {
            return Ok(None);
        }
        let number = f
            .attribute("number")
            .ok_or_else(|| self.schema(f, format!("feature {name} without number")))?;
        // Vulkan starts at 1.0: a 0.x feature would leave no version to generate for.
        let version = parse_version(number)
            .filter(|&(major, _)| major >= 1)
            .ok_or_else(|| {
                self.schema(
                    f,
                    format!(
                        "bad feature number `{}` (MAJOR.MINOR, 1 <= major <= {MAX_MAJOR}, minor <= {MAX_MINOR})",
                        clip(number)
                    ),
                )
            })?;
        let mut requires = Vec::new();
        let mut removes = Vec::new();
        for r in f.children().filter(Node::is_element) {
            match r.tag_name().name() {
                "require" if api_matches(r) => {
                    requires.push(self.parse_require(r, None, warnings)?)
                }
                "remove" if api_matches(r) => removes.push(self.parse_require(r, None, warnings)?),
                "require" | "remove" | "comment" | "deprecate" => {}
                other => warnings.push(format!(
                    "{}:{}: ignored <{other}> in feature",
                    self.path.display(),
                    self.line(r)
                )),
            }
        }
        Ok(Some(Feature {
            name,
            api,
            version,
            internal: f.attribute("apitype") == Some("internal"),
            depends: f.attribute("depends").map(str::to_owned),
            requires,
            removes,
            line: self.pos(f).0,
            col: self.pos(f).1,
        }))
    }

    fn parse_extension(&self, e: Node, warnings: &mut Vec<String>) -> Result<Extension> {
        let name = self.name_of(e)?;
        self.check_name(e, "extension", &name, &name)?;
        let number = match e.attribute("number") {
            Some(n) => n.parse().ok().filter(|&n: &u32| n >= 1).ok_or_else(|| {
                self.schema(e, format!("extension {name}: bad number `{}`", clip(n)))
            })?,
            None => return Err(self.schema(e, format!("extension {name} without number"))),
        };
        let kind = match e.attribute("type") {
            Some("instance") => Some(ExtensionKind::Instance),
            Some("device") => Some(ExtensionKind::Device),
            None => None,
            Some(other) => {
                return Err(self.schema(e, format!("extension {name}: unknown type `{other}`")))
            }
        };
        let mut depends_parts: Vec<String> = Vec::new();
        if let Some(d) = e.attribute("depends") {
            depends_parts.push(d.to_owned());
        } else {
            // Pre-1.3.2xx: requires="A,B" (all needed) and requiresCore="1.1".
            if let Some(r) = e.attribute("requires") {
                depends_parts.extend(r.split(',').map(str::to_owned));
            }
            if let Some(c) = e.attribute("requiresCore") {
                if c != "1.0" {
                    depends_parts.push(format!("VK_VERSION_{}", c.replace('.', "_")));
                }
            }
        }
        let depends = if depends_parts.is_empty() {
            None
        } else if depends_parts.len() == 1 {
            depends_parts.pop()
        } else {
            Some(
                depends_parts
                    .iter()
                    .map(|p| format!("({p})"))
                    .collect::<Vec<_>>()
                    .join("+"),
            )
        };
        if let Some(d) = &depends {
            depends::Expr::parse(d)
                .map_err(|m| self.schema(e, format!("extension {name}: {m}")))?;
        }
        let mut requires = Vec::new();
        for r in e.children().filter(Node::is_element) {
            match r.tag_name().name() {
                "require" if api_matches(r) => {
                    requires.push(self.parse_require(r, Some(number), warnings)?)
                }
                "require" | "remove" | "comment" | "deprecate" => {}
                other => warnings.push(format!(
                    "{}:{}: ignored <{other}> in extension",
                    self.path.display(),
                    self.line(r)
                )),
            }
        }
        // A spec version that is not a number is an error, not a silent 0.
        let spec_version = match requires
            .iter()
            .flat_map(|r| &r.enums)
            .find(|en| en.name.ends_with("_SPEC_VERSION") && en.literal.is_some())
        {
            Some(en) => match en.literal.as_deref() {
                Some(l) => l.trim_matches('"').parse().map_err(|_| Error::Schema {
                    path: self.path.to_owned(),
                    line: en.line,
                    col: en.col,
                    message: format!(
                        "extension {name}: spec version `{}` is not a number",
                        clip(l)
                    ),
                })?,
                None => 0,
            },
            None => 0,
        };
        Ok(Extension {
            name,
            number,
            kind,
            supported: e
                .attribute("supported")
                .unwrap_or("")
                .split(',')
                .map(str::to_owned)
                .collect(),
            platform: e.attribute("platform").map(str::to_owned),
            author: e.attribute("author").map(str::to_owned),
            depends,
            promoted_to: e.attribute("promotedto").map(str::to_owned),
            deprecated_by: e
                .attribute("deprecatedby")
                .filter(|s| !s.is_empty())
                .map(str::to_owned),
            obsoleted_by: e
                .attribute("obsoletedby")
                .filter(|s| !s.is_empty())
                .map(str::to_owned),
            provisional: e.attribute("provisional") == Some("true"),
            spec_version,
            requires,
            line: self.pos(e).0,
            col: self.pos(e).1,
        })
    }
}

/// C integer literals as vk.xml writes them: `42`, `0x7FFFFFFF`, `-1`, `(~0U)`, `(~0ULL)`, `(~0U-1)`,
/// with any of the suffixes `U L UL LU LL ULL LLU` (either case). The value is the C value in its
/// C type, as an `i64` bit pattern for `unsigned long long` values above `i64::MAX`. Anything else
/// (floats, strings, other expressions) is `None`. See [`parse_c_literal`] for the exact value.
pub fn parse_c_int(s: &str) -> Option<i64> {
    let v = parse_c_literal(s)?;
    i64::try_from(v.value)
        .ok()
        .or_else(|| u64::try_from(v.value).ok().map(|u| u as i64))
}

/// An integer constant expression of vk.xml, evaluated with C's rules (LP64).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CInt {
    /// The exact value (never wrapped to `i64`).
    pub value: i128,
    /// 32 or 64.
    pub bits: u32,
    pub unsigned: bool,
}

impl CInt {
    fn wrap(value: i128, bits: u32, unsigned: bool) -> CInt {
        let m = 1i128 << bits;
        let mut v = value.rem_euclid(m);
        if !unsigned && v >= m / 2 {
            v -= m;
        }
        CInt {
            value: v,
            bits,
            unsigned,
        }
    }
}

/// Longest literal text `parse_c_literal` looks at; vk.xml's longest is 26 characters.
pub const MAX_LITERAL_LEN: usize = 64;

/// Parses the literal forms listed at [`parse_c_int`] exactly. Iterative and bounded: at most
/// [`MAX_LITERAL_LEN`] characters, one binary `+`/`-`, one unary operator per operand.
pub fn parse_c_literal(s: &str) -> Option<CInt> {
    let s = s.trim();
    if s.len() > MAX_LITERAL_LEN {
        return None;
    }
    let s = strip_parens(s)?;
    // A binary `-`/`+` after the first character (not an exponent: floats are refused anyway).
    let op = s
        .char_indices()
        .skip(1)
        .find(|&(i, c)| (c == '-' || c == '+') && !s[..i].trim_end().ends_with(['-', '+', '~']));
    match op {
        None => operand(s),
        Some((i, c)) => {
            let a = operand(strip_parens(s[..i].trim())?)?;
            let b = operand(strip_parens(s[i + 1..].trim())?)?;
            // Usual arithmetic conversions: the wider type; unsigned wins at equal width.
            let bits = a.bits.max(b.bits);
            let unsigned = (a.bits == bits && a.unsigned) || (b.bits == bits && b.unsigned);
            let v = if c == '-' {
                a.value - b.value
            } else {
                a.value + b.value
            };
            Some(CInt::wrap(v, bits, unsigned))
        }
    }
}

fn strip_parens(mut s: &str) -> Option<&str> {
    while let Some(inner) = s.strip_prefix('(') {
        s = inner.strip_suffix(')')?.trim();
    }
    (!s.is_empty() && !s.contains(['(', ')'])).then_some(s)
}

/// `[~|-]` literal with suffix.
fn operand(s: &str) -> Option<CInt> {
    let s = s.trim();
    if let Some(rest) = s.strip_prefix('~') {
        let v = literal(strip_parens(rest.trim())?)?;
        return Some(CInt::wrap(!v.value, v.bits, v.unsigned));
    }
    if let Some(rest) = s.strip_prefix('-') {
        let v = literal(strip_parens(rest.trim())?)?;
        return Some(CInt::wrap(-v.value, v.bits, v.unsigned));
    }
    literal(s)
}

/// One integer literal: decimal or `0x` hex digits, then a suffix. C picks the type: the first of
/// int, unsigned int (hex only), long, unsigned long (hex only) that holds the value, from the
/// suffix's minimum up.
fn literal(s: &str) -> Option<CInt> {
    let (digits, radix) = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => (h, 16),
        None => (s, 10),
    };
    let end = digits
        .find(|c: char| !c.is_digit(radix))
        .unwrap_or(digits.len());
    let (num, suffix) = digits.split_at(end);
    if num.is_empty() {
        return None;
    }
    let (u, l) = match suffix.to_ascii_uppercase().as_str() {
        "" => (false, false),
        "U" => (true, false),
        "L" | "LL" => (false, true),
        "UL" | "LU" | "ULL" | "LLU" => (true, true),
        _ => return None,
    };
    if radix == 10 && num.len() > 1 && num.starts_with('0') {
        return None; // octal: not a form vk.xml uses
    }
    let v = u64::from_str_radix(num, radix).ok()? as i128;
    let candidates: &[(u32, bool)] = match (u, l, radix == 16) {
        (false, false, false) => &[(32, false), (64, false)],
        (false, false, true) => &[(32, false), (32, true), (64, false), (64, true)],
        (true, false, _) => &[(32, true), (64, true)],
        (false, true, false) => &[(64, false)],
        (false, true, true) => &[(64, false), (64, true)],
        (true, true, _) => &[(64, true)],
    };
    candidates.iter().find_map(|&(bits, unsigned)| {
        let max = if unsigned {
            (1i128 << bits) - 1
        } else {
            (1i128 << (bits - 1)) - 1
        };
        (v <= max).then_some(CInt {
            value: v,
            bits,
            unsigned,
        })
    })
}

/// The integer value of API constant `name`, following aliases (loading rejects alias cycles
/// and chains longer than [`MAX_ALIAS_CHAIN`]).
pub fn constant_value(reg: &Registry, name: &str) -> Option<i64> {
    let mut c = reg.constants.get(name)?;
    for _ in 0..=MAX_ALIAS_CHAIN {
        match &c.alias {
            Some(a) => c = reg.constants.get(a)?,
            None => return parse_c_int(&c.value),
        }
    }
    None
}

/// Largest array dimension vkgen accepts (vk.xml's largest is 256).
pub const MAX_ARRAY_LEN: u64 = 1 << 16;

/// The length of an array dimension, or why it has none.
pub fn array_len(reg: &Registry, len: &ArrayLen) -> std::result::Result<usize, String> {
    let v = match len {
        ArrayLen::Literal(n) => u64::from(*n),
        ArrayLen::Constant(c) => {
            let k = reg
                .constants
                .get(c)
                .ok_or_else(|| format!("array length `{}` is not a defined constant", clip(c)))?;
            let v = constant_value(reg, c).ok_or_else(|| {
                format!("array length {c} = `{}` is not an integer", clip(&k.value))
            })?;
            u64::try_from(v).map_err(|_| format!("array length {c} = {v} is negative"))?
        }
    };
    if v == 0 || v > MAX_ARRAY_LEN {
        return Err(format!("array length {v} is outside 1..={MAX_ARRAY_LEN}"));
    }
    Ok(v as usize)
}

/// At most 80 characters of `s`, for messages about hostile input.
fn clip(s: &str) -> String {
    match s.char_indices().nth(80) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}

/// Where a registry came from, reported to the user.
#[derive(Debug, Clone)]
pub struct Source {
    pub path: PathBuf,
    pub how: &'static str,
}

/// Picks the registry: the explicit path, else `$VKGEN_REGISTRY`, else Debian's vk.xml.
pub fn locate(explicit: Option<&Path>) -> Source {
    if let Some(p) = explicit {
        return Source {
            path: p.to_owned(),
            how: "--registry",
        };
    }
    if let Some(p) = std::env::var_os("VKGEN_REGISTRY") {
        return Source {
            path: PathBuf::from(p),
            how: "$VKGEN_REGISTRY",
        };
    }
    Source {
        path: PathBuf::from(DEBIAN_REGISTRY),
        how: "Debian's libvulkan-dev",
    }
}

pub const DEBIAN_REGISTRY: &str = "/usr/share/vulkan/registry/vk.xml";

/// Enum value helper shared by emitters: the integer an `EnumVal` stands for within its group.
/// Loading rejects alias cycles and chains longer than [`MAX_ALIAS_CHAIN`]; `depth` is the number
/// of aliases already followed.
pub fn enum_value(group: &EnumGroup, v: &EnumVal, depth: u32) -> Option<i64> {
    let mut v = v;
    for _ in (depth as usize)..=MAX_ALIAS_CHAIN {
        match v {
            EnumVal::Value(x) => return Some(*x),
            EnumVal::Bitpos(b) => return 1i64.checked_shl(*b),
            EnumVal::Alias(a) => v = &group.values.iter().find(|x| &x.name == a)?.value,
        }
    }
    None
}
