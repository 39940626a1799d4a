//! The application's `VkAllocationCallbacks` for the loader's own instance and device data, as
//! AOSP's `AllocateInstanceData` / `AllocateDeviceData` / `CreateInfoWrapper` use them: scope
//! INSTANCE for the instance's records, DEVICE for the device's, COMMAND for the arrays a create
//! call builds; a device created without callbacks uses its instance's; destroy frees every
//! block; any failed allocation makes the create command return `VK_ERROR_OUT_OF_HOST_MEMORY`
//! with nothing leaked.
//!
//! The fixture HAL ignores `pAllocator`, so every call the counting allocator sees is the
//! loader's. Each case runs in a child process (the loader initialises once per process).

mod common;

use std::alloc::Layout;
use std::collections::HashMap;
use std::ffi::c_void;
use std::path::PathBuf;
use std::sync::Mutex;

use ash::vk;
use common::*;
use vkgen_tests::env::in_child;

/// What the counting allocator saw.
#[derive(Default)]
struct State {
    /// `(size, alignment, scope)` of every pfnAllocation call, failed ones included.
    calls: Vec<(usize, usize, vk::SystemAllocationScope)>,
    /// Live blocks: address → (layout, scope).
    live: HashMap<usize, (Layout, vk::SystemAllocationScope)>,
    /// Scope of every block freed.
    freed: Vec<vk::SystemAllocationScope>,
    /// pfnFree of an address this allocator never returned, or pfnReallocation calls.
    misuse: Vec<String>,
    /// The pfnAllocation call (0-based) that returns NULL.
    fail_at: Option<usize>,
}

/// A `VkAllocationCallbacks` user: counts and checks every call, optionally failing one.
struct Counting(Mutex<State>);

impl Counting {
    fn new(fail_at: Option<usize>) -> Box<Self> {
        Box::new(Self(Mutex::new(State {
            fail_at,
            ..State::default()
        })))
    }

    fn callbacks(&self) -> vk::AllocationCallbacks<'_> {
        vk::AllocationCallbacks {
            p_user_data: std::ptr::from_ref(self).cast_mut().cast(),
            pfn_allocation: Some(allocation),
            pfn_reallocation: Some(reallocation),
            pfn_free: Some(free),
            ..Default::default()
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn scopes(&self) -> Vec<vk::SystemAllocationScope> {
        self.state().calls.iter().map(|c| c.2).collect()
    }

    fn live_scopes(&self) -> Vec<vk::SystemAllocationScope> {
        self.state().live.values().map(|v| v.1).collect()
    }
}

unsafe extern "system" fn allocation(
    user: *mut c_void,
    size: usize,
    align: usize,
    scope: vk::SystemAllocationScope,
) -> *mut c_void {
    // SAFETY: `user` is the `Counting` the callbacks were made from, alive for the test.
    let counting = unsafe { &*user.cast::<Counting>() };
    let mut state = counting.state();
    let index = state.calls.len();
    state.calls.push((size, align, scope));
    let Ok(layout) = Layout::from_size_align(size.max(1), align) else {
        state.misuse.push(format!("bad alignment {align}"));
        return std::ptr::null_mut();
    };
    if state.fail_at == Some(index) {
        return std::ptr::null_mut();
    }
    // SAFETY: a non-zero layout; the block is freed in `free`.
    let block = unsafe { std::alloc::alloc(layout) };
    state.live.insert(block as usize, (layout, scope));
    block.cast()
}

unsafe extern "system" fn reallocation(
    user: *mut c_void,
    _original: *mut c_void,
    _size: usize,
    _align: usize,
    _scope: vk::SystemAllocationScope,
) -> *mut c_void {
    // SAFETY: `user` is the test's `Counting`.
    let counting = unsafe { &*user.cast::<Counting>() };
    counting.state().misuse.push("pfnReallocation".into());
    std::ptr::null_mut()
}

unsafe extern "system" fn free(user: *mut c_void, memory: *mut c_void) {
    if memory.is_null() {
        return;
    }
    // SAFETY: `user` is the test's `Counting`.
    let counting = unsafe { &*user.cast::<Counting>() };
    let mut state = counting.state();
    match state.live.remove(&(memory as usize)) {
        Some((layout, scope)) => {
            state.freed.push(scope);
            // SAFETY: a block `allocation` made with this layout, freed once.
            unsafe { std::alloc::dealloc(memory.cast(), layout) };
        }
        None => state.misuse.push(format!("pfnFree of unknown {memory:?}")),
    }
}

fn hal_instance(
    entry: &ash::Entry,
    callbacks: Option<&vk::AllocationCallbacks<'_>>,
) -> Result<ash::Instance, vk::Result> {
    let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_1);
    let info = vk::InstanceCreateInfo::default().application_info(&app);
    // SAFETY: a valid create info; the callbacks outlive the instance.
    unsafe { entry.create_instance(&info, callbacks) }
}

