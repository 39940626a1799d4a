//! The Khronos validation layer seen through the loader under test: enable
//! `VK_LAYER_KHRONOS_validation` and `VK_EXT_debug_utils`, collect ERROR messages with a
//! messenger, and provoke one with a deliberate misuse (`vkCreateBuffer` with size 0,
//! `VUID-VkBufferCreateInfo-size-00912`).
//!
//! How the loader finds the layer is the caller's business (environment of the child):
//! `VK_LAYER_PATH` for a Khronos loader, `VKGEN_APP_LAYER_PATH` for ours.

use std::ffi::{c_void, CStr};
use std::sync::Mutex;

use ash::vk;

use crate::compute::{create_device, create_instance, pick_compute_device};

/// The layer's name.
pub const VALIDATION_LAYER: &CStr = c"VK_LAYER_KHRONOS_validation";

/// The validation error a zero-sized `vkCreateBuffer` must produce.
pub const ZERO_SIZE_BUFFER_VUID: &str = "VUID-VkBufferCreateInfo-size-00912";

/// What [`run_validation_misuse`] observed.
#[derive(Debug)]
pub struct ValidationOutcome {
    /// ERROR messages that arrived during correct use (instance, device, a valid buffer).
    pub errors_before_misuse: Vec<String>,
    /// ERROR messages that arrived during the misuse.
    pub errors_from_misuse: Vec<String>,
    /// What the misused `vkCreateBuffer` returned (the layer normally stops the call with
    /// `VK_ERROR_VALIDATION_FAILED_EXT`).
    pub misuse_result: Result<(), vk::Result>,
}

/// The instance layers the loader reports.
pub fn instance_layer_names(entry: &ash::Entry) -> Result<Vec<String>, String> {
    // SAFETY: a global command with no handles; ash sizes the output array.
    let layers = unsafe { entry.enumerate_instance_layer_properties() }
        .map_err(|e| format!("vkEnumerateInstanceLayerProperties failed: {e:?}"))?;
    layers
        .iter()
        .map(|l| {
            l.layer_name_as_c_str()
                .map(|n| n.to_string_lossy().into_owned())
                .map_err(|e| format!("layerName is not NUL-terminated: {e}"))
        })
        .collect()
}

/// Tries to create an instance that enables [`VALIDATION_LAYER`], returning the result code
/// only (the instance, when created, is destroyed at once).
pub fn try_enable_validation_layer(entry: &ash::Entry) -> vk::Result {
    try_enable_validation_layer_naming(entry, &[VALIDATION_LAYER])
}

/// [`try_enable_validation_layer`] with the application naming `app_layers`.
pub fn try_enable_validation_layer_naming(entry: &ash::Entry, app_layers: &[&CStr]) -> vk::Result {
    match create_instance(entry, app_layers, &[]) {
        Ok(_instance) => vk::Result::SUCCESS,
        Err(e) => e,
    }
}

/// The messages a messenger callback collected; boxed so its address is stable.
type Collected = Mutex<Vec<String>>;

/// The messenger callback: appends every ERROR message to the [`Collected`] at `user_data`.
///
/// # Safety
/// Called by the loader / layer only, with `data` valid for the call (or null) and
/// `user_data` the address of a live [`Collected`] (or null).
unsafe extern "system" fn collect_errors(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _types: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    user_data: *mut c_void,
) -> vk::Bool32 {
    if !severity.contains(vk::DebugUtilsMessageSeverityFlagsEXT::ERROR)
        || data.is_null()
        || user_data.is_null()
    {
        return vk::FALSE;
    }
    // SAFETY: `user_data` is the `Collected` registered with the messenger, which outlives the
    // messenger; `data` is non-null and valid for the duration of the callback per the spec.
    let (collected, data) = unsafe { (&*(user_data as *const Collected), &*data) };
    // SAFETY: the strings in `data`, when non-null, are NUL-terminated and live for the call.
    let id = unsafe { data.message_id_name_as_c_str() }
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    // SAFETY: `pMessage` is null or a C string the layer keeps alive for the callback.
    let message = unsafe { data.message_as_c_str() }
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    // Never panic across the FFI boundary: tolerate a poisoned lock.
    let mut list = collected.lock().unwrap_or_else(|p| p.into_inner());
    list.push(format!("[{id}] {message}"));
    vk::FALSE
}

