//! The kit's macros (textually scoped: `mod.rs` declares this module first).

/// Fills `$table.$field` with `$f::<D>` for each `$field` whose twin command `$twin` the
/// vendor implements ("one hook per concept": a command routed to the form the vendor wrote).
macro_rules! route {
    ($table:ident, $D:ident: $($field:ident => $twin:ident via $f:ident),+ $(,)?) => {
        $(
            if <$D as vkgen_generated::driver::Driver>::implements(
                vkgen_generated::commands::CommandId::$twin,
            ) {
                $table.$field = Some($f::<$D>);
            }
        )+
    };
}
