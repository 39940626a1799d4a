use super::*;

#[test]
fn config_validation() {
    let bad = [
        WindowConfig::with_size(0, 1),
        WindowConfig::with_size(1, MAX_DIMENSION + 1),
        WindowConfig {
            format: 0x7777,
            ..Default::default()
        },
        WindowConfig {
            min_undequeued: 8,
            max_buffer_count: 8,
            ..Default::default()
        },
        WindowConfig {
            max_buffer_count: NUM_BUFFER_SLOTS + 1,
            ..Default::default()
        },
        WindowConfig {
            refresh_ns: 0,
            ..Default::default()
        },
    ];
    for config in bad {
        assert!(BufferQueue::try_new(config.clone()).is_err(), "{config:?}");
    }
    BufferQueue::try_new(WindowConfig {
        max_buffer_count: NUM_BUFFER_SLOTS,
        ..Default::default()
    })
    .unwrap();
}

#[test]
fn producer_dimension_rules() {
    assert_eq!(producer_dims(0, 0), Ok((0, 0)));
    assert_eq!(producer_dims(3, 4), Ok((3, 4)));
    assert_eq!(producer_dims(0, 4), Err(EINVAL));
    assert_eq!(producer_dims(-1, 4), Err(EINVAL));
    assert_eq!(producer_dims(MAX_DIMENSION as c_int + 1, 4), Err(EINVAL));
}

#[test]
fn disconnect_keeps_what_android_keeps() {
    let mut p = ProducerState {
        connected_api: Some(NATIVE_WINDOW_API_EGL),
        usage: 5,
        format: HAL_PIXEL_FORMAT_RGB_565,
        dimensions: (4, 4),
        swap_interval: 0,
        shared_buffer_mode: true,
        dequeue_timeout: Some(Duration::ZERO),
        ..Default::default()
    };
    p.reset_on_disconnect();
    assert_eq!(p.connected_api, None);
    assert_eq!(p.usage, 0);
    assert_eq!(p.dimensions, (0, 0));
    assert!(!p.shared_buffer_mode);
    assert_eq!(p.format, HAL_PIXEL_FORMAT_RGB_565);
    assert_eq!(p.swap_interval, 0);
    assert_eq!(p.dequeue_timeout, Some(Duration::ZERO));
}
