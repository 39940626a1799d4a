//! `src/recorder.rs`: the generated command recorder (Mesa's `vk_cmd_queue_gen.py`). For every
//! `vkCmd*` command of the selection: a record (`Cmd` variant) holding deep copies of the
//! arguments, a panic-guarded recording entry point, and one method of the vendor's `Execute`
//! trait that the replay calls with the recorded arguments. Deep copies follow vk.xml's `len`
//! attributes (arrays, strings, byte blobs), nested structure pointers and `pNext` chains; every
//! structure reachable from a command gets a fix-up function, and every structure that may sit
//! in one of their chains an entry in the `sType` table the chain copy reads.
//!
//! What cannot be deep-copied stays the application's pointer, documented on the `Execute`
//! method: output pointers, `void*` without a length (`vkCmdPushDescriptorSetWithTemplate`'s
//! data, whose layout is the template's), pointers inside unions.
//!
//! The arena, the recording and the chain walk are hand-written (`runtime/recorder_runtime.rs`,
//! copied beside this file).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use super::recorder_routes::Route;
use super::{param_name, text, Ctx, Place, PREAMBLE};
use crate::error::Result;
use crate::model::*;
use crate::names;

/// Integer C types a `len` may name.
const COUNT_TYPES: &[&str] = &[
    "uint8_t",
    "uint16_t",
    "uint32_t",
    "int32_t",
    "uint64_t",
    "size_t",
    "VkDeviceSize",
];

/// `VkWriteDescriptorSet`'s three arrays: only the one its `descriptorType` uses is valid (the
/// others may hold anything), as raw `VkDescriptorType` values.
const DESCRIPTOR_ARRAYS: &[(&str, &str)] = &[
    // SAMPLER … INPUT_ATTACHMENT's image types, and the two QCOM image-processing ones.
    ("pImageInfo", "0 | 1 | 2 | 3 | 10 | 1000440000 | 1000440001"),
    ("pBufferInfo", "6 | 7 | 8 | 9"),
    ("pTexelBufferView", "4 | 5"),
];

/// Arrays of pointers whose inner lengths vk.xml states only in prose: `(param, count array,
/// count member)` — element `i` holds `pInfos[i].geometryCount` elements.
const INNER_COUNTS: &[(&str, &str, &str)] = &[
    ("ppBuildRangeInfos", "pInfos", "geometryCount"),
    ("ppMaxPrimitiveCounts", "pInfos", "geometryCount"),
];

/// The canonical `vkCmd*` commands of the selection, in registry order.
pub fn recorded_commands<'a>(cx: &'a Ctx) -> Vec<&'a Command> {
    cx.sel
        .canonical_commands()
        .filter(|c| c.name.starts_with("vkCmd"))
        .map(|c| cx.command(&c.name))
        .filter(|cmd| {
            cmd.params
                .first()
                .is_some_and(|p| p.ty.base == "VkCommandBuffer" && !p.ty.is_pointer())
        })
        .collect()
}

/// The structure (or union) `name` resolves to, if the selection has it.
fn aggregate<'r>(cx: &Ctx<'_, 'r>, name: &str) -> Option<(&'r Type, &'r Aggregate)> {
    let ty = cx.reg().resolve_type(name)?;
    if !cx.sel.types.contains(&ty.name) {
        return None;
    }
    match &ty.kind {
        TypeKind::Struct(a) | TypeKind::Union(a) => Some((ty, a)),
        _ => None,
    }
}

/// Structures the kit deep-copies outside a recording (a pipeline keeps its create info):
/// each gets a `DeepCopy` impl, so `Owned::new` copies it with the recorder's fix-ups.
pub const OWNED: &[&str] = &[
    "VkComputePipelineCreateInfo",
    "VkGraphicsPipelineCreateInfo",
];

