//! Finds the shared corpus and specs for this crate's tests: sets the cfgs `has_corpus` and `has_spec` and the
//! variable `GEDGRAFT_SHARED_DIR` (see `tests/support/shared.rs` at the workspace root).

include!("../../tests/support/shared.rs");

fn main() {
    configure(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."));
}
