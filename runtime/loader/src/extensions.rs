//! Which extensions applications see, and which ones drivers are asked to enable.
//!
//! Applications see the loader's own extensions first ([`loader_instance_extensions`] in
//! AOSP's order, and per physical device [`loader_device_extensions`]), then the drivers' lists
//! (and the layers', added by the api level), duplicates dropped with the first winning, after
//! these rules (Android's `driver.cpp`):
//! * a **HAL** driver's lists pass through as AOSP passes them: nothing is hidden (blocked
//!   extensions such as `VK_NV_cooperative_matrix` included); the **internal**
//!   `VK_ANDROID_native_buffer` is shown renamed in place to `VK_KHR_swapchain` (spec 70 if the
//!   driver's ANB spec is ≥ 8, else 68): the loader's swapchain runs on it;
//! * a Khronos **ICD** (Linux hosts only; AOSP has none) passes through the same way, except
//!   that its own WSI extensions (loader-implemented ones such as `VK_KHR_surface`, and its
//!   `VK_KHR_swapchain`, `VK_KHR_swapchain_mutable_format`, `VK_EXT_swapchain_maintenance1`,
//!   and `VK_EXT_headless_surface`, whose command the loader intercepts) are hidden: the
//!   loader's WSI replaces the ICD's, which is never called.
//!
//! Going down, each driver gets only extensions it reports (Android's `SanitizeExtensions`,
//! duplicates removed, loader-implemented ones never passed down) plus, for drivers older than
//! the loader, the instance extensions promoted to the core versions the driver lacks, and an
//! `apiVersion` it can accept ([`sanitize_api_version`]).

use std::ffi::CStr;

use vkgen_generated::extensions::{self as ext, ExtensionId, ExtensionKind};

use vkgen_generated::vk;

/// Whether the loader's own WSI (surfaces and swapchains on `ANativeWindow`, built on
/// `VK_ANDROID_native_buffer`, [`crate::wsi`]) is available: the loader advertises its WSI
/// instance extensions and renames the driver's `VK_ANDROID_native_buffer` to
/// `VK_KHR_swapchain`. (When false, those extensions are not advertised at all and
/// `VK_ANDROID_native_buffer` is only hidden.)
pub const fn loader_wsi_enabled() -> bool {
    true
}

/// What a physical device's driver offers the loader's WSI: decides which loader device
/// extensions are advertised on top of it (Android's `EnumerateDeviceExtensionProperties`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LoaderDeviceSupport {
    /// `VK_ANDROID_native_buffer`'s spec version, if the driver has it (no swapchain without).
    pub native_buffer_spec: Option<u32>,
    /// `VkPhysicalDevicePresentationPropertiesANDROID::sharedImage`.
    pub shared_image: bool,
    /// The driver imports `SYNC_FD` fences (`VK_KHR_external_fence_fd`, importable).
    pub sync_fd_fence_import: bool,
    /// The platform reports present timestamps (`service.sf.present_timestamp`).
    pub present_timestamp: bool,
    /// The display is HDR (`ro.surface_flinger.has_HDR_display`): `VK_EXT_hdr_metadata`.
    pub hdr_display: bool,
    /// The driver device's `apiVersion` (patch cleared): `VK_KHR_swapchain_mutable_format`
    /// needs 1.2 (image format lists and extended usage in core).
    pub device_api_version: u32,
    /// The driver is the Android HAL: AOSP's loader extensions are offered whether or not it
    /// has `VK_ANDROID_native_buffer` (`VK_KHR_incremental_present` always). Khronos ICDs
    /// without it get none (no swapchain is possible on them).
    pub hal: bool,
    /// The driver's `imageCompressionControl` feature. With `VK_ANDROID_native_buffer` spec ≥ 9
    /// it offers both `VK_EXT_image_compression_control` and, through AOSP's quirk (its own
    /// `vkGetPhysicalDeviceFeatures2` reports `imageCompressionControlSwapchain` as the driver's
    /// `imageCompressionControl`), `VK_EXT_image_compression_control_swapchain`.
    pub image_compression_control: bool,
}

/// `VK_ANDROID_native_buffer` spec version from which the loader offers image compression
/// control (spec 9 added the plumbing: `VkGrallocUsageInfoANDROID` and its `pNext`).
pub const NATIVE_BUFFER_SPEC_IMAGE_COMPRESSION: u32 = 9;

impl LoaderDeviceSupport {
    /// `VK_EXT_image_compression_control` and `_swapchain` are offered (AOSP: native buffer
    /// spec ≥ 9 and the feature, see [`Self::image_compression_control`]).
    pub fn image_compression_control_offered(&self) -> bool {
        self.image_compression_control
            && self
                .native_buffer_spec
                .is_some_and(|s| s >= NATIVE_BUFFER_SPEC_IMAGE_COMPRESSION)
    }
}

/// Device extensions whose driver copies are always hidden: the loader's swapchain (on
/// `VK_ANDROID_native_buffer`) replaces the driver's, so these can only ever come from the
/// loader.
const LOADER_OWNED_DEVICE_EXTENSIONS: &[&CStr] = &[
    c"VK_KHR_swapchain",
    c"VK_KHR_swapchain_mutable_format",
    c"VK_EXT_swapchain_maintenance1",
];