fn device_on(
    instance: &ash::Instance,
    callbacks: Option<&vk::AllocationCallbacks<'_>>,
) -> Result<ash::Device, vk::Result> {
    // SAFETY: a live instance.
    let pd = unsafe { instance.enumerate_physical_devices() }.unwrap()[0];
    let priorities = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&priorities)];
    let info = vk::DeviceCreateInfo::default().queue_create_infos(&queues);
    // SAFETY: a valid create info for this physical device.
    unsafe { instance.create_device(pd, &info, callbacks) }
}

const INSTANCE: vk::SystemAllocationScope = vk::SystemAllocationScope::INSTANCE;
const DEVICE: vk::SystemAllocationScope = vk::SystemAllocationScope::DEVICE;
const COMMAND: vk::SystemAllocationScope = vk::SystemAllocationScope::COMMAND;

/// `body` in a child whose only driver is the fixture HAL built with `defines`.
fn run(test: &str, defines: &[&str], body: impl FnOnce(&std::path::Path, &ash::Entry)) {
    let root = tempfile::tempdir().unwrap();
    let hal = fixture_hal(defines);
    let env = hal_env(&root, &hal, "");
    in_child(test, &env, || {
        with_loader_no_fd_leak(|entry| body(&hal, entry))
    });
}

#[test]
fn instance_and_device_data_come_from_the_apps_allocator_with_their_scopes() {
    run(
        "instance_and_device_data_come_from_the_apps_allocator_with_their_scopes",
        // A Vulkan 1.0 driver gets the promoted VK_KHR_get_physical_device_properties2: its
        // create info has an extension-name array.
        &["DRIVER_1_0"],
        |_, entry| {
            let counting = Counting::new(None);
            let callbacks = counting.callbacks();
            let instance = hal_instance(entry, Some(&callbacks)).expect("vkCreateInstance");
            let scopes = counting.scopes();
            assert!(scopes.contains(&INSTANCE), "{scopes:?}");
            // The driver's extension-name array is a COMMAND allocation, gone after the call.
            assert!(scopes.contains(&COMMAND), "{scopes:?}");
            let live = counting.live_scopes();
            assert!(
                !live.is_empty() && live.iter().all(|&s| s == INSTANCE),
                "{live:?}"
            );
            let instance_blocks = live.len();

            let device = device_on(&instance, Some(&callbacks)).expect("vkCreateDevice");
            let live = counting.live_scopes();
            assert_eq!(live.iter().filter(|&&s| s == DEVICE).count(), 1, "{live:?}");
            assert_eq!(live.len(), instance_blocks + 1, "{live:?}");
            // SAFETY: the idle device, destroyed with the callbacks it was created with.
            unsafe { device.destroy_device(Some(&callbacks)) };
            assert_eq!(counting.live_scopes().len(), instance_blocks);

            // SAFETY: the instance has no children left.
            unsafe { instance.destroy_instance(Some(&callbacks)) };
            let state = counting.state();
            assert!(state.live.is_empty(), "leaked: {:?}", state.live);
            assert!(state.misuse.is_empty(), "{:?}", state.misuse);
            assert_eq!(state.freed.len(), state.calls.len());
            for (size, align, _) in &state.calls {
                assert!(*size > 0 && align.is_power_of_two(), "{size} {align}");
            }
        },
    );
}

