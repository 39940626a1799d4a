//! Recorded commands the kit applies itself at replay when the engine does not run them: their
//! whole effect is on kit objects (with [`Kit::RESOURCE_OBJECTS`]), so an engine that executes
//! nothing still leaves the state the application observes —
//!
//! * `vkCmdSetEvent{,2}` / `vkCmdResetEvent{,2}` set and reset the [`Event`] the host reads
//!   (`vkGetEventStatus`), in recorded order; `vkCmdWaitEvents{,2}` blocks until each event is
//!   set (by an earlier command, another queue or the host), giving up after
//!   [`event::WAIT_LIMIT`] with a logged error;
//! * `vkCmdWriteTimestamp{,2}` writes the kit's clock ([`timestamp_now`](crate::kit::resources::timestamp_now): 64 valid bits, 1 ns
//!   per tick, as the default queue family and limits report) into the [`QueryPool`];
//! * `vkCmdResetQueryPool` makes the queries unavailable.
//!
//! With [`Kit::HOST_TRANSFERS`] the transfer commands join them ([`crate::kit::transfer`]).
//!
//! A command the engine runs (its method, or the `…2` method a 1.0 form routes to) is the
//! engine's: it reads and writes the same objects through their methods. Without
//! `RESOURCE_OBJECTS`, or when the vendor creates the objects itself (`vkCreateEvent`,
//! `vkCreateQueryPool` hooks), the handles are not the kit's and nothing is applied.

use vkgen_generated::commands::CommandId;
use vkgen_generated::recorder::{implemented, Cmd, Execute};

use crate::kit::api::Kit;
use crate::kit::resources::{event, Event, QueryPool};

/// Whether the kit applied `cmd` (the replay then skips the engine).
pub(crate) fn apply<D: Kit, E: Execute>(cmd: &Cmd) -> bool {
    if crate::kit::transfer::apply::<D, E>(cmd) {
        return true;
    }
    let runs = |id: CommandId| implemented(id, E::implements);
    let events = D::RESOURCE_OBJECTS && !D::implements(CommandId::CREATE_EVENT);
    let queries = D::RESOURCE_OBJECTS && !D::implements(CommandId::CREATE_QUERY_POOL);
    match *cmd {
        Cmd::SetEvent { event, .. } if events && !runs(CommandId::CMD_SET_EVENT) => {
            with_event(event, Event::set);
        }
        Cmd::SetEvent2 { event, .. } if events && !runs(CommandId::CMD_SET_EVENT2) => {
            with_event(event, Event::set);
        }
        Cmd::ResetEvent { event, .. } if events && !runs(CommandId::CMD_RESET_EVENT) => {
            with_event(event, Event::reset);
        }
        Cmd::ResetEvent2 { event, .. } if events && !runs(CommandId::CMD_RESET_EVENT2) => {
            with_event(event, Event::reset);
        }
        Cmd::WaitEvents {
            event_count,
            p_events,
            ..
        } if events && !runs(CommandId::CMD_WAIT_EVENTS) => {
            // SAFETY: the recorded copy of `pEvents`, `eventCount` long, in the recording.
            wait_all(unsafe { crate::util::slice(p_events, event_count) });
        }
        Cmd::WaitEvents2 {
            event_count,
            p_events,
            ..
        } if events && !runs(CommandId::CMD_WAIT_EVENTS2) => {
            // SAFETY: the recorded copy of `pEvents`, `eventCount` long, in the recording.
            wait_all(unsafe { crate::util::slice(p_events, event_count) });
        }
        Cmd::WriteTimestamp {
            query_pool, query, ..
        } if queries && !runs(CommandId::CMD_WRITE_TIMESTAMP) => {
            with_pool(query_pool, |p| p.write_timestamp(query));
        }
        Cmd::WriteTimestamp2 {
            query_pool, query, ..
        } if queries && !runs(CommandId::CMD_WRITE_TIMESTAMP2) => {
            with_pool(query_pool, |p| p.write_timestamp(query));
        }
        Cmd::ResetQueryPool {
            query_pool,
            first_query,
            query_count,
        } if queries && !runs(CommandId::CMD_RESET_QUERY_POOL) => {
            with_pool(query_pool, |p| p.reset(first_query, query_count));
        }
        _ => return false,
    }
    true
}

/// Whether the kit applies `cmd` (canonical id) at replay for driver `D` when the engine does
/// not run it (the requirements report's view of this module and of the host transfers).
pub fn kit_applies<D: Kit>(cmd: CommandId) -> bool {
    let events = D::RESOURCE_OBJECTS && !D::implements(CommandId::CREATE_EVENT);
    let queries = D::RESOURCE_OBJECTS && !D::implements(CommandId::CREATE_QUERY_POOL);
    match cmd {
        CommandId::CMD_SET_EVENT
        | CommandId::CMD_SET_EVENT2
        | CommandId::CMD_RESET_EVENT
        | CommandId::CMD_RESET_EVENT2
        | CommandId::CMD_WAIT_EVENTS
        | CommandId::CMD_WAIT_EVENTS2 => events,
        CommandId::CMD_WRITE_TIMESTAMP
        | CommandId::CMD_WRITE_TIMESTAMP2
        | CommandId::CMD_RESET_QUERY_POOL => queries,
        _ => crate::kit::transfer::provides::<D>(cmd),
    }
}

/// Runs `f` on the kit event behind a recorded handle.
fn with_event(h: vkgen_generated::vk::Event, f: impl FnOnce(&Event)) {
    // SAFETY: a recorded handle is the application's, live while the command buffer is
    // pending (the commands' valid usage); the lookup checks its type.
    if let Some(e) = unsafe { Event::from_handle(h) } {
        f(e);
    }
}

/// Runs `f` on the kit query pool behind a recorded handle.
fn with_pool(h: vkgen_generated::vk::QueryPool, f: impl FnOnce(&QueryPool)) {
    // SAFETY: as in `with_event`.
    if let Some(p) = unsafe { QueryPool::from_handle(h) } {
        f(p);
    }
}

/// Blocks until every event in `events` is set (module notes).
fn wait_all(events: &[vkgen_generated::vk::Event]) {
    for &h in events {
        // SAFETY: as in `with_event`.
        if let Some(e) = unsafe { Event::from_handle(h) } {
            if !e.wait(event::WAIT_LIMIT) {
                log::error!(
                    "vkCmdWaitEvents: {h:?} was not set within {:?}; the replay goes on",
                    event::WAIT_LIMIT
                );
            }
        }
    }
}
