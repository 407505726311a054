// Builds the hook as one static archive (both halves: the project's
// `make hook-static`, capture/build.mk) and links it in; the system
// libraries it needs (libmicrohttpd, libdw, protobuf-c, libxml2...) are
// linked dynamically, as `make hook-static-libs` names them.
//
// FLAMEKIT_BUILD_DIR: a build folder of the project to build in and reuse
// (the tests give theirs, `make B=...`); else one inside cargo's OUT_DIR.
use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

fn make(top: &Path, build: &Path) -> Command {
    let mut c = Command::new(env::var("MAKE").unwrap_or_else(|_| "make".to_string()));
    // A make above cargo (make check) passes its own variables (B=,
    // SANITIZE=, WERROR=) through the environment: not to this one.
    for v in &["MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES"] {
        c.env_remove(v);
    }
    c.arg("-C").arg(top).arg(format!("B={}", build.display()));
    c
}

fn run(mut c: Command, what: &str) -> String {
    let out = c
        .output()
        .unwrap_or_else(|e| panic!("flamekit: cannot run make for {}: {}", what, e));
    if !out.status.success() {
        panic!(
            "flamekit: make {} failed:\n{}{}",
            what,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn link_shared_jemalloc() {
    let cc = env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let out = Command::new(&cc)
        .arg("-print-file-name=libjemalloc.so.2")
        .output()
        .unwrap_or_else(|e| panic!("flamekit: cannot run {}: {}", cc, e));
    let lib = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim().to_string());
    if !lib.is_absolute() || !lib.exists() {
        panic!("flamekit: feature shared-jemalloc: no libjemalloc.so.2 (Debian: libjemalloc2)");
    }
    let dir = PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR")).join("jemalloc-link");
    let link = dir.join("libflamekit-jemalloc.so");
    std::fs::create_dir_all(&dir).expect("flamekit: OUT_DIR");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(&lib, &link).expect("flamekit: link to libjemalloc.so.2");
    println!("cargo:rustc-link-search=native={}", dir.display());
    println!("cargo:rustc-link-lib=dylib=flamekit-jemalloc");
}

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let top = manifest
        .join("../..")
        .canonicalize()
        .expect("flamekit: the project's folder (rust/flamekit/../..)");
    let build = match env::var_os("FLAMEKIT_BUILD_DIR") {
        Some(d) if !d.is_empty() => {
            let d = PathBuf::from(d);
            if d.is_absolute() {
                d
            } else {
                top.join(d)
            }
        }
        _ => PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR")).join("flamekit-c"),
    };
    let jobs = env::var("NUM_JOBS").unwrap_or_else(|_| "2".to_string());

    let mut c = make(&top, &build);
    c.arg(format!("-j{}", jobs)).arg("hook-static");
    run(c, "hook-static");
    let mut c = make(&top, &build);
    c.arg("-s").arg("hook-static-libs");
    let libs = run(c, "hook-static-libs");

    println!("cargo:rustc-link-search=native={}", build.display());
    println!("cargo:rustc-link-lib=static=flamekit-hook");
    let mut seen = Vec::new();
    for w in libs.split_whitespace() {
        let name = if w == "-pthread" {
            "pthread"
        } else if let Some(n) = w.strip_prefix("-l") {
            n
        } else if let Some(d) = w.strip_prefix("-L") {
            println!("cargo:rustc-link-search=native={}", d);
            continue;
        } else {
            continue;
        };
        if !seen.iter().any(|s: &String| s == name) {
            seen.push(name.to_string());
            println!("cargo:rustc-link-lib={}", name);
        }
    }
    // The shared jemalloc by its soname (Debian's libjemalloc2): -ljemalloc
    // could find jemalloc-sys's static, prefixed libjemalloc.a first.
    // It is linked as libflamekit-jemalloc.so, a link to the system's
    // library made here: the program's NEEDED names its soname.
    if env::var_os("CARGO_FEATURE_SHARED_JEMALLOC").is_some() {
        link_shared_jemalloc();
    }
    println!("cargo:rerun-if-env-changed=FLAMEKIT_BUILD_DIR");
    println!("cargo:rerun-if-changed=build.rs");
    for d in &["Makefile", "core", "symbolize", "encode", "render", "capture"] {
        println!("cargo:rerun-if-changed={}", top.join(d).display());
    }
}