/// Structures reachable from the recorded commands' parameters and from [`OWNED`]: through
/// members, and through `pNext` (every selected structure that extends a reachable one).
fn reachable(cx: &Ctx, commands: &[&Command]) -> BTreeSet<String> {
    let mut extenders: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for t in cx.reg().types.values() {
        if let (TypeKind::Struct(a), None) = (&t.kind, &t.alias) {
            for e in &a.extends {
                let base = cx.reg().resolve_type(e).map_or(e.as_str(), |b| &b.name);
                extenders
                    .entry(base.to_owned())
                    .or_default()
                    .push(t.name.clone());
            }
        }
    }
    let mut work: Vec<String> = commands
        .iter()
        .flat_map(|c| c.params.iter().map(|p| p.ty.base.clone()))
        .chain(OWNED.iter().map(|s| (*s).to_owned()))
        .collect();
    let mut seen = BTreeSet::new();
    while let Some(name) = work.pop() {
        let Some((ty, agg)) = aggregate(cx, &name) else {
            continue;
        };
        if !seen.insert(ty.name.clone()) {
            continue;
        }
        // Unions are copied bit for bit: what their members point at stays the application's.
        if matches!(ty.kind, TypeKind::Struct(_)) {
            work.extend(agg.members.iter().map(|m| m.ty.base.clone()));
        }
        work.extend(extenders.get(&ty.name).into_iter().flatten().cloned());
    }
    seen
}

/// How one pointer-bearing field or parameter is copied.
struct Copier<'c, 'x, 'r> {
    cx: &'c Ctx<'x, 'r>,
    /// Structures that get a fix-up function.
    fixed: &'c BTreeSet<String>,
    /// The other members or parameters (for `len` names).
    siblings: &'c [Field],
    /// How a sibling is read: `s.name` in a structure, `name` for a parameter.
    prefix: &'static str,
}

impl Copier<'_, '_, '_> {
    fn access(&self, vk_name: &str) -> String {
        match self.prefix {
            "" => param_name(vk_name),
            p => format!("{p}{}", super::ident(&names::field_name(vk_name))),
        }
    }

    /// `Some(fix_X as Fix)` for a structure with a fix-up, else `None`.
    fn fix_of(&self, base: &str) -> String {
        match self.cx.reg().resolve_type(base) {
            Some(t) if self.fixed.contains(&t.name) => {
                format!("Some({} as Fix)", fix_name(&t.name))
            }
            _ => "None".to_owned(),
        }
    }

    /// The element count a `len` component names, as a `usize` expression.
    fn count(&self, len: &str) -> Option<String> {
        if let Some(rest) = len.strip_prefix("latexmath:") {
            // `codeSize / 4` words of SPIR-V.
            if let Some(var) = rest
                .strip_prefix("[\\textrm{")
                .and_then(|r| r.strip_suffix("} \\over 4]"))
            {
                let sib = self.siblings.iter().find(|s| s.name == var)?;
                return COUNT_TYPES
                    .contains(&sib.ty.base.as_str())
                    .then(|| format!("{} as usize / 4", self.access(var)));
            }
            // ⌈samples / 32⌉ sample-mask words: the one formula vk.xml writes in LaTeX.
            let var = rest.split("\\mathit{").nth(1)?.split('}').next()?;
            let sib = self.siblings.iter().find(|s| s.name == var)?;
            return sib
                .ty
                .base
                .contains("SampleCount")
                .then(|| format!("({}.as_raw() as usize + 31) / 32", self.access(var)));
        }
        let sib = self.siblings.iter().find(|s| s.name == len)?;
        (!sib.ty.is_pointer() && COUNT_TYPES.contains(&sib.ty.base.as_str()))
            .then(|| format!("{} as usize", self.access(len)))
    }

    /// The expression that copies `f` into the arena `a`, or `None` to keep it as it is.
    fn copy(&self, f: &Field, stride: bool) -> Option<String> {
        let src = self.access(&f.name);
        let ty = &f.ty;
        let base_is_void = ty.base == "void";
        let len: Vec<&str> = f.len.as_deref().map_or(vec![], |l| l.split(',').collect());
        match ty.pointers.len() {
            0 if !ty.array.is_empty() && self.prefix.is_empty() => {
                // A C array parameter (`const float blendConstants[4]`): a pointer to N.
                let n = self.cx.array_len(&ty.array[0]);
                Some(format!("a.slice({src}, {n}, None)"))
            }
            1 if f.name == "pNext" => Some(format!("a.chain({src}, known_structure)")),
            1 if !ty.base_const => None,
            1 if len.is_empty() => (!base_is_void && self.known_size(&ty.base))
                .then(|| format!("a.slice({src}, 1, {})", self.fix_of(&ty.base))),
            1 if len[0] == "null-terminated" => Some(format!("a.cstr({src})")),
            1 => {
                let n = self.count(len[0])?;
                if base_is_void {
                    Some(format!("a.bytes({src}, {n})"))
                } else if stride {
                    Some(format!("a.strided({src}, {n}, stride as usize)"))
                } else {
                    Some(format!("a.slice({src}, {n}, {})", self.fix_of(&ty.base)))
                }
            }
            2 => self.copy_pointers(f, &src, &len),
            _ => None,
        }
    }

    /// `const T* const*` arrays: strings, single elements, or prose-counted arrays.
    fn copy_pointers(&self, f: &Field, src: &str, len: &[&str]) -> Option<String> {
        let n = self.count(len.first()?)?;
        let base = &f.ty.base;
        let inner = match len.get(1) {
            Some(&"null-terminated") => "a.cstr(p).cast_const()".to_owned(),
            Some(&"1") => format!("a.slice(p, 1, {}).cast_const()", self.fix_of(base)),
            None if base == "void" => "p".to_owned(),
            None => {
                let &(_, array, member) = INNER_COUNTS.iter().find(|c| c.0 == f.name)?;
                self.siblings.iter().find(|s| s.name == array)?;
                // The counts are read from the copy made just before (null if that failed).
                let counts = self.access(array);
                format!(
                    "if {counts}.is_null() {{ core::ptr::null() }} else {{ a.slice(p, (*{counts}.add(i)).{} as usize, {}).cast_const() }}",
                    names::field_name(member),
                    self.fix_of(base)
                )
            }
            Some(_) => return None,
        };
        Some(format!(
            "a.pointers({src}, {n}, |a, i, p| {{ let _ = i; {inner} }})"
        ))
    }

    /// Whether `base` has a size the generated crate knows (a selected type, a primitive or a
    /// video-std type ash defines).
    fn known_size(&self, base: &str) -> bool {
        let s = text::base_str(self.cx, base, Place::Field);
        s != "core::ffi::c_void"
    }
}

