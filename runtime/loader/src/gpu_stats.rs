//! GraphicsEnv's GPU statistics (`android::GraphicsEnv::getInstance().set…`), recorded where
//! AOSP's `driver.cpp` (and `swapchain.cpp`) record them:
//!
//! | AOSP site | call |
//! |---|---|
//! | `LoadUpdatedDriver`, with a driver namespace | `setDriverToLoad(VULKAN_UPDATED)` |
//! | `LoadDriverFromApex`, with the APEX's namespace | `setDriverToLoad(VULKAN)` |
//! | `LoadBuiltinDriver` | `setDriverToLoad(VULKAN)` |
//! | end of `Hal::Open` | `setDriverLoaded(API_VK, loaded, ns since Open began)` |
//! | `CreateInstance`, on success, with `pApplicationInfo` | `setTargetStats(CREATED_VULKAN_API_VERSION, apiVersion)`, then `addVulkanEngineName(pEngineName)` if any |
//! | `CreateInstance`, on success | `setVulkanInstanceExtensions(count, names)` |
//! | `CreateDevice`, on a `VK_PHYSICAL_DEVICE_TYPE_CPU` device | `setTargetStats(CPU_VULKAN_IN_USE)` |
//! | `CreateDevice`, on success | `setTargetStats(CREATED_VULKAN_DEVICE)`; with `pEnabledFeatures` (or a chained `VkPhysicalDeviceFeatures2`) `setTargetStats(VULKAN_DEVICE_FEATURES_ENABLED, bit i = feature i)`; `setVulkanDeviceExtensions(count, names)` |
//! | `swapchain.cpp` `CreateSwapchainKHR`, on success | `setTargetStats(FALSE_PREROTATION)` when `preTransform` is not the window's transform hint, then `setTargetStats(CREATED_VULKAN_SWAPCHAIN)` |
//!
//! The create infos are the ones the terminator gets (AOSP's `driver::` level: after the layers).
//! [`GpuStats`] takes each call as a [`StatsCall`]: on Android (`android`) the
//! `libgraphicsenv.so` members, looked up with `dlsym` by their mangled names like the linker's
//! `getDriverNamespace` (a missing one is skipped), so `DT_NEEDED` stays
//! liblog/libnativewindow/libdl/libc; on Linux hosts [`RecordingStats`] keeps them (the test
//! double put in [`StatsSettings::sink`]), and with `VKGEN_GPU_STATS` set appends
//! each as a line to that file (the double integration tests read); else they go nowhere.

use std::sync::{Arc, Mutex};

use vkgen_generated::vk;

/// Host stand-in for GraphicsEnv: a file every stats call is appended to, one a line.
pub const GPU_STATS_ENV: &str = "VKGEN_GPU_STATS";

mod calls;
pub use calls::{Api, Driver, GpuStats, Stats, StatsCall};

/// Statistics that go nowhere (Linux hosts without `VKGEN_GPU_STATS`).
#[derive(Debug)]
pub struct NoStats;

impl GpuStats for NoStats {
    fn record(&self, _call: StatsCall) {}
}

/// The test double: keeps every call, and appends it to a file when it has one (opened for each
/// call, so that unloading the loader leaves no descriptor behind).
#[derive(Debug, Default)]
pub struct RecordingStats {
    calls: Mutex<Vec<StatsCall>>,
    file: Option<std::path::PathBuf>,
}

impl RecordingStats {
    /// Keeps the calls in memory only.
    pub fn new() -> Self {
        Self::default()
    }

    /// Also appends each call to `path` (created now if missing).
    pub fn appending_to(path: &std::path::Path) -> std::io::Result<Self> {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?;
        Ok(Self {
            calls: Mutex::default(),
            file: Some(path.to_path_buf()),
        })
    }

    /// The calls so far, and clears them.
    pub fn take(&self) -> Vec<StatsCall> {
        std::mem::take(&mut *self.calls.lock().unwrap_or_else(|p| p.into_inner()))
    }
}

