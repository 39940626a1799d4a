//! [`super::GpuStats`] on Android: `android::GraphicsEnv`'s members in libgraphicsenv, looked up
//! by their Itanium-mangled names (as the linker's `getDriverNamespace`) and called on
//! `GraphicsEnv::getInstance()`: `this` first, each `GpuStatsInfo` enum as an `int`.
//! `int64_t`/`uint64_t` mangle as `l`/`m` on LP64 and `x`/`y` elsewhere.

use std::ffi::{c_char, c_int, c_void, CString};
use std::sync::OnceLock;

use super::{GpuStats, StatsCall};
use crate::platform_symbols::lookup;

type GetInstance = unsafe extern "C" fn() -> *mut c_void;
type SetDriverToLoad = unsafe extern "C" fn(*mut c_void, c_int);
type SetDriverLoaded = unsafe extern "C" fn(*mut c_void, c_int, bool, i64);
type SetTargetStats = unsafe extern "C" fn(*mut c_void, c_int, u64);
type SetExtensions = unsafe extern "C" fn(*mut c_void, u32, *const *const c_char);
type AddEngineName = unsafe extern "C" fn(*mut c_void, *const c_char);

#[cfg(target_pointer_width = "64")]
mod mangled {
    pub const SET_DRIVER_LOADED: &std::ffi::CStr =
        c"_ZN7android11GraphicsEnv15setDriverLoadedENS_12GpuStatsInfo3ApiEbl";
    pub const SET_TARGET_STATS: &std::ffi::CStr =
        c"_ZN7android11GraphicsEnv14setTargetStatsENS_12GpuStatsInfo5StatsEm";
}

#[cfg(not(target_pointer_width = "64"))]
mod mangled {
    pub const SET_DRIVER_LOADED: &std::ffi::CStr =
        c"_ZN7android11GraphicsEnv15setDriverLoadedENS_12GpuStatsInfo3ApiEbx";
    pub const SET_TARGET_STATS: &std::ffi::CStr =
        c"_ZN7android11GraphicsEnv14setTargetStatsENS_12GpuStatsInfo5StatsEy";
}

/// The members found, each `None` when libgraphicsenv lacks it.
struct Members {
    get_instance: Option<GetInstance>,
    set_driver_to_load: Option<SetDriverToLoad>,
    set_driver_loaded: Option<SetDriverLoaded>,
    set_target_stats: Option<SetTargetStats>,
    set_instance_extensions: Option<SetExtensions>,
    set_device_extensions: Option<SetExtensions>,
    add_engine_name: Option<AddEngineName>,
}

fn members() -> &'static Members {
    static MEMBERS: OnceLock<Members> = OnceLock::new();
    const LIB: &std::ffi::CStr = c"libgraphicsenv.so";
    MEMBERS.get_or_init(|| {
        // SAFETY: each type above is the C ABI of the GraphicsEnv.h member whose mangled name
        // it is looked up by (`this` first; enums as int; bool, int64_t, uint64_t, uint32_t,
        // const char*, const char* const* as themselves).
        unsafe {
            Members {
                get_instance: lookup(LIB, c"_ZN7android11GraphicsEnv11getInstanceEv"),
                set_driver_to_load: lookup(
                    LIB,
                    c"_ZN7android11GraphicsEnv15setDriverToLoadENS_12GpuStatsInfo6DriverE",
                ),
                set_driver_loaded: lookup(LIB, mangled::SET_DRIVER_LOADED),
                set_target_stats: lookup(LIB, mangled::SET_TARGET_STATS),
                set_instance_extensions: lookup(
                    LIB,
                    c"_ZN7android11GraphicsEnv27setVulkanInstanceExtensionsEjPKPKc",
                ),
                set_device_extensions: lookup(
                    LIB,
                    c"_ZN7android11GraphicsEnv25setVulkanDeviceExtensionsEjPKPKc",
                ),
                add_engine_name: lookup(LIB, c"_ZN7android11GraphicsEnv19addVulkanEngineNameEPKc"),
            }
        }
    })
}

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

/// GraphicsEnv's statistics.
#[derive(Debug, Clone, Copy, Default)]
pub struct GraphicsEnvStats;

impl GpuStats for GraphicsEnvStats {
    fn record(&self, call: StatsCall) {
        let m = members();
        let Some(get_instance) = m.get_instance else {
            return;
        };
        // SAFETY: the singleton accessor takes no arguments and returns the process's instance.
        let env = unsafe { get_instance() };
        if env.is_null() {
            return;
        }
        let extensions = |f: Option<SetExtensions>, names: &[String]| {
            let Some(f) = f else { return };
            let owned = c_strings(names);
            let ptrs: Vec<*const c_char> = owned.iter().map(|n| n.as_ptr()).collect();
            // SAFETY: the member on the live singleton with `ptrs.len()` NUL-terminated names
            // that outlive the call (GraphicsEnv copies what it keeps).
            unsafe { f(env, ptrs.len() as u32, ptrs.as_ptr()) };
        };
        match call {
            StatsCall::DriverToLoad(driver) => {
                if let Some(f) = m.set_driver_to_load {
                    // SAFETY: the member on the live singleton with a GpuStatsInfo::Driver.
                    unsafe { f(env, driver as c_int) };
                }
            }
            StatsCall::DriverLoaded {
                api,
                loaded,
                loading_time_ns,
            } => {
                if let Some(f) = m.set_driver_loaded {
                    // SAFETY: the member on the live singleton with a GpuStatsInfo::Api.
                    unsafe { f(env, api as c_int, loaded, loading_time_ns) };
                }
            }
            StatsCall::TargetStats(stats, value) => {
                if let Some(f) = m.set_target_stats {
                    // SAFETY: the member on the live singleton with a GpuStatsInfo::Stats.
                    unsafe { f(env, stats as c_int, value) };
                }
            }
            StatsCall::VulkanEngineName(name) => {
                if let (Some(f), Some(name)) = (m.add_engine_name, c_strings(&[name]).pop()) {
                    // SAFETY: the member on the live singleton with a NUL-terminated name that
                    // outlives the call.
                    unsafe { f(env, name.as_ptr()) };
                }
            }
            StatsCall::VulkanInstanceExtensions(names) => {
                extensions(m.set_instance_extensions, &names)
            }
            StatsCall::VulkanDeviceExtensions(names) => extensions(m.set_device_extensions, &names),
        }
    }
}
