//! The loader's (or a driver's) build step: vkgen's tables for `$VKGEN_REGISTRY` (else Debian's
//! vk.xml) at `$VKGEN_API_VERSION` (else the registry's newest), generated into `OUT_DIR`.
fn main() {
    vkgen::build::main(&vkgen::Options::default());
}
