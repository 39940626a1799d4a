//! `vkCreateInstance` and `vkDestroyInstance` at the api level (Android's `api.cpp`).
//!
//! `vkCreateInstance`:
//! 1. fails with the drivers' error if the process has a broken HAL (`DriverFailure`);
//! 2. activates layers: the `debug.vulkan.*` ones (debuggable configs only), then the
//!    application's; an unknown name gives `VK_ERROR_LAYER_NOT_PRESENT`;
//! 3. checks every requested extension against the active layers' and the drivers' visible
//!    lists: `VK_ERROR_EXTENSION_NOT_PRESENT` otherwise;
//! 4. builds the instance chain ([`crate::chain::InstanceChain`]) over the terminator and calls
//!    `head_gipa(NULL, "vkCreateInstance")` (with layers active and `VK_KHR_android_surface`
//!    enabled, the layers also see `VK_EXT_headless_surface`: [`crate::wsi::layer_compat`]);
//! 5. finds the loader data through word 0 of the returned handle (the terminator put it there,
//!    or a wrapping layer copied it with `vkSetInstanceLoaderData`), fills the dispatch table
//!    from the head of the chain and records the api-level data.
//!
//! A failure anywhere in the chain is returned as is; the layers and the terminator clean up
//! what they created.

use std::sync::Arc;

use vkgen_abi::vk_error;

use crate::api::global::{available_instance_extensions, layer_extensions};
use crate::chain::InstanceChain;
use crate::dispatch_data::{checked_instance_data, ApiInstance};
use crate::extensions::{self, ExtensionSet};
use crate::ffi::{app_api_version, guard, guard_result, name_list};
use crate::host_alloc::{try_collect, HostAllocator, HostVec};
use crate::layers::Layer;
use crate::{driver, init, layers, terminator};
use vkgen_generated::dispatch::InstanceDispatchTable;
use vkgen_generated::vk;

/// `vkCreateInstance`.
///
/// # Safety
/// Vulkan's contract for the command.
#[no_mangle]
pub unsafe extern "system" fn vkCreateInstance(
    p_create_info: *const vk::InstanceCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_instance: *mut vk::Instance,
) -> vk::Result {
    guard_result(
        "vkCreateInstance",
        vk::Result::ERROR_INITIALIZATION_FAILED,
        || {
            let _trace = crate::trace::section("CreateInstance");
            // SAFETY: the three pointers are the application's, unchanged: `p_create_info`
            // null (checked there) or valid per VUID-vkCreateInstance-pCreateInfo-parameter,
            // `p_allocator` null or valid, `p_instance` null (checked there) or writable.
            unsafe { create_instance(p_create_info, p_allocator, p_instance) }
        },
    )
}

