//! Finds the shared corpus and specs for the workspace tests: sets the cfgs `has_corpus` and `has_spec` and
//! the variable `GEDGRAFT_SHARED_DIR` (see `support/shared.rs`).

include!("support/shared.rs");

fn main() {
    configure(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".."));
}