fn fix_name(vk: &str) -> String {
    format!("fix_{}", names::type_name(vk))
}

fn variant_name(cmd: &str) -> String {
    cmd.strip_prefix("vkCmd").unwrap_or(cmd).to_owned()
}

/// Which reachable structures need a fix-up: those with a `pNext`, a copied pointer, or an
/// inline member that needs one.
fn needing_fix(cx: &Ctx, structs: &BTreeSet<String>) -> BTreeSet<String> {
    let empty = BTreeSet::new();
    let mut fixed: BTreeSet<String> = BTreeSet::new();
    loop {
        let before = fixed.len();
        for name in structs {
            let Some((ty, agg)) = aggregate(cx, name) else {
                continue;
            };
            if fixed.contains(name) || matches!(ty.kind, TypeKind::Union(_)) {
                continue;
            }
            let c = Copier {
                cx,
                fixed: &empty,
                siblings: &agg.members,
                prefix: "s.",
            };
            let needs = agg.members.iter().any(|m| {
                (m.ty.is_pointer() && c.copy(m, false).is_some())
                    || (!m.ty.is_pointer()
                        && cx
                            .reg()
                            .resolve_type(&m.ty.base)
                            .is_some_and(|t| fixed.contains(&t.name)))
            });
            if needs {
                fixed.insert(name.clone());
            }
        }
        if fixed.len() == before {
            return fixed;
        }
    }
}

