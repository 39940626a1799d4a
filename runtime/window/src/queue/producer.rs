//! The producer side of the queue (what [`crate::ffi`] calls for an `ANativeWindow`):
//! swap interval, queries, dequeue / queue / cancel and `perform`, with Android's
//! `BufferQueueProducer` / `Surface` rules.

use super::*;

impl BufferQueue {
    pub(crate) fn set_swap_interval(&self, interval: c_int) -> AbiResult<()> {
        let mut st = self.lock();
        // Surface clamps to [minSwapInterval, maxSwapInterval].
        let interval = interval.clamp(0, 1);
        // Async mode needs one more undequeued buffer; like `setAsyncMode`, refuse when the
        // producer's buffer count would leave it none to dequeue.
        if interval == 0
            && st.p.buffer_count > 0
            && st.p.buffer_count.min(st.max_buffer_count) <= st.min_undequeued + 1
        {
            return Err(EINVAL);
        }
        st.p.swap_interval = interval;
        drop(st);
        self.available.notify_all();
        Ok(())
    }

    pub(crate) fn query(&self, what: c_int) -> AbiResult<c_int> {
        let st = self.lock();
        if what == NATIVE_WINDOW_IS_VALID {
            return Ok(c_int::from(!st.abandoned));
        }
        if st.abandoned {
            return Err(ENODEV);
        }
        let int = |v: u64| c_int::try_from(v).unwrap_or(c_int::MAX);
        let (w, h, format, _) = st.alloc_params();
        let (dw, dh) = st.default_size();
        Ok(match what {
            NATIVE_WINDOW_WIDTH => int(w.into()),
            NATIVE_WINDOW_HEIGHT => int(h.into()),
            NATIVE_WINDOW_FORMAT => format,
            NATIVE_WINDOW_MIN_UNDEQUEUED_BUFFERS => int(st.min_undequeued().into()),
            // The consumer is a test, not SurfaceFlinger.
            NATIVE_WINDOW_QUEUES_TO_WINDOW_COMPOSER => 0,
            NATIVE_WINDOW_CONCRETE_TYPE => NATIVE_WINDOW_SURFACE,
            NATIVE_WINDOW_DEFAULT_WIDTH => int(dw.into()),
            NATIVE_WINDOW_DEFAULT_HEIGHT => int(dh.into()),
            NATIVE_WINDOW_TRANSFORM_HINT => st.transform_hint,
            NATIVE_WINDOW_CONSUMER_RUNNING_BEHIND => c_int::from(st.pending.len() >= 2),
            // The deprecated 32-bit form: the low half.
            NATIVE_WINDOW_CONSUMER_USAGE_BITS => st.consumer_usage as u32 as c_int,
            NATIVE_WINDOW_STICKY_TRANSFORM => st.p.sticky_transform,
            NATIVE_WINDOW_DEFAULT_DATASPACE => st.default_dataspace,
            NATIVE_WINDOW_BUFFER_AGE => int(st.buffer_age),
            NATIVE_WINDOW_LAST_DEQUEUE_DURATION => int((st.last_dequeue_duration / 1000) as u64),
            NATIVE_WINDOW_LAST_QUEUE_DURATION => int((st.last_queue_duration / 1000) as u64),
            NATIVE_WINDOW_LAYER_COUNT => 1,
            NATIVE_WINDOW_FRAME_TIMESTAMPS_SUPPORTS_PRESENT => 1,
            NATIVE_WINDOW_CONSUMER_IS_PROTECTED => {
                c_int::from(st.consumer_usage & buffer_usage::PROTECTED != 0)
            }
            NATIVE_WINDOW_DATASPACE => st.p.dataspace,
            NATIVE_WINDOW_MAX_BUFFER_COUNT => int(st.max_buffer_count.into()),
            _ => return Err(EINVAL),
        })
    }