/// `VK_KHR_swapchain` spec version the loader reports for a driver whose
/// `VK_ANDROID_native_buffer` spec is ≥ 8 (binding swapchain images with `VkBindImageMemory2`).
pub const SWAPCHAIN_SPEC_WITH_ANB_8: u32 = 70;
/// `VK_KHR_swapchain` spec version for older `VK_ANDROID_native_buffer` drivers.
pub const SWAPCHAIN_SPEC_BEFORE_ANB_8: u32 = 68;

/// An extension's name as a `CStr` (the empty string if the driver forgot the terminator).
pub fn name_of(properties: &vk::ExtensionProperties) -> &CStr {
    properties.extension_name_as_c_str().unwrap_or(c"")
}

/// Builds a `VkExtensionProperties`.
pub fn properties(name: &CStr, spec_version: u32) -> vk::ExtensionProperties {
    let p = vk::ExtensionProperties::default().spec_version(spec_version);
    // Names from the registry and drivers always fit; an overlong one leaves the name empty
    // rather than overflowing.
    p.extension_name(name).unwrap_or(p)
}

/// `VK_API_VERSION_1_4` (ash 0.38 predates it).
const API_VERSION_1_4: u32 = vk::make_api_version(0, 1, 4, 0);

/// Why a driver's extension is not shown to applications, or `None` if it is shown: a HAL's
/// never (AOSP passes its lists through), an ICD's own WSI extensions (see the module notes).
pub fn hidden_reason(name: &CStr, kind: ExtensionKind, hal: bool) -> Option<&'static str> {
    if hal {
        return None;
    }
    if name == c"VK_EXT_headless_surface" {
        return Some("the loader intercepts vkCreateHeadlessSurfaceEXT (wsi::layer_compat)");
    }
    if kind == ExtensionKind::Device && LOADER_OWNED_DEVICE_EXTENSIONS.contains(&name) {
        return Some("swapchains are the loader's, not the driver's");
    }
    let info = ext::info(ext::lookup(name)?);
    if info.policy.internal {
        return Some("private between loader and driver");
    }
    if info.policy.loader_implemented {
        return Some("implemented by the loader (its WSI), not the driver");
    }
    None
}

/// The loader's instance extensions in AOSP's order (`driver.cpp`
/// `EnumerateInstanceExtensionProperties`).
const AOSP_LOADER_INSTANCE_EXTENSIONS: &[ExtensionId] = &[
    ExtensionId::KHR_SURFACE,
    ExtensionId::KHR_SURFACE_PROTECTED_CAPABILITIES,
    ExtensionId::KHR_ANDROID_SURFACE,
    ExtensionId::EXT_SWAPCHAIN_COLORSPACE,
    ExtensionId::KHR_GET_SURFACE_CAPABILITIES2,
    ExtensionId::GOOGLE_SURFACELESS_QUERY,
    ExtensionId::EXT_SURFACE_MAINTENANCE1,
];

/// The instance extensions the loader itself implements and advertises: none until the WSI
/// exists ([`loader_wsi_enabled`]), then AOSP's seven in AOSP's order (any other
/// loader-implemented instance extension of the registry after them). Made once per process
/// (every `vkCreateInstance` and enumeration reads it; making it walks the registry's 400-odd
/// extensions).
pub fn loader_instance_extensions() -> &'static [vk::ExtensionProperties] {
    static LIST: std::sync::OnceLock<Vec<vk::ExtensionProperties>> = std::sync::OnceLock::new();
    LIST.get_or_init(make_loader_instance_extensions)
}

/// [`loader_instance_extensions`], made.
fn make_loader_instance_extensions() -> Vec<vk::ExtensionProperties> {
    if !loader_wsi_enabled() {
        return Vec::new();
    }
    let of = |e: &ext::ExtensionInfo| properties(e.name(), e.spec_version);
    let mut out: Vec<vk::ExtensionProperties> = AOSP_LOADER_INSTANCE_EXTENSIONS
        .iter()
        .map(|&id| of(ext::info(id)))
        .collect();
    out.extend(
        ext::EXTENSIONS
            .iter()
            .filter(|e| e.policy.loader_implemented && e.kind == ExtensionKind::Instance)
            .filter(|e| !contains(&out, e.name()))
            .map(of)
            .collect::<Vec<_>>(),
    );
    // Linux hosts: X11 windows and Wayland surfaces through the same Android path
    // (`wsi::desktop`).
    #[cfg(all(feature = "desktop", not(target_os = "android")))]
    out.extend(
        DESKTOP_SURFACE_EXTENSIONS
            .iter()
            .map(|&(n, v)| properties(n, v)),
    );
    #[cfg(not(target_os = "android"))]
    out.push(properties(
        PORTABILITY_ENUMERATION,
        PORTABILITY_ENUMERATION_SPEC,
    ));
    out
}

/// `VK_KHR_portability_enumeration`: the Khronos loader implements it on every desktop
/// platform, and applications written for it (vkcube, GFXReconstruct captures made through that
/// loader) enable it with `VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR` whether or not any
/// portability driver exists. Offered on Linux hosts (AOSP has no such extension); a driver gets
/// it, and the flag, only if it reports it itself ([`driver_instance_flags`]).
pub const PORTABILITY_ENUMERATION: &CStr = c"VK_KHR_portability_enumeration";
/// The spec version the Khronos loader reports.
pub const PORTABILITY_ENUMERATION_SPEC: u32 = 1;

