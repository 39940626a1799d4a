// The slot machinery of `features.rs` (hand-written: vkgen's
// `generator/src/emit/runtime/feature_slots.rs`), copied verbatim into the generated file after
// its header, where it is compiled and linted with the tables the generator writes below it.
/// The largest number of pNext structures followed (the workspace's one bound, `chain.rs`).
pub use crate::chain::MAX_CHAIN;
use crate::chain::{chain, for_each_out};

/// How one member of a Vulkan structure relates to a field of the flat table `F`.
#[derive(Clone, Copy)]
#[allow(dead_code)] // `List` only where the registry has output arrays
enum Slot<F: 'static> {
    /// A `VkBool32` at byte `dst` of the structure and the `bool` at byte `src` of the table.
    Bool { dst: usize, src: usize },
    /// `len` bytes at `dst` and at `src` (numbers, enums, flags, arrays, plain structures).
    Bytes { dst: usize, src: usize, len: usize },
    /// An output array: the pointer member at `array`, its `uint32_t` count at `count`, and the
    /// table's `Vec` (data, length, element size) from `get`; `header`: elements start with
    /// `sType`/`pNext`.
    List {
        array: usize,
        count: usize,
        header: bool,
        get: fn(&F) -> (*const u8, usize, usize),
    },
}

/// The size of what a field accessor returns (to size `Slot::Bytes` at compile time).
const fn size_of_ret<A, B>(_: fn(&A) -> &B) -> usize {
    core::mem::size_of::<B>()
}

/// Both sides of a copy have the same size (checked when the tables are built).
const fn same_size(a: usize, b: usize) -> usize {
    assert!(a == b, "a flat field and its member differ in size");
    a
}

#[allow(dead_code)]
fn raw_vec<T>(v: &[T]) -> (*const u8, usize, usize) {
    (v.as_ptr().cast(), v.len(), core::mem::size_of::<T>())
}

/// `slot!(kind Struct, Table, member [= field])`: one `Slot` from field names.
macro_rules! slot {
    (bool $t:ty, $f:ty, $d:ident) => {
        slot!(bool $t, $f, $d = $d)
    };
    (bool $t:ty, $f:ty, $d:ident = $s:ident) => {
        Slot::Bool {
            dst: core::mem::offset_of!($t, $d),
            src: core::mem::offset_of!($f, $s),
        }
    };
    (copy $t:ty, $f:ty, $d:ident) => {
        slot!(copy $t, $f, $d = $d)
    };
    (copy $t:ty, $f:ty, $d:ident = $s:ident) => {
        Slot::Bytes {
            dst: core::mem::offset_of!($t, $d),
            src: core::mem::offset_of!($f, $s),
            len: same_size(size_of_ret(|o: &$t| &o.$d), size_of_ret(|p: &$f| &p.$s)),
        }
    };
    (list $t:ty, $f:ty, $d:ident [$c:ident] = $s:ident, $h:literal) => {
        Slot::List {
            array: core::mem::offset_of!($t, $d),
            count: core::mem::offset_of!($t, $c),
            header: $h,
            get: |p: &$f| raw_vec(&p.$s),
        }
    };
}

/// `slots!(Struct, Table; kind member [= field]; …)`.
macro_rules! slots {
    ($t:ty, $f:ty; $($k:ident $d:ident $([$c:ident])? $(= $s:ident)? $(, $h:literal)?;)*) => {
        &[$(slot!($k $t, $f, $d $([$c])? $(= $s)? $(, $h)?)),*]
    };
}

/// The slots of the structure with this sType (`table` is sorted by sType).
fn find<F>(table: &'static [(i32, &'static [Slot<F>])], s_type: i32) -> Option<&'static [Slot<F>]> {
    table
        .binary_search_by_key(&s_type, |e| e.0)
        .ok()
        .map(|i| table[i].1)
}

/// Writes the members `slots` name into the structure at `dst` from `flat`.
///
/// # Safety
/// `dst` is a writable structure of the type `slots` was built for, and its output arrays are
/// NULL or have room for the count beside them.
unsafe fn write_slots<F>(flat: &F, dst: *mut u8, slots: &[Slot<F>]) {
    let src = (flat as *const F).cast::<u8>();
    for slot in slots {
        // SAFETY: the offsets come from `offset_of!` on the structure and on `F`, the sizes from
        // both field types, so every access stays within its object and has its field's type.
        unsafe {
            match *slot {
                Slot::Bool { dst: d, src: s } => dst
                    .add(d)
                    .cast::<u32>()
                    .write(u32::from(src.add(s).cast::<bool>().read())),
                Slot::Bytes {
                    dst: d,
                    src: s,
                    len,
                } => core::ptr::copy_nonoverlapping(src.add(s), dst.add(d), len),
                Slot::List {
                    array,
                    count,
                    header,
                    get,
                } => {
                    let (data, len, size) = get(flat);
                    let out = dst.add(array).cast::<*mut u8>().read();
                    write_list(data, len, size, out, dst.add(count).cast::<u32>(), header);
                }
            }
        }
    }
}

/// The two-call idiom: a NULL `out` gets the count; otherwise the first `min(*count, len)`
/// elements are written and `*count` says how many. Elements with a header keep the
/// application's `sType` and `pNext` (the first 16 bytes).
///
/// # Safety
/// `count` is writable; `out` is NULL or has room for `*count` elements of `size` bytes; `data`
/// holds `len` of them.
unsafe fn write_list(
    data: *const u8,
    len: usize,
    size: usize,
    out: *mut u8,
    count: *mut u32,
    header: bool,
) {
    // SAFETY: within the bounds the caller's contract gives.
    unsafe {
        if out.is_null() {
            count.write(u32::try_from(len).unwrap_or(u32::MAX));
            return;
        }
        let n = (count.read() as usize).min(len);
        let skip = if header { 16.min(size) } else { 0 };
        for i in 0..n {
            core::ptr::copy_nonoverlapping(
                data.add(i * size + skip),
                out.add(i * size + skip),
                size - skip,
            );
        }
        count.write(n as u32);
    }
}

/// Turns on the table's `bool`s whose `VkBool32` is set in the structure at `src`.
///
/// # Safety
/// `src` is a readable structure of the type `slots` was built for.
unsafe fn read_bools<F>(flat: &mut F, src: *const u8, slots: &[Slot<F>]) {
    let table = (flat as *mut F).cast::<u8>();
    for slot in slots {
        if let Slot::Bool { dst: d, src: s } = *slot {
            // SAFETY: offsets from `offset_of!`, types as in `write_slots`.
            unsafe {
                let on = src.add(d).cast::<u32>().read() != 0;
                let b = table.add(s).cast::<bool>();
                b.write(b.read() | on);
            }
        }
    }
}
