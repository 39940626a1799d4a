//! `VkEvent` (Mesa drivers each keep one; the kit's is the state both sides read): signalled or
//! not, set and reset by the host (`vkSetEvent`, `vkResetEvent`, read by `vkGetEventStatus`) and
//! by the device (`vkCmdSetEvent{,2}`, `vkCmdResetEvent{,2}`, waited on by
//! `vkCmdWaitEvents{,2}`).
//!
//! The device side is applied at replay: when the engine does not run a set, reset or wait
//! command, [`CommandBuffer::replay`](crate::kit::command::CommandBuffer::replay) applies it to
//! the event here, in recorded order, so the host sees the state a set left once the batch
//! ran, and a wait blocks until the event is set (by an earlier command, another queue or the
//! host, as the spec allows outside a render pass). An engine that runs them itself reads and
//! writes the same state through [`Event::set`], [`Event::reset`] and [`Event::wait`].
//!
//! An event created with `VK_EVENT_CREATE_DEVICE_ONLY_BIT` is the device's alone: host
//! commands on it are invalid usage, logged and refused (the state is left as it is).

use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use vkgen_abi::vk_error;
use vkgen_generated::entries::EntryTable;
use vkgen_generated::vk;

use super::desc::{store, VendorData};
use crate::handles::{destroy_object, Object, ObjectKind};
use crate::util::{guard, lock};

/// How long a replayed wait blocks on an event nobody sets before it gives up (logged): a
/// wait that can never end is invalid usage, and hanging the queue forever is worse.
pub const WAIT_LIMIT: Duration = Duration::from_secs(60);

/// A `VkEvent` of the kit.
pub struct Event {
    pub flags: vk::EventCreateFlags,
    signalled: Mutex<bool>,
    changed: Condvar,
    pub vendor: VendorData,
}

impl ObjectKind for Event {
    const OBJECT_TYPE: vk::ObjectType = vk::ObjectType::EVENT;
}

impl Event {
    /// A new, unsignalled event (events are created unsignalled).
    pub fn new(flags: vk::EventCreateFlags) -> Self {
        Self {
            flags,
            signalled: Mutex::new(false),
            changed: Condvar::new(),
            vendor: VendorData::default(),
        }
    }

    /// The event behind `h`.
    ///
    /// # Safety
    /// `h` is null or a live `VkEvent` of a driver with the component on.
    pub unsafe fn from_handle<'a>(h: vk::Event) -> Option<&'a Event> {
        // SAFETY: the caller promises a null or live handle; `from_handle` checks the type.
        unsafe { Object::<Event>::from_handle(h) }.map(|o| &**o)
    }

    /// Whether the host may not touch it (`VK_EVENT_CREATE_DEVICE_ONLY_BIT`).
    pub fn device_only(&self) -> bool {
        self.flags.contains(vk::EventCreateFlags::DEVICE_ONLY)
    }

    pub fn is_set(&self) -> bool {
        *lock(&self.signalled)
    }

    pub fn set(&self) {
        *lock(&self.signalled) = true;
        self.changed.notify_all();
    }

    pub fn reset(&self) {
        *lock(&self.signalled) = false;
    }

    /// Blocks until the event is set or `limit` passed; whether it is set.
    pub fn wait(&self, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        let mut set = lock(&self.signalled);
        while !*set {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            set = self
                .changed
                .wait_timeout(set, left)
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .0;
        }
        true
    }
}

/// [`vkCreateEvent`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkCreateEvent.html)
unsafe extern "system" fn create_event(
    _device: vk::Device,
    p_info: *const vk::EventCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_event: *mut vk::Event,
) -> vk::Result {
    guard(
        "vkCreateEvent",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: `pCreateInfo` is a valid structure (VUID-vkCreateEvent-pCreateInfo-parameter).
            let Some(i) = (unsafe { p_info.as_ref() }) else {
                return vk_error!(vk::Result::ERROR_OUT_OF_HOST_MEMORY, "null pCreateInfo");
            };
            // SAFETY: the application's allocator and output pointer (-pAllocator-, -pEvent-parameter).
            unsafe { store(Event::new(i.flags), p_allocator, p_event) }
        },
    )
}

/// `vkDestroyEvent`: null or mistyped handles are ignored.
unsafe extern "system" fn destroy_event(
    _device: vk::Device,
    event: vk::Event,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    guard("vkDestroyEvent", (), || {
        // SAFETY: null or an event no pending work uses (VUID-vkDestroyEvent-event-01145); a
        // wrong type is ignored.
        unsafe { destroy_object::<Event>(vk::Handle::as_raw(event)) };
    });
}

/// The host-visible event behind `event`, or the error `cmd` answers.
///
/// # Safety
/// `event` is null or a live event of this driver.
unsafe fn host_event<'a>(cmd: &str, event: vk::Event) -> Result<&'a Event, vk::Result> {
    // SAFETY: the caller's contract; the lookup checks the type.
    match unsafe { Event::from_handle(event) } {
        None => Err(vk_error!(
            vk::Result::ERROR_OUT_OF_HOST_MEMORY,
            "{cmd}: {event:?} is no event of this driver"
        )),
        Some(e) if e.device_only() => Err(vk_error!(
            vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
            "{cmd}: {event:?} was created with VK_EVENT_CREATE_DEVICE_ONLY_BIT (invalid usage)"
        )),
        Some(e) => Ok(e),
    }
}

/// [`vkGetEventStatus`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetEventStatus.html)
unsafe extern "system" fn get_event_status(_device: vk::Device, event: vk::Event) -> vk::Result {
    guard("vkGetEventStatus", vk::Result::ERROR_DEVICE_LOST, || {
        // SAFETY: a live event of this device (VUID-vkGetEventStatus-event-parameter).
        match unsafe { host_event("vkGetEventStatus", event) } {
            Ok(e) if e.is_set() => vk::Result::EVENT_SET,
            Ok(_) => vk::Result::EVENT_RESET,
            Err(r) => r,
        }
    })
}

/// [`vkSetEvent`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkSetEvent.html)
unsafe extern "system" fn set_event(_device: vk::Device, event: vk::Event) -> vk::Result {
    guard("vkSetEvent", vk::Result::ERROR_OUT_OF_HOST_MEMORY, || {
        // SAFETY: a live event of this device (VUID-vkSetEvent-event-parameter).
        match unsafe { host_event("vkSetEvent", event) } {
            Ok(e) => {
                e.set();
                vk::Result::SUCCESS
            }
            Err(r) => r,
        }
    })
}

/// [`vkResetEvent`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkResetEvent.html)
unsafe extern "system" fn reset_event(_device: vk::Device, event: vk::Event) -> vk::Result {
    guard("vkResetEvent", vk::Result::ERROR_OUT_OF_HOST_MEMORY, || {
        // SAFETY: a live event of this device (VUID-vkResetEvent-event-parameter).
        match unsafe { host_event("vkResetEvent", event) } {
            Ok(e) => {
                e.reset();
                vk::Result::SUCCESS
            }
            Err(r) => r,
        }
    })
}

pub(super) fn entries() -> EntryTable {
    EntryTable {
        create_event: Some(create_event),
        destroy_event: Some(destroy_event),
        get_event_status: Some(get_event_status),
        set_event: Some(set_event),
        reset_event: Some(reset_event),
        ..EntryTable::EMPTY
    }
}