/// The `VkInstanceCreateFlags` a driver is given: the application's, without
/// `ENUMERATE_PORTABILITY_KHR` unless `VK_KHR_portability_enumeration` is among the extensions
/// the driver itself is asked to enable (the Khronos loader's `terminator_CreateInstance` clears
/// the bit for an ICD without the extension, which would otherwise refuse an unknown flag).
pub fn driver_instance_flags(
    flags: vk::InstanceCreateFlags,
    driver_extensions: &[&CStr],
) -> vk::InstanceCreateFlags {
    if driver_extensions.contains(&PORTABILITY_ENUMERATION) {
        flags
    } else {
        flags & !vk::InstanceCreateFlags::ENUMERATE_PORTABILITY_KHR
    }
}

/// Whether `name` is one of the loader's own desktop surface extensions (Linux hosts), which
/// are never the driver's to enable. Other blocked extensions a driver reports go down as AOSP
/// passes them (`SanitizeExtensions` keeps whatever the HAL reports).
fn is_loader_desktop_surface(name: &CStr) -> bool {
    #[cfg(all(feature = "desktop", not(target_os = "android")))]
    return DESKTOP_SURFACE_EXTENSIONS.iter().any(|&(n, _)| n == name);
    #[cfg(not(all(feature = "desktop", not(target_os = "android"))))]
    {
        let _ = name;
        false
    }
}

/// The desktop surface extensions the loader implements on Linux hosts, with their spec
/// versions (blocked on Android, so never the driver's).
#[cfg(all(feature = "desktop", not(target_os = "android")))]
pub const DESKTOP_SURFACE_EXTENSIONS: &[(&CStr, u32)] = &[
    (c"VK_KHR_xcb_surface", 6),
    (c"VK_KHR_xlib_surface", 6),
    (c"VK_KHR_wayland_surface", 6),
];

/// `VK_EXT_debug_report` as the loader advertises it (always; see
/// `terminator::debug_report`): the registry's spec version, clamped to the lowest a driver
/// reports (AOSP clamps to the driver's).
pub fn debug_report_extension<'a>(
    drivers: impl IntoIterator<Item = &'a [vk::ExtensionProperties]>,
) -> vk::ExtensionProperties {
    let info = ext::info(ExtensionId::EXT_DEBUG_REPORT);
    let spec = drivers
        .into_iter()
        .flat_map(|list| list.iter())
        .filter(|e| name_of(e) == info.name())
        .map(|e| e.spec_version)
        .fold(info.spec_version, u32::min);
    properties(info.name(), spec)
}

/// What applications see of one driver's instance extension list (`hal`: the driver is the
/// Android HAL, whose list passes through whole).
pub fn visible_instance_extensions(
    driver: &[vk::ExtensionProperties],
    driver_name: &str,
    hal: bool,
) -> Vec<vk::ExtensionProperties> {
    driver
        .iter()
        .filter(|e| {
            let name = name_of(e);
            match hidden_reason(name, ExtensionKind::Instance, hal) {
                Some(why) => {
                    log::debug!("driver {driver_name}: instance extension {name:?} hidden: {why}");
                    false
                }
                None => true,
            }
        })
        .copied()
        .collect()
}

/// The device extensions the loader implements on top of a driver (Android's order):
/// `VK_KHR_incremental_present` always, `VK_KHR_shared_presentable_image` when the driver
/// supports shared images, `VK_GOOGLE_display_timing` when the platform reports present
/// timestamps, `VK_EXT_image_compression_control` and `_swapchain` on a native-buffer spec ≥ 9
/// driver with `imageCompressionControl`, `VK_EXT_swapchain_maintenance1` when the driver
/// imports `SYNC_FD` fences, `VK_KHR_swapchain_mutable_format` on 1.2 devices. On the HAL
/// these are offered as AOSP offers them, `VK_ANDROID_native_buffer` or not; none on a Khronos
/// ICD without it (no swapchain), or without the loader's WSI.
pub fn loader_device_extensions(support: &LoaderDeviceSupport) -> Vec<vk::ExtensionProperties> {
    if !loader_wsi_enabled() || (support.native_buffer_spec.is_none() && !support.hal) {
        return Vec::new();
    }
    let of = |id: ExtensionId| {
        let info = ext::info(id);
        properties(info.name(), info.spec_version)
    };
    // AOSP's order: incremental present always, HDR metadata on HDR displays, then the rest.
    let mut out = vec![of(ExtensionId::KHR_INCREMENTAL_PRESENT)];
    if support.hdr_display {
        out.push(of(ExtensionId::EXT_HDR_METADATA));
    }
    if support.shared_image {
        out.push(of(ExtensionId::KHR_SHARED_PRESENTABLE_IMAGE));
    }
    if support.present_timestamp {
        out.push(of(ExtensionId::GOOGLE_DISPLAY_TIMING));
    }
    if support.image_compression_control_offered() {
        out.push(of(ExtensionId::EXT_IMAGE_COMPRESSION_CONTROL));
        out.push(of(ExtensionId::EXT_IMAGE_COMPRESSION_CONTROL_SWAPCHAIN));
    }
    if support.sync_fd_fence_import {
        out.push(of(ExtensionId::EXT_SWAPCHAIN_MAINTENANCE1));
    }
    if support.device_api_version >= vk::API_VERSION_1_2 {
        out.push(of(ExtensionId::KHR_SWAPCHAIN_MUTABLE_FORMAT));
    }
    out
}

