//! The loader's hook tables (`policy::LOADER_HOOKS` → `generated/src/hooks.rs`): every name is
//! checked against the registry when generating, typed from it, and a registry older than the
//! one the tables are written for drops the rows it cannot have.

mod common;

use vkgen::emit::{hooks, Ctx};
use vkgen::policy::{Hook, HookTable, LOADER_HOOKS};

fn selection_ctx<R>(version: &str, f: impl FnOnce(&Ctx) -> R) -> R {
    let (loaded, _) = vkgen::load(&common::options(version)).unwrap();
    let reg = &loaded.registry;
    let ash = vkgen::ash_types::AshTypes::load();
    let sel = vkgen::select::select(reg, vkgen::select::highest_version(reg), &ash);
    f(&Ctx::new(&sel, &ash))
}

const MISSPELT: HookTable = HookTable {
    name: "t",
    doc: "",
    rows: &[
        Hook {
            command: "vkCreateInstance",
            function: "crate::a::create_instance",
            cfg: None,
        },
        Hook {
            command: "vkCreateInstanse",
            function: "crate::a::create_instance",
            cfg: None,
        },
    ],
};

#[test]
fn an_unknown_command_is_an_error_on_the_registry_the_tables_are_written_for() {
    selection_ctx("1.4.359", |cx| {
        let e = hooks::rows(cx, &MISSPELT)
            .err()
            .expect("refused")
            .to_string();
        assert!(
            e.contains("table `t` names vkCreateInstanse") && e.contains("header 359"),
            "{e}"
        );
    });
    // An older registry drops what it does not define (here: the misspelt name too).
    selection_ctx("1.1.130", |cx| {
        let rows = hooks::rows(cx, &MISSPELT).unwrap();
        let names: Vec<_> = rows.iter().map(|r| r.hook.command).collect();
        assert_eq!(names, ["vkCreateInstance"]);
    });
}

#[test]
fn a_function_outside_the_loaders_root_is_an_error() {
    const RELATIVE: HookTable = HookTable {
        name: "r",
        doc: "",
        rows: &[Hook {
            command: "vkCreateInstance",
            function: "instance::create_instance",
            cfg: None,
        }],
    };
    selection_ctx("1.4.359", |cx| {
        let e = hooks::rows(cx, &RELATIVE)
            .err()
            .expect("refused")
            .to_string();
        assert!(e.contains("not a path from the loader's root"), "{e}");
    });
}

/// Every policy row generates on the newest registry, typed by the selection's `pfn` where the
/// selection has the command and by a type written from the registry where it does not (the
/// desktop surfaces); 1.1.130 lacks `vkReleaseSwapchainImagesEXT` and keeps the rest.
#[test]
fn every_row_is_typed_from_the_registry() {
    let all: usize = LOADER_HOOKS.iter().map(|t| t.rows.len()).sum();
    selection_ctx("1.4.359", |cx| {
        let mut n = 0;
        for t in LOADER_HOOKS {
            for r in hooks::rows(cx, t).unwrap() {
                let local = r.hook.cfg.is_some() || r.hook.command == "vkCreateHeadlessSurfaceEXT";
                let module = if local { "hooks" } else { "pfn" };
                assert_eq!(r.pfn, format!("$crate::{module}::PFN_{}", r.hook.command));
                n += 1;
            }
        }
        assert_eq!(n, all);
        let text = hooks::emit(cx).unwrap();
        assert!(text.contains(
            "pub type PFN_vkCreateXcbSurfaceKHR = unsafe extern \"system\" fn(\n    \
             instance: crate::vk::Instance,\n    \
             p_create_info: *const crate::vk::XcbSurfaceCreateInfoKHR<'_>,"
        ));
        assert!(text.contains(
            "            #[cfg(all(feature = \"desktop\", not(target_os = \"android\")))] \
             b\"vkCreateXcbSurfaceKHR\" => {"
        ));
    });
    selection_ctx("1.1.130", |cx| {
        let kept: Vec<&str> = LOADER_HOOKS
            .iter()
            .flat_map(|t| hooks::rows(cx, t).unwrap())
            .map(|r| r.hook.command)
            .collect();
        assert_eq!(kept.len(), all - 1, "{kept:?}");
        assert!(!kept.contains(&"vkReleaseSwapchainImagesEXT"));
    });
}
