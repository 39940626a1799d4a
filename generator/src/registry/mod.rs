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

/// The parsed registry plus what the parser had to say about it.
#[derive(Debug)]
pub struct Loaded {
    pub registry: Registry,
    pub warnings: Vec<String>,
}

/// Reads and parses `vk_xml`, then lays `overlay` (our Android native-buffer description) over it.
pub fn load(vk_xml: &Path, overlay: Option<&Path>) -> Result<Loaded> {
    let text = std::fs::read_to_string(vk_xml).map_err(|e| Error::io(vk_xml, e))?;
    let mut warnings = Vec::new();
    let mut registry = parse_str(&text, vk_xml, &mut warnings)?;
    if let Some(path) = overlay {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        let over = parse_str(&text, path, &mut warnings)?;
        overlay_and_finish(&mut registry, over, vk_xml)?;
    } else {
        finish(&mut registry, vk_xml)?;
    }
    Ok(Loaded { registry, warnings })
}

/// Lays `over` over `base` by element name, then merges enum additions and checks references.
pub fn overlay_and_finish(base: &mut Registry, over: Registry, path: &Path) -> Result<()> {
    apply_overlay(base, over);
    finish(base, path)
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
    let cx = Cx { path, line_starts };
    if root.tag_name().name() != "registry" {
        return Err(cx.schema(
            root,
            format!(
                "root element is <{}>, expected <registry>",
                root.tag_name().name()
            ),
        ));
    }
    let mut reg = Registry::default();
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
                };
                additions.push((group.clone(), value));
            }
        }
    }
    for (group, value) in additions {
        if let Some(g) = reg.enums.get_mut(&group) {
            if !g.values.iter().any(|v| v.name == value.name) {
                g.values.push(value);
            }
        }
    }
    validate(reg, path)
}

