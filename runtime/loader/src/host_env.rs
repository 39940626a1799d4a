//! Variables that steer which code the loader `dlopen`s are read setuid-safely, and `:` lists
//! split without empty entries: the platform's rules, shared with the host driver.
//!
//! Hosts only: an Android build reads no environment variable (everything comes from where AOSP
//! takes it), and without this module (`lib.rs` compiles it out there) there is no way for its
//! code to.

pub(crate) use vkgen_platform::env::{split_path_list, trusted_env, trusted_env_path};
