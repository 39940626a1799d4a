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
    runtime: Option<String>,
}

#[derive(Template)]
#[template(path = "driver/lib.rs.j2", escape = "none")]
struct LibRs<'a> {
    name: &'a str,
    crate_name: &'a str,
    type_name: &'a str,
}

#[derive(Template)]
#[template(path = "driver/hal.rs.j2", escape = "none")]
struct HalRs<'a> {
    preamble: &'a str,
    name: &'a str,
    crate_name: &'a str,
}

/// Scaffolds driver `name` in `out`; returns the number of files written or refreshed.
pub fn driver(opts: &Options, name: &str, out: &Path, runtime: Option<&Path>) -> Result<usize> {
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return Err(Error::Options(format!(
            "driver name `{name}`: use letters, digits, '_' and '-'"
        )));
    }
    let crate_name = name.to_snake_case();
    let type_name = format!("{}Driver", name.to_upper_camel_case());
    let render =
        |n: &str, t: &dyn DynRender| t.render_dyn().map_err(|e| Error::Template(n.to_owned(), e));
    let mut files = vec![OutputFile {
        path: "Cargo.toml".into(),
        contents: render(
            "driver/Cargo.toml",
            &CargoToml {
                name,
                crate_name: &crate_name,
                runtime: runtime.map(|p| p.display().to_string()),
            },
        )?,
    }];
    if runtime.is_none() {
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
        if !out.join("src/lib.rs").exists() {
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