impl GpuStats for RecordingStats {
    fn record(&self, call: StatsCall) {
        let mut calls = self.calls.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(path) = &self.file {
            use std::io::Write;
            // Under the lock: lines of concurrent threads never interleave.
            let written = std::fs::OpenOptions::new()
                .append(true)
                .open(path)
                .and_then(|mut f| f.write_all(format!("{call}\n").as_bytes()));
            if let Err(e) = written {
                log::debug!("{GPU_STATS_ENV}: {e}");
            }
        }
        calls.push(call);
    }
}

/// Where the statistics go: the part of the loader's configuration this module reads.
#[derive(Debug, Clone, Default)]
pub struct StatsSettings {
    /// A test double; `None` is the platform's sink ([`for_settings`]).
    pub sink: Option<Arc<dyn GpuStats>>,
}

/// The statistics sink `settings` asks for: its test double when it has one, else the
/// platform's.
pub fn for_settings(settings: &StatsSettings) -> Arc<dyn GpuStats> {
    if let Some(stats) = &settings.sink {
        return Arc::clone(stats);
    }
    #[cfg(target_os = "android")]
    {
        Arc::new(android::GraphicsEnvStats)
    }
    #[cfg(not(target_os = "android"))]
    {
        let Some(path) = crate::host_env::trusted_env_path(GPU_STATS_ENV) else {
            return Arc::new(NoStats);
        };
        match RecordingStats::appending_to(&path) {
            Ok(stats) => Arc::new(stats),
            Err(e) => {
                log::warn!("{GPU_STATS_ENV}={}: {e}; no statistics", path.display());
                Arc::new(NoStats)
            }
        }
    }
}

/// AOSP's `VULKAN_DEVICE_FEATURES_ENABLED` value: bit `i` set when the `i`-th `VkBool32` of
/// `VkPhysicalDeviceFeatures` is not `VK_FALSE`.
pub fn feature_bits(features: &vk::PhysicalDeviceFeatures) -> u64 {
    const COUNT: usize = std::mem::size_of::<vk::PhysicalDeviceFeatures>() / 4;
    const _: () = assert!(std::mem::size_of::<vk::PhysicalDeviceFeatures>().is_multiple_of(4));
    const _: () = assert!(COUNT <= 64);
    // SAFETY: `VkPhysicalDeviceFeatures` is `repr(C)` and made only of `VkBool32` (u32) members,
    // so it is exactly `COUNT` aligned u32s with no padding (both asserted above).
    let words: &[u32; COUNT] = unsafe { &*std::ptr::from_ref(features).cast::<[u32; COUNT]>() };
    words
        .iter()
        .enumerate()
        .filter(|(_, &w)| w != vk::FALSE)
        .fold(0, |bits, (i, _)| bits | (1 << i))
}

/// The features a device create info enables, as AOSP finds them: `pEnabledFeatures`, else the
/// first `VkPhysicalDeviceFeatures2` in the `pNext` chain.
///
/// # Safety
/// `info` must be a valid create info whose pointers are valid for this call.
pub unsafe fn enabled_features(
    info: &vk::DeviceCreateInfo<'_>,
) -> Option<vk::PhysicalDeviceFeatures> {
    // SAFETY: the caller guarantees `p_enabled_features` is null or valid.
    if let Some(f) = unsafe { info.p_enabled_features.as_ref() } {
        return Some(*f);
    }
    // SAFETY: the caller guarantees a valid chain; the sType names the structure.
    unsafe {
        vkgen_generated::chain::find_in_chain::<vk::PhysicalDeviceFeatures2<'_>>(
            info.p_next,
            vk::StructureType::PHYSICAL_DEVICE_FEATURES_2,
        )
    }
    .map(|f| f.features)
}

/// The names as owned strings, for a [`StatsCall`].
pub fn owned_names(names: &[&std::ffi::CStr]) -> Vec<String> {
    names
        .iter()
        .map(|n| n.to_string_lossy().into_owned())
        .collect()
}