/// # Safety
/// As [`vkCreateInstance`].
unsafe fn create_instance(
    info: *const vk::InstanceCreateInfo<'_>,
    allocator: *const vk::AllocationCallbacks<'_>,
    out: *mut vk::Instance,
) -> Result<(), vk::Result> {
    // SAFETY: `info` is the application's pCreateInfo: null (checked here) or a valid create info
    // that lives for this call (VUID-vkCreateInstance-pCreateInfo-parameter).
    let Some(info) = (unsafe { info.as_ref() }) else {
        return Err(vk_error!(
            vk::Result::ERROR_INITIALIZATION_FAILED,
            "vkCreateInstance: null pCreateInfo"
        ));
    };
    if out.is_null() {
        return Err(vk_error!(
            vk::Result::ERROR_INITIALIZATION_FAILED,
            "vkCreateInstance: null pInstance"
        ));
    }
    let loader = init::loader();
    if let Err(failure) = &loader.drivers {
        return Err(vk_error!(
            failure.result,
            "vkCreateInstance: {}",
            failure.message
        ));
    }
    // SAFETY: `pp_enabled_layer_names` holds `enabled_layer_count` NUL-terminated strings
    // (VUID-VkInstanceCreateInfo-ppEnabledLayerNames-parameter) that live for this call.
    let app_layers = unsafe { name_list(info.enabled_layer_count, info.pp_enabled_layer_names) };
    // `debug.vulkan.*` is read now, not when the loader was initialised (AOSP reads the
    // properties at every vkCreateInstance: a zygote's preload must not fix its children's layers).
    let properties = crate::properties::Properties::current();
    let active = activate_layers(loader, &properties, &app_layers).inspect_err(|_| {
        // AOSP's `LoadLayer`: the first name that cannot be activated.
        if let Some(name) = first_missing_layer(loader, &properties, &app_layers) {
            report_to_create_info(info, &format!("Failed to find layer {name}"));
        }
    })?;
    // SAFETY: `allocator` is the application's pAllocator, null or valid callbacks
    // (VUID-vkCreateInstance-pAllocator-parameter).
    let active = unsafe { keep_layers(active, allocator) }?;
    // SAFETY: `pp_enabled_extension_names` holds `enabled_extension_count` NUL-terminated strings
    // (VUID-VkInstanceCreateInfo-ppEnabledExtensionNames-parameter) that live for this call.
    let mut requested = unsafe {
        name_list(
            info.enabled_extension_count,
            info.pp_enabled_extension_names,
        )
    };
    // AOSP `debug.vulkan.enable_callback` (debuggable builds): VK_EXT_debug_report is enabled
    // for the loader's own callback, which logs every ERROR and WARNING report.
    let enable_callback =
        loader.config.debuggable && properties.get_bool("debug.vulkan.enable_callback", false);
    // AOSP's `OverrideExtensionNames` appends it even when the app named it (the driver's
    // sanitising drops the repeat; layers see both).
    let appended_debug_report = enable_callback;
    if appended_debug_report {
        requested.push(DEBUG_REPORT);
    }
    let available = available_instance_extensions(loader, layer_extensions(&active));
    if let Some(name) = requested
        .iter()
        .find(|name| !extensions::contains(&available, name))
    {
        // AOSP's `ValidateExtensions`, whose logger calls the create info's callbacks.
        report_to_create_info(
            info,
            &format!(
                "Failed to enable missing instance extension {}",
                name.to_string_lossy()
            ),
        );
        return Err(vk_error!(
            vk::Result::ERROR_EXTENSION_NOT_PRESENT,
            "vkCreateInstance: extension {name:?} is provided by no driver and no active layer"
        ));
    }
    // AOSP: the extension check above saw no driver extensions; the driver's own sanitising
    // (`CreateInfoWrapper::InitExtensionFilter`) then asks the HAL again and returns its failure.
    if let Some(e) = loader.extensions_failure() {
        return Err(vk_error!(
            e,
            "vkCreateInstance: the HAL's vkEnumerateInstanceExtensionProperties failed"
        ));
    }
    // SAFETY: `info` is the application's valid create info and `allocator` its pAllocator, null
    // or valid callbacks (VUID-vkCreateInstance-pAllocator-parameter).
    let created = unsafe {
        create_through_chain(&active, info, allocator, &requested, appended_debug_report)
    }?;
    // SAFETY: `p_application_info` is null or a valid VkApplicationInfo
    // (VUID-VkInstanceCreateInfo-pApplicationInfo-parameter) that lives for this call.
    let api_version = unsafe { app_api_version(info.p_application_info) };
    let instance = created.instance;
    // SAFETY: `created` is the live instance the chain just returned, with its chain's head.
    unsafe {
        record_instance(
            created,
            active,
            api_version,
            &requested,
            enable_callback,
            allocator,
        )
    }?;
    // SAFETY: `out` was checked non-null at the top and is the application's pInstance, writable
    // for this call (VUID-vkCreateInstance-pInstance-parameter).
    unsafe { *out = instance };
    Ok(())
}

/// The active-layer list moved into the application's allocator (scope INSTANCE), as AOSP's
/// `LayerChain` keeps its layer array: made before any layer or driver is called, it lives as
/// long as the instance.
///
/// # Safety
/// `allocator` must be null or valid callbacks.
unsafe fn keep_layers(
    active: Vec<Arc<Layer>>,
    allocator: *const vk::AllocationCallbacks<'_>,
) -> Result<HostVec<Arc<Layer>, HostAllocator>, vk::Result> {
    // SAFETY: the caller guarantees `allocator` is null or valid callbacks.
    let alloc = unsafe {
        HostAllocator::app_or(
            allocator,
            HostAllocator::default_for(vk::SystemAllocationScope::INSTANCE),
            vk::SystemAllocationScope::INSTANCE,
        )
    };
    try_collect(active, alloc, "vkCreateInstance", "the active-layer list")
}

