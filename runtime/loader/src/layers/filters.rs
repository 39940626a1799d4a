//! `VK_LOADER_LAYERS_ENABLE` / `VK_LOADER_LAYERS_DISABLE` / `VK_LOADER_LAYERS_ALLOW` (Linux
//! hosts), as the Khronos loader reads them (`LoaderInterfaceArchitecture.md`): comma-separated
//! globs over layer names, plus `~all~`, `~implicit~` and `~explicit~` in the disable list. They apply to the layers Khronos
//! manifests describe; Android's layers (found by file name) are not subject to them.
//!
//! * A disabled layer is not listed, an implicit one is not activated, and a request for it
//!   (application, `VK_INSTANCE_LAYERS`) is dropped with a warning, as the Khronos loader does.
//! * An enabled layer is never disabled, and an explicit one is activated as if named by
//!   `VK_INSTANCE_LAYERS`; an implicit one is activated whatever its `enable_environment` says.
//! * An allowed layer is not disabled by the disable list, but nothing more: an explicit one still
//!   has to be requested, an implicit one still follows its `enable_environment`.

/// `VK_LOADER_LAYERS_ENABLE`.
pub const ENABLE_ENV: &str = "VK_LOADER_LAYERS_ENABLE";
/// `VK_LOADER_LAYERS_DISABLE`.
pub const DISABLE_ENV: &str = "VK_LOADER_LAYERS_DISABLE";
/// The disable list as reasons name it: the variable on hosts; on Android, which reads no
/// variable (and has no manifest layers to filter), not its name.
const DISABLE_NAME: &str = if cfg!(target_os = "android") {
    "the layer disable list"
} else {
    DISABLE_ENV
};
/// `VK_LOADER_LAYERS_ALLOW`.
pub const ALLOW_ENV: &str = "VK_LOADER_LAYERS_ALLOW";

/// The three filter lists.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LayerFilters {
    /// `VK_LOADER_LAYERS_ENABLE`'s globs.
    pub enable: Vec<String>,
    /// `VK_LOADER_LAYERS_DISABLE`'s globs (without the `~...~` keywords).
    pub disable: Vec<String>,
    /// `VK_LOADER_LAYERS_ALLOW`'s globs (plain globs: the keywords are the disable list's).
    pub allow: Vec<String>,
    /// `~all~` was in the disable list.
    pub disable_all: bool,
    /// `~implicit~` was in the disable list.
    pub disable_implicit: bool,
    /// `~explicit~` was in the disable list.
    pub disable_explicit: bool,
}

fn split(value: &str) -> impl Iterator<Item = &str> {
    value.split(',').map(str::trim).filter(|g| !g.is_empty())
}