/// AOSP's `CreateInstance` statistics, for an instance created from `info` (the create info the
/// terminator got) with the extensions `names`.
///
/// # Safety
/// `info.p_application_info` must be null or valid, its `p_engine_name` null or a C string.
pub unsafe fn report_instance(
    stats: &dyn GpuStats,
    info: &vk::InstanceCreateInfo<'_>,
    names: &[&std::ffi::CStr],
) {
    // SAFETY: the caller guarantees the application info is null or valid.
    if let Some(app) = unsafe { info.p_application_info.as_ref() } {
        stats.record(StatsCall::TargetStats(
            Stats::CreatedVulkanApiVersion,
            u64::from(app.api_version),
        ));
        // SAFETY: the caller guarantees the engine name is null or a C string.
        if let Some(engine) = unsafe { crate::ffi::cstr(app.p_engine_name) } {
            stats.record(StatsCall::VulkanEngineName(
                engine.to_string_lossy().into_owned(),
            ));
        }
    }
    stats.record(StatsCall::VulkanInstanceExtensions(owned_names(names)));
}

/// AOSP's `CreateDevice` statistics, for a device created from `info` (the create info the
/// terminator got) with the extensions `names` on a physical device of `device_type`.
///
/// # Safety
/// `info` must be a valid create info whose pointers are valid for this call.
pub unsafe fn report_device(
    stats: &dyn GpuStats,
    info: &vk::DeviceCreateInfo<'_>,
    names: &[&std::ffi::CStr],
    device_type: vk::PhysicalDeviceType,
) {
    if device_type == vk::PhysicalDeviceType::CPU {
        stats.record(StatsCall::TargetStats(Stats::CpuVulkanInUse, 0));
    }
    stats.record(StatsCall::TargetStats(Stats::CreatedVulkanDevice, 0));
    // SAFETY: the caller guarantees `info` and its chain are valid.
    if let Some(features) = unsafe { enabled_features(info) } {
        stats.record(StatsCall::TargetStats(
            Stats::VulkanDeviceFeaturesEnabled,
            feature_bits(&features),
        ));
    }
    stats.record(StatsCall::VulkanDeviceExtensions(owned_names(names)));
}