/// One structure's fix-up function.
fn write_fix(cx: &Ctx, fixed: &BTreeSet<String>, name: &str, out: &mut String) {
    let Some((_, agg)) = aggregate(cx, name) else {
        return;
    };
    let rust = text::base_str(cx, name, Place::Field);
    let c = Copier {
        cx,
        fixed,
        siblings: &agg.members,
        prefix: "s.",
    };
    let mut body = String::new();
    for m in &agg.members {
        let field = format!("s.{}", super::ident(&names::field_name(&m.name)));
        if m.ty.is_pointer() {
            let Some(expr) = c.copy(m, false) else {
                continue;
            };
            let guard = (name == "VkWriteDescriptorSet")
                .then(|| DESCRIPTOR_ARRAYS.iter().find(|d| d.0 == m.name))
                .flatten();
            match guard {
                Some((_, types)) => {
                    let _ = writeln!(
                        body,
                        "        {field} = match s.descriptor_type.as_raw() {{\n            {types} => {expr},\n            _ => core::ptr::null_mut(),\n        }};"
                    );
                }
                None => {
                    let _ = writeln!(body, "        {field} = {expr};");
                }
            }
            continue;
        }
        let Some(inner) = cx
            .reg()
            .resolve_type(&m.ty.base)
            .filter(|t| fixed.contains(&t.name))
        else {
            continue;
        };
        let f = fix_name(&inner.name);
        match m.ty.array.first() {
            None => {
                let _ = writeln!(
                    body,
                    "        {f}(a, core::ptr::addr_of_mut!({field}).cast());"
                );
            }
            Some(n) => {
                let _ = writeln!(
                    body,
                    "        for e in {field}.iter_mut().take({}) {{\n            {f}(a, core::ptr::from_mut(e).cast());\n        }}",
                    cx.array_len(n)
                );
            }
        }
    }
    let _ = write!(
        out,
        "\n/// Copies what a `{name}` copied into the arena points at.\n#[allow(non_snake_case)]\nunsafe fn {}(a: &mut Arena, p: *mut u8) {{\n    \
         // SAFETY: `p` is a fresh arena copy of a `{name}` (the caller made it), whose pointers\n    \
         // are still the application's, valid for the `vkCmd*` call being recorded.\n    \
         unsafe {{\n        let s = &mut *p.cast::<{rust}>();\n{body}    }}\n}}\n",
        fix_name(name)
    );
}

/// `fn known_structure`: the `sType` → (size, fix-up) table of `pNext` chains.
fn write_chain_table(cx: &Ctx, structs: &BTreeSet<String>, out: &mut String) {
    out.push_str(
        "\n/// The size and fix-up of the structure an `sType` names, for the structures that may\n\
         /// extend a recorded command's arguments.\n\
         fn known_structure(s_type: i32) -> Option<(usize, Fix)> {\n    match s_type {\n",
    );
    let mut seen = BTreeSet::new();
    for name in structs {
        let Some((ty, agg)) = aggregate(cx, name) else {
            continue;
        };
        if agg.extends.is_empty() || matches!(ty.kind, TypeKind::Union(_)) {
            continue;
        }
        let Some(value) = agg
            .members
            .iter()
            .find(|m| m.name == "sType")
            .and_then(|m| m.values.as_deref())
            .and_then(|v| crate::device::layout::enum_named(cx.reg(), "VkStructureType", v))
        else {
            continue;
        };
        if !seen.insert(value) {
            continue;
        }
        let _ = writeln!(
            out,
            "        {value} => Some((core::mem::size_of::<{}>(), {} as Fix)),",
            text::base_str(cx, name, Place::Field),
            fix_name(name)
        );
    }
    out.push_str("        _ => None,\n    }\n}\n");
}

/// A recorded command's fields: its parameters but the command buffer, as stored.
fn record_fields(cx: &Ctx, cmd: &Command) -> Vec<(String, String)> {
    cmd.params[1..]
        .iter()
        .map(|p| {
            let mut ty = p.ty.clone();
            if !ty.array.is_empty() {
                ty.array.clear();
                ty.pointers.insert(0, false);
            }
            (param_name(&p.name), text::type_str(cx, &ty, Place::Field))
        })
        .collect()
}

/// The `Cmd` enum.
fn write_records(cx: &Ctx, commands: &[&Command], out: &mut String) {
    out.push_str(
        "\n/// One recorded command: its parameters (but the command buffer), pointers into the\n\
         /// recording's arena.\n#[derive(Clone, Copy)]\npub enum Cmd {\n",
    );
    for cmd in commands {
        out.push_str(&indent(&text::doc_link(cx, &cmd.name), "    "));
        let fields = record_fields(cx, cmd);
        if fields.is_empty() {
            let _ = writeln!(out, "    {},", variant_name(&cmd.name));
            continue;
        }
        let _ = writeln!(out, "    {} {{", variant_name(&cmd.name));
        for (n, t) in fields {
            let _ = writeln!(out, "        {n}: {t},");
        }
        out.push_str("    },\n");
    }
    out.push_str("}\n");
    let index = cx.command_index();
    out.push_str(
        "\nimpl Cmd {\n    /// The (canonical) command this record is of.\n    pub fn id(&self) -> CommandId {\n        match *self {\n",
    );
    for cmd in commands {
        let pat = match record_fields(cx, cmd).is_empty() {
            true => variant_name(&cmd.name),
            false => format!("{} {{ .. }}", variant_name(&cmd.name)),
        };
        let _ = writeln!(
            out,
            "            Cmd::{pat} => CommandId({}),",
            index[cmd.name.as_str()]
        );
    }
    out.push_str("        }\n    }\n}\n");
}

