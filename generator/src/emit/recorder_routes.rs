//! Routes of the command recorder: a 1.0 form (`vkCmdCopyBuffer`) replays through its `…2`
//! method (`cmd_copy_buffer2`) when the vendor's engine defines only that, as Mesa's
//! `vk_common_CmdCopyBuffer` calls `CmdCopyBuffer2`. The 1.0 method's default body converts
//! the recorded arguments to the `…2` structures and calls the `…2` method; `implemented`
//! counts the 1.0 command as run when its target is, so the requirements report does not
//! list it.
//!
//! Which pairs: every recorded command `vkCmdX[SUFFIX]` with a recorded `vkCmdX2[KHR|EXT|SUFFIX]`
//! in the registry in use (aliases resolved: `vkCmdCopyBuffer2KHR` at 1.2, `vkCmdCopyBuffer2`
//! at 1.3). How: generated from vk.xml when the mapping is mechanical — every `…2` parameter or
//! info-structure member is a 1.0 parameter of the same name (flags widened to their 64-bit
//! `…2` types), a structure built from them, a 1.0 array converted element by element (member
//! by name, the 1.0 command's stage masks copied into each element, as in
//! `vkCmdPipelineBarrier`), or optional and left empty — and every 1.0 parameter is used. The
//! few that are not mechanical are in `RENAMES`, `CONVERSIONS`, `DEFAULTS` and `HAND`.
//! A pair that neither covers (`vkCmdDrawIndirect` vs the device-address `…2KHR` forms, which
//! take no buffer) is not routed: information would be lost.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use super::{param_name, text, Ctx, Place};
use crate::model::*;
use crate::names;

/// 1.0 parameters that the `…2` form renames: `(1.0 parameter, …2 name)`.
const RENAMES: &[(&str, &str)] = &[("pipelineStage", "stage")];

/// 1.0 parameters whose `…2` counterpart is computed: `(1.0 parameter, …2 member, expression
/// of the parameter `{}`)`. The maintenance6 forms take shader stages where the 1.0 forms take
/// a bind point.
const CONVERSIONS: &[(&str, &str, &str)] = &[(
    "pipelineBindPoint",
    "stageFlags",
    "runtime::routes::bind_point_stages({})",
)];

/// `…2` members with no 1.0 counterpart and no empty value: `(1.0 command, member, value)`.
/// `vkCmdBindIndexBuffer` binds to the buffer's end, `vkCmdBindIndexBuffer2`'s `size` says so.
const DEFAULTS: &[(&str, &str, &str)] =
    &[("vkCmdBindIndexBuffer", "size", "crate::vk::WHOLE_SIZE")];

/// Pairs converted by hand-written code (`recorder_runtime.rs`): `(1.0 command, body)`, `{}`
/// being the `…2` method. Events signalled by the 1.0 form carry an execution dependency on
/// the stage mask only (Mesa's `vk_common_CmdSetEvent`); a 1.0 wait is one dependency per
/// event, the barriers in each (the kit's `vkCmdWaitEvents` route does the same).
const HAND: &[(&str, &str)] = &[
    (
        "vkCmdSetEvent",
        "runtime::routes::event_dependency(stage_mask, |d| self.{}(event, d))",
    ),
    (
        "vkCmdWaitEvents",
        "runtime::routes::wait_dependency(src_stage_mask, dst_stage_mask, memory_barrier_count, p_memory_barriers, buffer_memory_barrier_count, p_buffer_memory_barriers, image_memory_barrier_count, p_image_memory_barriers, |d| {\n    let infos = vec![*d; event_count as usize];\n    self.{}(event_count, p_events, infos.as_ptr())\n})",
    ),
];

/// The value of an optional `…2` argument that no 1.0 argument feeds: a null pointer, else
/// zero.
const EMPTY: [&str; 2] = ["core::ptr::null()", "Default::default()"];

/// One routed 1.0 command.
pub struct Route<'a> {
    pub to: &'a Command,
    /// The statements that convert and call the target's method (`self.cmd_x2(…)`).
    pub body: String,
}

/// The routes of `commands` (the recorded ones), by 1.0 command name.
pub fn routes<'a>(cx: &'a Ctx, commands: &[&'a Command]) -> BTreeMap<String, Route<'a>> {
    let recorded: BTreeMap<&str, &Command> =
        commands.iter().map(|c| (c.name.as_str(), *c)).collect();
    let mut out = BTreeMap::new();
    for from in commands {
        let Some(to) = target(cx, &recorded, &from.name) else {
            continue;
        };
        let method = names::command_field(&to.name);
        let body = match HAND.iter().find(|h| h.0 == from.name) {
            Some((_, body)) => Some(body.replace("{}", &method)),
            None => Mapper::new(cx, from).call(to),
        };
        if let Some(body) = body {
            out.insert(from.name.clone(), Route { to, body });
        }
    }
    out
}

/// The recorded `…2` form of `name`, if the registry has one.
fn target<'a>(cx: &Ctx, recorded: &BTreeMap<&str, &'a Command>, name: &str) -> Option<&'a Command> {
    if name.ends_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let cut = name.trim_end_matches(|c: char| c.is_ascii_uppercase());
    // `vkCmdFooKHR` has suffix `KHR`; a name ending in a capital word (`vkCmdFooA`) has none.
    let (base, suffix) = match name.len() - cut.len() {
        n if n >= 2 => name.split_at(cut.len()),
        _ => (name, ""),
    };
    ["", "KHR", "EXT", suffix].iter().find_map(|s| {
        let canonical = cx.reg().resolve_command(&format!("{base}2{s}"))?;
        (canonical.name != name)
            .then(|| recorded.get(canonical.name.as_str()).copied())
            .flatten()
    })
}

