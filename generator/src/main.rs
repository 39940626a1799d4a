//! The `vkgen` command line: `generate`, `driver`, `info`, `diff`, `ash-layouts`, and the device
//! tools `features`, `vkjson` and `profile check`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

// The generator allocates a few hundred thousand small objects on up to 16 threads (the model,
// token streams, formatted text); mimalloc's per-thread heaps serve and free them faster than
// glibc's arenas (issue 35: generation against Mesa).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
        /// Print the wall time of each phase (parse, select, every emitter, writing) to stderr
        #[arg(long)]
        timings: bool,
    },
    /// Scaffolds a driver crate on vkgen's driver kit: unedited, one working (null-like) device.
    Driver {
        #[command(flatten)]
        registry: RegistryArgs,
        /// Driver name (HAL library vulkan.NAME.so) [default: the one DIR/vkgen.toml records]
        #[arg(long)]
        name: Option<String>,
        /// The driver crate's directory; its vkgen.toml (written by every run) supplies the
        /// name, registry, --api-version and --vkgen-root not given here
        #[arg(long, visible_alias = "crate", value_name = "DIR", default_value = ".")]
        out: PathBuf,
        /// The vkgen checkout whose driver kit the crate builds on, as written into Cargo.toml
        /// (relative to --out, or absolute) [default: the checkout this vkgen was built from]
        #[arg(long, value_name = "DIR")]
        vkgen_root: Option<PathBuf>,
        /// How a crate outside the checkout depends on the runtime, as first written into its
        /// Cargo.toml: `vendored` (a copy in vendor/vkgen, the default), `version` (="this
        /// vkgen's version" from a Cargo registry) or `git+URL#REV`; recorded in vkgen.toml
        #[arg(long, value_name = "FORM")]
        runtime: Option<vkgen::scaffold::Runtime>,
        /// Write nothing; exit 1 listing the generated files that differ (src/vkgen.rs,
        /// vkgen.toml, the ICD manifest, vendor/vkgen; the vendor's Cargo.toml and src/lib.rs
        /// only when missing). Without --registry, the recorded registry must still have its
        /// recorded SHA-256
        #[arg(long)]
        check: bool,
        /// With --check: also run the crate's requirements test (tests/vkgen_requirements.rs,
        /// one cargo build) and print what its devices miss; exit 1 on a mandatory gap
        #[arg(long, requires = "check")]
        report: bool,
    },
    /// Counts of commands, types and extensions per version.
    Info {
        #[command(flatten)]
        registry: RegistryArgs,
        /// Machine-readable output
        #[arg(long)]
        json: bool,
    },
    /// What changed between two registries, and what that does to the loader and driver skeleton.
    Diff {
        /// The older vk.xml
        old: PathBuf,
        /// The newer vk.xml
        new: PathBuf,
        /// Android native-buffer description applied to both [default: the one built into vkgen]
        #[arg(long, value_name = "FILE")]
        android_ext: Option<PathBuf>,
        /// Machine-readable output
        #[arg(long)]
        json: bool,
    },
    /// Writes Android's android.hardware.vulkan.{level,version,compute} (and, with a date,
    /// android.software.vulkan.deqp.level) permission files for the best device.
    Features {
        #[command(flatten)]
        device: DeviceArgs,
        /// dEQP release date (YYYY-MM-DD) to claim as android.software.vulkan.deqp.level
        #[arg(long, value_name = "YYYY-MM-DD")]
        deqp_date: Option<String>,
        /// Directory to write the XML files to
        #[arg(long, value_name = "DIR", default_value = ".")]
        out: PathBuf,
        /// Print the evaluation as JSON instead of a table
        #[arg(long)]
        json: bool,
    },
    /// Dumps the instance and every device (properties, features, limits, formats, extensions,
    /// queues, memory, external fence/semaphore properties) as JSON.
    Vkjson {
        #[command(flatten)]
        device: DeviceArgs,
        /// Write to FILE instead of stdout
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        /// Print AOSP's schema instead (what `vkjson_info` prints: frameworks/native
        /// vulkan/vkjson, android16), for tools that read Android's vkjson
        #[arg(long)]
        aosp: bool,
    },
    /// Writes the table of ash 0.38's structure layouts (registry/ash-0.38-layouts.txt) from the
    /// vk.xml ash was generated from (1.3.281); generation reuses an ash type only where it matches.
    AshLayouts {
        /// vk.xml 1.3.281 (vk-1.3.281.xml of the registry matrix)
        #[arg(long, value_name = "FILE")]
        registry: PathBuf,
        /// Where to write the table [default: stdout]
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        /// Write nothing; exit 1 when --out differs from what would be written
        #[arg(long, requires = "out")]
        check: bool,
    },
    /// Writes the feature requirements of registries that predate vk.xml's `<require><feature>`
    /// (registry/required-features.txt) from a registry that has them (vk-1.4.359.xml).
    RequiredFeatures {
        /// vk.xml with `<require><feature>` entries (vk-1.4.359.xml of the registry matrix)
        #[arg(long, value_name = "FILE")]
        registry: PathBuf,
        /// Where to write the table [default: stdout]
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        /// Write nothing; exit 1 when --out differs from what would be written
        #[arg(long, requires = "out")]
        check: bool,
    },
    /// Khronos profiles (profiles-schema JSON).
    Profile {
        #[command(subcommand)]
        action: ProfileCommand,
    },
}