    /// `dequeueBuffer`: a buffer for the producer and the fence to wait on before writing it.
    pub(crate) fn dequeue(&self) -> AbiResult<(*mut ANativeWindowBuffer, NativeFence)> {
        let start_ns = now_ns();
        let start = Instant::now();
        let mut st = self.lock();
        let timeout = st.p.dequeue_timeout;
        let deadline = timeout.and_then(|t| start.checked_add(t));
        let i = loop {
            if st.abandoned || st.p.connected_api.is_none() {
                return Err(ENODEV);
            }
            if let Some(i) = st.shared_slot.filter(|_| st.p.shared_buffer_mode) {
                break i;
            }
            match st.pick_free_slot() {
                Ok(i) => break i,
                // Android's INVALID_OPERATION, at once whatever the timeout (libvulkan maps it
                // to VK_TIMEOUT / VK_NOT_READY, like TIMED_OUT).
                Err(NoSlot::OverLimit) => return Err(ENOSYS),
                Err(NoSlot::AllBusy) => {}
            }
            st = match (timeout, deadline) {
                (None, _) | (Some(_), None) => self
                    .available
                    .wait(st)
                    .unwrap_or_else(PoisonError::into_inner),
                (Some(_), Some(deadline)) => {
                    let now = Instant::now();
                    if now >= deadline {
                        return Err(-libc::ETIMEDOUT);
                    }
                    self.available
                        .wait_timeout(st, deadline - now)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0
                }
            };
        };

        let shared_established = st.is_shared_slot(i);
        if !shared_established {
            let (w, h, format, usage) = st.alloc_params();
            let fits = st.slots[i].buffer.as_ref().is_some_and(|b| {
                let d = b.desc();
                (d.width, d.height, d.format.hal()) == (w, h, format) && d.usage & usage == usage
            });
            if !fits {
                let buffer = Allocator::new()
                    .allocate(w, h, format, usage)
                    .map_err(|e| {
                        log::warn!(
                            "dequeueBuffer: allocating {w}x{h} format {format:#x} failed: {e}"
                        );
                        gralloc_errno(&e)
                    })?;
                st.counters.allocations += 1;
                let slot = &mut st.slots[i];
                slot.buffer = Some(WindowBuffer::new(buffer));
                // The old buffer's fence says nothing about the new one.
                slot.fence = NativeFence::signalled();
                slot.frame_number = 0;
            }
        }
        let Some(buffer) = st.slots[i].buffer.as_ref().map(WindowBuffer::as_native) else {
            return Err(EINVAL); // unreachable: the slot was just given a buffer
        };
        if !shared_established {
            st.slots[i].state = SlotState::Dequeued;
            if st.p.shared_buffer_mode {
                st.shared_slot = Some(i);
            }
        }
        let frame_number = st.slots[i].frame_number;
        st.buffer_age = if frame_number == 0 {
            0
        } else {
            st.frame_counter + 1 - frame_number
        };
        let fence = std::mem::take(&mut st.slots[i].fence);
        st.counters.dequeues += 1;
        st.last_dequeue_start = start_ns;
        st.last_dequeue_duration = now_ns() - start_ns;
        Ok((buffer, fence))
    }

    /// `queueBuffer`. `fence` is dropped (closed) on every error path.
    pub(crate) fn queue(
        &self,
        buffer: *mut ANativeWindowBuffer,
        fence: NativeFence,
    ) -> AbiResult<()> {
        let start = now_ns();
        let mut st = self.lock();
        if st.abandoned || st.p.connected_api.is_none() {
            return Err(ENODEV);
        }
        let i = st.slot_of(buffer).ok_or(EINVAL)?;
        if st.slots[i].state != SlotState::Dequeued {
            return Err(EINVAL);
        }
        let shared = st.is_shared_slot(i);
        st.frame_counter += 1;
        let n = st.frame_counter;
        let requested = st.p.timestamp.take();
        let dataspace = if st.p.dataspace == HAL_DATASPACE_UNKNOWN {
            st.default_dataspace
        } else {
            st.p.dataspace
        };
        let meta = FrameMeta {
            frame_number: n,
            transform: st.p.transform,
            dataspace,
            damage: std::mem::take(&mut st.p.damage),
            crop: st.p.crop,
            scaling_mode: st.p.scaling_mode,
            timestamp_ns: requested.unwrap_or(start),
            auto_timestamp: requested.is_none(),
            shared_buffer: shared,
            auto_refresh: st.p.auto_refresh,
            hdr: st.p.hdr.clone(),
        };
        let fifo = st.p.swap_interval >= 1;
        let acquired_at = fence.is_signalled().unwrap_or(false).then_some(start);
        st.timeline
            .record_queue(n, start, meta.timestamp_ns, fifo, acquired_at);
        if st.pending.back().is_some_and(|b| b.droppable) {
            let old = st.pending.pop_back().expect("checked non-empty");
            st.drop_pending(old);
        }
        let buffer = st.slots[i].buffer.clone().ok_or(EINVAL)?;
        if shared {
            st.last_shared = Some((buffer.clone(), i, meta.clone()));
        } else {
            st.slots[i].state = SlotState::Queued;
        }
        st.slots[i].frame_number = n;
        st.pending.push_back(PendingFrame {
            buffer,
            slot: Some(i),
            fence,
            droppable: shared || !fifo || self.queue_mode == QueueMode::LatestOnly,
            meta,
        });
        st.buffer_has_been_queued = true;
        st.counters.queues += 1;
        st.last_queue_duration = now_ns() - start;
        drop(st);
        self.available.notify_all();
        Ok(())
    }

