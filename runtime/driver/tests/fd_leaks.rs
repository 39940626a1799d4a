//! Fence and buffer fds cross the HAL thousands of times per minute; a single leak per frame
//! exhausts the fd table within hours. These tests count `/proc/self/fd` around many
//! create/use/drop cycles, including the error paths.
//!
//! The tests share one mutex: the harness runs tests on parallel threads, and an fd opened by a
//! neighbouring test would show up as a leak here.

use std::ffi::c_int;
use std::os::fd::AsRawFd;
use std::sync::Mutex;
use std::time::Duration;

use vkgen_abi::native_window::{
    buffer_usage, NativeHandle, HAL_PIXEL_FORMAT_RGBA_8888, HAL_PIXEL_FORMAT_RGB_565,
};
use vkgen_driver::gralloc::{Allocator, Buffer, BufferDesc, GrallocError};
use vkgen_driver::sync_fd::{wait_all, FenceError, FenceSignaller, NativeFence};

static SERIAL: Mutex<()> = Mutex::new(());
const CYCLES: usize = 10_000;

fn open_fds() -> usize {
    // The directory's own fd is open while it is read, in every call alike, so it cancels out.
    std::fs::read_dir("/proc/self/fd")
        .expect("/proc/self/fd")
        .count()
}

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

#[test]
fn fence_cycles_do_not_leak() {
    let _guard = serial();
    let before = open_fds();
    for i in 0..CYCLES {
        let s = FenceSignaller::new().unwrap();
        let f = s.fence().unwrap();
        assert!(!f.is_signalled().unwrap());
        if i % 2 == 0 {
            s.signal().unwrap();
            assert!(f.wait(Some(Duration::ZERO)).unwrap());
        }
        // Ownership round trip through a raw fd, as across the HAL.
        let raw = f.try_clone().unwrap().into_raw();
        // SAFETY: `raw` was just released by `into_raw` and nobody else owns it.
        let back = unsafe { NativeFence::from_raw(raw) };
        assert_eq!(back.is_signalled().unwrap(), i % 2 == 0);
        let fences = [f, back, NativeFence::signalled()];
        assert_eq!(wait_all(&fences, Some(Duration::ZERO)).unwrap(), i % 2 == 0);
        // SAFETY: -1 carries no fd.
        assert_eq!(unsafe { NativeFence::from_raw(-1) }.into_raw(), -1);
        // Error path: a fence fd in an error state.
        let (r, w) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC).unwrap();
        drop(r);
        let broken = NativeFence::from_fd(w);
        assert!(matches!(
            broken.wait(Some(Duration::ZERO)),
            Err(FenceError::Broken { .. })
        ));
    }
    assert_eq!(open_fds(), before, "fence fds leaked");
}

#[test]
fn buffer_cycles_do_not_leak() {
    let _guard = serial();
    let alloc = Allocator::new();
    let usage = buffer_usage::CPU_WRITE_OFTEN | buffer_usage::GPU_TEXTURE;
    let before = open_fds();
    for i in 0..CYCLES {
        let mut b = alloc
            .allocate(1 + (i % 64) as u32, 8, HAL_PIXEL_FORMAT_RGBA_8888, usage)
            .unwrap();
        b.map().unwrap().as_mut_slice()[0] = i as u8;
        // SAFETY: the handle belongs to `b`, which is alive with its fd open.
        let mut imported = unsafe { Buffer::import(b.native_handle()) }.unwrap();
        assert_eq!(imported.map().unwrap().as_slice()[0], i as u8);
        drop(imported);

        // Error paths: bad requests, and handles that must be rejected after the fd was seen.
        assert!(matches!(
            alloc.allocate(4, 4, 0x7777, usage),
            Err(GrallocError::UnsupportedFormat(_))
        ));
        assert!(alloc
            .allocate(0, 4, HAL_PIXEL_FORMAT_RGB_565, usage)
            .is_err());
        let mut words: Vec<c_int> =
            // SAFETY: our handles are 4 + HANDLE_NUM_INTS ints long.
            unsafe {
                std::slice::from_raw_parts(
                    b.native_handle().cast::<c_int>(),
                    4 + vkgen_driver::gralloc::HANDLE_NUM_INTS,
                )
            }
            .to_vec();
        assert_eq!(words[3], b.fd().as_raw_fd());
        // Claim more bytes than the memfd holds.
        words[11] = words[11].wrapping_mul(4);
        let forged = words.as_ptr().cast::<NativeHandle>();
        assert!(matches!(
            // SAFETY: `words` is a full-size handle whose fd (owned by `b`) is open.
            unsafe { Buffer::import(forged) },
            Err(GrallocError::FdTooSmall { .. })
        ));
        // Wrong magic. The pointer is taken again after the write so it stays valid.
        words[4] = 0;
        let forged = words.as_ptr().cast::<NativeHandle>();
        // SAFETY: `forged` points at `words`, a full-size handle taken again after the write, whose
        // fd (owned by `b`) is open.
        assert!(unsafe { BufferDesc::from_native_handle(forged) }.is_err());
        // SAFETY: the same `forged` handle, still pointing at the live `words` with `b`'s fd open.
        assert!(unsafe { Buffer::import(forged) }.is_err());
    }
    assert_eq!(open_fds(), before, "buffer fds leaked");
}
