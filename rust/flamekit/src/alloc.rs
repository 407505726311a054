//! jemalloc as the Rust global allocator, in the two forms services run:
//! - [`SharedJemalloc`] (feature `shared-jemalloc`): the system's
//!   `libjemalloc.so.2`. It starts with `prof:true` by itself: the hook
//!   linked in defines jemalloc's `malloc_conf` as the preloaded hook does
//!   (`prof:true,prof_active:false,lg_prof_sample:19,prof_accum:true`);
//!   `MALLOC_CONF` overrides it.
//! - [`StaticJemalloc`] (feature `static-jemalloc`): the static,
//!   `_rjem_`-prefixed jemalloc of the `jemalloc-sys` crate (Debian's
//!   `librust-jemalloc-sys-dev`, tikv-jemallocator's default form). It
//!   reads `_rjem_malloc_conf` and `_RJEM_MALLOC_CONF`: say
//!   `flamekit::rjem_malloc_conf!();` once in the program, or set the
//!   environment variable.
//!
//! The hook finds either jemalloc with nothing passed (the shared one by
//! its exported `mallctl`, the static one by `_rjem_mallctl` in the
//! program's symbol table); a program stripped of its symbol table calls
//! `flamekit::set_mallctl(flamekit::alloc::rjem_mallctl)` first.
#[allow(unused_imports)]
use std::alloc::{GlobalAlloc, Layout};
#[allow(unused_imports)]
use std::os::raw::{c_int, c_void};

/// jemalloc's `MALLOCX_ZERO`.
#[allow(dead_code)]
const MALLOCX_ZERO: c_int = 0x40;

/// The flags of an allocation of layout: none when malloc's own alignment
/// (16 bytes on x86_64) suffices, else `MALLOCX_LG_ALIGN`.
#[allow(dead_code)]
#[inline]
fn flags(align: usize, size: usize) -> c_int {
    if align <= 16 && align <= size {
        0
    } else {
        align.trailing_zeros() as c_int
    }
}

/// A `GlobalAlloc` over one jemalloc's mallocx, rallocx and sdallocx.
macro_rules! jemalloc_alloc {
    ($name:ident, $mallocx:path, $rallocx:path, $sdallocx:path) => {
        unsafe impl GlobalAlloc for $name {
            #[inline]
            unsafe fn alloc(&self, l: Layout) -> *mut u8 {
                $mallocx(l.size(), flags(l.align(), l.size())) as *mut u8
            }
            #[inline]
            unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
                $mallocx(l.size(), flags(l.align(), l.size()) | MALLOCX_ZERO) as *mut u8
            }
            #[inline]
            unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
                $sdallocx(p as *mut c_void, l.size(), flags(l.align(), l.size()))
            }
            #[inline]
            unsafe fn realloc(&self, p: *mut u8, l: Layout, size: usize) -> *mut u8 {
                $rallocx(p as *mut c_void, size, flags(l.align(), size)) as *mut u8
            }
        }
    };
}

#[cfg(feature = "shared-jemalloc")]
mod shared {
    use std::os::raw::{c_char, c_int, c_void};

    // Linked by its soname (build.rs): -ljemalloc could find jemalloc-sys's
    // static, prefixed libjemalloc.a first.
    extern "C" {
        pub fn mallocx(size: usize, flags: c_int) -> *mut c_void;
        pub fn rallocx(p: *mut c_void, size: usize, flags: c_int) -> *mut c_void;
        pub fn sdallocx(p: *mut c_void, size: usize, flags: c_int);
        pub fn mallctl(
            name: *const c_char,
            oldp: *mut c_void,
            oldlenp: *mut usize,
            newp: *mut c_void,
            newlen: usize,
        ) -> c_int;
    }
}

/// The system's shared jemalloc (`libjemalloc.so.2`) as global allocator:
/// `#[global_allocator] static A: flamekit::alloc::SharedJemalloc =
/// flamekit::alloc::SharedJemalloc;`
#[cfg(feature = "shared-jemalloc")]
pub struct SharedJemalloc;

#[cfg(feature = "shared-jemalloc")]
jemalloc_alloc!(SharedJemalloc, shared::mallocx, shared::rallocx, shared::sdallocx);

/// The shared jemalloc's `mallctl`.
#[cfg(feature = "shared-jemalloc")]
pub use shared::mallctl;

/// jemalloc-sys's static `_rjem_` jemalloc as global allocator:
/// `#[global_allocator] static A: flamekit::alloc::StaticJemalloc =
/// flamekit::alloc::StaticJemalloc;`
#[cfg(feature = "static-jemalloc")]
pub struct StaticJemalloc;

#[cfg(feature = "static-jemalloc")]
jemalloc_alloc!(
    StaticJemalloc,
    jemalloc_sys::mallocx,
    jemalloc_sys::rallocx,
    jemalloc_sys::sdallocx
);

/// The static jemalloc's `mallctl` (`_rjem_mallctl`), for
/// `flamekit::set_mallctl` in a program stripped of its symbol table.
#[cfg(feature = "static-jemalloc")]
pub use jemalloc_sys::mallctl as rjem_mallctl;

/// A `const char *` jemalloc reads at start (its `malloc_conf`).
#[repr(transparent)]
pub struct Conf(pub *const u8);
unsafe impl Sync for Conf {}

/// Defines `_rjem_malloc_conf`, the configuration the static `_rjem_`
/// jemalloc reads at start: `prof:true,prof_active:false,lg_prof_sample:19,
/// prof_accum:true` (the preloaded hook's), or the text given. Say it once,
/// in the program (not in a library): `flamekit::rjem_malloc_conf!();`.
/// `_RJEM_MALLOC_CONF` in the environment still overrides it.
#[macro_export]
macro_rules! rjem_malloc_conf {
    () => {
        $crate::rjem_malloc_conf!("prof:true,prof_active:false,lg_prof_sample:19,prof_accum:true");
    };
    ($conf:expr) => {
        #[export_name = "_rjem_malloc_conf"]
        #[used]
        pub static FLAMEKIT_RJEM_MALLOC_CONF: $crate::alloc::Conf =
            $crate::alloc::Conf(concat!($conf, "\0").as_ptr());
    };
}