/// AOSP's `DebugReportLogger(const VkInstanceCreateInfo&)`: an ERROR the loader reports while
/// creating an instance goes to every `VkDebugReportCallbackCreateInfoEXT` chained to the create
/// info whose flags include ERROR (object type UNKNOWN, object 0, prefix `vulkan`, the text cut
/// to 1023 bytes with `...` as AOSP's buffer does), before the instance exists.
fn report_to_create_info(info: &vk::InstanceCreateInfo<'_>, text: &str) {
    const LIMIT: usize = 1023;
    let mut bytes: Vec<u8> = text.bytes().filter(|&b| b != 0).collect();
    if bytes.len() > LIMIT {
        bytes.truncate(LIMIT - 3);
        bytes.extend_from_slice(b"...");
    }
    let Ok(message) = std::ffi::CString::new(bytes) else {
        return;
    };
    let flags = vk::DebugReportFlagsEXT::ERROR;
    // SAFETY: the application's create-info chain, each link a valid Vulkan structure
    // (VUID-VkInstanceCreateInfo-pNext-pNext).
    for base in unsafe { vkgen_generated::chain::chain(info.p_next) } {
        if base.s_type == vk::StructureType::DEBUG_REPORT_CALLBACK_CREATE_INFO_EXT {
            // SAFETY: the sType says this link is a VkDebugReportCallbackCreateInfoEXT.
            let cb = unsafe {
                &*std::ptr::from_ref(base).cast::<vk::DebugReportCallbackCreateInfoEXT<'_>>()
            };
            if let (true, Some(f)) = (cb.flags.intersects(flags), cb.pfn_callback) {
                // SAFETY: the application's callback with the arguments the extension defines;
                // the strings live across the call.
                unsafe {
                    f(
                        flags,
                        vk::DebugReportObjectTypeEXT::UNKNOWN,
                        0,
                        0,
                        0,
                        c"vulkan".as_ptr(),
                        message.as_ptr(),
                        cb.p_user_data,
                    )
                };
            }
        }
    }
}

/// The first requested layer name that activation rejects, for the message AOSP's `LoadLayer`
/// reports (`activate` gives only its error).
fn first_missing_layer(
    loader: &init::Loader,
    properties: &crate::properties::Properties,
    app_layers: &[&std::ffi::CStr],
) -> Option<String> {
    layers::requested_layer_names(&loader.config.gpu_debug, properties, app_layers)
        .into_iter()
        .find(|name| {
            name.to_bytes().contains(&b'/')
                || (loader.layers.find(name).is_none() && loader.layers.find_host(name).is_none())
        })
        .map(|name| name.to_string_lossy().into_owned())
}

/// An instance the chain created (step 4 of the module notes).
struct Created {
    instance: vk::Instance,
    head_gipa: vk::PFN_vkGetInstanceProcAddr,
    /// The layers saw Android surfaces as headless ones ([`crate::wsi::layer_compat`]).
    layer_compat: bool,
}