#[cfg(target_os = "android")]
pub(crate) mod android;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_print_as_aosps_cxx_calls() {
        let lines: Vec<String> = [
            StatsCall::DriverToLoad(Driver::VulkanUpdated),
            StatsCall::DriverLoaded {
                api: Api::Vk,
                loaded: false,
                loading_time_ns: 12,
            },
            StatsCall::TargetStats(Stats::CreatedVulkanApiVersion, 0x40_3000),
            StatsCall::VulkanEngineName("engine".into()),
            StatsCall::VulkanDeviceExtensions(vec!["VK_KHR_swapchain".into()]),
            StatsCall::VulkanInstanceExtensions(Vec::new()),
        ]
        .iter()
        .map(ToString::to_string)
        .collect();
        assert_eq!(
            lines,
            [
                "setDriverToLoad(VULKAN_UPDATED)",
                "setDriverLoaded(API_VK, false, 12)",
                "setTargetStats(CREATED_VULKAN_API_VERSION, 4206592)",
                "addVulkanEngineName(engine)",
                "setVulkanDeviceExtensions(1, [VK_KHR_swapchain])",
                "setVulkanInstanceExtensions(0, [])",
            ]
        );
        // GpuStatsInfo's values, which the Android calls pass.
        assert_eq!(Driver::Vulkan as i32, 3);
        assert_eq!(Stats::VulkanDeviceFeaturesEnabled as i32, 7);
        assert_eq!(Api::Vk as i32, 1);
    }

    #[test]
    fn feature_bits_follow_the_member_order() {
        let none = vk::PhysicalDeviceFeatures::default();
        assert_eq!(feature_bits(&none), 0);
        let some = vk::PhysicalDeviceFeatures {
            robust_buffer_access: vk::TRUE,
            geometry_shader: vk::TRUE,
            inherited_queries: vk::TRUE,
            ..Default::default()
        };
        // robustBufferAccess is member 0, geometryShader 4, inheritedQueries (the last) 54.
        assert_eq!(feature_bits(&some), 1 | 1 << 4 | 1 << 54);
    }

    #[test]
    fn features_come_from_p_enabled_features_or_a_chained_features2() {
        let direct = vk::PhysicalDeviceFeatures {
            sampler_anisotropy: vk::TRUE,
            ..Default::default()
        };
        let info = vk::DeviceCreateInfo::default().enabled_features(&direct);
        // SAFETY: a valid create info.
        let found = unsafe { enabled_features(&info) }.unwrap();
        assert_eq!(feature_bits(&found), feature_bits(&direct));
        assert_ne!(feature_bits(&found), 0);
        let mut chained =
            vk::PhysicalDeviceFeatures2::default().features(vk::PhysicalDeviceFeatures {
                shader_int64: vk::TRUE,
                ..Default::default()
            });
        let mut other = vk::PhysicalDeviceVulkan11Features::default();
        let info = vk::DeviceCreateInfo::default()
            .push_next(&mut chained)
            .push_next(&mut other);
        // SAFETY: a valid create info.
        let found = unsafe { enabled_features(&info) }.unwrap();
        assert_eq!(found.shader_int64, vk::TRUE);
        let info = vk::DeviceCreateInfo::default();
        // SAFETY: a valid create info.
        assert!(unsafe { enabled_features(&info) }.is_none());
    }

    #[test]
    fn the_file_double_appends_one_line_per_call() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("stats");
        let stats = RecordingStats::appending_to(&path).unwrap();
        stats.record(StatsCall::TargetStats(Stats::CreatedVulkanDevice, 0));
        stats.record(StatsCall::TargetStats(Stats::CpuVulkanInUse, 0));
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "setTargetStats(CREATED_VULKAN_DEVICE, 0)\nsetTargetStats(CPU_VULKAN_IN_USE, 0)\n"
        );
        assert_eq!(stats.take().len(), 2);
        assert!(stats.take().is_empty());
    }
    #[test]
    fn instance_statistics_are_aosps() {
        let stats = RecordingStats::new();
        let app = vk::ApplicationInfo::default()
            .api_version(vk::API_VERSION_1_3)
            .engine_name(c"engine");
        let info = vk::InstanceCreateInfo::default().application_info(&app);
        // SAFETY: a valid create info.
        unsafe { report_instance(&stats, &info, &[c"VK_KHR_surface"]) };
        assert_eq!(
            stats.take(),
            [
                StatsCall::TargetStats(
                    Stats::CreatedVulkanApiVersion,
                    u64::from(vk::API_VERSION_1_3)
                ),
                StatsCall::VulkanEngineName("engine".into()),
                StatsCall::VulkanInstanceExtensions(vec!["VK_KHR_surface".into()]),
            ]
        );
        let bare = vk::InstanceCreateInfo::default();
        // SAFETY: a valid create info.
        unsafe { report_instance(&stats, &bare, &[]) };
        assert_eq!(
            stats.take(),
            [StatsCall::VulkanInstanceExtensions(Vec::new())]
        );
    }

    #[test]
    fn device_statistics_are_aosps() {
        let stats = RecordingStats::new();
        let features = vk::PhysicalDeviceFeatures {
            full_draw_index_uint32: vk::TRUE,
            ..Default::default()
        };
        let info = vk::DeviceCreateInfo::default().enabled_features(&features);
        // SAFETY: a valid create info.
        unsafe {
            report_device(
                &stats,
                &info,
                &[c"VK_KHR_swapchain"],
                vk::PhysicalDeviceType::CPU,
            )
        };
        assert_eq!(
            stats.take(),
            [
                StatsCall::TargetStats(Stats::CpuVulkanInUse, 0),
                StatsCall::TargetStats(Stats::CreatedVulkanDevice, 0),
                StatsCall::TargetStats(Stats::VulkanDeviceFeaturesEnabled, 1 << 1),
                StatsCall::VulkanDeviceExtensions(vec!["VK_KHR_swapchain".into()]),
            ]
        );
        let bare = vk::DeviceCreateInfo::default();
        // SAFETY: a valid create info.
        unsafe { report_device(&stats, &bare, &[], vk::PhysicalDeviceType::DISCRETE_GPU) };
        assert_eq!(
            stats.take(),
            [
                StatsCall::TargetStats(Stats::CreatedVulkanDevice, 0),
                StatsCall::VulkanDeviceExtensions(Vec::new()),
            ]
        );
    }
}