#[derive(Subcommand)]
enum ProfileCommand {
    /// Checks a device against the profiles of PROFILE.json; exit 1 when a requirement is not met.
    Check {
        /// A profiles-schema JSON file
        profile: PathBuf,
        #[command(flatten)]
        device: DeviceArgs,
        /// Check only this profile of the file [default: every profile in it]
        #[arg(long, value_name = "NAME")]
        name: Option<String>,
        /// Physical device index
        #[arg(long, value_name = "N", default_value_t = 0)]
        device_index: usize,
        /// Machine-readable output
        #[arg(long)]
        json: bool,
        /// List only the requirements that are not met
        #[arg(long)]
        only_failed: bool,
    },
}

#[derive(clap::Args, Clone)]
struct DeviceArgs {
    /// Vulkan loader library to open [default: vkgen's target/release/libvulkan.so if built,
    /// else libvulkan.so.1]
    #[arg(long, value_name = "PATH")]
    loader: Option<PathBuf>,
    /// vk.xml describing the structures to read [default: $VKGEN_REGISTRY, else
    /// /usr/share/vulkan/registry/vk.xml]
    #[arg(long, value_name = "FILE")]
    registry: Option<PathBuf>,
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
        self_regenerating: None,
    }
}

/// Runs a device tool, turning its error into the message and exit code.
fn device_tool(
    f: impl FnOnce() -> Result<ExitCode, vkgen::device::DeviceError>,
) -> vkgen::Result<ExitCode> {
    match f() {
        Ok(code) => Ok(code),
        Err(e) => {
            eprintln!("vkgen: error: {e}");
            Ok(ExitCode::from(e.exit_code()))
        }
    }
}

fn to_json(v: &impl serde::Serialize) -> Result<String, vkgen::device::DeviceError> {
    serde_json::to_string_pretty(v)
        .map_err(|e| vkgen::device::DeviceError::Layout(format!("serialising JSON: {e}")))
}

/// Loads the registry and opens the loader; reports both on stderr.
fn open_device_tool(
    d: &DeviceArgs,
) -> Result<
    (
        vkgen::registry::Loaded,
        vkgen::registry::Source,
        vkgen::device::LoaderChoice,
    ),
    vkgen::device::DeviceError,
