#!/usr/bin/env bash
# Regenerates registry/ash-0.38-types.txt from the ash crate sources in the cargo registry.
# vkgen emits a type only when ash 0.38 lacks it; this file is how it knows what ash has.
# Format: one `NAME LIFETIME` per line, LIFETIME is `'a` when the ash type takes a lifetime, else `-`.
# Names under `native::` are the vk_video std types of ash's bindgen module.
set -euo pipefail
src=$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/ash-0.38.0+1.3.281/src/vk | head -1)
{
  echo "# ash 0.38.0+1.3.281 vk:: type names (registry/extract-ash-types.sh)"
  grep -hoE "^pub (struct|union) [A-Za-z0-9_]+(<'a>)?" "$src"/definitions.rs "$src"/enums.rs "$src"/bitflags.rs \
    | sed -E "s/^pub (struct|union) //; s/<'a>$/ 'a/" | awk 'NF==1{print $1" -"} NF==2{print}'
  grep -hoE "^pub type [A-Za-z0-9_]+(<'a>)?" "$src"/definitions.rs "$src"/aliases.rs "$src"/platform_types.rs \
    | sed -E "s/^pub type //; s/<'a>$/ 'a/" | awk 'NF==1{print $1" -"} NF==2{print}'
  perl -0ne 'while (/(?:define_handle|handle_nondispatchable)\s*!\s*\(\s*(\w+)/g) { print "$1 -\n" }' "$src"/definitions.rs
  grep -hoE "^pub (struct|union|type) StdVideo[A-Za-z0-9_]+" "$src"/native.rs | sed -E 's/^pub (struct|union|type) /native::/; s/$/ -/'
} | awk '!seen[$1]++' > "$(dirname "$0")/ash-0.38-types.txt"
# Associated constants (`Type::NAME`), so that values ash lacks (e.g. sType values added after 1.3.281)
# are emitted through an extension trait instead of clashing with ash's own.
perl -ne 'if (/^impl (\w+) \{/) { $t = $1 } elsif (/^\}/) { $t = "" } elsif ($t && /^\s*pub const (\w+): Self\b/) { print "$t\::$1 -\n" }' \
  "$src"/enums.rs "$src"/bitflags.rs "$src"/extensions.rs | awk '!seen[$1]++' >> "$(dirname "$0")/ash-0.38-types.txt"