/// AOSP: without `pAllocator` the device data comes from the instance's allocator, and
/// destroying without one frees with the allocator the data was made with.
#[test]
fn a_device_without_callbacks_uses_the_instances_and_null_destroy_frees_with_it() {
    run(
        "a_device_without_callbacks_uses_the_instances_and_null_destroy_frees_with_it",
        &[],
        |_, entry| {
            let counting = Counting::new(None);
            let callbacks = counting.callbacks();
            let instance = hal_instance(entry, Some(&callbacks)).expect("vkCreateInstance");
            let device = device_on(&instance, None).expect("vkCreateDevice");
            assert_eq!(
                counting
                    .live_scopes()
                    .iter()
                    .filter(|&&s| s == DEVICE)
                    .count(),
                1
            );
            // SAFETY: the idle device; NULL at destroy (invalid usage the loader tolerates as
            // AOSP: it frees with the data's allocator).
            unsafe { device.destroy_device(None) };
            assert!(!counting.live_scopes().contains(&DEVICE));
            // SAFETY: no children left.
            unsafe { instance.destroy_instance(None) };
            let state = counting.state();
            assert!(state.live.is_empty(), "leaked: {:?}", state.live);
            assert!(state.misuse.is_empty(), "{:?}", state.misuse);
        },
    );
}

/// NULL everywhere: the default allocator, and the application's callbacks (given to another
/// instance) are never called.
#[test]
fn null_allocator_works_as_before() {
    run("null_allocator_works_as_before", &[], |hal, entry| {
        let counting = Counting::new(None);
        let instance = hal_instance(entry, None).expect("vkCreateInstance");
        let device = device_on(&instance, None).expect("vkCreateDevice");
        // SAFETY: idle device, then the childless instance.
        unsafe {
            device.destroy_device(None);
            instance.destroy_instance(None);
        }
        assert!(counting.state().calls.is_empty());
        assert_eq!(fixture_counter(hal, c"fixture_live_instances"), 0);
        assert_eq!(fixture_counter(hal, c"fixture_live_devices"), 0);
    });
}

/// Fault injection at every allocation index of `vkCreateInstance`, then of `vkCreateDevice`:
/// each failure is `VK_ERROR_OUT_OF_HOST_MEMORY`, with every block freed and no driver object
/// left; past the last index the command succeeds.
#[test]
fn every_failed_allocation_is_out_of_host_memory_without_leaks() {
    run(
        "every_failed_allocation_is_out_of_host_memory_without_leaks",
        &["DRIVER_1_0"],
        |hal, entry| {
            let mut instance_failures = 0;
            for index in 0.. {
                let counting = Counting::new(Some(index));
                let callbacks = counting.callbacks();
                match hal_instance(entry, Some(&callbacks)) {
                    Err(e) => {
                        assert_eq!(e, vk::Result::ERROR_OUT_OF_HOST_MEMORY, "index {index}");
                        instance_failures += 1;
                    }
                    Ok(instance) => {
                        assert!(
                            counting.state().calls.len() <= index,
                            "index {index} ignored"
                        );
                        // SAFETY: no children.
                        unsafe { instance.destroy_instance(Some(&callbacks)) };
                        break;
                    }
                }
                let state = counting.state();
                assert!(
                    state.live.is_empty(),
                    "index {index} leaked {:?}",
                    state.live
                );
                assert!(state.misuse.is_empty(), "{:?}", state.misuse);
                assert_eq!(fixture_counter(hal, c"fixture_live_instances"), 0);
            }
            assert!(
                instance_failures >= 3,
                "{instance_failures} instance allocations"
            );

            let instance = hal_instance(entry, None).expect("vkCreateInstance");
            let mut device_failures = 0;
            for index in 0.. {
                let counting = Counting::new(Some(index));
                let callbacks = counting.callbacks();
                match device_on(&instance, Some(&callbacks)) {
                    Err(e) => {
                        assert_eq!(e, vk::Result::ERROR_OUT_OF_HOST_MEMORY, "index {index}");
                        device_failures += 1;
                    }
                    Ok(device) => {
                        // SAFETY: the idle device.
                        unsafe { device.destroy_device(Some(&callbacks)) };
                        break;
                    }
                }
                assert!(counting.state().live.is_empty(), "index {index} leaked");
                assert_eq!(fixture_counter(hal, c"fixture_live_devices"), 0);
            }
            assert!(device_failures >= 1, "{device_failures} device allocations");
            // SAFETY: no children.
            unsafe { instance.destroy_instance(None) };
        },
    );
}