/// `DeepCopy` of each [`OWNED`] structure the selection has.
fn write_owned(cx: &Ctx, fixed: &BTreeSet<String>, out: &mut String) {
    for name in OWNED {
        if aggregate(cx, name).is_none() || !fixed.contains(*name) {
            continue;
        }
        let rust = text::base_str(cx, name, Place::Field);
        let _ = write!(
            out,
            "\n// SAFETY: `fix_up` is the recorder's fix-up of a `{name}`, which copies every pointer\n\
             // it follows into the arena.\nunsafe impl DeepCopy for {rust} {{\n    \
             unsafe fn fix_up(a: &mut Arena, p: *mut u8) {{\n        \
             // SAFETY: the caller's fresh copy of this structure.\n        \
             unsafe {{ {}(a, p) }}\n    }}\n}}\n",
            fix_name(name)
        );
    }
}

fn indent(s: &str, by: &str) -> String {
    s.lines().map(|l| format!("{by}{l}\n")).collect()
}

/// The `Execute` trait: one method per command, doing nothing (but reporting) by default, or
/// for a routed 1.0 form, running its `…2` method when the engine runs that.
fn write_execute(
    cx: &Ctx,
    commands: &[&Command],
    routes: &BTreeMap<String, Route>,
    out: &mut String,
) {
    out.push_str(
        "\n/// What a vendor's engine runs: one method per `vkCmd*`, called by `Recording::replay`\n\
         /// with the recorded arguments (pointers into the recording, valid for the call). A\n\
         /// method left out calls [`unimplemented`](Execute::unimplemented), but a 1.0 form with a\n\
         /// `…2` form ([`routed_to`]: `cmd_copy_buffer` → `cmd_copy_buffer2`) converts its\n\
         /// arguments and calls the `…2` method when the engine runs that. Put\n\
         /// `#[vkgen_driver::execute]` on the `impl` block and [`implements`](Execute::implements)\n\
         /// says which commands it runs: the methods it defines and the 1.0 forms routed to them.\n\
         ///\n/// The methods are `unsafe` because they take raw pointers; the replay passes the\n\
         /// recorded ones, which point into the recording, except what the module docs list.\n\
         pub trait Execute {\n    \
         /// Whether the impl defines the method of `cmd` (canonical).\n    \
         fn implements(cmd: CommandId) -> bool {\n        let _ = cmd;\n        false\n    }\n\n    \
         /// Called for a recorded command whose method the impl does not define.\n    \
         fn unimplemented(&mut self, cmd: CommandId) {\n        let _ = cmd;\n    }\n",
    );
    let index = cx.command_index();
    for cmd in commands {
        let params = text::params(cx, cmd);
        out.push('\n');
        out.push_str(&indent(&text::doc_link(cx, &cmd.name), "    "));
        if let Some(r) = routes.get(&cmd.name) {
            let _ = writeln!(
                out,
                "    ///\n    /// Left out, runs as [`{0}`](Execute::{0}) when the engine runs that.",
                names::command_field(&r.to.name)
            );
        }
        out.push_str("    #[allow(unused_variables)]\n");
        let mut ps = vec![("&mut self".to_owned(), String::new())];
        ps.extend(params[1..].iter().cloned());
        let sig: Vec<String> = ps
            .iter()
            .map(|(n, t)| {
                if t.is_empty() {
                    n.clone()
                } else {
                    format!("{n}: {t}")
                }
            })
            .collect();
        let id = index[cmd.name.as_str()];
        let body = match routes.get(&cmd.name) {
            None => format!("self.unimplemented(CommandId({id}));"),
            Some(r) => routed_body(index[r.to.name.as_str()], id, &r.body),
        };
        let _ = writeln!(
            out,
            "    unsafe fn {}({}) {{\n        {body}\n    }}",
            names::command_field(&cmd.name),
            sig.join(", "),
        );
    }
    out.push_str("}\n");
}