/// A debug-utils messenger on an instance (with `VK_EXT_debug_utils` enabled) that collects
/// every ERROR message; destroyed on drop, which must come before the instance's.
pub struct ErrorCollector {
    loader: ash::ext::debug_utils::Instance,
    handle: vk::DebugUtilsMessengerEXT,
    // Boxed so the callback's pointer stays valid; dropped after the messenger.
    collected: Box<Collected>,
}

impl ErrorCollector {
    pub fn new(entry: &ash::Entry, instance: &ash::Instance) -> Result<ErrorCollector, String> {
        let collected: Box<Collected> = Box::new(Mutex::new(Vec::new()));
        let loader = ash::ext::debug_utils::Instance::new(entry, instance);
        let info = vk::DebugUtilsMessengerCreateInfoEXT::default()
            .message_severity(
                vk::DebugUtilsMessageSeverityFlagsEXT::ERROR
                    | vk::DebugUtilsMessageSeverityFlagsEXT::WARNING,
            )
            .message_type(
                vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                    | vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                    | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
            )
            .pfn_user_callback(Some(collect_errors))
            .user_data(
                std::ptr::from_ref::<Collected>(&*collected)
                    .cast_mut()
                    .cast(),
            );
        // SAFETY: the instance enables VK_EXT_debug_utils; the callback only touches
        // `collected`, which the returned value owns and frees after the messenger.
        let handle = unsafe { loader.create_debug_utils_messenger(&info, None) }
            .map_err(|e| format!("vkCreateDebugUtilsMessengerEXT failed: {e:?}"))?;
        Ok(ErrorCollector {
            loader,
            handle,
            collected,
        })
    }

    /// The ERROR messages collected since the last call.
    pub fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.collected.lock().unwrap_or_else(|p| p.into_inner()))
    }
}

impl Drop for ErrorCollector {
    fn drop(&mut self) {
        // SAFETY: `handle` was created by `loader` and is destroyed once, here, before the
        // instance (the caller drops this first).
        unsafe { self.loader.destroy_debug_utils_messenger(self.handle, None) };
    }
}

/// Creates an instance with the validation layer and `VK_EXT_debug_utils`, a messenger that
/// collects ERROR messages, a device, a valid buffer (no errors expected), then a buffer of
/// size 0 (an error expected), and destroys everything.
pub fn run_validation_misuse(entry: &ash::Entry) -> Result<ValidationOutcome, String> {
    run_validation_misuse_naming(entry, &[VALIDATION_LAYER])
}

/// [`run_validation_misuse`] with the application naming `app_layers` (none: the layer comes
/// from the environment, `VK_INSTANCE_LAYERS`).
pub fn run_validation_misuse_naming(
    entry: &ash::Entry,
    app_layers: &[&CStr],
) -> Result<ValidationOutcome, String> {
    let layers = instance_layer_names(entry)?;
    let layer_name = VALIDATION_LAYER.to_string_lossy();
    if !layers.iter().any(|l| *l == layer_name) {
        return Err(format!(
            "{layer_name} is not among the loader's instance layers {layers:?}"
        ));
    }
    let instance =
        create_instance(entry, app_layers, &[ash::ext::debug_utils::NAME]).map_err(|e| {
            format!("vkCreateInstance with {layer_name} and VK_EXT_debug_utils failed: {e:?}")
        })?;
    let messenger = ErrorCollector::new(entry, &instance)?;

    let (physical_device, queue_family) = pick_compute_device(&instance)?;
    let device = create_device(&instance, physical_device, queue_family)?;

    // Correct use first: a 256-byte storage buffer.
    let valid_info = vk::BufferCreateInfo::default()
        .size(256)
        .usage(vk::BufferUsageFlags::STORAGE_BUFFER)
        .sharing_mode(vk::SharingMode::EXCLUSIVE);
    // SAFETY: `device` is live and the create-info is valid.
    let valid = unsafe { device.create_buffer(&valid_info, None) }
        .map_err(|e| format!("vkCreateBuffer (valid, 256 bytes) failed: {e:?}"))?;
    // SAFETY: `valid` was created from `device` and is not used anywhere.
    unsafe { device.destroy_buffer(valid, None) };
    let errors_before_misuse = messenger.take();

    // The misuse: size must be greater than 0.
    let bad_info = vk::BufferCreateInfo::default()
        .size(0)
        .usage(vk::BufferUsageFlags::STORAGE_BUFFER)
        .sharing_mode(vk::SharingMode::EXCLUSIVE);
    // SAFETY: deliberately invalid usage (size 0) that the validation layer intercepts before
    // the driver; every pointer in the create-info is valid. A buffer that comes back anyway is
    // destroyed at once.
    let misuse_result = match unsafe { device.create_buffer(&bad_info, None) } {
        Ok(buffer) => {
            // SAFETY: `buffer` was created from `device` and is not used anywhere.
            unsafe { device.destroy_buffer(buffer, None) };
            Ok(())
        }
        Err(e) => Err(e),
    };
    let errors_from_misuse = messenger.take();

    // SAFETY: `device` is live and idle work-wise (nothing was submitted).
    unsafe { device.device_wait_idle() }.map_err(|e| format!("vkDeviceWaitIdle failed: {e:?}"))?;
    drop(device);
    // What the device's destruction raised; the messenger goes before the instance.
    let errors_after = messenger.take();
    drop(messenger);
    drop(instance);
    let mut errors_before_misuse = errors_before_misuse;
    // Errors raised by teardown count as errors of correct use.
    errors_before_misuse.extend(errors_after);
    Ok(ValidationOutcome {
        errors_before_misuse,
        errors_from_misuse,
        misuse_result,
    })
}