/// `body` in a child with two fixture ICDs (so the loader wraps their physical devices) and
/// the pass-through fixture layer `VK_LAYER_VKGEN_pass`, chained into instances and devices.
fn run_two_drivers_with_layer(test: &str, body: impl FnOnce(&[PathBuf], &ash::Entry)) {
    let root = tempfile::tempdir().unwrap();
    let layers = tempfile::tempdir().unwrap();
    let layer = fixture_layer("VK_LAYER_VKGEN_pass", &["PASS_THROUGH", "GLOBAL"]);
    std::os::unix::fs::symlink(&layer, layers.path().join("libVkLayer_vkgen_pass.so")).unwrap();
    let icds = [fixture_icd(&[]), fixture_icd(&["DRIVER_1_0"])];
    let manifests = [
        icd_manifest(root.path(), "a.json", &icds[0]),
        icd_manifest(root.path(), "b.json", &icds[1]),
    ];
    let env = isolated_env(&root, &manifests).set("VKGEN_APP_LAYER_PATH", layers.path());
    in_child(test, &env, || {
        with_loader_no_fd_leak(|entry| body(&icds, entry))
    });
}

fn layered_instance(
    entry: &ash::Entry,
    callbacks: Option<&vk::AllocationCallbacks<'_>>,
) -> Result<ash::Instance, vk::Result> {
    let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_1);
    let layers = [c"VK_LAYER_VKGEN_pass".as_ptr()];
    let info = vk::InstanceCreateInfo::default()
        .application_info(&app)
        .enabled_layer_names(&layers);
    // SAFETY: a valid create info; the callbacks outlive the instance.
    unsafe { entry.create_instance(&info, callbacks) }
}

/// What a wrapped physical device takes (word 0, the driver's handle, its table, its index).
const WRAPPER_SIZE: usize = 4 * size_of::<usize>();

/// AOSP keeps the instance's layer array in the app's allocator (scope INSTANCE), and so does
/// the loader with every record it keeps: the active-layer list (made first, before the chain
/// is called), the device's layer list (scope DEVICE), and the wrapped physical devices built at
/// the first enumeration (scope INSTANCE, once).
#[test]
fn layer_lists_and_wrapped_physical_devices_come_from_the_apps_allocator() {
    run_two_drivers_with_layer(
        "layer_lists_and_wrapped_physical_devices_come_from_the_apps_allocator",
        |icds, entry| {
            let counting = Counting::new(None);
            let callbacks = counting.callbacks();
            let instance = layered_instance(entry, Some(&callbacks)).expect("vkCreateInstance");
            let one_layer = (size_of::<usize>(), align_of::<usize>(), INSTANCE);
            assert_eq!(counting.state().calls.first(), Some(&one_layer));
            let live = counting.live_scopes();
            assert!(live.iter().all(|&s| s == INSTANCE), "{live:?}");

            let before = counting.state().calls.len();
            // SAFETY: a live instance.
            let devices = unsafe { instance.enumerate_physical_devices() }.unwrap();
            assert_eq!(devices.len(), 2);
            let wrappers = (2 * WRAPPER_SIZE, align_of::<usize>(), INSTANCE);
            assert_eq!(counting.state().calls[before..], [wrappers]);
            assert_eq!(counting.live_scopes().len(), live.len() + 1);
            // Built once: the handles stay the same and nothing more is allocated.
            // SAFETY: a live instance.
            let again = unsafe { instance.enumerate_physical_devices() }.unwrap();
            assert_eq!(again, devices);
            assert_eq!(counting.state().calls.len(), before + 1);

            let instance_blocks = counting.live_scopes().len();
            let before = counting.state().calls.len();
            let device = device_on(&instance, Some(&callbacks)).expect("vkCreateDevice");
            // The device's layer list (the global layer) is its first allocation.
            let device_layer = (size_of::<usize>(), align_of::<usize>(), DEVICE);
            assert_eq!(counting.state().calls.get(before), Some(&device_layer));
            let live = counting.live_scopes();
            assert_eq!(live.iter().filter(|&&s| s == DEVICE).count(), 2, "{live:?}");
            assert_eq!(live.len(), instance_blocks + 2);
            // SAFETY: the idle device, then the childless instance.
            unsafe {
                device.destroy_device(Some(&callbacks));
                instance.destroy_instance(Some(&callbacks));
            }
            let state = counting.state();
            assert!(state.live.is_empty(), "leaked: {:?}", state.live);
            assert!(state.misuse.is_empty(), "{:?}", state.misuse);
            for icd in icds {
                assert_eq!(fixture_counter(icd, c"fixture_live_instances"), 0);
            }
        },
    );
}

