//! The consumer side of the queue: acquiring frames (newest or next), releasing them with a
//! fence, and the consumer's settings and counters.

use super::*;

impl BufferQueue {
    /// The newest queued frame, waiting for its acquire fence; older queued frames are skipped
    /// (their buffers go back to the producer). `None` when nothing new was queued, except in
    /// shared-buffer mode with auto-refresh, where the shared buffer is acquired again as the
    /// last frame queued from it.
    ///
    /// # Panics
    /// If the acquire fence fails or does not signal within the configured `acquire_timeout`,
    /// or the buffer cannot be mapped; [`BufferQueue::try_acquire_latest`] returns those as
    /// errors.
    pub fn acquire_latest(&self) -> Option<Frame> {
        self.try_acquire_latest()
            .unwrap_or_else(|e| panic!("acquire_latest: {e}"))
    }

    /// [`BufferQueue::acquire_latest`], reporting failures.
    pub fn try_acquire_latest(&self) -> Result<Option<Frame>, WindowError> {
        self.try_acquire(true)
    }

    /// The oldest queued frame (FIFO consumers, [`QueueMode::Fifo`]).
    ///
    /// # Panics
    /// As [`BufferQueue::acquire_latest`].
    pub fn acquire_next(&self) -> Option<Frame> {
        self.try_acquire_next()
            .unwrap_or_else(|e| panic!("acquire_next: {e}"))
    }

    /// [`BufferQueue::acquire_next`], reporting failures.
    pub fn try_acquire_next(&self) -> Result<Option<Frame>, WindowError> {
        self.try_acquire(false)
    }