/// What applications see of one physical device's extension list: filtered like instance
/// extensions, with `VK_ANDROID_native_buffer` renamed to `VK_KHR_swapchain`, after the device
/// extensions the loader implements on top of it ([`loader_device_extensions`]).
pub fn visible_device_extensions(
    driver: &[vk::ExtensionProperties],
    driver_name: &str,
    support: &LoaderDeviceSupport,
) -> Vec<vk::ExtensionProperties> {
    let mut out = Vec::with_capacity(driver.len() + 4);
    out.extend(loader_device_extensions(support));
    for e in driver {
        let name = name_of(e);
        if loader_wsi_enabled() && name == ext::info(ExtensionId::ANDROID_NATIVE_BUFFER).name() {
            out.push(swapchain_for_native_buffer(e.spec_version));
            continue;
        }
        match hidden_reason(name, ExtensionKind::Device, support.hal) {
            Some(why) => {
                log::debug!("driver {driver_name}: device extension {name:?} hidden: {why}")
            }
            None => out.push(*e),
        }
    }
    dedup(out)
}

/// `VK_KHR_swapchain` as the loader reports it on top of a driver's `VK_ANDROID_native_buffer`
/// of spec `anb_spec`.
pub fn swapchain_for_native_buffer(anb_spec: u32) -> vk::ExtensionProperties {
    let spec = if anb_spec >= 8 {
        SWAPCHAIN_SPEC_WITH_ANB_8
    } else {
        SWAPCHAIN_SPEC_BEFORE_ANB_8
    };
    properties(ext::info(ExtensionId::KHR_SWAPCHAIN).name(), spec)
}

/// Removes later duplicates (by name); the first occurrence wins.
pub fn dedup(mut list: Vec<vk::ExtensionProperties>) -> Vec<vk::ExtensionProperties> {
    // Every vkCreateInstance dedups the drivers' and layers' whole list: a registry extension is
    // one bit of a set after its perfect-hash lookup (a hashed set of names cost 700
    // instructions an entry, issue 35); names the registry does not know are compared among
    // themselves, and there are few.
    let mut known = ExtensionSet::default();
    let mut unknown: Vec<&CStr> = Vec::new();
    let keep: Vec<bool> = list
        .iter()
        .map(|e| {
            let name = name_of(e);
            match ext::lookup(name) {
                Some(id) if known.contains(id) => false,
                Some(id) => {
                    known.insert(id);
                    true
                }
                None if unknown.contains(&name) => false,
                None => {
                    unknown.push(name);
                    true
                }
            }
        })
        .collect();
    let mut keep = keep.into_iter();
    list.retain(|_| keep.next().unwrap_or(true));
    list
}

/// Whether `list` contains `name`.
pub fn contains(list: &[vk::ExtensionProperties], name: &CStr) -> bool {
    list.iter().any(|e| name_of(e) == name)
}

/// The extensions to pass to one driver: those requested that the driver reports (Android's
/// `SanitizeExtensions`), without duplicates and without loader-implemented ones. The names
/// borrowed from `requested` or `driver` stay valid as long as those do.
pub fn filter_for_driver<'a>(
    requested: &[&'a CStr],
    driver: &'a [vk::ExtensionProperties],
    driver_name: &str,
) -> Vec<&'a CStr> {
    let mut out: Vec<&'a CStr> = Vec::with_capacity(requested.len());
    for &name in requested {
        if out.contains(&name) {
            continue;
        }
        if let Some(id) = ext::lookup(name) {
            if ext::info(id).policy.loader_implemented {
                log::debug!("{name:?} is implemented by the loader; not passed to {driver_name}");
                continue;
            }
        }
        if is_loader_desktop_surface(name) {
            log::debug!("{name:?} is implemented by the loader; not passed to {driver_name}");
            continue;
        }
        // The loader's own on Linux hosts, but a portability driver that reports it gets it.
        if contains(driver, name) {
            out.push(name);
        } else {
            log::debug!(
                "{name:?} is not reported by driver {driver_name} (a layer provides it); \
                 not passed down"
            );
        }
    }
    out
}

/// The device extensions to pass to a driver: like [`filter_for_driver`], after Android's
/// `CreateDevice` extension mapping: the application's `VK_KHR_swapchain` becomes the driver's
/// `VK_ANDROID_native_buffer`, and `VK_EXT_swapchain_maintenance1` (whose present fences the
/// loader fills by importing `SYNC_FD` fds) becomes `VK_KHR_external_fence_fd`.
pub fn device_extensions_for_driver<'a>(
    requested: &[&'a CStr],
    driver: &'a [vk::ExtensionProperties],
    driver_name: &str,
) -> Vec<&'a CStr> {
    let mut mapped = map_swapchain_to_native_buffer(requested, driver, loader_wsi_enabled());
    let maintenance1 = ext::info(ExtensionId::EXT_SWAPCHAIN_MAINTENANCE1).name();
    if loader_wsi_enabled() && mapped.contains(&maintenance1) {
        mapped.retain(|&n| n != maintenance1);
        if let Some(fence_fd) = driver
            .iter()
            .map(name_of)
            .find(|&n| n == c"VK_KHR_external_fence_fd")
        {
            mapped.push(fence_fd);
        }
    }
    filter_for_driver(&mapped, driver, driver_name)
}