/// Fault injection with the layer and two drivers: every allocation of `vkCreateInstance` (the
/// layer list included) and of the first `vkEnumeratePhysicalDevices` (the wrappers) fails in
/// turn; each failure is `VK_ERROR_OUT_OF_HOST_MEMORY` with nothing leaked, and a failed
/// enumeration leaves the instance usable (the next call builds the wrappers).
#[test]
fn layer_list_and_wrapper_failures_are_out_of_host_memory_without_leaks() {
    run_two_drivers_with_layer(
        "layer_list_and_wrapper_failures_are_out_of_host_memory_without_leaks",
        |icds, entry| {
            let mut failures = 0;
            for index in 0.. {
                let counting = Counting::new(Some(index));
                let callbacks = counting.callbacks();
                match layered_instance(entry, Some(&callbacks)) {
                    Err(e) => {
                        assert_eq!(e, vk::Result::ERROR_OUT_OF_HOST_MEMORY, "index {index}");
                        failures += 1;
                    }
                    Ok(instance) => {
                        // SAFETY: no children.
                        unsafe { instance.destroy_instance(Some(&callbacks)) };
                        break;
                    }
                }
                let state = counting.state();
                assert!(
                    state.live.is_empty(),
                    "index {index} leaked {:?}",
                    state.live
                );
                assert!(state.misuse.is_empty(), "{:?}", state.misuse);
                for icd in icds {
                    assert_eq!(fixture_counter(icd, c"fixture_live_instances"), 0);
                }
            }
            assert!(failures >= 4, "{failures} instance allocations");

            let counting = Counting::new(None);
            let callbacks = counting.callbacks();
            let instance = layered_instance(entry, Some(&callbacks)).expect("vkCreateInstance");
            let next = counting.state().calls.len();
            counting.state().fail_at = Some(next);
            let mut count = 0u32;
            // SAFETY: a live instance and a writable count.
            let r = unsafe {
                (instance.fp_v1_0().enumerate_physical_devices)(
                    instance.handle(),
                    &mut count,
                    std::ptr::null_mut(),
                )
            };
            assert_eq!(r, vk::Result::ERROR_OUT_OF_HOST_MEMORY);
            // SAFETY: a live instance.
            let devices = unsafe { instance.enumerate_physical_devices() }.unwrap();
            assert_eq!(devices.len(), 2);
            // SAFETY: no children.
            unsafe { instance.destroy_instance(Some(&callbacks)) };
            let state = counting.state();
            assert!(state.live.is_empty(), "leaked: {:?}", state.live);
            assert!(state.misuse.is_empty(), "{:?}", state.misuse);
        },
    );
}

/// What the debug-report test callback saw: its user data (which callback) per message.
static REPORTED: Mutex<Vec<usize>> = Mutex::new(Vec::new());

unsafe extern "system" fn reported(
    _flags: vk::DebugReportFlagsEXT,
    _ty: vk::DebugReportObjectTypeEXT,
    _object: u64,
    _location: usize,
    _code: i32,
    _prefix: *const std::ffi::c_char,
    _message: *const std::ffi::c_char,
    user: *mut c_void,
) -> vk::Bool32 {
    REPORTED
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .push(user as usize);
    vk::FALSE
}

