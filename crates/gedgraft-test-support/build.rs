//! Sets `GEDGRAFT_SHARED_DIR`, where the shared corpus and specs are (see `tests/support/shared.rs`).

include!("../../tests/support/shared.rs");

fn main() {
    configure(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."));
}
