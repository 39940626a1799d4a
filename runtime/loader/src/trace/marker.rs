//! What a trace marker is ([`Marker`]) and what one writes: libcutils' tags and markers,
//! shared by the platform outputs (`super::android`, `super::HostMarker`).

/// libcutils' `ATRACE_TAG_GRAPHICS`.
pub const ATRACE_TAG_GRAPHICS: u64 = 1 << 1;

/// The property `atrace` sets to the enabled tags.
pub const TAGS_PROPERTY: &str = "debug.atrace.tags.enableflags";

/// The tags in a `debug.atrace.tags.enableflags` value, as libcutils' `strtoull(value, NULL, 0)`
/// reads it: `0x` hexadecimal, a leading `0` octal, else decimal; the digits up to the first that
/// does not belong; no digits (or overflow) is 0.
pub fn parse_tags(value: &str) -> u64 {
    let value = value.trim_start();
    let (digits, radix) = if let Some(hex) = value
        .strip_prefix("0x")
        .or_else(|| value.strip_prefix("0X"))
    {
        (hex, 16)
    } else if value.len() > 1 && value.starts_with('0') {
        (&value[1..], 8)
    } else {
        (value, 10)
    };
    let end = digits
        .find(|c: char| !c.is_digit(radix))
        .unwrap_or(digits.len());
    u64::from_str_radix(&digits[..end], radix).unwrap_or(0)
}

/// Whether `tags` turn graphics tracing on.
pub fn graphics_enabled(tags: u64) -> bool {
    tags & ATRACE_TAG_GRAPHICS != 0
}

/// libcutils' begin marker.
pub fn begin_marker(pid: u32, name: &str) -> String {
    format!("B|{pid}|{name}")
}

/// libcutils' end marker.
pub fn end_marker(pid: u32) -> String {
    format!("E|{pid}")
}

/// Where markers go on this platform (see the module notes).
pub trait Marker: Send + Sync {
    /// The enabled atrace tags now.
    fn tags(&self) -> u64;
    /// Writes one marker.
    fn write(&self, marker: &str);
}