/// Step 4: the instance chain over the terminator, and its `vkCreateInstance` with the
/// extensions the layers should see.
///
/// # Safety
/// `info` must be a valid create info for this call; `allocator` null or valid callbacks.
unsafe fn create_through_chain(
    active: &[Arc<Layer>],
    info: &vk::InstanceCreateInfo<'_>,
    allocator: *const vk::AllocationCallbacks<'_>,
    requested: &[&std::ffi::CStr],
    appended_debug_report: bool,
) -> Result<Created, vk::Result> {
    let mut chain = InstanceChain::new(
        active,
        terminator::get_instance_proc_addr,
        terminator::get_physical_device_proc_addr,
    );
    let head_gipa = chain.head_gipa();
    // SAFETY: every chain element accepts a null instance for vkCreateInstance, and returns
    // that command's type for its name.
    let create: Option<vk::PFN_vkCreateInstance> = unsafe {
        driver::void_fn_as(head_gipa(
            vk::Instance::null(),
            c"vkCreateInstance".as_ptr(),
        ))
    };
    let Some(create) = create else {
        return Err(vk_error!(
            vk::Result::ERROR_INITIALIZATION_FAILED,
            "vkCreateInstance: the head of the layer chain has no vkCreateInstance"
        ));
    };
    let mut chained = chain.attach(info);
    // The arrays below live for this call only: AOSP's `LayerChain` builds them with the
    // application's allocator (else the default), scope COMMAND ([`crate::host_alloc`]).
    // SAFETY: `allocator` is null or the application's valid callbacks.
    let command_alloc = unsafe {
        HostAllocator::app_or(
            allocator,
            HostAllocator::default_for(vk::SystemAllocationScope::COMMAND),
            vk::SystemAllocationScope::COMMAND,
        )
    };
    let array = |names: &mut dyn ExactSizeIterator<Item = *const std::ffi::c_char>| {
        try_collect(names, command_alloc, "vkCreateInstance", "a name array")
    };
    // AOSP's `ModifyCreateInfo`: the layers see the whole list the loader activates (the
    // implicit layers, then the application's), not only the application's names.
    let layer_names = array(&mut active.iter().map(|l| l.name().as_ptr()))?;
    if !layer_names.is_empty() {
        chained.enabled_layer_count = layer_names.len() as u32;
        chained.pp_enabled_layer_names = layer_names.as_ptr();
    }
    // Layers built without VK_KHR_android_surface see Android surfaces as headless ones.
    let layer_extensions =
        crate::wsi::layer_compat::layer_extensions(requested, !active.is_empty());
    let extension_ptrs = match &layer_extensions {
        Some(list) => Some(array(&mut list.iter().map(|n| n.as_ptr()))?),
        None if appended_debug_report => Some(array(&mut requested.iter().map(|n| n.as_ptr()))?),
        None => None,
    };
    if let Some(ptrs) = &extension_ptrs {
        chained.enabled_extension_count = ptrs.len() as u32;
        chained.pp_enabled_extension_names = ptrs.as_ptr();
    }
    let mut instance = vk::Instance::null();
    // SAFETY: a valid create info (the application's plus the chain nodes and name arrays, which
    // outlive the call), the caller's allocator and a local out-pointer.
    let result = unsafe { create(&chained, allocator, &mut instance) };
    if result != vk::Result::SUCCESS {
        log::warn!("vkCreateInstance: failed in the chain with {result:?}");
        return Err(result);
    }
    Ok(Created {
        instance,
        head_gipa,
        layer_compat: layer_extensions.is_some(),
    })
}