/// Whether `name` matches `glob` (`*` matches any run of characters, anywhere).
pub fn glob_matches(glob: &str, name: &str) -> bool {
    let parts: Vec<&str> = glob.split('*').collect();
    if parts.len() == 1 {
        return glob == name;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !name.starts_with(first) || name.len() < first.len() + last.len() || !name.ends_with(last) {
        return false;
    }
    let mut rest = &name[first.len()..name.len() - last.len()];
    for middle in &parts[1..parts.len() - 1] {
        match rest.find(middle) {
            Some(at) => rest = &rest[at + middle.len()..],
            None => return false,
        }
    }
    true
}

fn globs(value: Option<&str>) -> Vec<String> {
    value
        .map(split)
        .into_iter()
        .flatten()
        .map(str::to_owned)
        .collect()
}

impl LayerFilters {
    /// From the enable and disable variables' values.
    pub fn parse(enable: Option<&str>, disable: Option<&str>) -> Self {
        let mut filters = Self {
            enable: globs(enable),
            ..Self::default()
        };
        for glob in disable.map(split).into_iter().flatten() {
            match glob {
                "~all~" => filters.disable_all = true,
                "~implicit~" => filters.disable_implicit = true,
                "~explicit~" => filters.disable_explicit = true,
                other => filters.disable.push(other.to_owned()),
            }
        }
        filters
    }

    /// With `VK_LOADER_LAYERS_ALLOW`'s value.
    pub fn with_allow(mut self, allow: Option<&str>) -> Self {
        self.allow = globs(allow);
        self
    }

    /// From the environment (setuid-safe; hosts only).
    #[cfg(not(target_os = "android"))]
    pub fn from_env() -> Self {
        let read =
            |name| crate::host_env::trusted_env(name).map(|v| v.to_string_lossy().into_owned());
        Self::parse(read(ENABLE_ENV).as_deref(), read(DISABLE_ENV).as_deref())
            .with_allow(read(ALLOW_ENV).as_deref())
    }

    /// Whether `VK_LOADER_LAYERS_ALLOW` names `name`.
    pub fn allowed(&self, name: &str) -> bool {
        self.allow.iter().any(|g| glob_matches(g, name))
    }

    /// Whether `VK_LOADER_LAYERS_ENABLE` names `name`.
    pub fn enabled(&self, name: &str) -> bool {
        self.enable.iter().any(|g| glob_matches(g, name))
    }

    /// Why the layer is disabled, or `None` when it is available.
    pub fn disabled_reason(&self, name: &str, implicit: bool) -> Option<String> {
        if self.enabled(name) || self.allowed(name) {
            return None;
        }
        let why = if self.disable_all {
            "has ~all~"
        } else if implicit && self.disable_implicit {
            "has ~implicit~"
        } else if !implicit && self.disable_explicit {
            "has ~explicit~"
        } else if self.disable.iter().any(|g| glob_matches(g, name)) {
            "matches its name"
        } else {
            return None;
        };
        Some(format!("{DISABLE_NAME} {why}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob_matches("VK_LAYER_a", "VK_LAYER_a"));
        assert!(!glob_matches("VK_LAYER_a", "VK_LAYER_ab"));
        assert!(glob_matches("*validation", "VK_LAYER_KHRONOS_validation"));
        assert!(glob_matches("VK_LAYER_MESA_*", "VK_LAYER_MESA_overlay"));
        assert!(glob_matches("*MESA*", "VK_LAYER_MESA_overlay"));
        assert!(glob_matches("*", "x"));
        assert!(glob_matches("a*b*c", "a__b__c"));
        assert!(!glob_matches("a*b*c", "a__c__b"));
        assert!(!glob_matches("ab*ba", "aba"));
    }

    #[test]
    fn keywords_and_enable_priority() {
        let f = LayerFilters::parse(Some("*validation"), Some("~implicit~, *overlay"));
        assert!(f.disable_implicit && !f.disable_all && !f.disable_explicit);
        assert!(f
            .disabled_reason("VK_LAYER_MESA_device_select", true)
            .is_some());
        assert!(f
            .disabled_reason("VK_LAYER_MESA_device_select", false)
            .is_none());
        assert!(f.disabled_reason("VK_LAYER_MESA_overlay", false).is_some());
        let all = LayerFilters::parse(Some("*validation"), Some("~all~"));
        assert!(all
            .disabled_reason("VK_LAYER_KHRONOS_validation", false)
            .is_none());
        assert!(all.disabled_reason("VK_LAYER_x", false).is_some());
        assert!(all.enabled("VK_LAYER_KHRONOS_validation"));
        assert_eq!(LayerFilters::parse(None, None), LayerFilters::default());
    }

    #[test]
    fn allow_overrides_disable_without_enabling() {
        let f = LayerFilters::parse(None, Some("~all~"))
            .with_allow(Some(" *validation , VK_LAYER_MESA_*"));
        assert_eq!(f.allow, ["*validation", "VK_LAYER_MESA_*"]);
        assert!(f
            .disabled_reason("VK_LAYER_KHRONOS_validation", false)
            .is_none());
        assert!(f
            .disabled_reason("VK_LAYER_MESA_device_select", true)
            .is_none());
        assert!(f.disabled_reason("VK_LAYER_x", false).is_some());
        assert!(!f.enabled("VK_LAYER_KHRONOS_validation"));
        let implicit =
            LayerFilters::parse(None, Some("~implicit~,*overlay")).with_allow(Some("*overlay"));
        assert!(implicit
            .disabled_reason("VK_LAYER_MESA_overlay", true)
            .is_none());
        assert!(implicit.disabled_reason("VK_LAYER_other", true).is_some());
        // Keywords are the disable list's only: `~all~` in the allow list is a glob matching nothing.
        let keyword = LayerFilters::parse(None, Some("~all~")).with_allow(Some("~all~"));
        assert!(keyword.disabled_reason("VK_LAYER_x", false).is_some());
        assert_eq!(
            LayerFilters::default().with_allow(None),
            LayerFilters::default()
        );
    }
}
