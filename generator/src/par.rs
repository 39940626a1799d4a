//! Work split over the cores and joined in order, for the generator's independent per-item
//! checks and texts (ash's layout comparisons, `select`'s per-extension closures, the emitters'
//! sections). Scoped threads, no pool: each fan-out is a few thousand items done once per run,
//! and a panic on a worker is re-raised on the caller as if it had run there.

/// `items` split into about one chunk per core (at most 8), in order.
pub fn chunks<T>(items: &[T]) -> std::slice::Chunks<'_, T> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
    items.chunks(items.len().div_ceil(threads).max(1))
}

/// `f` over each of [`chunks`]`(items)` on a thread of its own, the results concatenated in the
/// items' order.
pub fn map_chunks<T: Sync, U: Send>(items: &[T], f: impl Fn(&[T]) -> Vec<U> + Sync) -> Vec<U> {
    let f = &f;
    std::thread::scope(|s| {
        let handles: Vec<_> = chunks(items).map(|part| s.spawn(move || f(part))).collect();
        join(handles).into_iter().flatten().collect()
    })
}

/// Each handle's result, in order; a worker's panic resumes on this thread.
pub fn join<R>(handles: Vec<std::thread::ScopedJoinHandle<'_, R>>) -> Vec<R> {
    handles.into_iter().map(joined).collect()
}

/// One scoped thread's result; its panic resumes on this thread.
pub fn joined<R>(handle: std::thread::ScopedJoinHandle<'_, R>) -> R {
    handle
        .join()
        .unwrap_or_else(|e| std::panic::resume_unwind(e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_chunks_keeps_the_items_order() {
        for n in [0usize, 1, 7, 8, 9, 1000] {
            let items: Vec<usize> = (0..n).collect();
            let out = map_chunks(&items, |part| part.iter().map(|i| i * 2).collect());
            assert_eq!(out, items.iter().map(|i| i * 2).collect::<Vec<_>>());
        }
    }

    #[test]
    fn a_workers_panic_reaches_the_caller() {
        let r = std::panic::catch_unwind(|| {
            map_chunks(&[1, 2, 3], |_: &[i32]| -> Vec<i32> { panic!("worker") })
        });
        assert!(r.is_err());
    }
}