    /// `cancelBuffer`: the buffer goes back to FREE; `fence` guards its next dequeue.
    pub(crate) fn cancel(
        &self,
        buffer: *mut ANativeWindowBuffer,
        fence: NativeFence,
    ) -> AbiResult<()> {
        let mut st = self.lock();
        if st.abandoned || st.p.connected_api.is_none() {
            return Err(ENODEV);
        }
        let i = st.slot_of(buffer).ok_or(EINVAL)?;
        if st.slots[i].state != SlotState::Dequeued {
            return Err(EINVAL);
        }
        if st.is_shared_slot(i) {
            // The shared buffer never leaves the producer.
            st.slots[i].fence = fence;
        } else {
            st.free_slot(i, fence);
        }
        st.counters.cancels += 1;
        drop(st);
        self.available.notify_all();
        Ok(())
    }

    /// Applies one decoded `perform` call to the queue's state: one arm per `NATIVE_WINDOW_*`
    /// operation, all under one lock (the longer ones are `State`'s methods below).
    pub(crate) fn perform(&self, op: Perform) -> AbiResult<PerformOut> {
        use Perform as P;
        let mut st = self.lock();
        let mut wake = false;
        match op {
            P::Deprecated => {}
            P::SetUsage(usage) => st.p.usage = usage,
            P::SetCrop(crop) => st.p.crop = crop,
            P::SetBufferCount(count) => {
                st.set_buffer_count(count)?;
                wake = true;
            }
            P::SetBuffersGeometry(w, h, format) => {
                let dims = producer_dims(w, h)?;
                if format != 0 {
                    PixelFormat::from_hal(format).map_err(|_| EINVAL)?;
                }
                st.p.dimensions = dims;
                st.p.format = format;
            }
            P::SetBuffersTransform(t) => st.p.transform = check_transform(t)?,
            P::SetBuffersStickyTransform(t) => st.p.sticky_transform = check_transform(t)?,
            P::SetBuffersTimestamp(ts) => {
                st.p.timestamp = (ts != NATIVE_WINDOW_TIMESTAMP_AUTO).then_some(ts);
            }
            P::SetBuffersDimensions(w, h) => st.p.dimensions = producer_dims(w, h)?,
            P::SetBuffersUserDimensions(w, h) => st.p.user_dimensions = producer_dims(w, h)?,
            P::SetBuffersFormat(format) => {
                if format != 0 {
                    PixelFormat::from_hal(format).map_err(|_| EINVAL)?;
                }
                st.p.format = format;
            }
            P::SetScalingMode(mode) => {
                if !(NATIVE_WINDOW_SCALING_MODE_FREEZE..=NATIVE_WINDOW_SCALING_MODE_NO_SCALE_CROP)
                    .contains(&mode)
                {
                    return Err(EINVAL);
                }
                st.p.scaling_mode = mode;
            }
            P::ApiConnect(api) => st.api_connect(api)?,
            P::ApiDisconnect(api) => wake = st.api_disconnect(api)?,
            P::SetBuffersDataspace(ds) => st.p.dataspace = ds,
            P::SetSurfaceDamage(rects) => st.p.damage = rects,
            P::SetSharedBufferMode(on) => {
                st.p.shared_buffer_mode = on;
                if !on {
                    // The slot stays DEQUEUED: the producer still holds the buffer and may
                    // queue or cancel it like any other.
                    st.shared_slot = None;
                    st.last_shared = None;
                }
                wake = true;
            }
            P::SetAutoRefresh(on) => st.p.auto_refresh = on,
            P::GetRefreshCycleDuration => {
                return Ok(PerformOut::I64(st.timeline.refresh_ns()));
            }
            P::GetNextFrameId => return Ok(PerformOut::U64(st.frame_counter + 1)),
            P::EnableFrameTimestamps(on) => st.p.frame_timestamps_enabled = on,
            P::GetCompositorTiming => {
                let (d, i, l) = st.timeline.compositor_timing(now_ns());
                return Ok(PerformOut::CompositorTiming([d, i, l]));
            }
            P::GetFrameTimestamps(frame_id) => {
                if !st.p.frame_timestamps_enabled {
                    return Err(ENOSYS);
                }
                st.poll_pending_acquires();
                return st
                    .timeline
                    .timestamps(frame_id, now_ns())
                    .map(PerformOut::Timestamps)
                    .ok_or(EINVAL);
            }
            P::GetConsumerUsage => {
                if st.abandoned {
                    return Err(ENODEV);
                }
                return Ok(PerformOut::U64(st.consumer_usage));
            }
            P::SetSmpte2086(m) => st.p.hdr.smpte2086 = m,
            P::SetCta8613(m) => st.p.hdr.cta861_3 = m,
            P::SetHdr10Plus(m) => st.p.hdr.hdr10_plus = m,
            P::SetAutoPrerotation(on) => st.p.auto_prerotation = on,
            P::GetLastDequeueStart => return Ok(PerformOut::I64(st.last_dequeue_start)),
            P::SetDequeueTimeout(ns) => {
                st.p.dequeue_timeout = u64::try_from(ns).ok().map(Duration::from_nanos);
            }
            P::GetLastDequeueDuration => return Ok(PerformOut::I64(st.last_dequeue_duration)),
            P::GetLastQueueDuration => return Ok(PerformOut::I64(st.last_queue_duration)),
            P::SetFrameRate(rate) => {
                if !rate.frame_rate.is_finite() || rate.frame_rate < 0.0 {
                    return Err(EINVAL);
                }
                st.p.frame_rate = Some(rate);
            }
            P::AllocateBuffers => self.allocate_free_slots(&mut st),
        }
        drop(st);
        if wake {
            self.available.notify_all();
        }
        Ok(PerformOut::Nothing)
    }

