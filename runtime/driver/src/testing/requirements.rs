//! The requirements report of a kit driver: what each device it enumerates misses of the
//! version it claims and the extensions it advertises — required features and limits,
//! extension dependencies, features it turns on but cannot expose, commands with no
//! implementation (NULL) or, given the engine, recorded but never executed, and format
//! features it advertises on commands it does not run.
//!
//! Design: the report goes through the driver's own `vkGetInstanceProcAddr` (no loader) and
//! creates a real instance at the driver's API version, so it checks the devices exactly as
//! `vkCreateInstance` builds them from the vendor's `physical_devices` (a description needs an
//! instance, and vendors may read it). It then reads the kit's objects behind the handles:
//! the flat tables are what every query answers from.
//!
//! `vkgen driver` writes a test calling [`assert_requirements`] into the crate
//! (`tests/vkgen_requirements.rs`), and `vkgen driver --check` runs it and prints the report.

use std::fmt;

use ash::vk;
use vkgen_generated::commands::CommandId;
use vkgen_generated::driver::{get_instance_proc_addr, Driver};
use vkgen_generated::extensions::ExtensionId;

use crate::kit::requirements::{
    check, cross_check, unimplemented_commands, unrunnable_format_features, Missing, LIMITS_SOURCE,
};
use crate::kit::{command_map, Instance, Kit};

/// One physical device's findings.
#[derive(Debug, Clone)]
pub struct DeviceReport {
    pub name: String,
    pub api_version: u32,
    pub missing: Vec<Missing>,
}

/// The findings of every device of a driver.
#[derive(Debug, Clone)]
pub struct Report {
    pub driver: &'static str,
    pub devices: Vec<DeviceReport>,
}

impl Report {
    /// The findings that break the specification or an extension's promise
    /// ([`Missing::is_mandatory`]).
    pub fn mandatory(&self) -> impl Iterator<Item = &Missing> {
        self.devices
            .iter()
            .flat_map(|d| &d.missing)
            .filter(|m| m.is_mandatory())
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "vkgen requirements report for {}", self.driver)?;
        writeln!(f, "limits: {LIMITS_SOURCE}")?;
        for (i, d) in self.devices.iter().enumerate() {
            let errors = d.missing.iter().filter(|m| m.is_mandatory()).count();
            writeln!(
                f,
                "device {i} `{}` (Vulkan {}.{}): {errors} missing, {} warnings",
                d.name,
                vk::api_version_major(d.api_version),
                vk::api_version_minor(d.api_version),
                d.missing.len() - errors
            )?;
            for m in &d.missing {
                let level = if m.is_mandatory() {
                    "missing"
                } else {
                    "warning"
                };
                writeln!(f, "  {level}: {m}")?;
            }
        }
        Ok(())
    }
}

/// The report of driver `D`. `executes` is the engine's `Execute::implements` when the driver
/// records commands (`Kit::RECORD_COMMANDS`): recorded commands it does not run are warned
/// about. An `Err` names why no instance could be created.
pub fn report<D: Kit>(executes: Option<fn(CommandId) -> bool>) -> Result<Report, String> {
    // SAFETY: the generated `vkGetInstanceProcAddr` of a driver type is a valid static entry
    // point for the life of the process.
    let entry = unsafe {
        ash::Entry::from_static_fn(ash::StaticFn {
            get_instance_proc_addr: get_instance_proc_addr::<D>,
        })
    };
    let app = vk::ApplicationInfo::default().api_version(<D as Driver>::API_VERSION);
    let info = vk::InstanceCreateInfo::default().application_info(&app);
    // SAFETY: `info` and `app` are valid and outlive the call.
    let instance = unsafe { entry.create_instance(&info, None) }
        .map_err(|e| format!("vkCreateInstance of {}: {e}", std::any::type_name::<D>()))?;
    // SAFETY: the handle was just returned by this driver's vkCreateInstance and is destroyed
    // only below, after the last use of `kit`.
    let kit = unsafe { Instance::<D>::from_handle(instance.handle()) };
    let table = command_map::<D>();
    let devices = kit
        .map(|k| {
            k.physical_devices()
                .iter()
                .map(|pd| {
                    let extensions: Vec<ExtensionId> = pd.extensions.iter().collect();
                    let p10 = pd.properties.properties10();
                    let mut missing = check(&pd.properties, &pd.features, &extensions);
                    missing.extend(cross_check(&pd.properties, &pd.queue_families));
                    missing.extend(unimplemented_commands::<D>(
                        table,
                        p10.api_version,
                        &extensions,
                        executes,
                    ));
                    missing.extend(unrunnable_format_features::<D>(pd, table, executes));
                    DeviceReport {
                        name: p10
                            .device_name_as_c_str()
                            .map_or_else(|_| "?".into(), |n| n.to_string_lossy().into_owned()),
                        api_version: p10.api_version,
                        missing,
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    // SAFETY: the instance is this call's own; nothing refers to it any more.
    unsafe { instance.destroy_instance(None) };
    Ok(Report {
        driver: std::any::type_name::<D>(),
        devices,
    })
}

/// Prints [`report`] and fails (panics, for a test) when a device misses something
/// mandatory; warnings only print. What `tests/vkgen_requirements.rs` of a scaffolded crate
/// calls.
pub fn assert_requirements<D: Kit>(executes: Option<fn(CommandId) -> bool>) {
    let report = report::<D>(executes).unwrap_or_else(|e| panic!("{e}"));
    println!("{report}");
    let gaps = report.mandatory().count();
    assert!(
        gaps == 0 && !report.devices.is_empty(),
        "{}: {gaps} requirements missing (or no device): see the report above",
        report.driver
    );
}