> {
    let (loaded, source) = vkgen::load(&vkgen::Options {
        registry: d.registry.clone(),
        ..Default::default()
    })?;
    let loader = vkgen::device::resolve_loader(d.loader.as_deref());
    eprintln!(
        "vkgen: loader {} ({}), registry {} (header {})",
        loader.display(),
        loader.how,
        source.path.display(),
        loaded.registry.header_version
    );
    Ok((loaded, source, loader))
}

/// Prints `text`, writes it to `out`, or (`check`) compares it with `out`.
fn write_or_check(
    text: &str,
    out: Option<&std::path::Path>,
    check: bool,
    regenerate: &str,
) -> vkgen::Result<ExitCode> {
    match out {
        None => print!("{text}"),
        Some(out) if check => {
            let existing = std::fs::read_to_string(out).unwrap_or_default();
            if existing.replace("\r\n", "\n") != text {
                println!("stale: {}", out.display());
                println!("regenerate with: {regenerate}");
                return Ok(ExitCode::from(1));
            }
            eprintln!("vkgen: {} is up to date", out.display());
        }
        Some(out) => {
            std::fs::write(out, text).map_err(|e| vkgen::Error::io(out, e))?;
            eprintln!("vkgen: wrote {}", out.display());
        }
    }
    Ok(ExitCode::SUCCESS)
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

/// Runs one subcommand: each arm hands its arguments to the function that runs it.
fn run(cli: Cli) -> vkgen::Result<ExitCode> {
    match cli.command {
        Command::Generate {
            registry,
            out,
            check,
            timings,
        } => generate(&registry, &out, check, timings),
        Command::Driver {
            registry,
            name,
            out,
            vkgen_root,
            runtime,
            check,
            report,
        } => {
            let run =
                vkgen::record::resolve(options(&registry), name, &out, vkgen_root, runtime, check)?;
            if check {
                check_driver(&run, &out, report)
            } else {
                scaffold_driver(&run, &out)
            }
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
        Command::AshLayouts {
            registry,
            out,
            check,
        } => ash_layouts(&registry, out, check),
        Command::RequiredFeatures {
            registry,
            out,
            check,
        } => {
            let (loaded, _) = vkgen::load(&vkgen::Options {
                registry: Some(registry.clone()),
                ..Default::default()
            })?;
            let text = vkgen::emit::requirements::table_file(&loaded.registry);
            let regenerate = format!(
                "cargo run -p vkgen-generator -- required-features --registry {} --out <file>",
                registry.display()
            );
            write_or_check(&text, out.as_deref(), check, &regenerate)
        }
        Command::Diff {
            old,
            new,
            android_ext,
            json,
        } => {
            let d = vkgen::diff::run(&old, &new, android_ext.as_deref())?;
            if json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&d)
                        .map_err(|e| vkgen::Error::Options(e.to_string()))?
                );
            } else {
                print!("{}", vkgen::diff::table(&d));
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Features {
            device,
            deqp_date,
            out,
            json,
        } => device_tool(|| features(&device, deqp_date, &out, json)),
        Command::Vkjson { device, out, aosp } => device_tool(|| vkjson(&device, out, aosp)),
        Command::Profile {
            action:
                ProfileCommand::Check {
                    profile,
                    device,
                    name,
                    device_index,
                    json,
                    only_failed,
                },
        } => {
            device_tool(|| check_profile(&profile, &device, name, device_index, json, only_failed))
        }
    }
}

/// `vkgen generate`: writes the crate, or with `--check` lists what is stale and how to
/// regenerate.
fn generate(
    registry: &RegistryArgs,
    out: &std::path::Path,
    check: bool,
    timings: bool,
) -> vkgen::Result<ExitCode> {
    let mut opts = options(registry);
    opts.self_regenerating = vkgen::build::generator_beside(out);
    let g = vkgen::generate(&opts)?;
    // `--timings`: the phases of `generate`, then the check or the write.
    let print_timings = |took: std::time::Duration, what: &str| {
        if timings {
            let mut t = g.timings.clone();
            t.phases.push((what.to_owned(), took));
            eprint!("{}", t.table());
        }
    };
    eprintln!(
        "vkgen: registry {} (from {})",
        g.registry.path.display(),
        g.registry.how
    );
    for w in &g.warnings {
        eprintln!("vkgen: warning: {w}");
    }
    if check {
        let start = std::time::Instant::now();
        let s = vkgen::check(&g.files, out);
        print_timings(start.elapsed(), "check");
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
        if let Some((version, sha)) = vkgen::recorded_registry(out) {
            if sha != g.provenance.1 {
                println!(
                    "note: {} records vk.xml {version} (SHA-256 {sha}); {} is vk.xml {} (SHA-256 {}): \
                     to check the crate against its own input, pass that file as --registry",
                    out.display(),
                    g.registry.path.display(),
                    g.provenance.0,
                    g.provenance.1
                );
            }
        }
        let mut cmd = format!(
            "cargo run -p vkgen-generator -- generate --registry {}",
            g.registry.path.display()
        );
        if let Some((a, b)) = registry.api_version {
            cmd.push_str(&format!(" --api-version {a}.{b}"));
        }
        cmd.push_str(&format!(" --out {}", out.display()));
        println!("regenerate with: {cmd}");
        return Ok(ExitCode::from(1));
    }
    let start = std::time::Instant::now();
    vkgen::write(&g.files, out)?;
    print_timings(start.elapsed(), "write");
    eprintln!(
        "vkgen: wrote {} files to {} ({})",
        g.files.len(),
        out.display(),
        g.summary
    );
    Ok(ExitCode::SUCCESS)
}

/// `vkgen driver --check`: whether the scaffold's files and the runtime it builds on are
/// current, and with `--report` whether the driver meets its report.
fn check_driver(
    run: &vkgen::record::DriverRun,
    out: &std::path::Path,
    report: bool,
) -> vkgen::Result<ExitCode> {
    let name = &run.name;
    let scaffold = vkgen::scaffold::driver_files(run)?;
    eprintln!("vkgen: {}", scaffold.registry);
    let s = vkgen::check(&scaffold.files, out);
    let met = !report || vkgen::driver_report::run(out)?;
    if let Some(mismatch) = &scaffold.runtime.mismatch {
        println!("runtime mismatch: {mismatch}");
    }
    if s.is_fresh() && scaffold.runtime.mismatch.is_none() {
        eprintln!("vkgen: driver `{name}` in {} is up to date", out.display());
        return Ok(if met {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        });
    }
    for f in s.stale.iter().chain(&s.missing) {
        println!("stale: {}", out.join(f).display());
    }
    Ok(ExitCode::from(1))
}

/// `vkgen driver`: scaffolds (or refreshes) the driver crate.
fn scaffold_driver(
    run: &vkgen::record::DriverRun,
    out: &std::path::Path,
) -> vkgen::Result<ExitCode> {
    let name = &run.name;
    let scaffold = vkgen::scaffold::driver(run)?;
    eprintln!("vkgen: {}", scaffold.registry);
    if let Some(mismatch) = &scaffold.runtime.mismatch {
        eprintln!("vkgen: warning: {mismatch}");
    }
    eprintln!(
        "vkgen: driver `{name}` scaffolded in {} ({} files)",
        out.display(),
        scaffold.files.len()
    );
    eprintln!(
        "vkgen: edit {}/src/lib.rs, then: cargo build --release --manifest-path {}/Cargo.toml",
        out.display(),
        out.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// `vkgen ash-layouts`: prints, writes or checks the table of ash's layouts.
fn ash_layouts(
    registry: &std::path::Path,
    out: Option<PathBuf>,
    check: bool,
) -> vkgen::Result<ExitCode> {
    let ash = vkgen::ash_types::AshTypes::load();
    let text = vkgen::ash_layouts::table_file(registry, |n| ash.has(n))?;
    match out {
        None => print!("{text}"),
        Some(out) if check => {
            let existing = std::fs::read_to_string(&out).unwrap_or_default();
            if existing.replace("\r\n", "\n") != text {
                println!("stale: {}", out.display());
                println!(
                    "regenerate with: cargo run -p vkgen-generator -- ash-layouts --registry {} --out {}",
                    registry.display(),
                    out.display()
                );
                return Ok(ExitCode::from(1));
            }
            eprintln!("vkgen: {} is up to date", out.display());
        }
        Some(out) => {
            std::fs::write(&out, text).map_err(|e| vkgen::Error::io(&out, e))?;
            eprintln!("vkgen: wrote {}", out.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `vkgen features`: the device's feature permissions report, written and printed.
fn features(
    device: &DeviceArgs,
    deqp_date: Option<String>,
    out: &std::path::Path,
    json: bool,
) -> Result<ExitCode, vkgen::device::DeviceError> {
    use vkgen::device::{permissions, session::Session, DeviceError};
    let deqp = deqp_date
        .as_deref()
        .map(|d| permissions::deqp_level(d).map(|v| (d, v)))
        .transpose()
        .map_err(DeviceError::Options)?;
    let (loaded, _, loader) = open_device_tool(device)?;
    let session = Session::open(&loaded.registry, loader)?;
    let report = permissions::report(&session, deqp)?;
    let (written, warnings) = permissions::write(&report, out)?;
    if json {
        println!("{}", to_json(&report)?);
    } else {
        print!("{}", permissions::table(&report));
    }
    for p in &written {
        eprintln!("vkgen: wrote {}", p.display());
    }
    for w in &warnings {
        eprintln!("vkgen: warning: {w}");
    }
    Ok(ExitCode::SUCCESS)
}

/// `vkgen vkjson`: the device's vkjson document (or AOSP's form of it).
fn vkjson(
    device: &DeviceArgs,
    out: Option<PathBuf>,
    aosp: bool,
) -> Result<ExitCode, vkgen::device::DeviceError> {
    use vkgen::device::{session::Session, vkjson, DeviceError};
    let (loaded, source, loader) = open_device_tool(device)?;
    let session = Session::open(&loaded.registry, loader)?;
    let registry = format!(
        "{} (header {})",
        source.path.display(),
        loaded.registry.header_version
    );
    let doc = if aosp {
        vkjson::aosp_document(&session)?
    } else {
        vkjson::document(&session, &registry)?
    };
    let text = to_json(&doc)? + "\n";
    match out {
        Some(p) => std::fs::write(&p, text).map_err(|e| DeviceError::Io { path: p, source: e })?,
        None => print!("{text}"),
    }
    Ok(ExitCode::SUCCESS)
}

/// `vkgen profile check`: the device against each profile of the file (or the one named).
fn check_profile(
    profile: &std::path::Path,
    device: &DeviceArgs,
    name: Option<String>,
    device_index: usize,
    json: bool,
    only_failed: bool,
) -> Result<ExitCode, vkgen::device::DeviceError> {
    use vkgen::device::profile::{self, Limittypes, ProfileFile};
    use vkgen::device::session::Session;
    let file = ProfileFile::read(profile)?;
    let names: Vec<String> = match name {
        Some(n) => vec![n],
        None => file.profiles.keys().cloned().collect(),
    };
    let (loaded, source, loader) = open_device_tool(device)?;
    let limittypes = Limittypes::read(&source.path)?;
    let session = Session::open(&loaded.registry, loader)?;
    let dev = session.device(device_index)?;
    let reports = names
        .iter()
        .map(|n| profile::check(&session, dev, &limittypes, &file, n))
        .collect::<Result<Vec<_>, _>>()?;
    if json {
        println!("{}", to_json(&reports)?);
    } else {
        print!("{}", profile::table(&reports, only_failed));
    }
    Ok(if reports.iter().all(|r| r.supported) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