/// Builds the mechanical conversion of one 1.0 command's arguments.
struct Mapper<'c, 'x, 'r> {
    cx: &'c Ctx<'x, 'r>,
    from: &'c Command,
    /// The 1.0 parameters the conversion has read.
    used: BTreeSet<String>,
    /// Statements that build the `…2` structures and arrays, in order.
    lets: String,
    /// Locals made so far (their names are numbered).
    locals: usize,
}

impl<'c, 'x, 'r> Mapper<'c, 'x, 'r> {
    fn new(cx: &'c Ctx<'x, 'r>, from: &'c Command) -> Self {
        Self {
            cx,
            from,
            used: BTreeSet::new(),
            lets: String::new(),
            locals: 0,
        }
    }

    /// The call of `to`'s method with converted arguments, or `None` when a `…2` argument has
    /// no source or a 1.0 argument no destination.
    fn call(mut self, to: &Command) -> Option<String> {
        let mut args = Vec::new();
        for p in &to.params[1..] {
            args.push(self.value(p, None)?);
        }
        let all_used = self.from.params[1..]
            .iter()
            .all(|p| self.used.contains(&p.name));
        all_used.then(|| {
            format!(
                "{}self.{}({})",
                self.lets,
                names::command_field(&to.name),
                args.join(", ")
            )
        })
    }

