//! Helpers shared by the test binaries of braid-cli.
pub mod counting_alloc;