/// Step 5: the loader data behind the new instance gets its dispatch table (from the head of
/// the chain) and the api-level data.
///
/// # Safety
/// `created.instance` must be the live instance the chain just created, `created.head_gipa`
/// its chain's head, `allocator` the callbacks it was created with (null or valid).
unsafe fn record_instance(
    created: Created,
    active: HostVec<Arc<Layer>, HostAllocator>,
    api_version: u32,
    requested: &[&std::ffi::CStr],
    enable_callback: bool,
    allocator: *const vk::AllocationCallbacks<'_>,
) -> Result<(), vk::Result> {
    let Created {
        instance,
        head_gipa,
        layer_compat,
    } = created;
    let raw = vk::Handle::as_raw(instance) as usize;
    // SAFETY: the caller guarantees the chain returned this live dispatchable object.
    let Some(data) = (unsafe { checked_instance_data(raw, "vkCreateInstance") }) else {
        return Err(vk_error!(
            vk::Result::ERROR_INITIALIZATION_FAILED,
            "vkCreateInstance: the instance returned by the layer chain carries no loader data \
             (a layer returned its own object without vkSetInstanceLoaderData)"
        ));
    };
    // Without layers the head is the terminator, which answers most names from its driver's
    // table (`instance_table_answer`); the rest are asked of the head as with layers.
    let terminator_head = std::ptr::fn_addr_eq(
        head_gipa,
        crate::terminator::get_instance_proc_addr as vk::PFN_vkGetInstanceProcAddr,
    );
    let mut ask = |id: vkgen_generated::commands::CommandId| {
        let known = if terminator_head {
            // SAFETY: the live instance the chain (the terminator alone) just created.
            unsafe { crate::terminator::instance_table_answer(instance, id) }
        } else {
            None
        };
        // SAFETY: the head of the live instance's chain and a generated command name.
        known.unwrap_or_else(|| unsafe {
            head_gipa(
                instance,
                vkgen_generated::commands::info(id).name().as_ptr(),
            )
        })
    };
    // SAFETY: the head of the chain (and the terminator's record of its driver's answers)
    // returns functions of the types their names say.
    let mut table = unsafe { InstanceDispatchTable::load_with(&mut ask) };
    if layer_compat {
        // SAFETY: the live instance being created, with its chain's head.
        unsafe { crate::wsi::layer_compat::patch_table(&mut table, instance, head_gipa) };
    }
    log::debug!(
        "instance {instance:?}: {table:?}, {} layer(s)",
        active.len()
    );
    // SAFETY: the application does not have the handle yet, and nothing else reads the table
    // during creation.
    unsafe { data.set_dispatch(table) };
    let logging_callback = if enable_callback {
        // SAFETY: the new instance with its chain's head.
        let callback = unsafe { create_logging_callback(instance, head_gipa) };
        if callback.is_none() {
            // AOSP: "Broken VK_EXT_debug_report support" / "Failed to install debug report
            // callback" destroy the new instance and fail its creation.
            // SAFETY: the head of the live instance's chain returns vkDestroyInstance's type.
            let destroy: Option<vk::PFN_vkDestroyInstance> =
                unsafe { driver::void_fn_as(head_gipa(instance, c"vkDestroyInstance".as_ptr())) };
            if let Some(destroy) = destroy {
                // SAFETY: the instance the chain just created, never handed out, with the
                // application's allocator it was created with.
                unsafe { destroy(instance, allocator) };
            }
            return Err(vk_error!(
                vk::Result::ERROR_INITIALIZATION_FAILED,
                "vkCreateInstance: debug.vulkan.enable_callback could not install its callback"
            ));
        }
        callback
    } else {
        None
    };
    let api = ApiInstance {
        handle: instance,
        head_gipa,
        layers: active,
        api_version,
        enabled_extensions: ExtensionSet::from_names(requested.iter().copied()),
        logging_callback,
    };
    if data.api.set(api).is_err() {
        return Err(vk_error!(
            vk::Result::ERROR_INITIALIZATION_FAILED,
            "vkCreateInstance: the chain returned an instance that already exists"
        ));
    }
    Ok(())
}

/// `vkDestroyInstance`: down the chain; the terminator frees the loader data.
///
/// # Safety
/// Vulkan's contract for the command.
#[no_mangle]
pub unsafe extern "system" fn vkDestroyInstance(
    instance: vk::Instance,
    p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    guard("vkDestroyInstance", (), || {
        let _trace = crate::trace::section("DestroyInstance");
        let raw = vk::Handle::as_raw(instance) as usize;
        if raw == 0 {
            return;
        }
        let layers: Vec<Arc<Layer>>;
        // SAFETY: `raw` is non-null (checked above) and the application's live instance
        // (VUID-vkDestroyInstance-instance-parameter); `checked_instance_data` verifies word 0
        // against the registry.
        let destroy = match unsafe { checked_instance_data(raw, "vkDestroyInstance") } {
            Some(data) => {
                // Held across the call (AOSP's `DestroyInstance` destroys its layers after
                // it): the terminator frees the instance's data, and the last reference to a
                // layer unloads its library, whose code is still on the stack until then.
                layers = data
                    .api
                    .get()
                    .map(|api| api.layers.iter().cloned().collect())
                    .unwrap_or_default();
                if let Some((callback, api)) = data
                    .api
                    .get()
                    .and_then(|api| api.logging_callback.map(|c| (c, api)))
                {
                    // SAFETY: the loader's own callback on this live instance.
                    unsafe { destroy_logging_callback(instance, api.head_gipa, callback) };
                }
                data.dispatch().destroy_instance
            }
            None => return,
        };
        // SAFETY: the head of the chain's vkDestroyInstance for this instance.
        unsafe { destroy(instance, p_allocator) };
        drop(layers);
    });
}

const DEBUG_REPORT: &std::ffi::CStr = c"VK_EXT_debug_report";