    /// Waits up to `timeout` for a frame to acquire: true when one is queued (or the shared
    /// buffer auto-refreshes), false after the timeout or once the queue is abandoned. For
    /// consumers that sleep until the producer queues rather than poll.
    pub fn wait_for_frame(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut st = self.lock();
        loop {
            if !st.pending.is_empty() || (st.last_shared.is_some() && st.p.auto_refresh) {
                return true;
            }
            let now = Instant::now();
            if st.abandoned || now >= deadline {
                return false;
            }
            st = self
                .available
                .wait_timeout(st, deadline - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    fn try_acquire(&self, latest: bool) -> Result<Option<Frame>, WindowError> {
        let item = {
            let mut st = self.lock();
            let item = if latest {
                let newest = st.pending.pop_back();
                while let Some(old) = st.pending.pop_front() {
                    st.drop_pending(old);
                }
                newest
            } else {
                st.pending.pop_front()
            };
            let item = match item {
                Some(item) => item,
                None => match &st.last_shared {
                    Some((buffer, i, meta)) if st.p.auto_refresh => PendingFrame {
                        buffer: buffer.clone(),
                        slot: Some(*i),
                        fence: NativeFence::signalled(),
                        droppable: true,
                        meta: meta.clone(),
                    },
                    _ => return Ok(None),
                },
            };
            if let Some(i) = item.slot {
                if st.slots[i].holds(&item.buffer) && st.slots[i].state == SlotState::Queued {
                    st.slots[i].state = SlotState::Acquired;
                }
            }
            st.counters.acquires += 1;
            item
        };
        self.available.notify_all();
        let PendingFrame {
            buffer,
            slot,
            fence,
            meta,
            ..
        } = item;
        let token = FrameToken {
            owner: self.weak_self.clone(),
            buffer: buffer.clone(),
            slot,
        };
        let waited = fence.wait(self.acquire_timeout);
        // Recorded on failure too, so that the fake display's later frames are not held up.
        self.lock()
            .timeline
            .set_acquired(meta.frame_number, now_ns());
        match waited {
            Ok(true) => drop(fence),
            Ok(false) => {
                // Give the buffer back guarded by the fence that has not signalled yet.
                token.release(fence);
                return Err(WindowError::FenceTimeout {
                    frame_number: meta.frame_number,
                    timeout: self.acquire_timeout.unwrap_or_default(),
                });
            }
            Err(e) => {
                token.release(fence);
                return Err(e.into());
            }
        }
        let desc = *buffer.desc();
        let copied = {
            let mut gralloc = buffer.gralloc();
            let copied = gralloc
                .map()
                .map(|mapping| to_rgba8(&desc, mapping.as_slice()));
            copied
        };
        let (pixels, raw) = match copied {
            Ok(copied) => copied,
            Err(e) => {
                token.release(NativeFence::signalled());
                return Err(e.into());
            }
        };
        Ok(Some(Frame {
            frame_number: meta.frame_number,
            width: desc.width,
            height: desc.height,
            stride: desc.stride,
            format: desc.format.hal(),
            usage: desc.usage,
            buffer_id: buffer.id(),
            pixels,
            raw,
            transform: meta.transform,
            dataspace: meta.dataspace,
            damage: meta.damage,
            crop: meta.crop,
            scaling_mode: meta.scaling_mode,
            timestamp_ns: meta.timestamp_ns,
            auto_timestamp: meta.auto_timestamp,
            shared_buffer: meta.shared_buffer,
            auto_refresh: meta.auto_refresh,
            hdr: meta.hdr,
            token: Some(token),
        }))
    }

    /// Gives an acquired frame's buffer back to the producer; its next dequeue returns
    /// `release_fence` (pass [`NativeFence::signalled`] for none). A frame of another queue, or
    /// one whose buffer the producer no longer has (it disconnected), is just dropped.
    pub fn release(&self, mut frame: Frame, release_fence: NativeFence) {
        if let Some(token) = frame.token.take() {
            if token.owner.as_ptr().cast::<()>() == self.weak_self.as_ptr().cast::<()>() {
                self.release_token(token, release_fence);
            } else {
                log::warn!(
                    "release: frame {} belongs to another queue",
                    frame.frame_number
                );
                token.release(release_fence);
            }
        }
    }

    /// Frames queued so far (the number of the last one; frame numbers start at 1).
    pub fn frame_count(&self) -> u64 {
        self.lock().frame_counter
    }

    /// Queued frames the consumer has not acquired yet.
    pub fn pending_frames(&self) -> usize {
        self.lock().pending.len()
    }

    pub fn counters(&self) -> Counters {
        self.lock().counters
    }

    /// A snapshot of what the producer has set.
    pub fn producer_state(&self) -> ProducerState {
        self.lock().p.clone()
    }

    /// Slots that currently hold a gralloc buffer.
    pub fn allocated_buffers(&self) -> usize {
        self.lock()
            .slots
            .iter()
            .filter(|s| s.buffer.is_some())
            .count()
    }

    /// What `NATIVE_WINDOW_GET_FRAME_TIMESTAMPS` would answer for `frame_number` now (also when
    /// the producer has not enabled frame timestamps); `None` if it is not in the history.
    pub fn frame_timestamps(&self, frame_number: u64) -> Option<FrameTimestamps> {
        let mut st = self.lock();
        st.poll_pending_acquires();
        st.timeline.timestamps(frame_number, now_ns())
    }

    /// `NATIVE_WINDOW_TRANSFORM_HINT` (`NATIVE_WINDOW_TRANSFORM_*`).
    pub fn set_transform_hint(&self, hint: c_int) {
        self.lock().transform_hint = hint;
    }

    /// The default buffer size (`setDefaultBufferSize`): later dequeues without explicit
    /// dimensions allocate at the new size, reallocating buffers of the old one.
    pub fn resize(&self, width: u32, height: u32) -> Result<(), WindowError> {
        check_dims(width, height)?;
        let mut st = self.lock();
        st.default_width = width;
        st.default_height = height;
        Ok(())
    }

    /// `NATIVE_WINDOW_MIN_UNDEQUEUED_BUFFERS` (before the async-mode extra one).
    pub fn set_min_undequeued(&self, min_undequeued: u32) -> Result<(), WindowError> {
        let mut st = self.lock();
        check_counts(min_undequeued, st.max_buffer_count)?;
        st.min_undequeued = min_undequeued;
        drop(st);
        self.available.notify_all();
        Ok(())
    }

    /// `NATIVE_WINDOW_MAX_BUFFER_COUNT`; a producer buffer count above it is capped.
    pub fn set_max_buffer_count(&self, max_buffer_count: u32) -> Result<(), WindowError> {
        let mut st = self.lock();
        check_counts(st.min_undequeued, max_buffer_count)?;
        st.max_buffer_count = max_buffer_count;
        st.trim();
        drop(st);
        self.available.notify_all();
        Ok(())
    }

    /// Consumer usage bits (`GET_CONSUMER_USAGE64`), ORed into later allocations.
    pub fn set_consumer_usage(&self, usage: u64) {
        self.lock().consumer_usage = usage;
    }

    /// The default `HAL_PIXEL_FORMAT_*`.
    pub fn set_default_format(&self, format: c_int) -> Result<(), WindowError> {
        PixelFormat::from_hal(format)?;
        self.lock().default_format = format;
        Ok(())
    }

    /// The default dataspace (`NATIVE_WINDOW_DEFAULT_DATASPACE`).
    pub fn set_default_dataspace(&self, dataspace: c_int) {
        self.lock().default_dataspace = dataspace;
    }

    /// The consumer goes away (`consumerDisconnect`): buffers and unacquired frames are freed,
    /// blocked and later producer calls fail with `-ENODEV`, `IS_VALID` reads 0.
    pub fn abandon(&self) {
        let mut st = self.lock();
        st.abandoned = true;
        st.free_all(false);
        drop(st);
        self.available.notify_all();
    }
}