fn validate(reg: &Registry, path: &Path) -> Result<()> {
    let dangling = |line: u32, element: String, what: &'static str, name: &str| Error::Dangling {
        path: path.to_owned(),
        line,
        element,
        what,
        name: name.to_owned(),
    };
    let known_type = |n: &str| reg.types.contains_key(n) || reg.enums.contains_key(n);
    for ty in reg.types.values() {
        if let Some(a) = &ty.alias {
            if !reg.types.contains_key(a) {
                return Err(dangling(
                    ty.line,
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
            if !known_type(&m.ty.base) {
                return Err(dangling(
                    ty.line,
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
                    cmd.line,
                    format!("<command name=\"{}\">", cmd.name),
                    "command",
                    a,
                ));
            }
        }
        for p in &cmd.params {
            if !known_type(&p.ty.base) {
                return Err(dangling(
                    cmd.line,
                    format!("<command> {} param {}", cmd.name, p.name),
                    "type",
                    &p.ty.base,
                ));
            }
        }
        if !cmd.ret.base.is_empty() && !known_type(&cmd.ret.base) {
            return Err(dangling(
                cmd.line,
                format!("<command> {}", cmd.name),
                "type",
                &cmd.ret.base,
            ));
        }
    }
    let check_require = |owner: &str, line: u32, r: &Require| -> Result<()> {
        for c in &r.commands {
            if !reg.commands.contains_key(c) {
                return Err(dangling(
                    line,
                    format!("<require> of {owner}"),
                    "command",
                    c,
                ));
            }
        }
        for t in &r.types {
            if !known_type(t) {
                return Err(dangling(line, format!("<require> of {owner}"), "type", t));
            }
        }
        Ok(())
    };
    for f in &reg.features {
        for r in &f.requires {
            check_require(&f.name, 0, r)?;
        }
    }
    for x in &reg.extensions {
        if x.supported.iter().any(|s| s == "disabled") {
            continue;
        }
        for r in &x.requires {
            check_require(&x.name, x.line, r)?;
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
    /// Byte offset of each line start: roxmltree's `text_pos_at` rescans from the top each call.
    line_starts: Vec<usize>,
}

impl Cx<'_> {
    fn line(&self, n: Node) -> u32 {
        let pos = n.range().start;
        self.line_starts.partition_point(|&s| s <= pos) as u32
    }

    fn schema(&self, n: Node, message: String) -> Error {
        Error::Schema {
            path: self.path.to_owned(),
            line: self.line(n),
            message,
        }
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
        let line = self.line(t);
        let category = t.attribute("category");
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
        })
    }

    fn parse_field(&self, m: Node) -> Result<Field> {
        let (name, ty) =
            cdecl::parse_decl(&cdecl::tokenize(m)).map_err(|msg| self.schema(m, msg))?;
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
                reg.constants.insert(
                    cname.clone(),
                    Constant {
                        name: cname,
                        ty: e.attribute("type").unwrap_or("uint32_t").to_owned(),
                        value: e.attribute("value").unwrap_or("").to_owned(),
                        alias: e.attribute("alias").map(str::to_owned),
                    },
                );
            }
            return Ok(());
        }
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
            let value = self
                .enum_val(e, None)?
                .ok_or_else(|| self.schema(e, format!("enum {vname} has no value")))?;
            values.push(EnumValue {
                name: vname,
                value,
                extension: None,
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
            return Ok(parse_c_int(v).map(EnumVal::Value));
        }
        if let Some(b) = e.attribute("bitpos") {
            let b: u32 = b
                .parse()
                .map_err(|_| self.schema(e, format!("bad bitpos `{b}`")))?;
            if b >= 64 {
                return Err(self.schema(e, format!("bitpos {b} out of range")));
            }
            return Ok(Some(EnumVal::Bitpos(b)));
        }
        if let Some(off) = e.attribute("offset") {
            let off: i64 = off
                .parse()
                .map_err(|_| self.schema(e, format!("bad offset `{off}`")))?;
            let number = match e.attribute("extnumber") {
                Some(n) => n
                    .parse::<i64>()
                    .map_err(|_| self.schema(e, format!("bad extnumber `{n}`")))?,
                None => ext_number
                    .ok_or_else(|| self.schema(e, "offset enum outside an extension".into()))?
                    as i64,
            };
            let v = 1_000_000_000 + (number - 1) * 1000 + off;
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
        let line = self.line(c);
        if let Some(alias) = c.attribute("alias") {
            let name = c
                .attribute("name")
                .ok_or_else(|| self.schema(c, "aliased <command> without name".into()))?;
            return Ok(Command {
                name: name.to_owned(),
                alias: Some(alias.to_owned()),
                ret: CType::default(),
                params: Vec::new(),
                success_codes: Vec::new(),
                error_codes: Vec::new(),
                line,
            });
        }
        let proto = c
            .children()
            .find(|n| n.has_tag_name("proto"))
            .ok_or_else(|| self.schema(c, "<command> without <proto>".into()))?;
        let (name, ret) =
            cdecl::parse_proto(&cdecl::tokenize(proto)).map_err(|m| self.schema(proto, m))?;
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
                    let value = if extends.is_some() {
                        self.enum_val(item, ext_number)?
                    } else {
                        None
                    };
                    req.enums.push(RequiredEnum {
                        name,
                        extends,
                        value,
                        literal: item.attribute("value").map(str::to_owned),
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
        let api = api_list(f);
        if !api.iter().any(|a| a == "vulkan") {
            return Ok(None);
        }
        let number = f
            .attribute("number")
            .ok_or_else(|| self.schema(f, format!("feature {name} without number")))?;
        let version = parse_version(number)
            .ok_or_else(|| self.schema(f, format!("bad feature number `{number}`")))?;
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
        }))
    }

    fn parse_extension(&self, e: Node, warnings: &mut Vec<String>) -> Result<Extension> {
        let name = self.name_of(e)?;
        let number = match e.attribute("number") {
            Some(n) => n
                .parse()
                .map_err(|_| self.schema(e, format!("extension {name}: bad number `{n}`")))?,
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
        let spec_version = requires
            .iter()
            .flat_map(|r| &r.enums)
            .find(|en| en.name.ends_with("_SPEC_VERSION"))
            .and_then(|en| en.literal.as_deref())
            .and_then(|l| l.trim_matches('"').parse().ok())
            .unwrap_or(0);
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
            line: self.line(e),
        })
    }
}

/// C integer literals as vk.xml writes them: `42`, `0x10`, `-1`, `(~0U)`, `(~0ULL)`, `(~1U)`.
pub fn parse_c_int(s: &str) -> Option<i64> {
    let s = s.trim().trim_start_matches('(').trim_end_matches(')');
    let s = s.trim_end_matches(['U', 'L', 'u', 'l', 'F', 'f']);
    if let Some(rest) = s.strip_prefix('~') {
        return parse_c_int(rest).map(|v| !v);
    }
    if let Some(hex) = s.strip_prefix("0x") {
        return i64::from_str_radix(hex, 16).ok();
    }
    s.parse().ok()
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
pub fn enum_value(group: &EnumGroup, v: &EnumVal, depth: u32) -> Option<i64> {
    match v {
        EnumVal::Value(x) => Some(*x),
        EnumVal::Bitpos(b) => Some(1i64.checked_shl(*b)?),
        EnumVal::Alias(a) if depth < 8 => {
            let target = group.values.iter().find(|x| &x.name == a)?;
            enum_value(group, &target.value, depth + 1)
        }
        EnumVal::Alias(_) => None,
    }
}
