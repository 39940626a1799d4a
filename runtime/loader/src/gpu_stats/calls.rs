//! The GPU statistics calls ([`StatsCall`]) and where they go ([`GpuStats`]): what the
//! platform sinks (`super::android`, `super::RecordingStats`) implement.

use std::fmt;

/// `GpuStatsInfo::Api`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(i32)]
pub enum Api {
    /// `API_VK`.
    Vk = 1,
}

/// `GpuStatsInfo::Driver` (the Vulkan ones).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(i32)]
pub enum Driver {
    /// `VULKAN`: the built-in or APEX driver.
    Vulkan = 3,
    /// `VULKAN_UPDATED`: the updatable driver.
    VulkanUpdated = 4,
}

/// `GpuStatsInfo::Stats` (the ones libvulkan sets).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(i32)]
pub enum Stats {
    /// `CPU_VULKAN_IN_USE`.
    CpuVulkanInUse = 0,
    /// `FALSE_PREROTATION`.
    FalsePrerotation = 1,
    /// `CREATED_VULKAN_API_VERSION`.
    CreatedVulkanApiVersion = 4,
    /// `CREATED_VULKAN_DEVICE`.
    CreatedVulkanDevice = 5,
    /// `CREATED_VULKAN_SWAPCHAIN`.
    CreatedVulkanSwapchain = 6,
    /// `VULKAN_DEVICE_FEATURES_ENABLED`.
    VulkanDeviceFeaturesEnabled = 7,
}

/// One GraphicsEnv call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StatsCall {
    /// `setDriverToLoad(driver)`.
    DriverToLoad(Driver),
    /// `setDriverLoaded(api, isDriverLoaded, driverLoadingTime)` (nanoseconds).
    DriverLoaded {
        api: Api,
        loaded: bool,
        loading_time_ns: i64,
    },
    /// `setTargetStats(stats, value)`.
    TargetStats(Stats, u64),
    /// `addVulkanEngineName(engineName)`.
    VulkanEngineName(String),
    /// `setVulkanInstanceExtensions(count, names)`.
    VulkanInstanceExtensions(Vec<String>),
    /// `setVulkanDeviceExtensions(count, names)`.
    VulkanDeviceExtensions(Vec<String>),
}

impl fmt::Display for StatsCall {
    /// The C++ call as AOSP writes it, with GpuStatsInfo's enumerator names.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names = |list: &[String]| format!("{}, [{}]", list.len(), list.join(", "));
        match self {
            Self::DriverToLoad(d) => write!(f, "setDriverToLoad({})", driver_name(*d)),
            Self::DriverLoaded {
                api: Api::Vk,
                loaded,
                loading_time_ns,
            } => write!(f, "setDriverLoaded(API_VK, {loaded}, {loading_time_ns})"),
            Self::TargetStats(s, v) => write!(f, "setTargetStats({}, {v})", stats_name(*s)),
            Self::VulkanEngineName(n) => write!(f, "addVulkanEngineName({n})"),
            Self::VulkanInstanceExtensions(l) => {
                write!(f, "setVulkanInstanceExtensions({})", names(l))
            }
            Self::VulkanDeviceExtensions(l) => write!(f, "setVulkanDeviceExtensions({})", names(l)),
        }
    }
}

fn driver_name(d: Driver) -> &'static str {
    match d {
        Driver::Vulkan => "VULKAN",
        Driver::VulkanUpdated => "VULKAN_UPDATED",
    }
}

fn stats_name(s: Stats) -> &'static str {
    match s {
        Stats::CpuVulkanInUse => "CPU_VULKAN_IN_USE",
        Stats::FalsePrerotation => "FALSE_PREROTATION",
        Stats::CreatedVulkanSwapchain => "CREATED_VULKAN_SWAPCHAIN",
        Stats::CreatedVulkanApiVersion => "CREATED_VULKAN_API_VERSION",
        Stats::CreatedVulkanDevice => "CREATED_VULKAN_DEVICE",
        Stats::VulkanDeviceFeaturesEnabled => "VULKAN_DEVICE_FEATURES_ENABLED",
    }
}

/// Where the loader's GPU statistics go (see the module notes).
pub trait GpuStats: Send + Sync + fmt::Debug {
    /// Records one call.
    fn record(&self, call: StatsCall);
}
