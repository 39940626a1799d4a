//! Enumerant blocks and the interface blocks of features and extensions (`<require>`, `<remove>`):
//! the values they define and the names they pull in. Separate from `parse.rs` because these
//! carry the enumerant arithmetic (`offset=`, `extnumber=`, `bitpos=`) and the dependency
//! expressions, which the declarations do not.

use roxmltree::Node;

use super::compare::same;
use super::parse::{api_list, api_matches, Cx};
use super::sections::Enums;
use super::text::clip;
use super::values::parse_c_literal;
use super::{depends, features};
use crate::error::{Error, Result};
use crate::model::*;
use crate::names;

impl Cx<'_> {
    /// An `<enums>` element read on its own: `reg` is not consulted, so this runs ahead of
    /// the fold ([`Cx::fold_enums`] checks it against what came before).
    pub(super) fn read_enums(&self, n: Node, warnings: &mut Vec<String>) -> Result<Enums> {
        let name = n
            .attribute("name")
            .ok_or_else(|| self.schema(n, "<enums> without a name".into()))?;
        let kind = n.attribute("type");
        if kind == Some("constants") || name == "API Constants" {
            let mut constants = Vec::new();
            for e in n.children().filter(|c| c.has_tag_name("enum")) {
                if !api_matches(e) {
                    continue;
                }
                let constant = self.read_constant(e);
                let failed = constant.is_err();
                constants.push(constant);
                if failed {
                    break;
                }
            }
            return Ok(Enums::Constants(constants));
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
        let mut values: Vec<EnumValue> = Vec::new();
        let mut index: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        let variants = names::VariantNames::new(name);
        for e in n.children().filter(|c| c.has_tag_name("enum")) {
            if !api_matches(e) {
                continue;
            }
            let vname = self.name_of(e)?;
            self.check_name(e, "enum", &vname, &variants.name(&vname))?;
            let value = self
                .enum_val(e, None)?
                .ok_or_else(|| self.schema(e, format!("enum {vname} has no value")))?;
            let (line, col) = self.pos(e);
            if let Some(&i) = index.get(&vname) {
                let old = &values[i];
                if old.value != value {
                    return Err(self.redefined(e, "enum", &vname, (old.line, old.col)));
                }
                continue;
            }
            index.insert(vname.clone(), values.len());
            values.push(EnumValue {
                name: vname,
                value,
                extension: None,
                line,
                col,
            });
        }
        let (line, col) = self.pos(n);
        Ok(Enums::Group(EnumGroup {
            name: name.to_owned(),
            bitmask,
            width64: n.attribute("bitwidth") == Some("64"),
            values,
            line,
            col,
        }))
    }

    /// One `<enum>` of the API constants block.
    fn read_constant(&self, e: Node) -> Result<Constant> {
        let cname = self.name_of(e)?;
        self.check_name(e, "constant", &cname, &names::constant_name(&cname))?;
        let (line, col) = self.pos(e);
        let k = Constant {
            name: cname,
            ty: e.attribute("type").unwrap_or("uint32_t").to_owned(),
            value: e.attribute("value").unwrap_or("").to_owned(),
            alias: e.attribute("alias").map(str::to_owned),
            line,
            col,
        };
        Ok(k)
    }

    /// An `<enums>` element's contents into `reg`: a constant or group defined before is an
    /// error unless identical, checked in document order as the elements come.
    pub(super) fn fold_enums(&self, enums: Enums, reg: &mut Registry) -> Result<()> {
        match enums {
            Enums::Constants(constants) => {
                for constant in constants {
                    let k = constant?;
                    if let Some(old) = reg.constants.get(&k.name) {
                        if !same(old, &k, |k| (k.line, k.col) = (0, 0)) {
                            let (at, first) = ((k.line, k.col), (old.line, old.col));
                            return Err(self.redefined_at(at, "constant", &k.name, first));
                        }
                        continue;
                    }
                    reg.constants.insert(k.name.clone(), k);
                }
            }
            Enums::Group(group) => {
                if let Some(old) = reg.enums.get(&group.name) {
                    let strip = |g: &mut EnumGroup| {
                        (g.line, g.col) = (0, 0);
                        for v in &mut g.values {
                            (v.line, v.col) = (0, 0);
                        }
                    };
                    if !same(old, &group, strip) {
                        let (at, first) = ((group.line, group.col), (old.line, old.col));
                        return Err(self.redefined_at(at, "<enums> block", &group.name, first));
                    }
                    return Ok(());
                }
                reg.enums.insert(group.name.clone(), group);
            }
        }
        Ok(())
    }

    /// The value of an `<enum>`: `value=`, `bitpos=`, `offset=` (+`extnumber=`, `dir=`) or `alias=`.
    pub(super) fn enum_val(&self, e: Node, ext_number: Option<u32>) -> Result<Option<EnumVal>> {
        if let Some(v) = e.attribute("value") {
            let c = parse_c_literal(v)
                .ok_or_else(|| self.schema(e, format!("bad integer literal `{}`", clip(v))))?;
            // Enumerants are `int` (or a 64-bit flag): anything wider is a wrong value, not data.
            // Which width the group allows is checked once groups are known (validate).
            if i64::try_from(c.value).is_err() && u64::try_from(c.value).is_err() {
                return Err(self.schema(e, format!("value `{}` does not fit 64 bits", clip(v))));
            }
            return Ok(Some(EnumVal::Value(c.value)));
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
            let v = i128::from(v);
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

    pub(super) fn parse_require(
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
        let mut req = features::require_block(depends, r);
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

    pub(super) fn parse_feature(
        &self,
        f: Node,
        warnings: &mut Vec<String>,
    ) -> Result<Option<Feature>> {
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

    pub(super) fn parse_extension(&self, e: Node, warnings: &mut Vec<String>) -> Result<Extension> {
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