/// The `debug.vulkan.enable_callback` callback: ERROR and WARNING reports to the log (logcat on
/// Android), as AOSP's `DebugReportCallback`.
unsafe extern "system" fn log_report(
    flags: vk::DebugReportFlagsEXT,
    _object_type: vk::DebugReportObjectTypeEXT,
    _object: u64,
    _location: usize,
    code: i32,
    p_layer_prefix: *const std::ffi::c_char,
    p_message: *const std::ffi::c_char,
    _user: *mut std::ffi::c_void,
) -> vk::Bool32 {
    crate::ffi::guard("debug.vulkan.enable_callback", vk::FALSE, || {
        // SAFETY: C strings (or null) valid during the callback, per the extension.
        let (prefix, message) = unsafe {
            (
                crate::ffi::cstr(p_layer_prefix),
                crate::ffi::cstr(p_message),
            )
        };
        let prefix = prefix.map(|p| p.to_string_lossy()).unwrap_or_default();
        let message = message.map(|m| m.to_string_lossy()).unwrap_or_default();
        if flags.contains(vk::DebugReportFlagsEXT::ERROR) {
            log::error!("[{prefix}] code {code}: {message}");
        } else {
            log::warn!("[{prefix}] code {code}: {message}");
        }
        vk::FALSE
    })
}

/// Creates the logging callback through the head of the chain.
///
/// # Safety
/// `instance` is live, created with `VK_EXT_debug_report`, and `head` is its chain's GIPA.
unsafe fn create_logging_callback(
    instance: vk::Instance,
    head: vk::PFN_vkGetInstanceProcAddr,
) -> Option<vk::DebugReportCallbackEXT> {
    // SAFETY: the caller guarantees `instance` is live and `head` its chain's GIPA, which returns
    // vkCreateDebugReportCallbackEXT's type for that name.
    let create: Option<vk::PFN_vkCreateDebugReportCallbackEXT> =
        unsafe { driver::void_fn_as(head(instance, c"vkCreateDebugReportCallbackEXT".as_ptr())) };
    // SAFETY: the caller guarantees `instance` is live and `head` its chain's GIPA, which returns
    // vkDestroyDebugReportCallbackEXT's type for that name.
    let destroy: Option<vk::PFN_vkDestroyDebugReportCallbackEXT> =
        unsafe { driver::void_fn_as(head(instance, c"vkDestroyDebugReportCallbackEXT".as_ptr())) };
    let (Some(create), Some(_)) = (create, destroy) else {
        log::error!("Broken VK_EXT_debug_report support");
        return None;
    };
    let info = vk::DebugReportCallbackCreateInfoEXT::default()
        .flags(vk::DebugReportFlagsEXT::ERROR | vk::DebugReportFlagsEXT::WARNING)
        .pfn_callback(Some(log_report));
    let mut callback = vk::DebugReportCallbackEXT::null();
    // SAFETY: a valid create info and out-pointer on a live instance.
    match unsafe { create(instance, &info, std::ptr::null(), &mut callback) } {
        vk::Result::SUCCESS => Some(callback),
        e => {
            log::error!(
                "debug.vulkan.enable_callback: failed to install debug report callback: {e:?}"
            );
            None
        }
    }
}

/// # Safety
/// As for [`create_logging_callback`], with `callback` from it.
unsafe fn destroy_logging_callback(
    instance: vk::Instance,
    head: vk::PFN_vkGetInstanceProcAddr,
    callback: vk::DebugReportCallbackEXT,
) {
    // SAFETY: the caller guarantees `instance` is live and `head` its chain's GIPA, which returns
    // vkDestroyDebugReportCallbackEXT's type for that name.
    let destroy: Option<vk::PFN_vkDestroyDebugReportCallbackEXT> =
        unsafe { driver::void_fn_as(head(instance, c"vkDestroyDebugReportCallbackEXT".as_ptr())) };
    if let Some(destroy) = destroy {
        // SAFETY: the loader's callback on its live instance.
        unsafe { destroy(instance, callback, std::ptr::null()) };
    }
}

/// The layers of a new instance ([`layers::activate`]); one that cannot be activated fails
/// `vkCreateInstance` with its result, logged.
fn activate_layers(
    loader: &init::Loader,
    properties: &crate::properties::Properties,
    app_layers: &[&std::ffi::CStr],
) -> Result<Vec<Arc<Layer>>, vk::Result> {
    let no_drivers = loader.drivers.as_ref().map_or(true, |d| d.is_empty());
    layers::activate(
        &loader.layers,
        &loader.config.gpu_debug,
        properties,
        app_layers,
        no_drivers,
    )
    .map_err(|e| crate::layers::map_layer_err(&e))
}