/// A routed 1.0 method's default body: converts to the `…2` form (`to`) when the engine runs it.
fn routed_body(to: usize, id: usize, convert: &str) -> String {
    let convert = indent(convert, "                ");
    format!(
        "if implemented(CommandId({to}), Self::implements) {{\n            \
         // SAFETY: the `…2` structures built here point at this call's arguments (the recorded\n            \
         // copies the replay passes, valid for the call) and at locals that outlive the call.\n            \
         unsafe {{\n{convert}            }};\n        }} else {{\n            \
         self.unimplemented(CommandId({id}));\n        }}"
    )
}

/// `Recording::replay`: one arm per command.
fn write_replay(cx: &Ctx, commands: &[&Command], out: &mut String) {
    out.push_str(
        "\nimpl Recording {\n    \
         /// Calls `engine`'s method of every recorded command, in order. A recorded\n    \
         /// `vkCmdExecuteCommands` goes to the engine's own method when it defines one, else\n    \
         /// each secondary goes to `secondary` (the kit replays it inline).\n    \
         pub fn replay<E: Execute>(&self, engine: &mut E, secondary: &mut dyn FnMut(vk::CommandBuffer, &mut E)) {\n        \
         self.replay_observed(engine, &mut |_, _| false, secondary)\n    }\n\n    \
         /// [`replay`](Recording::replay), offering each record and the engine to `before` just\n    \
         /// before the engine's method runs: the kit's bound-state tracking observes the stream\n    \
         /// there (so the engine finds the state a draw or dispatch uses already resolved), and\n    \
         /// a record `before` returns `true` for was handled by the kit (the state of commands\n    \
         /// an engine does not run, in order: events, timestamps) and skips the engine.\n    \
         pub fn replay_observed<E: Execute>(&self, engine: &mut E, before: &mut dyn FnMut(&Cmd, &mut E) -> bool, secondary: &mut dyn FnMut(vk::CommandBuffer, &mut E)) {\n        \
         for cmd in &self.commands {\n            if before(cmd, engine) {\n                continue;\n            }\n            \
         // SAFETY: the arguments are the recorded ones: copies in this recording's arena,\n            \
         // which lives as long as `self`, or the application's values the docs list.\n            \
         unsafe {\n                match *cmd {\n",
    );
    let index = cx.command_index();
    for cmd in commands {
        let fields: Vec<String> = record_fields(cx, cmd).into_iter().map(|f| f.0).collect();
        let pat = match fields.is_empty() {
            true => variant_name(&cmd.name),
            false => format!("{} {{ {} }}", variant_name(&cmd.name), fields.join(", ")),
        };
        let call = format!(
            "engine.{}({})",
            names::command_field(&cmd.name),
            fields.join(", ")
        );
        if cmd.name == "vkCmdExecuteCommands" {
            let _ = writeln!(
                out,
                "                    Cmd::{pat} => {{\n                        if E::implements(CommandId({})) {{\n                            {call};\n                        }} else {{\n                            for i in 0..command_buffer_count as usize {{\n                                secondary(*p_command_buffers.add(i), engine);\n                            }}\n                        }}\n                    }}",
                index[cmd.name.as_str()]
            );
        } else {
            let _ = writeln!(out, "                    Cmd::{pat} => {call},");
        }
    }
    out.push_str("                }\n            }\n        }\n    }\n}\n");
}

