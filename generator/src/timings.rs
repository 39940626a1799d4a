//! Where `vkgen generate`'s time goes (`--timings`, the generator benchmark): the phases of one
//! run, and the parse's own stages, noted where they happen (`registry::parse`) on the thread
//! that runs `generate`, which drains them.

use std::cell::RefCell;
use std::time::{Duration, Instant};

/// Wall time of each phase of one `generate`, in the order they ran. The emitters run in
/// parallel, so their rows overlap: the run's wall time is the `emitters` row, not their sum.
#[derive(Debug, Clone, Default)]
pub struct Timings {
    pub phases: Vec<(String, Duration)>,
}

thread_local! {
    /// The parse's stages (`read`, the markup scan, the pieces, the fold, the overlay and the
    /// cross-checks) noted on this thread since [`take_stages`].
    static STAGES: RefCell<Vec<(&'static str, Duration)>> = const { RefCell::new(Vec::new()) };
}

/// Notes the wall time since `start` of a stage of the parse.
pub(crate) fn stage(what: &'static str, start: Instant) {
    let took = start.elapsed();
    STAGES.with(|s| s.borrow_mut().push((what, took)));
}

/// The stages noted on this thread since the last call, in order.
pub(crate) fn take_stages() -> Vec<(&'static str, Duration)> {
    STAGES.with(|s| std::mem::take(&mut *s.borrow_mut()))
}

impl Timings {
    pub(crate) fn record<T>(&mut self, phase: &str, f: impl FnOnce() -> T) -> T {
        let start = Instant::now();
        let out = f();
        self.phases.push((phase.to_owned(), start.elapsed()));
        out
    }

    /// The rows as a table (`phase  ms`), emitters marked as running in parallel.
    pub fn table(&self) -> String {
        let width = self.phases.iter().map(|(p, _)| p.len()).max().unwrap_or(0);
        self.phases
            .iter()
            .map(|(p, d)| format!("{p:<width$}  {:8.2} ms\n", d.as_secs_f64() * 1000.0))
            .collect()
    }
}