/// The assertions every layer test makes on a [`ValidationOutcome`].
pub fn check_validation_outcome(outcome: &ValidationOutcome) -> Result<(), String> {
    if !outcome.errors_before_misuse.is_empty() {
        return Err(format!(
            "validation errors during correct use: {:#?}",
            outcome.errors_before_misuse
        ));
    }
    if outcome.errors_from_misuse.is_empty() {
        return Err(format!(
            "no validation ERROR arrived for vkCreateBuffer(size = 0) (it returned {:?})",
            outcome.misuse_result
        ));
    }
    if !outcome
        .errors_from_misuse
        .iter()
        .any(|m| m.contains(ZERO_SIZE_BUFFER_VUID))
    {
        return Err(format!(
            "validation errors arrived but none is {ZERO_SIZE_BUFFER_VUID}: {:#?}",
            outcome.errors_from_misuse
        ));
    }
    Ok(())
}

/// A temporary `VKGEN_APP_LAYER_PATH` directory for our (Android-style) loader: it holds only
/// the symlink `libVkLayer_khronos_validation.so` to Debian's validation layer library.
pub fn app_layer_dir() -> Result<tempfile::TempDir, String> {
    let lib = crate::paths::validation_layer_lib()?;
    let dir = tempfile::Builder::new()
        .prefix("vkgen-app-layers-")
        .tempdir()
        .map_err(|e| format!("cannot create a temporary directory: {e}"))?;
    let link = dir.path().join("libVkLayer_khronos_validation.so");
    std::os::unix::fs::symlink(&lib, &link).map_err(|e| {
        format!(
            "cannot symlink {} -> {}: {e}",
            link.display(),
            lib.display()
        )
    })?;
    Ok(dir)
}

/// A temporary `VK_LAYER_PATH` directory for a Khronos loader, the equivalent of
/// [`app_layer_dir`]: a copy of the validation layer's manifest whose `library_path` is the
/// layer library's absolute path.
pub fn khronos_layer_dir() -> Result<tempfile::TempDir, String> {
    let lib = crate::paths::validation_layer_lib()?;
    let manifest = crate::paths::validation_layer_manifest()?;
    let text = std::fs::read_to_string(&manifest)
        .map_err(|e| format!("cannot read {}: {e}", manifest.display()))?;
    let mut json: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| format!("{} is not JSON: {e}", manifest.display()))?;
    let library_path = json
        .pointer_mut("/layer/library_path")
        .ok_or_else(|| format!("{} has no layer.library_path", manifest.display()))?;
    *library_path = serde_json::Value::String(lib.to_string_lossy().into_owned());
    let dir = tempfile::Builder::new()
        .prefix("vkgen-khronos-layers-")
        .tempdir()
        .map_err(|e| format!("cannot create a temporary directory: {e}"))?;
    let copy = dir.path().join("VkLayer_khronos_validation.json");
    std::fs::write(&copy, json.to_string())
        .map_err(|e| format!("cannot write {}: {e}", copy.display()))?;
    Ok(dir)
}

/// An empty temporary directory, for pointing layer search paths at nothing.
pub fn empty_dir() -> Result<tempfile::TempDir, String> {
    tempfile::Builder::new()
        .prefix("vkgen-empty-")
        .tempdir()
        .map_err(|e| format!("cannot create a temporary directory: {e}"))
}
