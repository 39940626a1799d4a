//! `names::snake` and `names::shouty` convert ASCII names themselves (issue 35: heck was a
//! twelfth of a whole `generate`); they must agree with heck 0.5 on every name of every registry
//! of the matrix: types, their members, commands, their parameters, enum groups and values,
//! extensions. `names::type_name` finds `FlagBits` itself too; it must be `replacen`'s.

use heck::{ToShoutySnakeCase, ToSnakeCase};

mod common;

#[test]
fn every_registry_name_converts_as_heck_converts_it() {
    for version in ["1.1.130", "1.2.203", "1.3.239", "1.3.281", "1.4.359"] {
        let (loaded, _) = vkgen::load(&common::options(version)).unwrap();
        let reg = &loaded.registry;
        let mut names: Vec<&str> = Vec::new();
        for t in reg.types.values() {
            names.push(&t.name);
            if let vkgen::model::TypeKind::Struct(a) | vkgen::model::TypeKind::Union(a) = &t.kind {
                names.extend(a.members.iter().map(|m| m.name.as_str()));
            }
        }
        for c in reg.commands.values() {
            names.push(&c.name);
            names.extend(c.params.iter().map(|p| p.name.as_str()));
        }
        for g in reg.enums.values() {
            names.push(&g.name);
            names.extend(g.values.iter().map(|v| v.name.as_str()));
        }
        names.extend(reg.extensions.iter().map(|e| e.name.as_str()));
        assert!(names.len() > 5_000, "{version}: {} names", names.len());
        for name in names {
            let stem = name.strip_prefix("Vk").unwrap_or(name);
            assert_eq!(
                vkgen::names::type_name(name),
                stem.replacen("FlagBits", "Flags", 1),
                "{version}: {name}"
            );
            for n in [name, stem] {
                assert_eq!(vkgen::names::snake(n), n.to_snake_case(), "{version}: {n}");
                assert_eq!(
                    vkgen::names::shouty(n),
                    n.to_shouty_snake_case(),
                    "{version}: {n}"
                );
            }
        }
    }
}