/// AOSP's `DebugReportCallbackList::AddCallback`: each callback's node is a block of the
/// allocator given to `vkCreateDebugReportCallbackEXT` (else the instance's), scope OBJECT,
/// freed by `vkDestroyDebugReportCallbackEXT`; a failed allocation is
/// `VK_ERROR_OUT_OF_HOST_MEMORY` with nothing created. Messages reach the newest callback first
/// (`AddCallback` prepends its node).
#[test]
#[allow(deprecated)] // VK_EXT_debug_report is the extension AOSP's callback list implements
fn debug_report_callbacks_are_objects_of_the_apps_allocator() {
    run(
        "debug_report_callbacks_are_objects_of_the_apps_allocator",
        &[],
        |_, entry| {
            const OBJECT: vk::SystemAllocationScope = vk::SystemAllocationScope::OBJECT;
            let counting = Counting::new(None);
            let callbacks = counting.callbacks();
            let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_1);
            let extensions = [ash::ext::debug_report::NAME.as_ptr()];
            let info = vk::InstanceCreateInfo::default()
                .application_info(&app)
                .enabled_extension_names(&extensions);
            // SAFETY: a valid create info; the callbacks outlive the instance.
            let instance =
                unsafe { entry.create_instance(&info, Some(&callbacks)) }.expect("instance");
            let instance_blocks = counting.live_scopes().len();
            let report = ash::ext::debug_report::Instance::new(entry, &instance);
            let own = Counting::new(None);
            let own_callbacks = own.callbacks();
            let info = |user: usize| {
                vk::DebugReportCallbackCreateInfoEXT::default()
                    .flags(vk::DebugReportFlagsEXT::WARNING)
                    .pfn_callback(Some(reported))
                    .user_data(user as *mut c_void)
            };
            // SAFETY: valid create infos of this instance; the callbacks outlive them.
            let (first, second) = unsafe {
                (
                    report
                        .create_debug_report_callback(&info(1), Some(&own_callbacks))
                        .unwrap(),
                    report.create_debug_report_callback(&info(2), None).unwrap(),
                )
            };
            assert_eq!(own.live_scopes(), [OBJECT]);
            let live = counting.live_scopes();
            assert_eq!(live.len(), instance_blocks + 1);
            assert_eq!(live.iter().filter(|&&s| s == OBJECT).count(), 1);

            // A failed node allocation: the error, and nothing created.
            let failing = Counting::new(Some(0));
            let failing_callbacks = failing.callbacks();
            // SAFETY: a valid create info of this live instance; `failing` outlives the call.
            let r =
                unsafe { report.create_debug_report_callback(&info(3), Some(&failing_callbacks)) };
            assert_eq!(r.err(), Some(vk::Result::ERROR_OUT_OF_HOST_MEMORY));
            assert!(failing.state().live.is_empty());

            // SAFETY: the instance's own message command with valid strings.
            unsafe {
                (report.fp().debug_report_message_ext)(
                    instance.handle(),
                    vk::DebugReportFlagsEXT::WARNING,
                    vk::DebugReportObjectTypeEXT::INSTANCE,
                    0,
                    0,
                    0,
                    c"test".as_ptr(),
                    c"message".as_ptr(),
                )
            };
            assert_eq!(*REPORTED.lock().unwrap(), [2, 1], "newest first");

            // SAFETY: the callbacks, destroyed with the allocators they were created with.
            unsafe {
                report.destroy_debug_report_callback(first, Some(&own_callbacks));
                report.destroy_debug_report_callback(second, None);
            }
            assert!(own.state().live.is_empty());
            assert_eq!(counting.live_scopes().len(), instance_blocks);
            // SAFETY: no children left.
            unsafe { instance.destroy_instance(Some(&callbacks)) };
            for c in [&counting, &own] {
                let state = c.state();
                assert!(state.live.is_empty(), "leaked: {:?}", state.live);
                assert!(state.misuse.is_empty(), "{:?}", state.misuse);
            }
        },
    );
}