/// `VK_KHR_swapchain` → the driver's `VK_ANDROID_native_buffer` when `wsi` is on and the driver
/// has it.
fn map_swapchain_to_native_buffer<'a>(
    requested: &[&'a CStr],
    driver: &'a [vk::ExtensionProperties],
    wsi: bool,
) -> Vec<&'a CStr> {
    let swapchain = ext::info(ExtensionId::KHR_SWAPCHAIN).name();
    let anb = ext::info(ExtensionId::ANDROID_NATIVE_BUFFER).name();
    let driver_anb = driver.iter().map(name_of).find(|&n| n == anb);
    requested
        .iter()
        .map(|&name| match driver_anb {
            Some(driver_anb) if wsi && name == swapchain => driver_anb,
            _ => name,
        })
        .collect()
}

/// Instance extensions promoted to core versions in `(driver_version, loader_version]` that the
/// driver reports: enabled automatically on drivers older than the loader, so the loader's core
/// entry points of those versions work through the extension's commands (Android's
/// `g_promoted_instance_extensions`).
pub fn promoted_instance_extensions(
    driver_version: u32,
    loader_version: u32,
    driver: &[vk::ExtensionProperties],
) -> Vec<&'static CStr> {
    let (driver_mm, loader_mm) = (major_minor(driver_version), major_minor(loader_version));
    if driver_mm >= loader_mm {
        return Vec::new();
    }
    ext::EXTENSIONS
        .iter()
        .filter(|e| e.kind == ExtensionKind::Instance)
        .filter(|e| {
            e.promoted_to
                .is_some_and(|v| major_minor(v) > driver_mm && major_minor(v) <= loader_mm)
        })
        .filter(|e| contains(driver, e.name()))
        .map(|e| e.name())
        .collect()
}

/// The `apiVersion` a driver of instance version `driver_version` is given for an application
/// asking for `app_version` (Android 16's `SanitizeApiVersion`): a 1.0 driver gets 1.0 whenever
/// the app asks for more (1.0 drivers may reject anything else), and a 1.3 driver gets 1.3 when
/// the app asks for 1.4 or later. As AOSP, a 1.1 or 1.2 driver is given the app's 1.4
/// unchanged (the spec requires a 1.1+ implementation to accept any apiVersion).
pub fn sanitize_api_version(app_version: u32, driver_version: u32) -> u32 {
    let (app, drv) = (major_minor(app_version), major_minor(driver_version));
    if drv < major_minor(vk::API_VERSION_1_1) && app >= major_minor(vk::API_VERSION_1_1) {
        return vk::API_VERSION_1_0;
    }
    if drv == major_minor(vk::API_VERSION_1_3) && app >= major_minor(API_VERSION_1_4) {
        return driver_version & !0xfff;
    }
    app_version
}

/// The version with its patch bits cleared, for comparisons.
pub fn major_minor(version: u32) -> u32 {
    version & !0xfff
}

const EXTENSION_WORDS: usize = ext::EXTENSIONS.len().div_ceil(64);

/// A set of known extensions (by generated id), for the proc-address rules.
///
/// A fixed-size bitset held inline: the sets live in the loader's instance and device records,
/// which are in the application's allocator ([`crate::host_alloc`]), so a set must not own a
/// block of Rust's global heap (AOSP keeps its per-instance extension filters in the app's
/// allocator too).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExtensionSet {
    bits: [u64; EXTENSION_WORDS],
}

impl ExtensionSet {
    /// The known extensions among `names`; unknown names are ignored.
    pub fn from_names<'a>(names: impl IntoIterator<Item = &'a CStr>) -> Self {
        let mut set = Self::default();
        for name in names {
            if let Some(id) = ext::lookup(name) {
                set.insert(id);
            }
        }
        set
    }

    /// Adds `id`.
    pub fn insert(&mut self, id: ExtensionId) {
        let i = usize::from(id.0);
        if let Some(word) = self.bits.get_mut(i / 64) {
            *word |= 1 << (i % 64);
        }
    }

    /// Whether `id` is in the set.
    pub fn contains(&self, id: ExtensionId) -> bool {
        let i = usize::from(id.0);
        self.bits
            .get(i / 64)
            .is_some_and(|word| word & (1 << (i % 64)) != 0)
    }

    /// The extensions in the set, by id.
    pub fn ids(&self) -> impl Iterator<Item = ExtensionId> + '_ {
        self.bits.iter().enumerate().flat_map(|(w, &word)| {
            (0..64)
                .filter(move |b| word & (1 << b) != 0)
                // A set only holds ids of the table (`from_names`, `insert`), all below u16::MAX.
                .filter_map(move |b| u16::try_from(w * 64 + b).ok().map(ExtensionId))
        })
    }

    /// This set, `other`'s extensions, and every extension either one's `depends` expression
    /// names, transitively. An `or` in an expression is read as `and`: the result is every
    /// extension a dependency could come from, which is what a caller that must not miss one
    /// (the device's exposable commands) wants.
    pub fn union_with_dependencies(&self, other: &ExtensionSet) -> ExtensionSet {
        let mut out = ExtensionSet::from_names([]);
        for set in [self, other] {
            for (word, &theirs) in out.bits.iter_mut().zip(&set.bits) {
                *word |= theirs;
            }
        }
        let mut todo: Vec<ExtensionId> = out.ids().collect();
        while let Some(id) = todo.pop() {
            for dep in depends_on(ext::info(id).depends()) {
                if !out.contains(dep) {
                    out.insert(dep);
                    todo.push(dep);
                }
            }
        }
        out
    }
}

