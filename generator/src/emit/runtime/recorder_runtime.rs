//! The command recorder's storage (Mesa's `vk_cmd_queue` arena, in Rust): a [`Recording`] owns
//! the recorded commands and an [`Arena`] of stable chunks that holds the deep copies of their
//! arguments, so a recorded pointer stays valid until the recording is reset or dropped, whatever
//! the application does with its own memory after the `vkCmd*` call returns.
//!
//! Hand-written (vkgen's `generator/src/emit/runtime/recorder_runtime.rs`) and copied verbatim
//! into each generated crate as `recorder`'s child module; `recorder.rs` holds what the
//! generator writes per command and per structure (the records, the copies, the entry points,
//! the [`Execute`](super::Execute) and [`Target`](super::Target) traits and the replay), and
//! hands this file what it needs of them (the record type, the structure table) as parameters,
//! so that the arrows run from there to here.

use core::ffi::{c_char, c_void};
use core::ptr::{self, NonNull};
use std::sync::OnceLock;

use crate::vk;

/// Where the recorder reports what it cannot copy (an unknown `sType` in a `pNext` chain, which
/// it drops); the driver runtime installs its logger here, as it does for the panic report.
pub static WARN: OnceLock<fn(core::fmt::Arguments<'_>)> = OnceLock::new();

pub(crate) fn warn(args: core::fmt::Arguments<'_>) {
    if let Some(w) = WARN.get() {
        w(args);
    }
}

impl Arena {
    /// The most `pNext` elements one chain copy walks. Real chains hold a handful (one per
    /// extension structure a command accepts); a longer one is a cycle or garbage, and copying
    /// it whole would fill memory (issue 36). Elements past the bound are dropped with a warning.
    /// The workspace's one chain bound ([`crate::chain::MAX_CHAIN`]).
    pub const MAX_CHAIN_ELEMENTS: usize = crate::chain::MAX_CHAIN;

    /// How many dropped-structure warnings a process logs: an application that chains an
    /// unknown structure into every command would otherwise log one line per recorded command.
    pub const MAX_DROP_REPORTS: usize = 16;
}

const MAX_CHAIN_ELEMENTS: usize = Arena::MAX_CHAIN_ELEMENTS;
const MAX_DROP_REPORTS: usize = Arena::MAX_DROP_REPORTS;

static DROP_REPORTS: core::sync::atomic::AtomicUsize = core::sync::atomic::AtomicUsize::new(0);

/// Reports one structure a chain copy dropped, the first [`Arena::MAX_DROP_REPORTS`] times only; the
/// last report says that further ones are not logged.
fn report_drop(args: core::fmt::Arguments<'_>) {
    let n = DROP_REPORTS.fetch_add(1, core::sync::atomic::Ordering::Relaxed);
    match n + 1 {
        m if m < MAX_DROP_REPORTS => warn(args),
        MAX_DROP_REPORTS => warn(format_args!(
            "{args} (further dropped pNext structures are not reported)"
        )),
        _ => {}
    }
}

/// Fixes up the pointers of one structure already copied into the arena (its nested arrays,
/// strings and `pNext` chain are copied and re-pointed), given the copy's address.
pub(crate) type Fix = unsafe fn(&mut Arena, *mut u8);

/// The size and [`Fix`] of the structure an `sType` names, among those a chain copy knows
/// (`recorder.rs`'s generated table, handed to [`Arena::chain`] by each fix-up).
pub(crate) type Known = fn(i32) -> Option<(usize, Fix)>;

/// 4 KiB: most command buffers of a frame fit in one chunk.
const CHUNK_WORDS: usize = 512;

/// A bump allocator over chunks that never move: a pointer it returned stays valid until
/// [`reset`](Arena::reset), [`release`](Arena::release) or drop. Chunks are 8-byte aligned, the
/// largest alignment of any Vulkan structure.
#[derive(Default)]
pub struct Arena {
    /// Every chunk, as `Box<[u64]>::into_raw` gave it; freed in `release`.
    chunks: Vec<(NonNull<u64>, usize)>,
    /// The chunk being filled; later ones are kept from before a reset, for reuse.
    current: usize,
    /// Words used in `chunks[current]`.
    used: usize,
    /// An allocation failed since the last reset: the recording is incomplete.
    failed: bool,
}

impl Drop for Arena {
    fn drop(&mut self) {
        self.release();
    }
}

impl Arena {
    /// `bytes` (rounded up to 8) of fresh storage, or `None` when the host is out of memory.
    fn alloc(&mut self, bytes: usize) -> Option<NonNull<u8>> {
        let words = bytes.div_ceil(8).max(1);
        if let Some(&(chunk, len)) = self.chunks.get(self.current) {
            if len - self.used >= words {
                // SAFETY: `used + words <= len`: the result lies inside the chunk.
                let p = unsafe { chunk.as_ptr().add(self.used) };
                self.used += words;
                return NonNull::new(p.cast());
            }
        }
        // The next kept chunk if it is big enough, else a new one in front of it.
        let next = if self.chunks.is_empty() { 0 } else { self.current + 1 };
        if self.chunks.get(next).is_none_or(|&(_, len)| len < words) {
            let len = words.max(CHUNK_WORDS);
            let mut v: Vec<u64> = Vec::new();
            if v.try_reserve_exact(len).is_err() {
                self.failed = true;
                return None;
            }
            v.resize(len, 0);
            let raw = Box::into_raw(v.into_boxed_slice());
            // SAFETY: `Box::into_raw` never returns null.
            let chunk = unsafe { NonNull::new_unchecked(raw.cast::<u64>()) };
            self.chunks.insert(next, (chunk, len));
        }
        self.current = next;
        self.used = words;
        Some(self.chunks[next].0.cast())
    }

    /// Forgets every allocation but keeps the chunks for the next recording.
    pub fn reset(&mut self) {
        self.current = 0;
        self.used = 0;
        self.failed = false;
    }

    /// Frees every chunk.
    pub fn release(&mut self) {
        for (chunk, len) in self.chunks.drain(..) {
            // SAFETY: made by `Box::into_raw` of a `[u64]` of exactly `len` words in `alloc`,
            // freed once: `drain` removes it from the list.
            drop(unsafe { Box::from_raw(ptr::slice_from_raw_parts_mut(chunk.as_ptr(), len)) });
        }
        self.reset();
    }

    /// Frees the chunks the current recording does not use (`vkTrimCommandPool`).
    pub fn trim(&mut self) {
        let keep = if self.used == 0 && self.current == 0 {
            0
        } else {
            self.current + 1
        };
        for (chunk, len) in self.chunks.drain(keep..) {
            // SAFETY: made by `Box::into_raw` in `alloc` and not in use (past `current`).
            drop(unsafe { Box::from_raw(ptr::slice_from_raw_parts_mut(chunk.as_ptr(), len)) });
        }
    }

    /// Bytes of storage held (in use or kept).
    pub fn capacity(&self) -> usize {
        self.chunks.iter().map(|&(_, len)| len * 8).sum()
    }

    pub fn failed(&self) -> bool {
        self.failed
    }

    /// A copy of `bytes` bytes at `src`; null for a null `src` or no bytes.
    ///
    /// # Safety
    /// A non-null `src` is readable for `bytes` bytes.
    pub unsafe fn bytes<T>(&mut self, src: *const T, bytes: usize) -> *mut T {
        if src.is_null() || bytes == 0 {
            return ptr::null_mut();
        }
        let Some(dst) = self.alloc(bytes) else {
            return ptr::null_mut();
        };
        // SAFETY: `src` is readable for `bytes` (caller); `dst` is fresh storage of at least
        // `bytes`, so the two cannot overlap.
        unsafe { ptr::copy_nonoverlapping(src.cast::<u8>(), dst.as_ptr(), bytes) };
        dst.as_ptr().cast()
    }

    /// A copy of the `n` elements at `src`, each then fixed up by `fix` when given.
    ///
    /// # Safety
    /// A non-null `src` points at `n` valid elements; `fix` is the fix-up of `T`.
    pub(crate) unsafe fn slice<T>(&mut self, src: *const T, n: usize, fix: Option<Fix>) -> *mut T {
        debug_assert!(core::mem::align_of::<T>() <= 8);
        let size = core::mem::size_of::<T>();
        // SAFETY: `n` elements of `T` are `n * size` readable bytes (caller).
        let dst = unsafe { self.bytes(src, n.saturating_mul(size)) };
        if let (Some(fix), false) = (fix, dst.is_null()) {
            for i in 0..n {
                // SAFETY: element `i` of the copy just made.
                unsafe { fix(self, dst.add(i).cast()) };
            }
        }
        dst
    }

    /// A copy of `n` elements `stride` bytes apart (`vkCmdDrawMulti*EXT`), the stride kept.
    ///
    /// # Safety
    /// A non-null `src` points at `n` elements laid out `stride` bytes apart.
    pub unsafe fn strided<T>(&mut self, src: *const T, n: usize, stride: usize) -> *mut T {
        let bytes = match n {
            0 => 0,
            n => (n - 1).saturating_mul(stride) + core::mem::size_of::<T>(),
        };
        // SAFETY: the last element ends `bytes` after `src` (caller).
        unsafe { self.bytes(src, bytes) }
    }

    /// A copy of the NUL-terminated string at `src`, terminator included.
    ///
    /// # Safety
    /// A non-null `src` is a NUL-terminated string.
    pub unsafe fn cstr(&mut self, src: *const c_char) -> *mut c_char {
        if src.is_null() {
            return ptr::null_mut();
        }
        // SAFETY: NUL-terminated (caller).
        let len = unsafe { core::ffi::CStr::from_ptr(src) }.to_bytes_with_nul().len();
        // SAFETY: `len` bytes up to and including the terminator are readable.
        unsafe { self.bytes(src, len) }
    }

    /// A copy of the array of `n` pointers at `src`, each pointer replaced by `inner`'s copy of
    /// what it points at (`inner` gets the index and the application's pointer).
    ///
    /// # Safety
    /// A non-null `src` points at `n` pointers that `inner` may read through.
    pub unsafe fn pointers<T>(
        &mut self,
        src: *const *const T,
        n: usize,
        mut inner: impl FnMut(&mut Self, usize, *const T) -> *const T,
    ) -> *mut *const T {
        // SAFETY: `n` readable pointers (caller).
        let dst = unsafe { self.slice(src, n, None) };
        if !dst.is_null() {
            for i in 0..n {
                // SAFETY: element `i` of the copy just made, holding the application's pointer.
                unsafe { *dst.add(i) = inner(self, i, *dst.add(i)) };
            }
        }
        dst
    }

    /// A deep copy of the `pNext` chain at `src`: every structure the table `known` knows is
    /// copied by its size and fixed up; an unknown `sType` is dropped from the copy, with a
    /// (rate-limited) warning, since its size (and so a copy) is unknowable. At most
    /// [`Arena::MAX_CHAIN_ELEMENTS`] elements are walked, so a cyclic chain ends too.
    ///
    /// # Safety
    /// A non-null `src` is a valid `pNext` chain: each element starts with `sType` and `pNext`.
    pub(crate) unsafe fn chain(&mut self, src: *const c_void, known: Known) -> *mut c_void {
        let mut head: *mut c_void = ptr::null_mut();
        let mut tail: *mut vk::BaseOutStructure<'static> = ptr::null_mut();
        let mut cur = src.cast::<vk::BaseInStructure<'static>>();
        for _ in 0..MAX_CHAIN_ELEMENTS {
            if cur.is_null() {
                return head;
            }
            // SAFETY: every chain element starts with the base-structure header (caller).
            let (s_type, next) = unsafe { ((*cur).s_type, (*cur).p_next) };
            match known(s_type.as_raw()) {
                Some((size, fix)) => {
                    // SAFETY: an element of type `s_type` is `size` bytes long.
                    let copy = unsafe { self.bytes(cur, size) }.cast::<vk::BaseOutStructure>();
                    if copy.is_null() {
                        return head;
                    }
                    // SAFETY: `copy` is that element's fresh copy, unlinked first so that its
                    // fix-up copies only its own pointers (this walk links the rest); `tail`
                    // is the previous copy or null.
                    unsafe {
                        (*copy).p_next = ptr::null_mut();
                        fix(self, copy.cast());
                        match tail.is_null() {
                            true => head = copy.cast(),
                            false => (*tail).p_next = copy,
                        }
                    }
                    tail = copy;
                }
                None => report_drop(format_args!(
                    "recorder: dropped an unknown structure (sType {}) from a pNext chain",
                    s_type.as_raw()
                )),
            }
            cur = next;
        }
        if !cur.is_null() {
            report_drop(format_args!(
                "recorder: a pNext chain longer than {MAX_CHAIN_ELEMENTS} structures (a cycle?) was cut there"
            ));
        }
        head
    }
}

/// One command buffer's recording: the commands in order and the arena their arguments live in.
/// `C` is the generated record type (`recorder.rs`'s `Cmd`, whose `Recording` this is): named
/// as a parameter so that this file does not reach back into its parent.
pub struct Recording<C> {
    pub(crate) arena: Arena,
    pub(crate) commands: Vec<C>,
}

impl<C> Default for Recording<C> {
    fn default() -> Self {
        Self {
            arena: Arena::default(),
            commands: Vec::new(),
        }
    }
}

/// A record type whose pointers all point into the arena of the recording that holds it, or
/// are the application's opaque values, never dereferenced here.
///
/// # Safety
/// Implemented only by records that the recorder's entry points make: their copies live in the
/// recording's own arena.
pub unsafe trait Recorded {}

// SAFETY: every pointer inside the recorded commands points into this recording's own arena
// (or is the application's opaque value, which is never dereferenced here: `Recorded`'s
// contract); moving the recording to another thread moves the arena with it.
unsafe impl<C: Recorded> Send for Recording<C> {}
// SAFETY: a shared recording is only read (replayed); writes take `&mut`.
unsafe impl<C: Recorded> Sync for Recording<C> {}

impl<C> Recording<C> {
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of recorded commands.
    pub fn len(&self) -> usize {
        self.commands.len()
    }

    pub fn is_empty(&self) -> bool {
        self.commands.is_empty()
    }

    /// `VK_SUCCESS`, or `VK_ERROR_OUT_OF_HOST_MEMORY` when a command could not be recorded
    /// (what `vkEndCommandBuffer` returns, as the spec asks).
    pub fn result(&self) -> vk::Result {
        if self.arena.failed {
            vk::Result::ERROR_OUT_OF_HOST_MEMORY
        } else {
            vk::Result::SUCCESS
        }
    }

    /// Back to empty, keeping the memory for the next recording.
    pub fn reset(&mut self) {
        self.commands.clear();
        self.arena.reset();
    }

    /// Back to empty, freeing the memory (`VK_COMMAND_BUFFER_RESET_RELEASE_RESOURCES_BIT`).
    pub fn release(&mut self) {
        self.commands = Vec::new();
        self.arena.release();
    }

    /// Frees the memory the recording does not use (`vkTrimCommandPool`).
    pub fn trim(&mut self) {
        self.commands.shrink_to_fit();
        self.arena.trim();
    }

    /// Bytes of argument storage held.
    pub fn capacity(&self) -> usize {
        self.arena.capacity()
    }

    /// Appends `cmd`; a command whose copies could not be made is not recorded (the recording
    /// then reports `VK_ERROR_OUT_OF_HOST_MEMORY`).
    pub(crate) fn push(&mut self, cmd: C) {
        if self.arena.failed || self.commands.try_reserve(1).is_err() {
            self.arena.failed = true;
            return;
        }
        self.commands.push(cmd);
    }
}

/// The hand-written parts of the 1.0 → `…2` routes (vkgen's `recorder_routes.rs` generates the
/// mechanical ones): what a 1.0 argument becomes where no `…2` member has its name and meaning.
// A registry without a pair (1.1 has no synchronization2) leaves its helper unused.
#[allow(dead_code)]
pub(crate) mod routes {
    use super::vk;

    /// `n` elements at `p` (a recorded array; null or dangling when `n` is 0) mapped to their `…2`
    /// form.
    ///
    /// # Safety
    /// `p` points at `n` initialised elements when `n` is not 0.
    pub(crate) unsafe fn each<S, T>(p: *const S, n: usize, f: impl FnMut(&S) -> T) -> Vec<T> {
        if p.is_null() || n == 0 {
            return Vec::new();
        }
        // SAFETY: the caller passes a recorded array of `n` elements, non-null (checked above).
        unsafe { core::slice::from_raw_parts(p, n) }
            .iter()
            .map(f)
            .collect()
    }

    /// A 1.0 stage mask as its synchronization2 value (the low 32 bits are the same stages).
    pub fn stages2(s: vk::PipelineStageFlags) -> vk::PipelineStageFlags2 {
        vk::PipelineStageFlags2::from_raw(u64::from(s.as_raw()))
    }

    fn access2(a: vk::AccessFlags) -> vk::AccessFlags2 {
        vk::AccessFlags2::from_raw(u64::from(a.as_raw()))
    }

    /// The shader stages a maintenance6 `…2` info names where its 1.0 form names a bind point
    /// (Mesa's `vk_shader_stages_from_bind_point`).
    pub(crate) fn bind_point_stages(point: vk::PipelineBindPoint) -> vk::ShaderStageFlags {
        type S = vk::ShaderStageFlags;
        match point {
            vk::PipelineBindPoint::GRAPHICS => S::ALL_GRAPHICS | S::TASK_EXT | S::MESH_EXT,
            vk::PipelineBindPoint::COMPUTE => S::COMPUTE,
            vk::PipelineBindPoint::RAY_TRACING_KHR => {
                S::RAYGEN_KHR
                    | S::ANY_HIT_KHR
                    | S::CLOSEST_HIT_KHR
                    | S::MISS_KHR
                    | S::INTERSECTION_KHR
                    | S::CALLABLE_KHR
            }
            vk::PipelineBindPoint::SUBPASS_SHADING_HUAWEI => S::SUBPASS_SHADING_HUAWEI,
            // A bind point newer than this table: every stage, so nothing bound is missed.
            _ => S::ALL,
        }
    }

    /// `vkCmdSetEvent`'s stage mask as `vkCmdSetEvent2`'s dependency: an execution dependency on
    /// the stage (Mesa's `vk_common_CmdSetEvent`), passed to `f`.
    pub fn event_dependency<R>(
        stage_mask: vk::PipelineStageFlags,
        f: impl FnOnce(&vk::DependencyInfo<'_>) -> R,
    ) -> R {
        let barrier = [vk::MemoryBarrier2 {
            src_stage_mask: stages2(stage_mask),
            dst_stage_mask: stages2(stage_mask),
            ..Default::default()
        }];
        f(&vk::DependencyInfo::default().memory_barriers(&barrier))
    }

    /// A 1.0 barrier command's stages and barriers (`vkCmdWaitEvents`, `vkCmdPipelineBarrier`)
    /// as one synchronization2 dependency (each barrier with both stage masks; with no barrier,
    /// one memory barrier without accesses, since an empty `VkDependencyInfo` would drop the
    /// execution dependency the 1.0 stage masks make), passed to `f`.
    ///
    /// # Safety
    /// Each pointer points at its count of barriers (or the count is 0).
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn wait_dependency<R>(
        src: vk::PipelineStageFlags,
        dst: vk::PipelineStageFlags,
        memory_count: u32,
        memory: *const vk::MemoryBarrier<'_>,
        buffer_count: u32,
        buffers: *const vk::BufferMemoryBarrier<'_>,
        image_count: u32,
        images: *const vk::ImageMemoryBarrier<'_>,
        f: impl FnOnce(&vk::DependencyInfo<'_>) -> R,
    ) -> R {
        let (src, dst) = (stages2(src), stages2(dst));
        // SAFETY: the caller's `memory_count` barriers at `memory`.
        let mut memory = unsafe {
            each(memory, memory_count as usize, |b| vk::MemoryBarrier2 {
                p_next: b.p_next,
                src_stage_mask: src,
                src_access_mask: access2(b.src_access_mask),
                dst_stage_mask: dst,
                dst_access_mask: access2(b.dst_access_mask),
                ..Default::default()
            })
        };
        if memory.is_empty() && buffer_count == 0 && image_count == 0 {
            memory.push(vk::MemoryBarrier2 {
                src_stage_mask: src,
                dst_stage_mask: dst,
                ..Default::default()
            });
        }
        // SAFETY: the caller's `buffer_count` barriers at `buffers`.
        let buffers = unsafe {
            each(buffers, buffer_count as usize, |b| vk::BufferMemoryBarrier2 {
                p_next: b.p_next,
                src_stage_mask: src,
                src_access_mask: access2(b.src_access_mask),
                dst_stage_mask: dst,
                dst_access_mask: access2(b.dst_access_mask),
                src_queue_family_index: b.src_queue_family_index,
                dst_queue_family_index: b.dst_queue_family_index,
                buffer: b.buffer,
                offset: b.offset,
                size: b.size,
                ..Default::default()
            })
        };
        // SAFETY: the caller's `image_count` barriers at `images`.
        let images = unsafe {
            each(images, image_count as usize, |b| vk::ImageMemoryBarrier2 {
                p_next: b.p_next,
                src_stage_mask: src,
                src_access_mask: access2(b.src_access_mask),
                dst_stage_mask: dst,
                dst_access_mask: access2(b.dst_access_mask),
                old_layout: b.old_layout,
                new_layout: b.new_layout,
                src_queue_family_index: b.src_queue_family_index,
                dst_queue_family_index: b.dst_queue_family_index,
                image: b.image,
                subresource_range: b.subresource_range,
                ..Default::default()
            })
        };
        f(&vk::DependencyInfo::default()
            .memory_barriers(&memory)
            .buffer_memory_barriers(&buffers)
            .image_memory_barriers(&images))
    }
}

/// A structure the generated recorder can deep-copy outside a recording: its fix-up copies
/// every array, string, nested structure and known `pNext` element it points at (the generator
/// implements it for the structures the kit keeps, such as pipeline create infos).
///
/// # Safety
/// `fix_up` copies into the arena everything the structure's pointers reach that it keeps.
pub unsafe trait DeepCopy: Sized {
    /// Re-points the pointers of the fresh copy at `p` to copies in `a`.
    ///
    /// # Safety
    /// `p` is a fresh arena copy of a `Self` whose pointers are still valid.
    unsafe fn fix_up(a: &mut Arena, p: *mut u8);
}

/// A deep copy of one `T` that owns its arena: what its pointers reach lives as long as it does,
/// whatever the application does with its own memory afterwards.
pub struct Owned<T> {
    arena: Arena,
    value: NonNull<T>,
}

// SAFETY: every pointer inside the copy points into its own arena (or is an opaque application
// value the copy never dereferences), so it moves and is shared as the arena is.
unsafe impl<T> Send for Owned<T> {}
// SAFETY: see `Send`; the copy is never written after `new`.
unsafe impl<T> Sync for Owned<T> {}

impl<T: DeepCopy> Owned<T> {
    /// A deep copy of `*src`; `None` when the host is out of memory.
    ///
    /// # Safety
    /// `src` points at a valid `T` whose pointers (and `pNext` chain) are valid, as a Vulkan
    /// command's argument is for the call.
    pub unsafe fn new(src: *const T) -> Option<Self> {
        let mut arena = Arena::default();
        // SAFETY: `src` is a valid `T` (caller), `size_of::<T>()` readable bytes.
        let p = unsafe { arena.bytes(src, core::mem::size_of::<T>()) };
        let value = NonNull::new(p)?;
        // SAFETY: `value` is the fresh copy of `*src`, whose pointers are still valid (caller).
        unsafe { T::fix_up(&mut arena, value.as_ptr().cast()) };
        (!arena.failed).then_some(Self { arena, value })
    }
}

impl<T> Owned<T> {
    /// The copy.
    pub fn get(&self) -> &T {
        // SAFETY: made by `new` from a valid `T` and never written since; the arena that holds
        // it lives as long as `self`.
        unsafe { self.value.as_ref() }
    }

    /// Bytes of storage the copy holds.
    pub fn capacity(&self) -> usize {
        self.arena.capacity()
    }
}
