//! One Vulkan instance, opened through a chosen loader library, and generic structure queries.
//!
//! Every structure the driver fills lives in a zeroed, 8-byte-aligned buffer laid out from the
//! registry ([`super::layout`]), with slack after it, so a driver that writes a newer (larger)
//! revision of a structure cannot write past the buffer. `pNext` chains are built from structure
//! names; a structure is only chained when the device can know it: its core version is at most the
//! device's (and the instance's) API version, or an extension that requires it is exposed.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::{c_char, c_void, CStr};

use ash::vk;
use serde::Serialize;
use serde_json::{Map, Value};

use super::layout::{self, decode, Layout};
use super::{DeviceError, LoaderChoice};
use crate::model::{Registry, TypeKind};

/// Extra zeroed bytes after every buffer a driver writes into.
const SLACK_WORDS: usize = 64;

/// Smallest buffer handed to a driver for one structure. The driver writes the structure as the
/// headers it was built with define it, whatever the registry vkjson was given says: a hostile or
/// wrong registry may declare `VkPhysicalDeviceVulkan12Properties` with one member. Vulkan
/// structures never change size once released, and the largest one a query fills
/// (`VkPhysicalDeviceLayeredApiVulkanPropertiesKHR`, which embeds `VkPhysicalDeviceProperties2`)
/// is under 1 KiB, so every buffer is at least 4 KiB plus the slack.
pub const MIN_STRUCT_BUFFER: usize = 4096;

/// Most queue families read from a driver (a count is the driver's word; real devices have < 16).
const MAX_QUEUE_FAMILIES: u32 = 1024;

/// Decoded structures of one query, by structure name, in chain order.
type Decoded = Vec<(String, Map<String, Value>)>;

type PfnChain = unsafe extern "system" fn(vk::PhysicalDevice, *mut c_void);
type PfnFormat2 = unsafe extern "system" fn(vk::PhysicalDevice, vk::Format, *mut c_void);
type PfnExternal = unsafe extern "system" fn(vk::PhysicalDevice, *const c_void, *mut c_void);

/// A zeroed, 8-byte aligned byte buffer handed to the driver.
struct Buf(Vec<u64>);

impl Buf {
    fn new(size: usize) -> Self {
        Buf(vec![
            0;
            size.max(MIN_STRUCT_BUFFER).div_ceil(8) + SLACK_WORDS
        ])
    }
    fn ptr(&mut self) -> *mut c_void {
        self.0.as_mut_ptr().cast()
    }
    fn bytes(&self) -> &[u8] {
        // SAFETY: the memory is `len * 8` initialised bytes (u64s); u8 has no alignment or
        // validity requirements.
        unsafe { std::slice::from_raw_parts(self.0.as_ptr().cast::<u8>(), self.0.len() * 8) }
    }
    fn put(&mut self, offset: usize, data: &[u8]) {
        // SAFETY: as in `bytes`, and the unique borrow of `self` makes the view exclusive.
        let bytes = unsafe {
            std::slice::from_raw_parts_mut(self.0.as_mut_ptr().cast::<u8>(), self.0.len() * 8)
        };
        bytes[offset..offset + data.len()].copy_from_slice(data);
    }
}

/// An extension as `vkEnumerate*ExtensionProperties` reports it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "camelCase")]
pub struct ExtensionInfo {
    pub extension_name: String,
    pub spec_version: u32,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LayerInfo {
    pub layer_name: String,
    pub spec_version: u32,
    pub implementation_version: u32,
    pub description: String,
}

/// A physical device and what every tool needs from it.
#[derive(Debug)]
pub struct Device {
    pub handle: vk::PhysicalDevice,
    pub index: usize,
    /// `VkPhysicalDeviceProperties`, decoded.
    pub properties: Map<String, Value>,
    pub api_version: u32,
    pub name: String,
    pub extensions: Vec<ExtensionInfo>,
    pub layers: Vec<LayerInfo>,
}

impl Device {
    pub fn has_extension(&self, name: &str) -> bool {
        self.extensions.iter().any(|e| e.extension_name == name)
    }
}

/// A structure left out of a query, and why.
#[derive(Debug, Clone, Serialize)]
pub struct Skipped {
    pub structure: String,
    pub reason: String,
}

/// Whether (and why not) a device can be asked about a structure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Availability {
    Yes,
    /// The reason, e.g. "needs Vulkan 1.3 or VK_KHR_dynamic_rendering".
    No(String),
}