/// The extensions a registry `depends` expression names (`VK_VERSION_*` terms and unknown names
/// left out).
fn depends_on(expression: &str) -> impl Iterator<Item = ExtensionId> + '_ {
    expression
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|t| t.starts_with("VK_") && !t.starts_with("VK_VERSION_"))
        .filter_map(|t| std::ffi::CString::new(t).ok())
        .filter_map(|t| ext::lookup(&t))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(names: &[(&CStr, u32)]) -> Vec<vk::ExtensionProperties> {
        names.iter().map(|&(n, v)| properties(n, v)).collect()
    }

    fn names(list: &[vk::ExtensionProperties]) -> Vec<&CStr> {
        list.iter().map(name_of).collect()
    }

    /// AOSP's `EnumerateInstanceExtensionProperties` / `EnumerateDeviceExtensionProperties`: the
    /// loader's entries first (instance ones in AOSP's order), then the HAL's list as it is
    /// (blocked extensions such as the four NVIDIA ones included) with `VK_ANDROID_native_buffer`
    /// renamed in place; an ICD's list the same, less its own WSI extensions.
    #[test]
    fn driver_lists_pass_through_as_aosp_icd_wsi_hidden() {
        let driver = list(&[
            (c"VK_KHR_surface", 25),
            (c"VK_KHR_xcb_surface", 6),
            (c"VK_KHR_display", 23),
            (c"VK_EXT_debug_utils", 2),
            (c"VK_KHR_get_surface_capabilities2", 1),
            (c"VK_VENDOR_future_extension", 3),
        ]);
        // The HAL's list, whole.
        assert_eq!(
            names(&visible_instance_extensions(&driver, "test", true)),
            names(&driver)
        );
        // An ICD's: its WSI copies hidden (the loader's own are listed instead), blocked ones
        // shown.
        assert_eq!(
            names(&visible_instance_extensions(&driver, "test", false)),
            [
                c"VK_KHR_xcb_surface",
                c"VK_KHR_display",
                c"VK_EXT_debug_utils",
                c"VK_VENDOR_future_extension"
            ]
        );
        let device = list(&[
            (c"VK_KHR_swapchain", 70),
            (c"VK_ANDROID_native_buffer", 8),
            (c"VK_KHR_incremental_present", 2),
            (c"VK_KHR_swapchain_mutable_format", 1),
            (c"VK_EXT_display_control", 1),
            (c"VK_NVX_image_view_handle", 3),
            (c"VK_NV_cooperative_matrix", 1),
            (c"VK_NV_coverage_reduction_mode", 1),
            (c"VK_EXT_multi_draw", 1),
        ]);
        assert!(loader_wsi_enabled());
        let nvidia = [
            c"VK_EXT_display_control",
            c"VK_NVX_image_view_handle",
            c"VK_NV_cooperative_matrix",
            c"VK_NV_coverage_reduction_mode",
            c"VK_EXT_multi_draw",
        ];
        // An ICD without ANB: no swapchain, so nothing of the loader's; its WSI hidden.
        let icd = LoaderDeviceSupport::default();
        let no_anb: Vec<_> = device
            .iter()
            .copied()
            .filter(|e| name_of(e) != c"VK_ANDROID_native_buffer")
            .collect();
        assert_eq!(
            names(&visible_device_extensions(&no_anb, "test", &icd)),
            nvidia
        );
        // The HAL without ANB: AOSP's loader entries all the same (incremental present always),
        // then the driver's list whole, duplicates dropped.
        let hal = LoaderDeviceSupport {
            hal: true,
            ..Default::default()
        };
        let mut expected = vec![
            c"VK_KHR_incremental_present",
            c"VK_KHR_swapchain",
            c"VK_KHR_swapchain_mutable_format",
        ];
        expected.extend(nvidia);
        assert_eq!(
            names(&visible_device_extensions(&no_anb, "test", &hal)),
            expected
        );
        // The HAL with ANB spec 8: ANB renamed in place.
        let anb = LoaderDeviceSupport {
            native_buffer_spec: Some(8),
            hal: true,
            ..Default::default()
        };
        let hal_list = visible_device_extensions(&device[1..], "test", &anb);
        assert_eq!(
            names(&hal_list)[..2],
            [c"VK_KHR_incremental_present", c"VK_KHR_swapchain"]
        );
        assert_eq!(hal_list[1].spec_version, 70);
        assert_eq!(names(&hal_list)[2..], expected[2..]);
        // An ICD with ANB (the host adapter): the loader's extensions first, ANB renamed, the
        // ICD's own swapchain extensions hidden, blocked ones shown.
        let support = LoaderDeviceSupport {
            native_buffer_spec: Some(8),
            ..Default::default()
        };
        let mut expected = vec![c"VK_KHR_incremental_present", c"VK_KHR_swapchain"];
        expected.extend(nvidia);
        assert_eq!(
            names(&visible_device_extensions(&device, "test", &support)),
            expected
        );
        let all = LoaderDeviceSupport {
            native_buffer_spec: Some(8),
            shared_image: true,
            sync_fd_fence_import: true,
            present_timestamp: true,
            hdr_display: true,
            device_api_version: vk::API_VERSION_1_3,
            hal: false,
            image_compression_control: true,
        };
        // Image compression control needs native buffer spec 9: not offered on spec 8.
        let list = visible_device_extensions(&device, "test", &all);
        assert_eq!(
            names(&list)[..7],
            [
                c"VK_KHR_incremental_present",
                c"VK_EXT_hdr_metadata",
                c"VK_KHR_shared_presentable_image",
                c"VK_GOOGLE_display_timing",
                c"VK_EXT_swapchain_maintenance1",
                c"VK_KHR_swapchain_mutable_format",
                c"VK_KHR_swapchain",
            ]
        );
        assert_eq!(list[6].spec_version, 70);
        let anb9 = LoaderDeviceSupport {
            native_buffer_spec: Some(9),
            ..all
        };
        assert_eq!(
            names(&loader_device_extensions(&anb9))[3..6],
            [
                c"VK_GOOGLE_display_timing",
                c"VK_EXT_image_compression_control",
                c"VK_EXT_image_compression_control_swapchain",
            ]
        );
        let no_feature = LoaderDeviceSupport {
            image_compression_control: false,
            ..anb9
        };
        assert_eq!(loader_device_extensions(&no_feature).len(), 6);
        // The loader's instance extensions, in AOSP's order.
        let instance = loader_instance_extensions();
        assert_eq!(
            names(instance)[..7],
            [
                c"VK_KHR_surface",
                c"VK_KHR_surface_protected_capabilities",
                c"VK_KHR_android_surface",
                c"VK_EXT_swapchain_colorspace",
                c"VK_KHR_get_surface_capabilities2",
                c"VK_GOOGLE_surfaceless_query",
                c"VK_EXT_surface_maintenance1",
            ]
        );
    }

    /// Issue 36: Linux hosts offer `VK_KHR_portability_enumeration` as the Khronos loader does;
    /// its flag reaches only a driver that is given the extension.
    #[test]
    fn portability_enumeration_is_offered_and_its_flag_reaches_only_drivers_with_it() {
        let offered = names(loader_instance_extensions()).contains(&PORTABILITY_ENUMERATION);
        assert_eq!(offered, cfg!(not(target_os = "android")));
        let flag = vk::InstanceCreateFlags::ENUMERATE_PORTABILITY_KHR;
        assert_eq!(
            driver_instance_flags(flag, &[]),
            vk::InstanceCreateFlags::empty()
        );
        assert_eq!(
            driver_instance_flags(flag, &[c"VK_KHR_surface", PORTABILITY_ENUMERATION]),
            flag
        );
        // Not passed down to a driver that lacks it; a driver that reports it gets it.
        let requested = [PORTABILITY_ENUMERATION, c"VK_EXT_debug_utils"];
        let plain = list(&[(c"VK_EXT_debug_utils", 2)]);
        assert_eq!(
            filter_for_driver(&requested, &plain, "plain"),
            [c"VK_EXT_debug_utils"]
        );
        let portability = list(&[(PORTABILITY_ENUMERATION, 1), (c"VK_EXT_debug_utils", 2)]);
        assert_eq!(
            filter_for_driver(&requested, &portability, "portability"),
            requested
        );
    }

    #[test]
    fn native_buffer_becomes_swapchain_with_the_right_spec() {
        let s = swapchain_for_native_buffer(8);
        assert_eq!((name_of(&s), s.spec_version), (c"VK_KHR_swapchain", 70));
        let s = swapchain_for_native_buffer(7);
        assert_eq!(s.spec_version, 68);
    }

    /// AOSP's `SanitizeExtensions`: what the driver reports, once, loader-implemented ones
    /// kept back; a blocked extension the driver reports goes down (AOSP keeps it).
    #[test]
    fn drivers_get_only_what_they_have() {
        let driver = list(&[
            (c"VK_EXT_debug_utils", 2),
            (c"VK_KHR_surface", 25),
            (c"VK_KHR_display", 23),
        ]);
        let requested = [
            c"VK_EXT_debug_utils",
            c"VK_EXT_debug_utils",
            c"VK_KHR_surface",
            c"VK_EXT_layer_only",
            c"VK_KHR_display",
        ];
        assert_eq!(
            filter_for_driver(&requested, &driver, "test"),
            [c"VK_EXT_debug_utils", c"VK_KHR_display"]
        );
    }

    #[test]
    fn swapchain_maps_to_native_buffer_only_with_wsi() {
        let driver = list(&[(c"VK_ANDROID_native_buffer", 8), (c"VK_EXT_multi_draw", 1)]);
        let requested = [c"VK_KHR_swapchain", c"VK_EXT_multi_draw"];
        assert_eq!(
            map_swapchain_to_native_buffer(&requested, &driver, true),
            [c"VK_ANDROID_native_buffer", c"VK_EXT_multi_draw"]
        );
        assert_eq!(
            map_swapchain_to_native_buffer(&requested, &driver, false),
            requested
        );
        assert_eq!(
            device_extensions_for_driver(&requested, &driver, "test"),
            [c"VK_ANDROID_native_buffer", c"VK_EXT_multi_draw"]
        );
        // maintenance1 → the driver's SYNC_FD fence import; loader-only ones stay here.
        let driver = list(&[
            (c"VK_ANDROID_native_buffer", 8),
            (c"VK_KHR_external_fence_fd", 1),
        ]);
        let requested = [
            c"VK_KHR_swapchain",
            c"VK_EXT_swapchain_maintenance1",
            c"VK_KHR_incremental_present",
            c"VK_GOOGLE_display_timing",
        ];
        assert_eq!(
            device_extensions_for_driver(&requested, &driver, "test"),
            [c"VK_ANDROID_native_buffer", c"VK_KHR_external_fence_fd"]
        );
    }

    #[test]
    fn promoted_extensions_for_old_drivers() {
        let driver = list(&[
            (c"VK_KHR_get_physical_device_properties2", 2),
            (c"VK_KHR_device_group_creation", 1),
            (c"VK_EXT_debug_utils", 2),
        ]);
        let got = promoted_instance_extensions(vk::API_VERSION_1_0, vk::API_VERSION_1_3, &driver);
        assert_eq!(
            got,
            [
                c"VK_KHR_get_physical_device_properties2",
                c"VK_KHR_device_group_creation"
            ]
        );
        assert!(
            promoted_instance_extensions(vk::API_VERSION_1_1, vk::API_VERSION_1_3, &driver)
                .is_empty()
        );
        assert!(promoted_instance_extensions(
            vk::make_api_version(0, 1, 3, 230),
            vk::API_VERSION_1_3,
            &driver
        )
        .is_empty());
    }

    #[test]
    fn api_version_sanitising_follows_android() {
        let v1_0 = vk::API_VERSION_1_0;
        let v1_1 = vk::API_VERSION_1_1;
        let v1_3 = vk::make_api_version(0, 1, 3, 230);
        let v1_4 = API_VERSION_1_4;
        assert_eq!(sanitize_api_version(v1_1, v1_0), v1_0);
        assert_eq!(sanitize_api_version(v1_0, v1_0), v1_0);
        assert_eq!(sanitize_api_version(v1_4, v1_3), vk::API_VERSION_1_3);
        assert_eq!(sanitize_api_version(v1_3, v1_3), v1_3);
        assert_eq!(sanitize_api_version(v1_1, v1_3), v1_1);
        assert_eq!(sanitize_api_version(v1_4, v1_4), v1_4);
        // A 1.1 or 1.2 driver with a 1.4 app: passed through, as AOSP does.
        assert_eq!(sanitize_api_version(v1_4, v1_1), v1_4);
        assert_eq!(sanitize_api_version(v1_4, vk::API_VERSION_1_2), v1_4);
    }

    #[test]
    fn extension_sets() {
        let set = ExtensionSet::from_names([c"VK_EXT_debug_utils", c"VK_unknown"]);
        assert!(set.contains(ext::lookup(c"VK_EXT_debug_utils").unwrap()));
        assert!(!set.contains(ExtensionId::KHR_SWAPCHAIN));
    }

    /// The sets sit inside records placed in the app's allocator: one must own no block of
    /// the global heap (nothing to drop), and an empty set must still take members.
    #[test]
    fn an_extension_set_is_inline_and_holds_every_id() {
        assert!(!std::mem::needs_drop::<ExtensionSet>());
        let last = ExtensionId(u16::try_from(ext::EXTENSIONS.len() - 1).unwrap());
        let mut set = ExtensionSet::default();
        set.insert(ExtensionId::KHR_SWAPCHAIN);
        set.insert(last);
        assert!(set.contains(ExtensionId::KHR_SWAPCHAIN) && set.contains(last));
        assert_eq!(set.ids().count(), 2);
    }

    #[test]
    fn dedup_keeps_the_first_of_each_name_in_order() {
        // Names the registry does not know, and names it does (found by id), mixed.
        let out = dedup(list(&[
            (c"VK_KHR_a", 1),
            (c"VK_KHR_surface", 2),
            (c"VK_KHR_b", 3),
            (c"VK_KHR_a", 4),
            (c"VK_EXT_debug_utils", 5),
            (c"VK_KHR_surface", 6),
            (c"VK_KHR_c", 7),
            (c"VK_KHR_b", 8),
            (c"VK_EXT_debug_utils", 9),
        ]));
        assert_eq!(
            names(&out),
            [
                c"VK_KHR_a",
                c"VK_KHR_surface",
                c"VK_KHR_b",
                c"VK_EXT_debug_utils",
                c"VK_KHR_c"
            ]
        );
        let specs: Vec<u32> = out.iter().map(|e| e.spec_version).collect();
        assert_eq!(specs, [1, 2, 3, 5, 7]);
    }

    /// The device's exposable commands follow the extensions an enabled one depends on
    /// (transitively, every alternative of an `or`), never `VK_VERSION_*` terms.
    #[test]
    fn dependency_closure_follows_depends_expressions() {
        let id = |n: &CStr| ext::lookup(n).unwrap();
        let device = ExtensionSet::from_names([c"VK_KHR_acceleration_structure"]);
        let instance = ExtensionSet::from_names([c"VK_EXT_debug_utils"]);
        let all = device.union_with_dependencies(&instance);
        for name in [
            c"VK_KHR_acceleration_structure",
            c"VK_EXT_debug_utils",
            c"VK_KHR_deferred_host_operations",
            c"VK_EXT_descriptor_indexing",
            c"VK_KHR_buffer_device_address",
            // VK_EXT_descriptor_indexing's own dependency.
            c"VK_KHR_maintenance3",
        ] {
            assert!(all.contains(id(name)), "{name:?}");
        }
        assert!(!all.contains(id(c"VK_KHR_swapchain")));
        let ids: Vec<ExtensionId> = all.ids().collect();
        assert!(ids.iter().all(|&e| all.contains(e)));
        let unique: std::collections::BTreeSet<ExtensionId> = ids.iter().copied().collect();
        assert_eq!(unique.len(), ids.len(), "ids() lists each member once");
        assert!(ids.contains(&id(c"VK_KHR_maintenance3")));
        assert!(
            !device.contains(id(c"VK_KHR_deferred_host_operations")),
            "inputs untouched"
        );
        let empty = ExtensionSet::default().union_with_dependencies(&ExtensionSet::default());
        assert_eq!(empty.ids().count(), 0);
    }
}