/// One recording entry point.
fn write_entry(cx: &Ctx, fixed: &BTreeSet<String>, cmd: &Command, out: &mut String) {
    let params = text::params(cx, cmd);
    let ret = text::ret_str(cx, &cmd.ret);
    let fail = text::failure_str(&cmd.ret);
    let ok = match ret.as_deref() {
        Some("crate::vk::Result") => "crate::vk::Result::SUCCESS",
        Some(_) => "Default::default()",
        None => "()",
    };
    out.push('\n');
    out.push_str(&text::doc_link(cx, &cmd.name));
    let field = names::command_field(&cmd.name);
    text::Sig {
        head: "pub unsafe extern \"system\" fn",
        name: &field,
        generics: "<R: Target>",
        params: &params,
        ret: ret.as_deref(),
    }
    .write_open(out, "");
    let c = Copier {
        cx,
        fixed,
        siblings: &cmd.params,
        prefix: "",
    };
    let stride = cmd.params.iter().any(|p| p.name == "stride");
    let mut copies = String::new();
    let mut inits = Vec::new();
    let template = cmd
        .params
        .iter()
        .any(|p| p.name == "descriptorUpdateTemplate");
    for p in &cmd.params[1..] {
        let n = param_name(&p.name);
        let agg = aggregate(cx, &p.ty.base);
        let is_struct = agg.is_some();
        match c.copy(p, stride && is_struct && p.ty.is_pointer()) {
            Some(expr) => {
                let _ = writeln!(copies, "                let {n} = {expr};");
                // A `…WithTemplate2` info's data: as big as its template says.
                let has = |m: &str| agg.is_some_and(|(_, a)| a.members.iter().any(|x| x.name == m));
                if has("descriptorUpdateTemplate") && has("pData") {
                    let _ = writeln!(
                        copies,
                        "                if let Some(i) = {n}.as_mut() {{ let size = R::template_data_size(i.descriptor_update_template); if size != 0 {{ i.p_data = a.bytes(i.p_data, size).cast_const(); }} }}"
                    );
                }
                inits.push(format!("{n}: {n}.cast()"));
            }
            // `vkCmdPushDescriptorSetWithTemplate`'s data: its size is the template's, which
            // only the target knows (0 keeps the application's pointer).
            None if template && p.name == "pData" => {
                let _ = writeln!(
                    copies,
                    "                let {n} = match R::template_data_size(descriptor_update_template) {{ 0 => {n}.cast_mut(), size => a.bytes({n}, size) }};"
                );
                inits.push(format!("{n}: {n}.cast()"));
            }
            None if p.ty.is_pointer() => inits.push(format!("{n}: {n}.cast()")),
            None => inits.push(n),
        }
    }
    let record = match inits.is_empty() {
        true => format!("Cmd::{}", variant_name(&cmd.name)),
        false => format!(
            "Cmd::{} {{ {} }}",
            variant_name(&cmd.name),
            inits.join(", ")
        ),
    };
    let arena = if copies.is_empty() {
        ""
    } else {
        "                let a = &mut r.arena;\n"
    };
    // A void command's closure ends with the recording; others answer success after it.
    let (semi, tail) = match ok {
        "()" => ("", String::new()),
        ok => (";", format!("        {ok}\n")),
    };
    let _ = write!(
        out,
        "    guard(\"{}\", {fail}, || {{\n        \
         // SAFETY: the caller passes this command's valid arguments: every pointer the copies\n        \
         // read is the application's, valid for this call; `command_buffer` is its handle.\n        \
         unsafe {{\n            R::record(command_buffer, |r| {{\n{arena}{copies}                r.push({record});\n            }})\n        }}{semi}\n{tail}    }})\n}}\n",
        cmd.name
    );
}

/// The recording of [`Cmd`]s and where the entry points find one: they name the generated
/// record type, which the hand-written `recorder_runtime.rs` takes as a parameter instead.
const RECORDING: &str = "/// One command buffer's recording: the commands in order and the arena their arguments live in.
pub type Recording = runtime::Recording<Cmd>;
// SAFETY: the entry points record a command's arguments as copies in the recording's arena
// (pointers they keep uncopied are the application's opaque values, never dereferenced).
unsafe impl runtime::Recorded for Cmd {}

/// Where recording entry points find the recording of a command buffer: the driver kit's
/// command buffers implement it.
pub trait Target {
    /// Runs `f` on the recording of `command_buffer`, if it is one of this target's.
    ///
    /// # Safety
    /// `command_buffer` is a command buffer handle the application passed to a `vkCmd*` call.
    unsafe fn record(command_buffer: vk::CommandBuffer, f: impl FnOnce(&mut Recording));

    /// The bytes of push-descriptor data `template` lays out (`vkCmdPushDescriptorSetWithTemplate`'s
    /// `pData`, whose size only the template knows), so the recorder can copy it; 0 keeps the
    /// application's pointer (the default).
    ///
    /// # Safety
    /// `template` is the handle the application passed to the `vkCmd*` call.
    unsafe fn template_data_size(template: vk::DescriptorUpdateTemplate) -> usize {
        let _ = template;
        0
    }
}

";

