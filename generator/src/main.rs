//! The `vkgen` command line: `generate`, `driver`, `info`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "vkgen",
    version,
    about = "Generates an Android-style Vulkan loader and driver skeleton from vk.xml"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Args, Clone)]
struct RegistryArgs {
    /// vk.xml to read [default: $VKGEN_REGISTRY, else /usr/share/vulkan/registry/vk.xml]
    #[arg(long, value_name = "FILE")]
    registry: Option<PathBuf>,
    /// Android native-buffer extension description [default: the one built into vkgen]
    #[arg(long, value_name = "FILE")]
    android_ext: Option<PathBuf>,
    /// API version to generate for, e.g. 1.3 [default: the registry's highest]
    #[arg(long, value_name = "X.Y", value_parser = parse_version)]
    api_version: Option<(u32, u32)>,
}

#[derive(Subcommand)]
enum Command {
    /// Writes the generated crate (tables, lookup, trampolines, driver skeleton, version script).
    Generate {
        #[command(flatten)]
        registry: RegistryArgs,
        /// Output directory (a standalone crate)
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// Write nothing; exit 1 listing the files that differ from what would be generated
        #[arg(long)]
        check: bool,
    },
    /// Scaffolds a standalone driver crate with one source file to edit.
    Driver {
        #[command(flatten)]
        registry: RegistryArgs,
        /// Driver name (HAL library vulkan.NAME.so)
        #[arg(long)]
        name: String,
        /// Output directory
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// Make the crate a member of the vkgen workspace at DIR (relative to --out), built on its
        /// driver runtime, instead of a self-contained crate (how vkgen's reference drivers are made)
        #[arg(long, value_name = "DIR")]
        vkgen_root: Option<PathBuf>,
        /// Write nothing; exit 1 listing the generated files that differ
        #[arg(long)]
        check: bool,
    },
    /// Counts of commands, types and extensions per version.
    Info {
        #[command(flatten)]
        registry: RegistryArgs,
        /// Machine-readable output
        #[arg(long)]
        json: bool,
    },
}

fn parse_version(s: &str) -> Result<(u32, u32), String> {
    vkgen::model::parse_version(s).ok_or_else(|| format!("`{s}` is not a version like 1.3"))
}

fn options(r: &RegistryArgs) -> vkgen::Options {
    vkgen::Options {
        registry: r.registry.clone(),
        android_ext: r.android_ext.clone(),
        api_version: r.api_version,
        package: None,
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("vkgen: error: {e}");
            ExitCode::from(e.exit_code() as u8)
        }
    }
}

fn run(cli: Cli) -> vkgen::Result<ExitCode> {
    match cli.command {
        Command::Generate {
            registry,
            out,
            check,
        } => {
            let opts = options(&registry);
            let g = vkgen::generate(&opts)?;
            eprintln!(
                "vkgen: registry {} (from {})",
                g.registry.path.display(),
                g.registry.how
            );
            for w in &g.warnings {
                eprintln!("vkgen: warning: {w}");
            }
            if check {
                let s = vkgen::check(&g.files, &out);
                if s.is_fresh() {
                    eprintln!("vkgen: {} is up to date ({})", out.display(), g.summary);
                    return Ok(ExitCode::SUCCESS);
                }
                for f in &s.stale {
                    println!("stale: {}", out.join(f).display());
                }
                for f in &s.missing {
                    println!("missing: {}", out.join(f).display());
                }
                let mut cmd = format!(
                    "cargo run -p vkgen -- generate --registry {}",
                    g.registry.path.display()
                );
                if let Some((a, b)) = registry.api_version {
                    cmd.push_str(&format!(" --api-version {a}.{b}"));
                }
                cmd.push_str(&format!(" --out {}", out.display()));
                println!("regenerate with: {cmd}");
                return Ok(ExitCode::from(1));
            }
            vkgen::write(&g.files, &out)?;
            eprintln!(
                "vkgen: wrote {} files to {} ({})",
                g.files.len(),
                out.display(),
                g.summary
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Driver {
            registry,
            name,
            out,
            vkgen_root,
            check,
        } => {
            let opts = options(&registry);
            if check {
                let files =
                    vkgen::scaffold::driver_files(&opts, &name, &out, vkgen_root.as_deref())?;
                let s = vkgen::check(&files, &out);
                if s.is_fresh() {
                    eprintln!("vkgen: driver `{name}` in {} is up to date", out.display());
                    return Ok(ExitCode::SUCCESS);
                }
                for f in s.stale.iter().chain(&s.missing) {
                    println!("stale: {}", out.join(f).display());
                }
                return Ok(ExitCode::from(1));
            }
            let written = vkgen::scaffold::driver(&opts, &name, &out, vkgen_root.as_deref())?;
            eprintln!(
                "vkgen: driver `{name}` scaffolded in {} ({} files)",
                out.display(),
                written
            );
            eprintln!("vkgen: edit {}/src/lib.rs, then: cargo build --release --manifest-path {}/Cargo.toml", out.display(), out.display());
            Ok(ExitCode::SUCCESS)
        }
        Command::Info { registry, json } => {
            let opts = options(&registry);
            let report = vkgen::info::report(&opts)?;
            if json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&report)
                        .map_err(|e| vkgen::Error::Options(e.to_string()))?
                );
            } else {
                print!("{}", vkgen::info::table(&report));
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}