pub struct Session<'r> {
    pub reg: &'r Registry,
    pub loader: LoaderChoice,
    /// `vkEnumerateInstanceVersion` (1.0 when absent).
    pub instance_version: u32,
    /// The apiVersion the instance was created with.
    pub instance_api: u32,
    pub instance_extensions: Vec<ExtensionInfo>,
    pub instance_layers: Vec<LayerInfo>,
    /// Instance extensions this session enabled.
    pub enabled_instance_extensions: Vec<String>,
    pub devices: Vec<Device>,
    features2: Option<PfnChain>,
    properties2: Option<PfnChain>,
    format_properties2: Option<PfnFormat2>,
    external_fence: Option<PfnExternal>,
    external_semaphore: Option<PfnExternal>,
    instance: ash::Instance,
    // Dropped last: the library must stay loaded while the instance exists.
    _entry: ash::Entry,
}

impl Drop for Session<'_> {
    fn drop(&mut self) {
        // SAFETY: the instance was created by this session, every child object (none are
        // created) is gone, and nothing uses it afterwards.
        unsafe { self.instance.destroy_instance(None) };
    }
}

fn c_array_str(chars: &[c_char]) -> String {
    let bytes: Vec<u8> = chars
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

fn extension_infos(v: Vec<vk::ExtensionProperties>) -> Vec<ExtensionInfo> {
    let mut out: Vec<ExtensionInfo> = v
        .iter()
        .map(|e| ExtensionInfo {
            extension_name: c_array_str(&e.extension_name),
            spec_version: e.spec_version,
        })
        .collect();
    out.sort();
    out
}

fn layer_infos(v: Vec<vk::LayerProperties>) -> Vec<LayerInfo> {
    let mut out: Vec<LayerInfo> = v
        .iter()
        .map(|l| LayerInfo {
            layer_name: c_array_str(&l.layer_name),
            spec_version: l.spec_version,
            implementation_version: l.implementation_version,
            description: c_array_str(&l.description),
        })
        .collect();
    out.sort_by(|a, b| a.layer_name.cmp(&b.layer_name));
    out
}

fn vulkan_error(loader: &str, call: &'static str, result: vk::Result) -> DeviceError {
    DeviceError::Vulkan {
        call,
        result,
        loader: loader.to_owned(),
    }
}

/// The instance extensions to enable, the create flags they need, and whether the instance is
/// 1.0 (whose `…2` queries come from the KHR extensions enabled here).
fn instance_extensions_to_enable(
    instance_version: u32,
    available: &[ExtensionInfo],
) -> (Vec<&'static CStr>, vk::InstanceCreateFlags, bool) {
    let has = |n: &str| available.iter().any(|e| e.extension_name == n);
    let mut enable: Vec<&CStr> = Vec::new();
    let pre11 = vk::api_version_minor(instance_version) == 0
        && vk::api_version_major(instance_version) == 1;
    if pre11 {
        for e in [
            c"VK_KHR_get_physical_device_properties2",
            c"VK_KHR_external_fence_capabilities",
            c"VK_KHR_external_semaphore_capabilities",
        ] {
            if has(e.to_str().unwrap_or_default()) {
                enable.push(e);
            }
        }
    }
    let mut flags = vk::InstanceCreateFlags::empty();
    if has("VK_KHR_portability_enumeration") {
        enable.push(c"VK_KHR_portability_enumeration");
        flags |= vk::InstanceCreateFlags::ENUMERATE_PORTABILITY_KHR;
    }
    (enable, flags, pre11)
}

/// The physical-device queries beyond 1.0 that a session calls through raw pointers: core names
/// from 1.1, the KHR names on a 1.0 instance that enabled their extension, else none.
struct Queries {
    features2: Option<PfnChain>,
    properties2: Option<PfnChain>,
    format_properties2: Option<PfnFormat2>,
    external_fence: Option<PfnExternal>,
    external_semaphore: Option<PfnExternal>,
}

impl Queries {
    fn resolve(
        entry: &ash::Entry,
        instance: &ash::Instance,
        enable: &[&CStr],
        pre11: bool,
    ) -> Self {
        let gipa = |n: &CStr| {
            // SAFETY: a valid instance and a NUL-terminated name.
            unsafe { entry.get_instance_proc_addr(instance.handle(), n.as_ptr()) }
        };
        let pick = |core: &CStr, khr: &CStr, ext: &str| {
            if !pre11 {
                gipa(core)
            } else if enable.iter().any(|e| e.to_str() == Ok(ext)) {
                gipa(khr)
            } else {
                None
            }
        };
        let features2 = pick(
            c"vkGetPhysicalDeviceFeatures2",
            c"vkGetPhysicalDeviceFeatures2KHR",
            "VK_KHR_get_physical_device_properties2",
        )
        // SAFETY: the command's real signature, with structure pointers as `void*` (same ABI).
        .map(|f| unsafe { std::mem::transmute::<unsafe extern "system" fn(), PfnChain>(f) });
        let properties2 = pick(
            c"vkGetPhysicalDeviceProperties2",
            c"vkGetPhysicalDeviceProperties2KHR",
            "VK_KHR_get_physical_device_properties2",
        )
        // SAFETY: the command's real signature, with structure pointers as `void*` (same ABI).
        .map(|f| unsafe { std::mem::transmute::<unsafe extern "system" fn(), PfnChain>(f) });
        let format_properties2 = pick(
            c"vkGetPhysicalDeviceFormatProperties2",
            c"vkGetPhysicalDeviceFormatProperties2KHR",
            "VK_KHR_get_physical_device_properties2",
        )
        // SAFETY: the command's real signature, with structure pointers as `void*` (same ABI).
        .map(|f| unsafe { std::mem::transmute::<unsafe extern "system" fn(), PfnFormat2>(f) });
        let external_fence = pick(
            c"vkGetPhysicalDeviceExternalFenceProperties",
            c"vkGetPhysicalDeviceExternalFencePropertiesKHR",
            "VK_KHR_external_fence_capabilities",
        )
        // SAFETY: the command's real signature, with structure pointers as `void*` (same ABI).
        .map(|f| unsafe { std::mem::transmute::<unsafe extern "system" fn(), PfnExternal>(f) });
        let external_semaphore = pick(
            c"vkGetPhysicalDeviceExternalSemaphoreProperties",
            c"vkGetPhysicalDeviceExternalSemaphorePropertiesKHR",
            "VK_KHR_external_semaphore_capabilities",
        )
        // SAFETY: the command's real signature, with structure pointers as `void*` (same ABI).
        .map(|f| unsafe { std::mem::transmute::<unsafe extern "system" fn(), PfnExternal>(f) });
        Queries {
            features2,
            properties2,
            format_properties2,
            external_fence,
            external_semaphore,
        }
    }
}

impl<'r> Session<'r> {
    /// Loads `loader`, creates an instance at the loader's instance version and enumerates the
    /// physical devices. No device is an error ([`DeviceError::NoDevice`]).
    pub fn open(reg: &'r Registry, loader: LoaderChoice) -> Result<Self, DeviceError> {
        let name = loader.display();
        let fail = |call, result| vulkan_error(&name, call, result);
        // SAFETY: loading a Vulkan loader runs its initialisers; that is what the user asked for
        // (`--loader`, or our own loader). The entry is kept until the instance is destroyed.
        let entry =
            unsafe { ash::Entry::load_from(&loader.library) }.map_err(|e| DeviceError::Loader {
                loader: name.clone(),
                message: e.to_string(),
            })?;
        // SAFETY: `entry` holds valid global commands of the loaded library.
        let instance_version = unsafe { entry.try_enumerate_instance_version() }
            .map_err(|r| fail("vkEnumerateInstanceVersion", r))?
            .unwrap_or(vk::API_VERSION_1_0);
        // SAFETY: a global command of the library `entry` loaded, which stays loaded for the
        // call; `None` asks about the implementation, so no layer name has to outlive it.
        let instance_extensions = extension_infos(
            unsafe { entry.enumerate_instance_extension_properties(None) }
                .map_err(|r| fail("vkEnumerateInstanceExtensionProperties", r))?,
        );
        // SAFETY: a global command of the library `entry` loaded; ash sizes the array it fills
        // from the count the same command returned.
        let instance_layers = layer_infos(
            unsafe { entry.enumerate_instance_layer_properties() }
                .map_err(|r| fail("vkEnumerateInstanceLayerProperties", r))?,
        );
        let (enable, flags, pre11) =
            instance_extensions_to_enable(instance_version, &instance_extensions);
        let instance_api = vk::make_api_version(
            0,
            vk::api_version_major(instance_version),
            vk::api_version_minor(instance_version),
            0,
        );
        let app = vk::ApplicationInfo::default()
            .application_name(c"vkgen")
            .engine_name(c"vkgen")
            .api_version(instance_api);
        let ptrs: Vec<*const c_char> = enable.iter().map(|e| e.as_ptr()).collect();
        let ci = vk::InstanceCreateInfo::default()
            .application_info(&app)
            .enabled_extension_names(&ptrs)
            .flags(flags);
        // SAFETY: valid create info whose pointers outlive the call.
        let instance =
            unsafe { entry.create_instance(&ci, None) }.map_err(|r| fail("vkCreateInstance", r))?;
        let queries = Queries::resolve(&entry, &instance, &enable, pre11);
        let enabled_instance_extensions = enable
            .iter()
            .map(|e| e.to_string_lossy().into_owned())
            .collect();

        let mut session = Session {
            reg,
            loader,
            instance_version,
            instance_api,
            instance_extensions,
            instance_layers,
            enabled_instance_extensions,
            devices: Vec::new(),
            features2: queries.features2,
            properties2: queries.properties2,
            format_properties2: queries.format_properties2,
            external_fence: queries.external_fence,
            external_semaphore: queries.external_semaphore,
            instance,
            _entry: entry,
        };
        session.enumerate_devices(&name)?;
        Ok(session)
    }

    /// Fills `devices` with every physical device of the instance; none is an error.
    fn enumerate_devices(&mut self, name: &str) -> Result<(), DeviceError> {
        // SAFETY: the instance this session created and has not destroyed.
        let handles = unsafe { self.instance.enumerate_physical_devices() }
            .map_err(|r| vulkan_error(name, "vkEnumeratePhysicalDevices", r))?;
        if handles.is_empty() {
            return Err(DeviceError::NoDevice {
                loader: name.to_owned(),
            });
        }
        let props_layout = layout::layout(self.reg, "VkPhysicalDeviceProperties")?;
        for (index, handle) in handles.into_iter().enumerate() {
            let device = self.read_device(name, &props_layout, index, handle)?;
            self.devices.push(device);
        }
        Ok(())
    }

    /// The properties, extensions and layers of physical device `handle`.
    fn read_device(
        &self,
        loader: &str,
        props_layout: &Layout,
        index: usize,
        handle: vk::PhysicalDevice,
    ) -> Result<Device, DeviceError> {
        let reg = self.reg;
        let fail = |call, result| vulkan_error(loader, call, result);
        let mut buf = Buf::new(
            props_layout
                .size
                .max(std::mem::size_of::<vk::PhysicalDeviceProperties>()),
        );
        // SAFETY: a physical device of this instance; the buffer is zeroed, aligned and at
        // least as large as the structure.
        unsafe {
            (self.instance.fp_v1_0().get_physical_device_properties)(
                handle,
                buf.ptr().cast::<vk::PhysicalDeviceProperties>(),
            )
        };
        let properties = decode(reg, props_layout, buf.bytes());
        let api_version = properties
            .get("apiVersion")
            .and_then(Value::as_u64)
            .unwrap_or(0) as u32;
        let name = properties
            .get("deviceName")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        // SAFETY: a physical device of this instance.
        let extensions = extension_infos(
            unsafe { self.instance.enumerate_device_extension_properties(handle) }
                .map_err(|r| fail("vkEnumerateDeviceExtensionProperties", r))?,
        );
        // SAFETY: `handle` came from this instance's `vkEnumeratePhysicalDevices` and the
        // instance is alive; ash sizes the array from the count the command returned.
        let layers = layer_infos(
            unsafe { self.instance.enumerate_device_layer_properties(handle) }
                .map_err(|r| fail("vkEnumerateDeviceLayerProperties", r))?,
        );
        Ok(Device {
            handle,
            index,
            properties,
            api_version,
            name,
            extensions,
            layers,
        })
    }

    /// The device at `index`, or a clear error.
    pub fn device(&self, index: usize) -> Result<&Device, DeviceError> {
        self.devices.get(index).ok_or(DeviceError::NoSuchDevice {
            index,
            count: self.devices.len(),
        })
    }

    /// The version physical-device-level functionality is usable at: min(device, instance).
    pub fn effective_version(&self, dev: &Device) -> (u32, u32) {
        let v = dev.api_version.min(self.instance_api | 0xfff);
        (vk::api_version_major(v), vk::api_version_minor(v))
    }

    /// Whether `dev` knows structure `name` (canonical name or alias).
    pub fn availability(&self, dev: &Device, name: &str) -> Availability {
        let Some(def) = self.reg.resolve_type(name) else {
            return Availability::No(format!("{name} is not a type in this registry"));
        };
        let canonical = def.name.as_str();
        let mut core: Option<(u32, u32)> = None;
        for f in &self.reg.features {
            if !f.api.is_empty() && !f.api.iter().any(|a| a == "vulkan") {
                continue;
            }
            let hit = f.requires.iter().flat_map(|r| &r.types).any(|t| {
                self.reg
                    .resolve_type(t)
                    .is_some_and(|d| d.name == canonical)
            });
            if hit {
                core = Some(core.map_or(f.version, |c| c.min(f.version)));
            }
        }
        let version = self.effective_version(dev);
        if core.is_some_and(|c| c <= version) {
            return Availability::Yes;
        }
        let mut exts = BTreeSet::new();
        for e in &self.reg.extensions {
            let hit = e.requires.iter().flat_map(|r| &r.types).any(|t| {
                self.reg
                    .resolve_type(t)
                    .is_some_and(|d| d.name == canonical)
            });
            if hit {
                if dev.has_extension(&e.name) || self.enabled_instance_extensions.contains(&e.name)
                {
                    return Availability::Yes;
                }
                exts.insert(e.name.clone());
            }
        }
        let mut needs: Vec<String> = core
            .map(|c| format!("Vulkan {}.{}", c.0, c.1))
            .into_iter()
            .collect();
        needs.extend(exts);
        if needs.is_empty() {
            Availability::No(format!(
                "{canonical}: no core version or extension provides it"
            ))
        } else {
            Availability::No(format!("{canonical} needs {}", needs.join(" or ")))
        }
    }

    /// Every structure that extends `head` (`VkPhysicalDeviceFeatures2`, …) and that `dev` knows,
    /// by canonical name; the others, and those without a layout, come back as skipped.
    pub fn extending_structs(&self, dev: &Device, head: &str) -> (Vec<String>, Vec<Skipped>) {
        let (mut ok, mut skipped) = (Vec::new(), Vec::new());
        for (name, t) in &self.reg.types {
            let TypeKind::Struct(agg) = &t.kind else {
                continue;
            };
            if t.alias.is_some() || !agg.extends.iter().any(|e| e == head) {
                continue;
            }
            match self.availability(dev, name) {
                Availability::Yes => match layout::layout(self.reg, name) {
                    Ok(_) => ok.push(name.clone()),
                    Err(e) => skipped.push(Skipped {
                        structure: name.clone(),
                        reason: e.0,
                    }),
                },
                Availability::No(_) => {}
            }
        }
        (ok, skipped)
    }

    /// Fills `head` and the structures `extra` (canonical names) chained to it with `call`, and
    /// decodes them all; the result is keyed by structure name, `head` first.
    fn chain(
        &self,
        head: &str,
        extra: &[String],
        call: impl FnOnce(*mut c_void),
    ) -> Result<Decoded, DeviceError> {
        let mut parts: Vec<(Layout, Buf)> = Vec::new();
        for name in std::iter::once(head).chain(extra.iter().map(String::as_str)) {
            let l = layout::layout(self.reg, name)?;
            let s_type = l
                .s_type(self.reg)
                .ok_or_else(|| DeviceError::Layout(format!("{name} has no sType value")))?;
            let mut b = Buf::new(l.size);
            if let Some(m) = l.member("sType") {
                b.put(m.offset, &s_type.to_ne_bytes());
            }
            parts.push((l, b));
        }
        let ptrs: Vec<*mut c_void> = parts.iter_mut().map(|(_, b)| b.ptr()).collect();
        for (i, (l, b)) in parts.iter_mut().enumerate() {
            let next = ptrs.get(i + 1).copied().unwrap_or(std::ptr::null_mut());
            if let Some(m) = l.member("pNext") {
                b.put(m.offset, &(next as usize).to_ne_bytes());
            }
        }
        call(ptrs[0]);
        Ok(parts
            .iter()
            .map(|(l, b)| (l.name.clone(), decode(self.reg, l, b.bytes())))
            .collect())
    }

    /// `VkPhysicalDeviceFeatures` plus the named feature structures (those the device does not know
    /// are left out). Without `vkGetPhysicalDeviceFeatures2`, only the core structure.
    pub fn features(
        &self,
        dev: &Device,
        structs: &[String],
    ) -> Result<BTreeMap<String, Map<String, Value>>, DeviceError> {
        self.query2(
            dev,
            "VkPhysicalDeviceFeatures2",
            "features",
            structs,
            self.features2,
            |b| {
                // SAFETY: a physical device of this instance and a buffer at least as large as
                // VkPhysicalDeviceFeatures.
                unsafe {
                    (self.instance.fp_v1_0().get_physical_device_features)(
                        dev.handle,
                        b.cast::<vk::PhysicalDeviceFeatures>(),
                    )
                }
            },
        )
    }

    /// `VkPhysicalDeviceProperties` plus the named property structures.
    pub fn properties(
        &self,
        dev: &Device,
        structs: &[String],
    ) -> Result<BTreeMap<String, Map<String, Value>>, DeviceError> {
        self.query2(
            dev,
            "VkPhysicalDeviceProperties2",
            "properties",
            structs,
            self.properties2,
            |b| {
                // SAFETY: as in `features`, for VkPhysicalDeviceProperties.
                unsafe {
                    (self.instance.fp_v1_0().get_physical_device_properties)(
                        dev.handle,
                        b.cast::<vk::PhysicalDeviceProperties>(),
                    )
                }
            },
        )
    }

    fn query2(
        &self,
        dev: &Device,
        head: &str,
        member: &str,
        structs: &[String],
        pfn: Option<PfnChain>,
        core: impl FnOnce(*mut c_void),
    ) -> Result<BTreeMap<String, Map<String, Value>>, DeviceError> {
        let head_layout = layout::layout(self.reg, head)?;
        let core_layout = match head_layout.member(member).map(|m| &m.scalar) {
            Some(layout::Scalar::Struct(l)) => (**l).clone(),
            _ => {
                return Err(DeviceError::Layout(format!(
                    "{head}.{member} is not a structure"
                )))
            }
        };
        let known: Vec<String> = structs
            .iter()
            .filter(|s| *s != &core_layout.name)
            .filter(|s| self.availability(dev, s) == Availability::Yes)
            .cloned()
            .collect();
        let mut out = BTreeMap::new();
        match pfn {
            Some(f)
                if self.effective_version(dev) >= (1, 1)
                    || !self.enabled_instance_extensions.is_empty() =>
            {
                let parts = self.chain(head, &known, |p| {
                    // SAFETY: a physical device of this instance and a valid chain of zeroed
                    // structures with correct sType/pNext.
                    unsafe { f(dev.handle, p) }
                })?;
                let mut it = parts.into_iter();
                if let Some((_, mut h)) = it.next() {
                    if let Some(Value::Object(c)) = h.remove(member) {
                        out.insert(core_layout.name.clone(), c);
                    }
                }
                out.extend(it);
            }
            _ => {
                let mut b = Buf::new(core_layout.size);
                core(b.ptr());
                out.insert(
                    core_layout.name.clone(),
                    decode(self.reg, &core_layout, b.bytes()),
                );
            }
        }
        Ok(out)
    }

    /// `VkPhysicalDeviceMemoryProperties`.
    pub fn memory(&self, dev: &Device) -> Result<Map<String, Value>, DeviceError> {
        let l = layout::layout(self.reg, "VkPhysicalDeviceMemoryProperties")?;
        let mut b = Buf::new(
            l.size
                .max(std::mem::size_of::<vk::PhysicalDeviceMemoryProperties>()),
        );
        // SAFETY: a physical device of this instance; the buffer is large enough and aligned.
        unsafe {
            (self
                .instance
                .fp_v1_0()
                .get_physical_device_memory_properties)(
                dev.handle,
                b.ptr().cast::<vk::PhysicalDeviceMemoryProperties>(),
            )
        };
        Ok(decode(self.reg, &l, b.bytes()))
    }

    /// `VkQueueFamilyProperties` of every family.
    pub fn queue_families(&self, dev: &Device) -> Result<Vec<Map<String, Value>>, DeviceError> {
        let l = layout::layout(self.reg, "VkQueueFamilyProperties")?;
        if l.size != std::mem::size_of::<vk::QueueFamilyProperties>() {
            return Err(DeviceError::Layout(format!(
                "VkQueueFamilyProperties: registry layout is {} bytes, the ABI {}",
                l.size,
                std::mem::size_of::<vk::QueueFamilyProperties>()
            )));
        }
        let f = self
            .instance
            .fp_v1_0()
            .get_physical_device_queue_family_properties;
        let mut count = 0u32;
        // SAFETY: the count query of the two-call idiom.
        unsafe { f(dev.handle, &mut count, std::ptr::null_mut()) };
        // The second call writes at most `count` elements (the driver answers VK_INCOMPLETE when
        // it has more), so a hostile count cannot size an absurd allocation.
        let mut count = count.min(MAX_QUEUE_FAMILIES);
        let mut b = Buf::new(l.size * count as usize);
        // SAFETY: the buffer holds `count` zeroed elements of the ABI's size.
        unsafe {
            f(
                dev.handle,
                &mut count,
                b.ptr().cast::<vk::QueueFamilyProperties>(),
            )
        };
        Ok((0..count.min(MAX_QUEUE_FAMILIES) as usize)
            .map(|i| decode(self.reg, &l, &b.bytes()[i * l.size..]))
            .collect())
    }

    /// The `VkFormat` values `dev` can be asked about: core ones, and those of extensions it
    /// exposes or that were promoted into its version.
    pub fn formats(&self, dev: &Device) -> Vec<(String, i32)> {
        let Some(g) = self.reg.enums.get("VkFormat") else {
            return Vec::new();
        };
        let version = self.effective_version(dev);
        g.values
            .iter()
            .filter(|v| !matches!(v.value, crate::model::EnumVal::Alias(_)))
            .filter(|v| match &v.extension {
                None => true,
                Some(e) => {
                    dev.has_extension(e)
                        || self.reg.extension(e).is_some_and(|x| {
                            x.promoted_to
                                .as_deref()
                                .and_then(crate::model::parse_version)
                                .is_some_and(|p| p <= version)
                        })
                }
            })
            .filter_map(|v| {
                let x = crate::registry::enum_value(g, &v.value, 0)?;
                (x > 0).then(|| (v.name.clone(), x as i32))
            })
            .collect()
    }

    /// `VkFormatProperties` of `format` (core 1.0 query).
    pub fn format_properties(
        &self,
        dev: &Device,
        format: i32,
    ) -> Result<Map<String, Value>, DeviceError> {
        let l = layout::layout(self.reg, "VkFormatProperties")?;
        let mut b = Buf::new(l.size.max(std::mem::size_of::<vk::FormatProperties>()));
        // SAFETY: a physical device of this instance; the buffer is large enough and aligned.
        unsafe {
            (self
                .instance
                .fp_v1_0()
                .get_physical_device_format_properties)(
                dev.handle,
                vk::Format::from_raw(format),
                b.ptr().cast::<vk::FormatProperties>(),
            )
        };
        Ok(decode(self.reg, &l, b.bytes()))
    }

    /// `VkFormatProperties` plus the named structures extending `VkFormatProperties2`
    /// (`VkFormatProperties3`, …) through `vkGetPhysicalDeviceFormatProperties2`.
    pub fn format_properties2(
        &self,
        dev: &Device,
        format: i32,
        structs: &[String],
    ) -> Result<BTreeMap<String, Map<String, Value>>, DeviceError> {
        let known: Vec<String> = structs
            .iter()
            .filter(|s| *s != "VkFormatProperties" && *s != "VkFormatProperties2")
            .filter(|s| self.availability(dev, s) == Availability::Yes)
            .cloned()
            .collect();
        let Some(f) = self.format_properties2.filter(|_| {
            self.effective_version(dev) >= (1, 1) || !self.enabled_instance_extensions.is_empty()
        }) else {
            let mut out = BTreeMap::new();
            out.insert(
                "VkFormatProperties".to_owned(),
                self.format_properties(dev, format)?,
            );
            return Ok(out);
        };
        let parts = self.chain("VkFormatProperties2", &known, |p| {
            // SAFETY: a physical device of this instance and a valid structure chain.
            unsafe { f(dev.handle, vk::Format::from_raw(format), p) }
        })?;
        let mut out = BTreeMap::new();
        let mut it = parts.into_iter();
        if let Some((_, mut h)) = it.next() {
            if let Some(Value::Object(c)) = h.remove("formatProperties") {
                out.insert("VkFormatProperties".to_owned(), c);
            }
        }
        out.extend(it);
        Ok(out)
    }

    /// External fence (`semaphore == false`) or semaphore properties for every handle type the
    /// registry defines, keyed by handle-type bit name; empty when the query is unavailable.
    pub fn external_sync(
        &self,
        dev: &Device,
        semaphore: bool,
    ) -> Result<Map<String, Value>, DeviceError> {
        let (pfn, info, props, bits) = if semaphore {
            (
                self.external_semaphore,
                "VkPhysicalDeviceExternalSemaphoreInfo",
                "VkExternalSemaphoreProperties",
                "VkExternalSemaphoreHandleTypeFlagBits",
            )
        } else {
            (
                self.external_fence,
                "VkPhysicalDeviceExternalFenceInfo",
                "VkExternalFenceProperties",
                "VkExternalFenceHandleTypeFlagBits",
            )
        };
        let mut out = Map::new();
        let Some(f) = pfn else { return Ok(out) };
        if self.effective_version(dev) < (1, 1) && self.enabled_instance_extensions.is_empty() {
            return Ok(out);
        }
        let il = layout::layout(self.reg, info)?;
        let handle_type = il
            .member("handleType")
            .ok_or_else(|| DeviceError::Layout(format!("{info} has no handleType")))?
            .offset;
        // Reserved bits name no handle type an implementation could support.
        for (name, bit) in layout::flag_bits(self.reg, bits)
            .into_iter()
            .filter(|(n, _)| !n.contains("RESERVED"))
        {
            let mut ib = Buf::new(il.size);
            if let (Some(m), Some(st)) = (il.member("sType"), il.s_type(self.reg)) {
                ib.put(m.offset, &st.to_ne_bytes());
            }
            ib.put(handle_type, &(bit as u32).to_ne_bytes());
            let parts = self.chain(props, &[], |p| {
                // SAFETY: a physical device of this instance, a valid input structure and a
                // zeroed output structure with its sType.
                unsafe { f(dev.handle, ib.ptr(), p) }
            })?;
            if let Some((_, v)) = parts.into_iter().next() {
                out.insert(name, Value::Object(v));
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_buffer_holds_any_structure_a_driver_writes() {
        // Registry layouts can be wrong (a one-member VkPhysicalDeviceProperties2): the buffer
        // must still hold what a driver writes for the structure.
        let largest = [
            std::mem::size_of::<vk::PhysicalDeviceProperties2>(),
            std::mem::size_of::<vk::PhysicalDeviceVulkan12Properties>(),
            std::mem::size_of::<vk::PhysicalDeviceMemoryProperties2>(),
            std::mem::size_of::<vk::PhysicalDeviceDriverProperties>(),
        ];
        for size in [0, 1, 8, 24] {
            let b = Buf::new(size);
            for l in largest {
                assert!(b.bytes().len() >= l + SLACK_WORDS * 8, "{size}: {l}");
            }
        }
    }
}