    /// `ANativeWindow_allocateBuffers`: gives every free slot within the buffer count a buffer
    /// of the current parameters. Failures are only logged (the NDK call returns nothing).
    fn allocate_free_slots(&self, st: &mut State) {
        let (w, h, format, usage) = st.alloc_params();
        for i in 0..st.total_buffers() {
            if st.slots[i].state != SlotState::Free || st.slots[i].buffer.is_some() {
                continue;
            }
            match Allocator::new().allocate(w, h, format, usage) {
                Ok(buffer) => {
                    st.counters.allocations += 1;
                    st.slots[i].buffer = Some(WindowBuffer::new(buffer));
                }
                Err(e) => {
                    log::warn!("allocateBuffers: {e}");
                    return;
                }
            }
        }
    }
}

/// The `perform` operations that check more than one field.
impl State {
    /// `NATIVE_WINDOW_SET_BUFFER_COUNT`: 0 goes back to the default; otherwise the count must
    /// leave room for the dequeued buffers above the undequeued minimum.
    fn set_buffer_count(&mut self, count: i64) -> AbiResult<()> {
        if count == 0 {
            self.p.buffer_count = 0;
        } else {
            let count = u32::try_from(count).map_err(|_| EINVAL)?;
            let dequeued = self
                .slots
                .iter()
                .filter(|s| s.state == SlotState::Dequeued)
                .count();
            let min = self.min_undequeued();
            if count > self.max_buffer_count || count <= min || ((count - min) as usize) < dequeued
            {
                return Err(EINVAL);
            }
            self.p.buffer_count = count;
        }
        self.trim();
        Ok(())
    }

    /// `NATIVE_WINDOW_API_CONNECT`: one API at a time, none after the consumer abandoned.
    fn api_connect(&mut self, api: c_int) -> AbiResult<()> {
        if self.abandoned {
            return Err(ENODEV);
        }
        if !(NATIVE_WINDOW_API_EGL..=NATIVE_WINDOW_API_CAMERA).contains(&api)
            || self.p.connected_api.is_some()
        {
            return Err(EINVAL);
        }
        self.p.connected_api = Some(api);
        self.buffer_has_been_queued = false;
        self.counters.connects += 1;
        Ok(())
    }

    /// `NATIVE_WINDOW_API_DISCONNECT`: frees every buffer; whether waiters must wake.
    fn api_disconnect(&mut self, api: c_int) -> AbiResult<bool> {
        match self.p.connected_api {
            // Disconnecting after the consumer abandoned the queue is fine (Android).
            None if self.abandoned => return Ok(false),
            None => return Err(ENODEV),
            Some(connected) if connected != api => return Err(EINVAL),
            Some(_) => {}
        }
        self.free_all(true);
        self.p.reset_on_disconnect();
        self.counters.disconnects += 1;
        Ok(true)
    }
}