    fn param(&self, name: &str) -> Option<&'c Field> {
        self.from.params[1..].iter().find(|p| p.name == name)
    }

    fn local(&mut self, stem: &str) -> String {
        self.locals += 1;
        format!("{}_{}", param_name(stem), self.locals)
    }

    /// The expression for `…2` parameter or member `dst`; `elem` is the 1.0 array element
    /// (`r`, its structure) when building an element of a converted array.
    fn value(&mut self, dst: &Field, elem: Option<&Aggregate>) -> Option<String> {
        if let Some(e) = elem {
            if let Some(src) = e.members.iter().find(|m| m.name == dst.name) {
                let expr = format!("r.{}", super::ident(&names::field_name(&src.name)));
                return self.convert(&expr, src, dst, false);
            }
        }
        if let Some(&(from, _, f)) = CONVERSIONS.iter().find(|c| c.1 == dst.name) {
            if self.param(from).is_some() {
                self.used.insert(from.to_owned());
                return Some(f.replace("{}", &param_name(from)));
            }
        }
        let renamed = RENAMES.iter().find(|r| r.1 == dst.name).map(|r| r.0);
        let src = self
            .param(&dst.name)
            .or_else(|| renamed.and_then(|r| self.param(r)));
        if let Some(src) = src {
            self.used.insert(src.name.clone());
            return self.convert(&param_name(&src.name), src, dst, elem.is_none());
        }
        if let Some(&(_, _, v)) = DEFAULTS
            .iter()
            .find(|d| d.0 == self.from.name && d.1 == dst.name)
        {
            return Some(v.to_owned());
        }
        if elem.is_none() && dst.ty.pointers.len() == 1 && dst.ty.base_const && dst.len.is_none() {
            if let Some(s) = self.build(dst) {
                return Some(s);
            }
        }
        dst.optional
            .then(|| EMPTY[usize::from(!dst.ty.is_pointer())].to_owned())
    }

    /// `src` (read as `expr`) as `dst`'s type: the same type, a widened flag, or (`arrays`) a
    /// 1.0 array converted to the `…2` elements.
    fn convert(&mut self, expr: &str, src: &Field, dst: &Field, arrays: bool) -> Option<String> {
        if src.ty == dst.ty {
            // A pointer may change only its lifetime (`WriteDescriptorSet<'_>` into a
            // structure of this crate that holds `<'static>`).
            return Some(match src.ty.is_pointer() {
                true => format!("{expr}.cast()"),
                false => expr.to_owned(),
            });
        }
        let reg = self.cx.reg();
        let kind = |f: &Field| reg.resolve_type(&f.ty.base).map(|t| (&t.kind, &t.name));
        match (kind(src)?, kind(dst)?) {
            ((TypeKind::Bitmask { .. }, _), (TypeKind::Bitmask { .. }, _))
            | ((TypeKind::Enum, _), (TypeKind::Bitmask { .. }, _))
                if (src.ty.base.contains("Flag"))
                    && !src.ty.is_pointer()
                    && !dst.ty.is_pointer()
                    && src.ty.array.is_empty()
                    && dst.ty.array.is_empty() =>
            {
                let rust = text::base_str(self.cx, &dst.ty.base, Place::Field);
                Some(format!("{rust}::from_raw({expr}.as_raw() as _)"))
            }
            ((TypeKind::Struct(s), _), (TypeKind::Struct(d), d_name))
                if arrays
                    && src.ty.pointers.len() == 1
                    && dst.ty.pointers.len() == 1
                    && src.len.is_some()
                    && src.len == dst.len =>
            {
                self.array(expr, src, s, d, d_name)
            }
            _ => None,
        }
    }

    /// A converted copy of the 1.0 array `expr` (`src`, elements `s`) as `…2` elements `d`.
    fn array(
        &mut self,
        expr: &str,
        src: &Field,
        s: &Aggregate,
        d: &Aggregate,
        d_name: &str,
    ) -> Option<String> {
        let count = src.len.as_deref()?;
        self.param(count)?;
        let mut fields = Vec::new();
        let mut read = BTreeSet::new();
        for m in d.members.iter().filter(|m| m.name != "sType") {
            if s.members.iter().any(|e| e.name == m.name) {
                read.insert(m.name.clone());
            }
            match self.value(m, Some(s)) {
                Some(v) if m.optional && EMPTY.contains(&v.as_str()) => {}
                Some(v) => fields.push(format!("{}: {v}", struct_field(&m.name))),
                None if m.optional || m.name == "pNext" => {}
                None => return None,
            }
        }
        // Every 1.0 member reaches the `…2` element.
        if !s
            .members
            .iter()
            .all(|m| m.name == "sType" || read.contains(&m.name))
        {
            return None;
        }
        let local = self.local(&src.name);
        let _ = writeln!(
            self.lets,
            "let {local} = runtime::routes::each({expr}, {} as usize, |r| crate::vk::{} {{ {}, ..Default::default() }});",
            param_name(count),
            type_path(d_name),
            fields.join(", ")
        );
        Some(format!("{local}.as_ptr()"))
    }

    /// A `…2` info structure (`dst` points at one) built from the 1.0 parameters.
    fn build(&mut self, dst: &Field) -> Option<String> {
        let ty = self.cx.reg().resolve_type(&dst.ty.base)?;
        let TypeKind::Struct(agg) = &ty.kind else {
            return None;
        };
        if !agg.members.iter().any(|m| m.name == "sType") {
            return None;
        }
        let saved = (self.used.clone(), self.lets.len(), self.locals);
        let mut fields = Vec::new();
        for m in agg
            .members
            .iter()
            .filter(|m| m.name != "sType" && m.name != "pNext")
        {
            match self.value(m, None) {
                // An optional member no 1.0 parameter feeds stays empty (`..Default::default()`).
                Some(v) if EMPTY.contains(&v.as_str()) => {}
                Some(v) => fields.push(format!("{}: {v}", struct_field(&m.name))),
                None => {
                    (self.used, self.locals) = (saved.0, saved.2);
                    self.lets.truncate(saved.1);
                    return None;
                }
            }
        }
        let local = self.local(&dst.name);
        let path = type_path(&ty.name);
        let init = match fields.is_empty() {
            true => format!("crate::vk::{path}::default()"),
            false => format!(
                "crate::vk::{path} {{ {}, ..Default::default() }}",
                fields.join(", ")
            ),
        };
        let _ = writeln!(self.lets, "let {local} = {init};");
        Some(format!("core::ptr::addr_of!({local})"))
    }
}

fn struct_field(vk: &str) -> String {
    super::ident(&names::field_name(vk)).to_string()
}

/// A structure's path in the generated `vk` module, without lifetime (struct literals infer it).
fn type_path(vk: &str) -> String {
    super::ident(&names::type_name(vk)).to_string()
}

/// `routes`: the 1.0 → `…2` table and the check the default methods and `implements` read.
pub fn write_table(cx: &Ctx, routes: &BTreeMap<String, Route>, out: &mut String) {
    let index = cx.command_index();
    let mut arms = String::new();
    for (from, r) in routes {
        let _ = writeln!(
            arms,
            "        CommandId({}) => Some(CommandId({})), // {from} → {}",
            index[from.as_str()],
            index[r.to.name.as_str()],
            r.to.name
        );
    }
    let _ = write!(
        out,
        "\n/// The `…2` command a 1.0 form replays through when the engine does not run it itself\n\
         /// ({} pairs of this registry).\npub fn routed_to(cmd: CommandId) -> Option<CommandId> {{\n    \
         match cmd {{\n{arms}        _ => None,\n    }}\n}}\n\n\
         /// Whether an engine whose methods are `defines` runs `cmd`: it defines its method, or\n\
         /// `cmd` is a 1.0 form whose `…2` target it runs (the 1.0 method converts by default).\n\
         /// `#[vkgen_driver::execute]` writes `implements` with it.\n\
         pub fn implemented(cmd: CommandId, defines: fn(CommandId) -> bool) -> bool {{\n    \
         defines(cmd) || routed_to(cmd).is_some_and(|to| implemented(to, defines))\n}}\n",
        routes.len()
    );
}