pub fn emit(cx: &Ctx) -> Result<String> {
    let commands = recorded_commands(cx);
    let routes = super::recorder_routes::routes(cx, &commands);
    let structs = reachable(cx, &commands);
    let fixed = needing_fix(cx, &structs);
    let mut out = format!(
        "// {PREAMBLE}\n//! The command recorder: a record per `vkCmd*` command with deep copies of its arguments,\n\
         //! the recording entry points and the replay through the vendor's [`Execute`] trait. The\n\
         //! arena and the recording are `recorder_runtime.rs`. {} commands, {} structures copied.\n\
         //!\n//! Kept as the application's pointer (not copied): output pointers, `void*` without a\n\
         //! length (`vkCmdPushDescriptorSetWithTemplate`'s data when `Target::template_data_size` does not size it), pointers inside unions, and\n\
         //! structures of `pNext` chains this registry does not know (dropped, with a warning).\n\n\
         #![allow(non_camel_case_types, clippy::all, unused_unsafe, unused_variables)]\n\
         use crate::commands::CommandId;\nuse crate::driver::guard;\nuse crate::vk;\n\n\
         // The arena, the recording and the chain walk: hand-written, copied beside this file.\n\
         #[path = \"recorder_runtime.rs\"]\nmod runtime;\nuse runtime::Fix;\npub use runtime::{{Arena, DeepCopy, Owned, WARN}};\n{RECORDING}/// The 1.0 → synchronization2 conversions (the kit's routes of `vkCmdPipelineBarrier`,\n/// `vkCmdWaitEvents`, `vkCmdSetEvent` and the stage masks use them too).\npub use runtime::routes::{{event_dependency, stages2, wait_dependency as barrier_dependency}};\n",
        commands.len(),
        fixed.len(),
    );
    let (commands, routes, structs, fixed) = (&commands, &routes, &structs, &fixed);
    let mut parts: Vec<super::Part> = vec![
        Box::new(|out| write_records(cx, commands, out)),
        Box::new(|out| write_execute(cx, commands, routes, out)),
        Box::new(|out| super::recorder_routes::write_table(cx, routes, out)),
        Box::new(|out| write_replay(cx, commands, out)),
        Box::new(|out| write_chain_table(cx, structs, out)),
        Box::new(|out| {
            for name in fixed {
                write_fix(cx, fixed, name, out);
            }
        }),
        Box::new(|out| write_owned(cx, fixed, out)),
        Box::new(|out| write_table(cx, commands, out)),
        Box::new(|out| {
            out.push_str("\n/// The recording entry points, one per `vkCmd*`, generic over where recordings live.\npub mod entry {\n    use super::*;\n")
        }),
    ];
    parts.extend(super::chunks(commands).map(|chunk| -> super::Part {
        Box::new(move |out| {
            let mut entries = String::new();
            for cmd in chunk {
                write_entry(cx, fixed, cmd, &mut entries);
            }
            out.push_str(&indent(&entries, "    ").replace("    \n", "\n"));
        })
    }));
    out.push_str(&super::in_parallel(parts));
    out.push_str("}\n");
    Ok(out)
}

/// `COMMANDS`, `entries` and `unimplemented`.
fn write_table(cx: &Ctx, commands: &[&Command], out: &mut String) {
    let index = cx.command_index();
    let ids: Vec<String> = commands
        .iter()
        .map(|c| format!("    CommandId({}),\n", index[c.name.as_str()]))
        .collect();
    let _ = write!(
        out,
        "\n/// Every recorded command (canonical), in registry order.\npub const COMMANDS: &[CommandId] = &[\n{}];\n\n\
         /// The recorded commands `E` runs neither by its own method nor through a `…2` route\n\
         /// (the requirements report lists them).\n\
         pub fn unimplemented<E: Execute>() -> impl Iterator<Item = CommandId> {{\n    \
         COMMANDS.iter().copied().filter(|&c| !implemented(c, E::implements))\n}}\n\n\
         /// The recording entry points as a component of a driver's command map (every recorded\n\
         /// command; aliases answer through their command's slot).\n\
         pub fn entries<R: Target>() -> crate::entries::EntryTable {{\n    crate::entries::EntryTable {{\n",
        ids.concat()
    );
    for cmd in commands {
        let field = names::command_field(&cmd.name);
        let _ = writeln!(out, "        {field}: Some(entry::{field}::<R>),");
    }
    out.push_str("        ..crate::entries::EntryTable::EMPTY\n    }\n}\n");
}
