//! [`super::calls::GpuStats`] on Android: `android::GraphicsEnv`'s members in libgraphicsenv, looked up
//! by their Itanium-mangled names (as the linker's `getDriverNamespace`) and called on
//! `GraphicsEnv::getInstance()`: `this` first, each `GpuStatsInfo` enum as an `int`.
//! The members are rows of [`crate::platform_symbols`]'s table; without them nothing is
//! recorded (the missing one is logged, and initialisation fails).

use std::ffi::{c_char, c_int, c_void, CString};

use super::calls::{GpuStats, StatsCall};
use crate::platform_symbols::platform;

/// C strings for `names` (a name with a NUL inside is cut there, as C would read it).
fn c_strings(names: &[String]) -> Vec<CString> {
    names
        .iter()
        .map(|n| {
            let bytes = n.as_bytes();
            let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
            CString::new(&bytes[..end]).unwrap_or_default()
        })
        .collect()
}

/// `setVulkan{Instance,Device}Extensions`.
type SetExtensions = unsafe extern "C" fn(*mut c_void, u32, *const *const c_char);

/// GraphicsEnv's statistics.
#[derive(Debug, Clone, Copy, Default)]
pub struct GraphicsEnvStats;

impl GpuStats for GraphicsEnvStats {
    fn record(&self, call: StatsCall) {
        let Ok(m) = platform() else {
            return;
        };
        // SAFETY: the singleton accessor takes no arguments and returns the process's instance.
        let env = unsafe { (m.graphics_env)() };
        if env.is_null() {
            return;
        }
        let extensions = |f: SetExtensions, names: &[String]| {
            let owned = c_strings(names);
            let ptrs: Vec<*const c_char> = owned.iter().map(|n| n.as_ptr()).collect();
            // SAFETY: the member on the live singleton with `ptrs.len()` NUL-terminated names
            // that outlive the call (GraphicsEnv copies what it keeps).
            unsafe { f(env, ptrs.len() as u32, ptrs.as_ptr()) };
        };
        match call {
            StatsCall::DriverToLoad(driver) => {
                // SAFETY: the member on the live singleton with a GpuStatsInfo::Driver.
                unsafe { (m.set_driver_to_load)(env, driver as c_int) };
            }
            StatsCall::DriverLoaded {
                api,
                loaded,
                loading_time_ns,
            } => {
                // SAFETY: the member on the live singleton with a GpuStatsInfo::Api.
                unsafe { (m.set_driver_loaded)(env, api as c_int, loaded, loading_time_ns) };
            }
            StatsCall::TargetStats(stats, value) => {
                // SAFETY: the member on the live singleton with a GpuStatsInfo::Stats.
                unsafe { (m.set_target_stats)(env, stats as c_int, value) };
            }
            StatsCall::VulkanEngineName(name) => {
                if let Some(name) = c_strings(&[name]).pop() {
                    // SAFETY: the member on the live singleton with a NUL-terminated name that
                    // outlives the call.
                    unsafe { (m.add_engine_name)(env, name.as_ptr()) };
                }
            }
            StatsCall::VulkanInstanceExtensions(names) => {
                extensions(m.set_instance_extensions, &names)
            }
            StatsCall::VulkanDeviceExtensions(names) => extensions(m.set_device_extensions, &names),
        }
    }
}
