//! Names the build that `braid bench` prints beside its figures (`bench::build_label`), from the
//! flags the compiler was actually given (Cargo's `CARGO_ENCODED_RUSTFLAGS`), so that a figure
//! can never be credited to a build it did not come from: a profile-guided build
//! (`scripts/build-pgo.sh`: `-Cprofile-use`, or its instrumented stage, `-Cprofile-generate`),
//! and the inliner threshold (`.cargo/config.toml`, which a `RUSTFLAGS` variable replaces).

fn main() {
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    let flags: Vec<&str> = flags.split('\u{1f}').collect();
    let has = |name: &str| flags.iter().any(|f| f.contains(name));
    let mut label = String::new();
    if has("profile-use") {
        label.push_str("+pgo");
    } else if has("profile-generate") {
        label.push_str("+pgo-instrumented");
    }
    // `-Cllvm-args=-inline-threshold=N`, or `-C` `llvm-args=-inline-threshold=N`.
    if let Some(n) = flags.iter().find_map(|f| f.split("inline-threshold=").nth(1)) {
        label.push_str("+inline");
        label.push_str(n);
    }
    println!("cargo:rustc-env=BRAID_BUILD_FLAGS={label}");
    // Cargo reruns this when the flags change (they are part of the build's fingerprint); no
    // source file of the package bears on the label.
    println!("cargo:rerun-if-changed=build.rs");
}
