//! `vkgen driver`: scaffolds a driver crate. Standalone (default): the crate carries its own
//! generated tables in `vk/` and HAL/ICD exports in `src/hal.rs`, and builds with nothing but
//! crates.io. With `--runtime`, it builds on vkgen's driver runtime instead (how vkgen's own
//! reference drivers are made). `src/lib.rs` is the vendor's file: written once, never overwritten.

use std::path::Path;

use askama::Template;
use heck::{ToSnakeCase, ToUpperCamelCase};

use crate::error::{Error, Result};
use crate::{emit, generate, write, Options, OutputFile};

#[derive(Template)]
#[template(path = "driver/Cargo.toml.j2", escape = "none")]
struct CargoToml<'a> {
    name: &'a str,
    crate_name: &'a str,
    root: Option<String>,
}

#[derive(Template)]
#[template(path = "driver/lib.rs.j2", escape = "none")]
struct LibRs<'a> {
    name: &'a str,
    crate_name: &'a str,
    type_name: &'a str,
}

#[derive(Template)]
#[template(path = "driver/lib_runtime.rs.j2", escape = "none")]
struct LibRuntimeRs<'a> {
    name: &'a str,
    type_name: &'a str,
}

#[derive(Template)]
#[template(path = "driver/hal.rs.j2", escape = "none")]
struct HalRs<'a> {
    preamble: &'a str,
    name: &'a str,
    crate_name: &'a str,
}

/// The files of driver `name` for `out`. With `vkgen_root` (a vkgen checkout, relative to `out`)
/// the crate is a member of that workspace built on its driver runtime (how vkgen's reference
/// drivers are made); otherwise it is standalone. `src/lib.rs` is included only when absent.
pub fn driver_files(
    opts: &Options,
    name: &str,
    out: &Path,
    vkgen_root: Option<&Path>,
) -> Result<Vec<OutputFile>> {
    check_driver_name(name)?;
    let crate_name = name.to_snake_case();
    let type_name = format!("{}Driver", name.to_upper_camel_case());
    let render = |n: &str, t: &dyn DynRender| {
        let mut text = t
            .render_dyn()
            .map_err(|e| Error::Template(n.to_owned(), e))?;
        if !text.ends_with('\n') {
            text.push('\n');
        }
        Ok::<_, Error>(text)
    };
    let mut files = vec![OutputFile {
        path: "Cargo.toml".into(),
        contents: render(
            "driver/Cargo.toml",
            &CargoToml {
                name,
                crate_name: &crate_name,
                root: vkgen_root.map(|p| p.display().to_string()),
            },
        )?,
    }];
    let lib_missing = !out.join("src/lib.rs").exists();
    match vkgen_root {
        Some(_) => {
            if lib_missing {
                files.push(OutputFile {
                    path: "src/lib.rs".into(),
                    contents: render(
                        "driver/lib_runtime.rs",
                        &LibRuntimeRs {
                            name,
                            type_name: &type_name,
                        },
                    )?,
                });
            }
        }
        None => {
            let generated = generate(&Options {
                package: Some(format!("{name}-vk")),
                ..opts.clone()
            })?;
            files.extend(generated.files.into_iter().map(|f| OutputFile {
                path: format!("vk/{}", f.path),
                contents: f.contents,
            }));
            files.push(OutputFile {
                path: "src/hal.rs".into(),
                contents: render(
                    "driver/hal.rs",
                    &HalRs {
                        preamble: emit::PREAMBLE,
                        name,
                        crate_name: &crate_name,
                    },
                )?,
            });
            if lib_missing {
                files.push(OutputFile {
                    path: "src/lib.rs".into(),
                    contents: render(
                        "driver/lib.rs",
                        &LibRs {
                            name,
                            crate_name: &crate_name,
                            type_name: &type_name,
                        },
                    )?,
                });
            }
        }
    }
    Ok(files)
}

/// A driver name must make a package cargo accepts, a library `vulkan_<name>` and a Rust type
/// `<Name>Driver`: an ASCII letter first, then letters, digits, `_` and `-`, and no Rust keyword.
pub fn check_driver_name(name: &str) -> Result<()> {
    let shape = name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    let snake = name.to_snake_case();
    let reserved = ["test", "core", "std", "alloc", "proc_macro"].contains(&snake.as_str())
        || !crate::names::is_rust_identifier(&snake)
        || snake.is_empty();
    if !shape || reserved {
        return Err(Error::Options(format!(
            "driver name `{name}`: start with a letter, then use letters, digits, '_' and '-' \
             (and no Rust keyword or built-in crate name)"
        )));
    }
    Ok(())
}

/// Scaffolds driver `name` in `out`; returns the number of files written or refreshed.
pub fn driver(opts: &Options, name: &str, out: &Path, vkgen_root: Option<&Path>) -> Result<usize> {
    let files = driver_files(opts, name, out, vkgen_root)?;
    write(&files, out)?;
    Ok(files.len())
}

/// Object-safe rendering, so the closure above can take any of the templates.
trait DynRender {
    fn render_dyn(&self) -> std::result::Result<String, String>;
}

impl<T: Template> DynRender for T {
    fn render_dyn(&self) -> std::result::Result<String, String> {
        self.render().map_err(|e| e.to_string())
    }
}
