//! One command map per driver type, built on first use and kept for the process.

use vkgen_generated::entries::EntryTable;

/// The table `build` makes for driver `D`, built on first use and kept for the process
/// (a driver's command map never changes). Keyed by type because a generic driver
/// (`HostDriver<SLOT>`) has one map per instantiation, which a `static` in a generic function
/// could not tell apart.
pub fn cached_entries<D: 'static>(build: fn() -> EntryTable) -> &'static EntryTable {
    use std::any::TypeId;
    use std::sync::RwLock;
    static TABLES: RwLock<Vec<(TypeId, &'static EntryTable)>> = RwLock::new(Vec::new());
    let key = TypeId::of::<D>();
    let find =
        |v: &[(TypeId, &'static EntryTable)]| v.iter().find(|(k, _)| *k == key).map(|(_, t)| *t);
    if let Some(t) = find(&TABLES.read().unwrap_or_else(|e| e.into_inner())) {
        return t;
    }
    // Built outside the lock: a build may itself ask for another driver's table (the null
    // driver's bring-up table). Two threads racing here build twice and keep the first.
    let built = build();
    let mut tables = TABLES.write().unwrap_or_else(|e| e.into_inner());
    if let Some(t) = find(&tables) {
        return t;
    }
    // Leaked on purpose: one small table per driver type, alive as long as its code.
    let t: &'static EntryTable = Box::leak(Box::new(built));
    tables.push((key, t));
    t
}
