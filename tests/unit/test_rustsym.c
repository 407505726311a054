/* Unit tests of symbolize/rustsym.c and of the Rust parts of symname.c and
 * allocframes.c: demangling vectors for every construct of the v0 grammar
 * and of the legacy scheme, real names from Rust 1.95's standard library and
 * compiler, malformed and truncated names, the bounds on depth and output,
 * clone suffixes of legacy names, and Rust's allocator frames. The expected
 * strings are what rustc-demangle prints in its alternate form ({:#}), but
 * for malformed names, where it prints what it could and we give NULL. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t.h"
#include "limits.h"
#include "symbolize_int.h"

struct vec {
	const char *in, *want;
};

static const struct vec good[] = {
	/* The rustc book's examples (v0 Symbol Format): crate root, inherent and
	 * trait impls, trait definition, closures, generics, consts, Punycode,
	 * binders, placeholders, arrays, back references, instantiating crate. */
	{ "_RNvCs15kBYyAo9fc_7mycrate7example", "mycrate::example" },
	{ "_RNvMsr_NtCs3ssYzQotkvD_3std4pathNtB5_7PathBuf3newCs15kBYyAo9fc_7mycrate",
	  "<std::path::PathBuf>::new" },
	{ "_RNvMs_Cs4Cv8Wi1oAIB_7mycrateNtB4_7Example3foo",
	  "<mycrate::Example>::foo" },
	{ "_RNvXCs15kBYyAo9fc_7mycrateNtB2_7ExampleNtB2_5Trait3foo",
	  "<mycrate::Example as mycrate::Trait>::foo" },
	{ "_RNvYNtCs15kBYyAo9fc_7mycrate7ExampleNtB4_5Trait7exampleB4_",
	  "<mycrate::Example as mycrate::Trait>::example" },
	{ "_RNCNvCsgStHSCytQ6I_7mycrate4main0B3_",
	  "mycrate::main::{closure#0}" },
	{ "_RNCNvCsgStHSCytQ6I_7mycrate4mains_0B3_",
	  "mycrate::main::{closure#1}" },
	{ "_RINvCsgStHSCytQ6I_7mycrate7examplelKj1_EB2_",
	  "mycrate::example::<i32, 1>" },
	{ "_RNvNtNtCsgOH4LzxkuMq_7mycrateu8gdel_5qa6escher4bach",
	  "mycrate::gödel::escher::bach" },
	{ "_RINvCs7qp2U7fqm6G_7mycrate7exampleFG0_RL1_hRL0_tEuEB2_",
	  "mycrate::example::<for<'a, 'b> fn(&'a u8, &'b u16)>" },
	{ "_RINvCs7qp2U7fqm6G_7mycrate7exampleKy12345678_EB2_",
	  "mycrate::example::<305419896>" },
	{ "_RNvNvMCsd9PVOYlP1UU_7mycrateINtB4_7ExamplepKpE3foo14EXAMPLE_STATIC",
	  "<mycrate::Example<_, _>>::foo::EXAMPLE_STATIC" },
	{ "_RINvCs7qp2U7fqm6G_7mycrate7exampleAtj8_EB2_",
	  "mycrate::example::<[u16; 8]>" },
	{ "_RINvCs7qp2U7fqm6G_7mycrate7exampleNtB2_7ExampleBw_EB2_",
	  "mycrate::example::<mycrate::Example, mycrate::Example>" },
	{ "_RINvMsY_NtCseXNvpPnDBDp_3std4pathNtB6_4Path3neweECs7qp2U7fqm6G_7mycrate",
	  "<std::path::Path>::new::<str>" },
	{ "_RINvCs7qp2U7fqm6G_7mycrate7exampleDNtB2_1TEL_EB2_",
	  "mycrate::example::<dyn mycrate::T>" },
	/* Paths: generic arguments of a value (turbofish) and of a type, impl
	 * paths that are not shown, namespaces. */
	{ "_RC1a", "a" },
	{ "_RNvC0_1f", "::f" },
	{ "_RIC1aE", "a::<>" },
	{ "_RIC1ahhE", "a::<u8, u8>" },
	{ "_RMC1aNvC1b1c", "<b::c>" },
	{ "_RNvMC1aNtC1b1c3foo", "<b::c>::foo" },
	{ "_RNvXC1aNtC1b1cINtC1b1dhE3foo", "<b::c as b::d<u8>>::foo" },
	{ "_RNSNvC1a1f6vtable", "a::f::{shim:vtable#0}" },
	{ "_RNSNvC1a1fs0_6vtable", "a::f::{shim:vtable#2}" },
	{ "_RNSNvC1a1f0", "a::f::{shim#0}" },
	{ "_RNXNvC1a1f3foo", "a::f::{X:foo#0}" },
	{ "_RNXNvC1a1f0", "a::f::{X#0}" },
	{ "_RNvC1a10_0123456789", "a::0123456789" },
	{ "__RNvC1a1f", "a::f" },
	/* Types: every basic type, slices, pointers, references with and without
	 * lifetimes, tuples, arrays, fn pointers, dyn traits with bindings. */
	{ "_RINvC1a1fTabcdefhijlmnostuvxyzpEE",
	  "a::f::<(i8, bool, char, f64, str, f32, u8, isize, usize, i32, u32, i128, u128, i16, u16, (), ..., i64, u64, !, _)>" },
	{ "_RINvC1a1fShPhOhRhQhEB2_",
	  "a::f::<[u8], *const u8, *mut u8, &u8, &mut u8>" },
	{ "_RINvC1a1fThEE", "a::f::<(u8,)>" },
	{ "_RINvC1a1fTEE", "a::f::<()>" },
	{ "_RINvC1a1fRL_hE", "a::f::<&u8>" },
	{ "_RINvC1a1fQL_hE", "a::f::<&mut u8>" },
	{ "_RINvC1a1fAhj8_E", "a::f::<[u8; 8]>" },
	{ "_RINvC1a1fAhpE", "a::f::<[u8; _]>" },
	{ "_RINvC1a1fFUKCmEuE", "a::f::<unsafe extern \"C\" fn(u32)>" },
	{ "_RINvC1a1fFK7rust_ctEyE", "a::f::<extern \"rust-ct\" fn() -> u64>" },
	{ "_RINvC1a1fFKCvEuE", "a::f::<extern \"C\" fn(...)>" },
	{ "_RINvC1a1fFEzE", "a::f::<fn() -> !>" },
	{ "_RINvC1a1fFG_QL0_hEuE", "a::f::<for<'a> fn(&'a mut u8)>" },
	{ "_RINvC1a1fFG_RL0_QL0_hEuE", "a::f::<for<'a> fn(&'a &'a mut u8)>" },
	{ "_RINvC1a1fFGp_RL1_hEuE",
	  "a::f::<for<'a, 'b, 'c, 'd, 'e, 'f, 'g, 'h, 'i, 'j, 'k, 'l, 'm, 'n, 'o, 'p, 'q, 'r, 's, 't, 'u, 'v, 'w, 'x, 'y, 'z, '_26> fn(&'z u8)>" },
	{ "_RINvC1a1fDNtC4core3AnyEL_E", "a::f::<dyn core::Any>" },
	{ "_RINvC1a1fDNtC1a1TNtC1a1UEL_E", "a::f::<dyn a::T + a::U>" },
	{ "_RINvC1a1fDINtC1a2FnTmEEp6OutputuEL_E",
	  "a::f::<dyn a::Fn<(u32,), Output = ()>>" },
	{ "_RINvC1a1fDNtC1a2Fnp6OutputuEL_E",
	  "a::f::<dyn a::Fn<Output = ()>>" },
	{ "_RINvC1a1fDINtC1a2FnTmEEp6Outputup4ItemhEL_E",
	  "a::f::<dyn a::Fn<(u32,), Output = (), Item = u8>>" },
	{ "_RINvC1a1fDG_NtC1a1TEL_E", "a::f::<dyn for<'a> a::T>" },
	{ "_RINvC1a1fRL_DNtC1a1TEL_E", "a::f::<&dyn a::T>" },
	{ "_RINvC1a1fFG_RL0_DNtC1a1TEL0_EuE",
	  "a::f::<for<'a> fn(&'a dyn a::T + 'a)>" },
	/* Consts: integers (signed, past 64 bits), bool, char escapes, the
	 * placeholder, and the structured consts of adt_const_params. */
	{ "_RINvC1a1fKln5_E", "a::f::<-5>" },
	{ "_RINvC1a1fKl0_E", "a::f::<0>" },
	{ "_RINvC1a1fKl_E", "a::f::<0>" },
	{ "_RINvC1a1fKb1_Kb0_E", "a::f::<true, false>" },
	{ "_RINvC1a1fKc41_Kca_Kc0_Kc27_Kc5c_Kc22_Kc7f_Kce9_Kc1f926_E",
	  "a::f::<'A', '\\n', '\\0', '\\'', '\\\\', '\"', '\\u{7f}', 'é', '🤦'>" },
	{ "_RINvC1a1fKcacce8_Kce91f9_Kcad_Kce000_Kc4e00_Kc20000_Kc200b_E",
	  "a::f::<'\\u{acce8}', '\\u{e91f9}', '\\u{ad}', '\\u{e000}', '一', '𠀀', '\\u{200b}'>" },
	{ "_RINvC1a1fKo123456789abcdef0123_E",
	  "a::f::<0x123456789abcdef0123>" },
	{ "_RINvC1a1fKn00000000000000000000000000000001_E", "a::f::<1>" },
	{ "_RINvC1a1fKyffffffffffffffff_E", "a::f::<18446744073709551615>" },
	{ "_RINvC1a1fKpE", "a::f::<_>" },
	{ "_RINvC1a1fKRe616263_E", "a::f::<\"abc\">" },
	{ "_RINvC1a1fKRe22275c0a_E", "a::f::<\"\\\"'\\\\\\n\">" },
	{ "_RINvC1a1fKRe_E", "a::f::<\"\">" },
	{ "_RINvC1a1fKRec3a9_E", "a::f::<\"é\">" },
	{ "_RINvC1a1fKRe00_E", "a::f::<\"\\0\">" },
	{ "_RINvC1a1fKRe7f_E", "a::f::<\"\\u{7f}\">" },
	{ "_RINvC1a1fKRef09fa4a6_E", "a::f::<\"🤦\">" },
	{ "_RINvC1a1fKRedfbf_E", "a::f::<\"߿\">" },
	{ "_RINvC1a1fKe616263_E", "a::f::<{*\"abc\"}>" },
	{ "_RINvC1a1fKAj1_j2_EE", "a::f::<{[1, 2]}>" },
	{ "_RINvC1a1fKTb1_c41_EE", "a::f::<{(true, 'A')}>" },
	{ "_RINvC1a1fKTb1_EE", "a::f::<{(true,)}>" },
	{ "_RINvC1a1fKRAj1_EE", "a::f::<{&[1]}>" },
	{ "_RINvC1a1fKQj1_E", "a::f::<{&mut 1}>" },
	{ "_RINvC1a1fKQe61_E", "a::f::<{&mut *\"a\"}>" },
	{ "_RINvC1a1fKRRe61_E", "a::f::<{&\"a\"}>" },
	{ "_RINvC1a1fKARe61_EE", "a::f::<{[\"a\"]}>" },
	{ "_RINvC1a1fKTRe61_Re62_EE", "a::f::<{(\"a\", \"b\")}>" },
	{ "_RINvC1a1fKVNtC1a1EUE", "a::f::<{a::E}>" },
	{ "_RINvC1a1fKVNtC1a1ETj1_j2_EE", "a::f::<{a::E(1, 2)}>" },
	{ "_RINvC1a1fKVNtC1a1ES1xj1_1yb0_EE",
	  "a::f::<{a::E { x: 1, y: false }}>" },
	{ "_RINvC1a1fKVNtC1a1ETRe61_EE", "a::f::<{a::E(\"a\")}>" },
	{ "_RINvC1a1fKVNtC1a1ES1xRe61_EE", "a::f::<{a::E { x: \"a\" }}>" },
	/* Punycode identifiers (the rustc book's table). */
	{ "_RNvC1au6f_5gaa", "a::føø" },
	{ "_RNvC1au7___ylb7e", "a::α_ω" },
	{ "_RNvC1au6n84amf", "a::铁锈" },
	{ "_RNvC1au4fq9h", "a::🤦" },
	{ "_RNvC1au6_2xaedc", "a::ρυστ" },
	{ "_RNvNtC1au6f_5gaa1b", "a::føø::b" },
	/* Suffixes: LLVM's .llvm.<digits> is not shown, others are. */
	{ "_RNvC1a1f.0", "a::f.0" },
	{ "_RNvC1a1f.llvm.123", "a::f" },
	{ "_RNvC1a1f.llvm.12AB", "a::f" },
	{ "_RNvC1a1f.llvm.12ab", "a::f.llvm.12ab" },
	{ "_RNvC1a1f.cold", "a::f.cold" },
	{ "_RNvC1a1f.", "a::f." },
	/* Legacy names: escapes, "..", the hash, suffixes. */
	{ "_ZN1m5Cache4fill17h42903005fd403656E", "m::Cache::fill" },
	{ "_ZN5alloc3vec16Vec$LT$T$C$A$GT$4push17h26ed000000000000E",
	  "alloc::vec::Vec<T,A>::push" },
	{ "_ZN3foo3bar17h05af221e174051e9E", "foo::bar" },
	{ "_ZN3foo3bar17h05af221e174051e9E.llvm.12345", "foo::bar" },
	{ "_ZN3foo3bar17h05af221e174051e9E.0", "foo::bar.0" },
	{ "_ZN3foo3bar17h05af221e174051e9E.llvm.12x", "foo::bar.llvm.12x" },
	{ "_ZN3foo17h05af221e174051e9E", "foo" },
	{ "__ZN3foo3bar17h05af221e174051e9E", "foo::bar" },
	{ "_ZN4$SP$4$BP$4$RF$4$LT$4$GT$4$LP$4$RP$3$C$17h05af221e174051e9E",
	  "@::*::&::<::>::(::)::," },
	{ "_ZN11$u7e$$u20$x17h05af221e174051e9E", "~ x" },
	{ "_ZN6_$u7b$17h05af221e174051e9E", "{" },
	{ "_ZN13gr$uf6$$udf$e17h05af221e174051e9E", "größe" },
	{ "_ZN4core5clone5impls54_$LT$impl$u20$core..clone..Clone$u20$for$u20$usize$GT$5clone17h0123456789abcdefE",
	  "core::clone::impls::<impl core::clone::Clone for usize>::clone" },
	{ "_ZN1_17h05af221e174051e9E", "_" },
	{ "_ZN2_a17h05af221e174051e9E", "_a" },
	{ "_ZN6a..b.c17h05af221e174051e9E", "a::b.c" },
	{ "_ZN003foo17h05af221e174051e9E", "foo" },
	{ "_ZN3foo0017h05af221e174051e9E", "foo" },
	/* Legacy escapes that are none: the rest of the element is shown as it is. */
	{ "_ZN7a$XY$bc17h05af221e174051e9E", "a$XY$bc" },
	{ "_ZN7a$u$bcd17h05af221e174051e9E", "a$u$bcd" },
	{ "_ZN9a$u7f$bcd17h05af221e174051e9E", "a$u7f$bcd" },
	{ "_ZN9a$ud800$b17h05af221e174051e9E", "a$ud800$b" },
	{ "_ZN9a$u41$bcd17h05af221e174051e9E", "aAbcd" },
	{ "_ZN9a$u4A$bcd17h05af221e174051e9E", "a$u4A$bcd" },
	{ "_ZN9a$uf6$bcd17h05af221e174051e9E", "aöbcd" },
	{ "_ZN6a$bcde17h05af221e174051e9E", "a$bcde" },
	{ "_ZN7a$LT$bc17h05af221e174051e9E", "a<bc" },
	/* Instantiating crates, parsed but not shown; they may be back references. */
	{ "_RNvC1a1fC1b", "a::f" },
	{ "_RNvC1a1fNvC1b1c", "a::f" },
	{ "_RNvC1a1fB2_", "a::f" },
	{ "_RNvC1a1fB_", "a::f" },
};

/* Names from the symbol tables of Rust 1.95's binaries and rlibs, picked
 * for closures, shims, dyn traits, fn pointers, higher-ranked lifetimes,
 * arrays, raw pointers, the never type, consts and legacy escapes. */
static const struct vec real[] = {
	{ "_RNCNvNtCsjrHSEGnQ3l9_3std5alloc8rust_oom0B5_",
	  "std::alloc::rust_oom::{closure#0}" },
	{ "_RNCNvNtCsjrHSEGnQ3l9_3std9panicking12default_hook0B5_",
	  "std::panicking::default_hook::{closure#0}" },
	{ "_RNSNvYNCNvNtNtNtCsjrHSEGnQ3l9_3std3sys11personality3gcc14find_eh_action0INtNtNtCsgEmfK2I1SDS_4core3ops8function6FnOnceuE9call_once6vtableBe_",
	  "<std::sys::personality::gcc::find_eh_action::{closure#0} as core::ops::function::FnOnce<()>>::call_once::{shim:vtable#0}" },
	{ "_RNSNvYNCNvNtNtNtCsjrHSEGnQ3l9_3std3sys11personality3gcc14find_eh_actions_0INtNtNtCsgEmfK2I1SDS_4core3ops8function6FnOnceuE9call_once6vtableBe_",
	  "<std::sys::personality::gcc::find_eh_action::{closure#1} as core::ops::function::FnOnce<()>>::call_once::{shim:vtable#0}" },
	{ "_RNvXs1g_NtCsgEmfK2I1SDS_4core3fmtRDNtB6_5DebugEL_Bx_3fmtB8_",
	  "<&dyn core::fmt::Debug as core::fmt::Debug>::fmt" },
	{ "_RNvXs_NtCs8NwYtU1Mohg_4core3anyDNtB4_3AnyEL_NtNtB6_3fmt5Debug3fmt",
	  "<dyn core::any::Any as core::fmt::Debug>::fmt" },
	{ "_RNvMs3_NtCsbEht8wFNRx7_5alloc7raw_vecINtB5_6RawVecTOhFUKCBN_EuENtNtCsi4IsKQVxMg0_3std5alloc6SystemE8grow_oneB13_",
	  "<alloc::raw_vec::RawVec<(*mut u8, unsafe extern \"C\" fn(*mut u8)), std::alloc::System>>::grow_one" },
	{ "_RNvMs3_NtCslNYArtu3iFV_5alloc7raw_vecINtB5_6RawVecTOhFUKCBN_EuENtNtCsjrHSEGnQ3l9_3std5alloc6SystemE8grow_oneB13_",
	  "<alloc::raw_vec::RawVec<(*mut u8, unsafe extern \"C\" fn(*mut u8)), std::alloc::System>>::grow_one" },
	{ "_RNvXs0_NtNtCs37hIe2BRrty_18tracing_subscriber3fmt4timeFG0_QL1_INtNtB7_6format6WriterL0_EEINtNtCs8NwYtU1Mohg_4core6result6ResultuNtNtB1u_3fmt5ErrorENtB5_10FormatTime11format_time",
	  "<for<'a, 'b> fn(&'a mut tracing_subscriber::fmt::format::Writer<'b>) -> core::result::Result<(), core::fmt::Error> as tracing_subscriber::fmt::time::FormatTime>::format_time" },
	{ "_RNvXs0_NtNtCs7OxSQD10jZQ_18tracing_subscriber3fmt4timeFG0_QL1_INtNtB7_6format6WriterL0_EEINtNtCsgEmfK2I1SDS_4core6result6ResultuNtNtB1u_3fmt5ErrorENtB5_10FormatTime11format_time",
	  "<for<'a, 'b> fn(&'a mut tracing_subscriber::fmt::format::Writer<'b>) -> core::result::Result<(), core::fmt::Error> as tracing_subscriber::fmt::time::FormatTime>::format_time" },
	{ "_RNvXs1h_NtCs8NwYtU1Mohg_4core3fmtQShNtB6_5Debug3fmtCscYsbIx0cOGh_14rustc_demangle",
	  "<&mut [u8] as core::fmt::Debug>::fmt" },
	{ "_RNvXs1h_NtCsgEmfK2I1SDS_4core3fmtQShNtB6_5Debug3fmtCsgY6Mt91CT9J_14rustc_demangle",
	  "<&mut [u8] as core::fmt::Debug>::fmt" },
	{ "_RINvNtCs8NwYtU1Mohg_4core9panicking13assert_failedPuBM_ECsdVlYlcEixFp_9dyn_clone",
	  "core::panicking::assert_failed::<*const (), *const ()>" },
	{ "_RINvNtCsgEmfK2I1SDS_4core9panicking13assert_failedPuBM_ECsjdZfHBviKpM_9dyn_clone",
	  "core::panicking::assert_failed::<*const (), *const ()>" },
	{ "_RNvXsq_NtCsgEmfK2I1SDS_4core3fmtONtNtB7_3ffi6c_voidNtB5_5Debug3fmtCsjrHSEGnQ3l9_3std",
	  "<*mut core::ffi::c_void as core::fmt::Debug>::fmt" },
	{ "_RINvNtCs8NwYtU1Mohg_4core9panicking13assert_failedONtNtB4_3ffi6c_voidBM_ECs3QvkDaNtmvS_7stacker",
	  "core::panicking::assert_failed::<*mut core::ffi::c_void, *mut core::ffi::c_void>" },
	{ "_RNvXs0_NtCseQVuubCcFDg_12simd_adler324hashAhj0_NtB7_11Adler32Hash4hash",
	  "<[u8; 0] as simd_adler32::Adler32Hash>::hash" },
	{ "_RNvXs0_NtCsfoXig8kEbyV_12simd_adler324hashAhj0_NtB7_11Adler32Hash4hash",
	  "<[u8; 0] as simd_adler32::Adler32Hash>::hash" },
	{ "_RINvNtCsgEmfK2I1SDS_4core3ptr13drop_in_placeINtNtCslNYArtu3iFV_5alloc5boxed3BoxDG0_INtNtNtB4_3ops8function2FnTRL1_INtNtCsjrHSEGnQ3l9_3std5panic13PanicHookInfoL0_EEEp6OutputuNtNtB4_6marker4SyncNtB2N_4SendEL_EEB1T_",
	  "core::ptr::drop_in_place::<alloc::boxed::Box<dyn for<'a, 'b> core::ops::function::Fn<(&'a std::panic::PanicHookInfo<'b>,), Output = ()> + core::marker::Sync + core::marker::Send>>" },
	{ "_RNvMs3_NtCsbEht8wFNRx7_5alloc7raw_vecINtB5_6RawVecINtNtB7_5boxed3BoxDINtNtNtCs8NwYtU1Mohg_4core3ops8function5FnMutuEp6OutputINtNtB1c_6result6ResultuNtNtNtCsi4IsKQVxMg0_3std2io5error5ErrorENtNtB1c_6marker4SyncNtB32_4SendEL_EE8grow_oneB2s_",
	  "<alloc::raw_vec::RawVec<alloc::boxed::Box<dyn core::ops::function::FnMut<(), Output = core::result::Result<(), std::io::error::Error>> + core::marker::Sync + core::marker::Send>>>::grow_one" },
	{ "_RINvNtCsjrHSEGnQ3l9_3std2rt15handle_rt_paniciEB4_",
	  "std::rt::handle_rt_panic::<isize>" },
	{ "_RINvNtCsi4IsKQVxMg0_3std9panicking11begin_panicReEB4_",
	  "std::panicking::begin_panic::<&str>" },
	{ "_RINvMs_NtCsgVdDwkt78Uu_4jiff5errorNtB5_5Error5rangeINtNtNtB7_4util8rangeint4ri32Knn3b9ac9ff_Kn3b9ac9ff_EllEB7_",
	  "<jiff::error::Error>::range::<jiff::util::rangeint::ri32<-999999999, 999999999>, i32, i32>" },
	{ "_RINvMs_NtCshg5UprtI8ZK_4jiff5errorNtB5_5Error5rangeINtNtNtB7_4util8rangeint4ri32Knn3b9ac9ff_Kn3b9ac9ff_EllEB7_",
	  "<jiff::error::Error>::range::<jiff::util::rangeint::ri32<-999999999, 999999999>, i32, i32>" },
	{ "_RNvXs0_NtCs8NwYtU1Mohg_4core3anyDNtB5_3AnyNtNtB7_6marker4SendEL_NtNtB7_3fmt5Debug3fmt",
	  "<dyn core::any::Any + core::marker::Send as core::fmt::Debug>::fmt" },
	{ "_RNvXs0_NtCsgEmfK2I1SDS_4core3anyDNtB5_3AnyNtNtB7_6marker4SendEL_NtNtB7_3fmt5Debug3fmt",
	  "<dyn core::any::Any + core::marker::Send as core::fmt::Debug>::fmt" },
	{ "_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17ha4cd5f503635a93eE",
	  "std::rt::lang_start::{{closure}}" },
	{ "_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17hcfc949e0d5b46085E.llvm.7729318033176836097",
	  "std::rt::lang_start::{{closure}}" },
	{ "_RNvXss_NtCsgEmfK2I1SDS_4core3fmtuNtB5_5Debug3fmt",
	  "<() as core::fmt::Debug>::fmt" },
	{ "_RNvXs1g_NtCsgEmfK2I1SDS_4core3fmtRuNtB6_5Debug3fmtCsjrHSEGnQ3l9_3std",
	  "<&() as core::fmt::Debug>::fmt" },
	{ "_RNvXs_NtCsdlM2EbGYIhh_9rustc_hir10intravisitzNtB4_9HirTyCtxt8hir_body",
	  "<! as rustc_hir::intravisit::HirTyCtxt>::hir_body" },
	{ "_RNvXs_NtCsdlM2EbGYIhh_9rustc_hir10intravisitzNtB4_9HirTyCtxt8hir_item",
	  "<! as rustc_hir::intravisit::HirTyCtxt>::hir_item" },
	{ "_RNvNvMs0_Cs9Gga4UosLDO_6thorinINtB7_12DwarfPackagepE6finish10___CALLSITE",
	  "<thorin::DwarfPackage<_>>::finish::__CALLSITE" },
	{ "_RNvNvMs0_CsbGtBhuoaTKY_6thorinINtB7_12DwarfPackagepE6finish10___CALLSITE",
	  "<thorin::DwarfPackage<_>>::finish::__CALLSITE" },
	{ "_RNvNvMNtCs8NwYtU1Mohg_4core5sliceSp16align_to_offsets3gcd",
	  "<[_]>::align_to_offsets::gcd" },
	{ "_RNvNvMNtCsgEmfK2I1SDS_4core5sliceSp16align_to_offsets3gcd",
	  "<[_]>::align_to_offsets::gcd" },
	{ "_ZN7fk_rust13gr$uf6$$udf$e17h5c0bff695128bba7E",
	  "fk_rust::größe" },
	{ "_ZN4core3ptr196drop_in_place$LT$hashbrown..scopeguard..ScopeGuard$LT$hashbrown..raw..RawTableInner$C$hashbrown..raw..RawTableInner..prepare_resize$LT$alloc..alloc..Global$GT$..$u7b$$u7b$closure$u7d$$u7d$$GT$$GT$17h541752b97aa5b445E",
	  "core::ptr::drop_in_place<hashbrown::scopeguard::ScopeGuard<hashbrown::raw::RawTableInner,hashbrown::raw::RawTableInner::prepare_resize<alloc::alloc::Global>::{{closure}}>>" },
	{ "_ZN4core3ptr181drop_in_place$LT$hashbrown..scopeguard..ScopeGuard$LT$$RF$mut$u20$hashbrown..raw..RawTableInner$C$hashbrown..raw..RawTableInner..rehash_in_place..$u7b$$u7b$closure$u7d$$u7d$$GT$$GT$17h4fb5fa5efc348ac0E",
	  "core::ptr::drop_in_place<hashbrown::scopeguard::ScopeGuard<&mut hashbrown::raw::RawTableInner,hashbrown::raw::RawTableInner::rehash_in_place::{{closure}}>>" },
	{ "_ZN4core3ptr91drop_in_place$LT$alloc..vec..Vec$LT$alloc..boxed..Box$LT$dyn$u20$fk_rust..Shape$GT$$GT$$GT$17h558b56324dd7f797E.llvm.15452908869896011168",
	  "core::ptr::drop_in_place<alloc::vec::Vec<alloc::boxed::Box<dyn fk_rust::Shape>>>" },
	{ "_ZN4core3ptr82drop_in_place$LT$alloc..vec..Vec$LT$alloc..boxed..Box$LT$$u5b$u64$u5d$$GT$$GT$$GT$17h01359e4836120576E.llvm.15452908869896011168",
	  "core::ptr::drop_in_place<alloc::vec::Vec<alloc::boxed::Box<[u64]>>>" },
	{ "_ZN102_$LT$core..iter..adapters..map..Map$LT$I$C$F$GT$$u20$as$u20$core..iter..traits..iterator..Iterator$GT$4fold17he69ca41905d637afE",
	  "<core::iter::adapters::map::Map<I,F> as core::iter::traits::iterator::Iterator>::fold" },
	{ "_ZN98_$LT$alloc..vec..Vec$LT$T$GT$$u20$as$u20$alloc..vec..spec_from_iter..SpecFromIter$LT$T$C$I$GT$$GT$9from_iter17h16d02b0743bc5a0cE",
	  "<alloc::vec::Vec<T> as alloc::vec::spec_from_iter::SpecFromIter<T,I>>::from_iter" },
};

/* Names fk_symname_rust must refuse (NULL). */
static const char *const bad[] = {
	/* Not Rust, or malformed v0: truncated, bad tags, trailing bytes, an
	 * encoding version, back references to themselves or forward, lifetimes
	 * no binder binds, bad Punycode, bad consts, non-ASCII, empty output. */
	"main", "_Znwm", "_ZN2ns3Foo3barEi", "", "_", "R NvC1a1f", "_R", "_RN",
	"_RNv", "_RNvC", "_RNvC1", "_RNvC1a", "_RNvC1a1", "_RC0", "_RNvC1a1fE",
	"_RNvC1a1fx", "_R0NvC1a1f", "_RNvC1a1f. x", "_RNvC1a1f$x",
	"_RNvNvNvCs7qp2U7fqm6G_7mycrate7EXAMPLE7___getit5___KEY$tlv$init",
	"_RNvB_1a", "_RB_", "_RNvC1a1fB9_", "_RNvNCNvC1a1f0Y_3bar",
	"_RINvC1a1fLL_E", "_RINvC1a1fFG_RL1_hEuE", "_RINvC1a1fFG_RL2_hEuE",
	"_RINvC1a1fRL1_hE", "_RINvC1a1fFGq_RL1_hRL1a_hEuE",
	"_RINvC1a1fFG0_FG_RL1_hRL2_hRL3_hEuEuE", "_RNvC1a2_1", "_RNvC1a1_",
	"_RNvC1a01x", "_RNvC1au3ab_", "_RNvC1au2a_", "_RNvC1au3a_A",
	"_RINvC1a1fKRec3_E", "_RINvC1a1fKRec080_E", "_RINvC1a1fKRe0_E",
	"_RINvC1a1fKRe2Z_E", "_RINvC1a1fKRe0A_E", "_RINvC1a1fKb2_E",
	"_RINvC1a1fKcd800_E", "_RINvC1a1fKc110000_E", "_RINvC1a1fKhn1_E",
	"_RINvC1a1fKf1_E", "_RINvC1a1fKVNtC1a1EXE", "_RINvC1a1fFKu3ab_EuE",
	"_RINvC1a1fFKEuE", "_RNvC1a1fé",
	/* Not legacy Rust: no hash, a C++ name's parameters, a wrong hash, bad
	 * lengths, nothing but a hash, an empty name, non-ASCII. */
	"_ZN3foo3barE", "_ZN3foo3bar17h05af221e174051e9Ev",
	"_ZN3foo3bar17h05af221e174051e9", "_ZN17h05af221e174051e9E",
	"ZN3foo3bar17h05af221e174051e9E", "_ZN3foo3bar17H05af221e174051e9E",
	"_ZN3foo3bar17h05af221e174051eGE", "_ZN3foo3bar16h05af221e174051eE",
	"_ZN3foo3bar18h05af221e174051e99E", "_ZN0017h05af221e174051e9E",
	"_ZN99foo17h05af221e174051e9E", "_ZN3foo", "_ZN",
	"_ZN4fé17h05af221e174051e9E",
	"_ZN99999999999999999999999a17h05af221e174051e9E",
};

/* Demangles s[0..len) from a heap copy of exactly len bytes, so that
 * AddressSanitizer sees any read past len. */
static char *demangle(const char *s, size_t len)
{
	char *copy = malloc(len ? len : 1);
	if (!copy)
		return NULL;
	memcpy(copy, s, len);
	char *d = fk_symname_rust(copy, len);
	free(copy);
	return d;
}

static void check(const struct vec *v, size_t n, const char *what)
{
	for (size_t i = 0; i < n; i++) {
		char *d = demangle(v[i].in, strlen(v[i].in));
		if (v[i].want)
			T_EQ_STR(d, v[i].want, what);
		else
			T_OK(!d, "%s: %s not demangled", what, v[i].in);
		free(d);
	}
}

/* Every proper prefix of a good name is some name too: none may crash or
 * read past its end, and all but a few are refused. */
static void test_prefixes(void)
{
	size_t tried = 0, shown = 0;
	int bounded = 1;
	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
		size_t len = strlen(good[i].in);
		for (size_t k = 0; k < len; k++) {
			char *d = demangle(good[i].in, k);
			tried++;
			if (d) {
				shown++;
				bounded &= strlen(d) <= FK_MAX_NAME;
			}
			free(d);
		}
	}
	T_OK(bounded && shown < tried / 4, "%zu prefixes of good names: %zu shown", tried, shown);
}

static void test_bad(void)
{
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char *d = demangle(bad[i], strlen(bad[i]));
		T_OK(!d, "refused: '%s'%s%s", bad[i], d ? " gave " : "", d ? d : "");
		free(d);
	}
}

/* base-62 number for a back reference. */
static size_t put_b62(char *p, size_t v)
{
	char tmp[16];
	size_t n = 0;
	if (v == 0) {
		p[0] = '_';
		return 1;
	}
	v--;
	do {
		size_t d = v % 62;
		tmp[n++] = (char)(d < 10 ? '0' + d : d < 36 ? 'a' + d - 10 : 'A' + d - 36);
		v /= 62;
	} while (v);
	for (size_t i = 0; i < n; i++)
		p[i] = tmp[n - 1 - i];
	p[n] = '_';
	return n + 1;
}

static void test_bounds(void)
{
	static char s[200000];
	size_t n;
	char *d;

	/* Nesting: 200 modules are fine, 300 pass FK_MAX_RUST_DEPTH. */
	for (int levels = 200; levels <= 300; levels += 100) {
		n = 0;
		s[n++] = '_';
		s[n++] = 'R';
		for (int i = 0; i < levels; i++) {
			s[n++] = 'N';
			s[n++] = 't';
		}
		memcpy(s + n, "C1a", 3);
		n += 3;
		for (int i = 0; i < levels; i++) {
			memcpy(s + n, "1b", 2);
			n += 2;
		}
		d = demangle(s, n);
		if (levels == 200)
			T_OK(d && strlen(d) == 1 + 3 * 200, "200 nested modules demangled");
		else
			T_OK(!d, "300 nested modules pass the depth bound");
		free(d);
	}

	/* Each tuple type holds the one before twice, by back reference:
	 * 2^24 times "()" is far past FK_MAX_NAME, and no work is spent on
	 * it past the bound. */
	n = 0;
	memcpy(s, "_RINvC1a1fTuuE", 14);
	n = 14;
	size_t prev = 10;                      /* offset of the first tuple after "_R" */
	for (int i = 0; i < 24; i++) {
		size_t at = n - 2;
		s[n++] = 'T';
		for (int k = 0; k < 2; k++) {
			s[n++] = 'B';
			n += put_b62(s + n, prev);
		}
		s[n++] = 'E';
		prev = at;
	}
	s[n++] = 'E';
	d = demangle(s, n);
	T_OK(!d, "back references that would print 2^24 tuples pass FK_MAX_NAME");
	free(d);
	/* The same with 8 doublings fits. */
	char *p = memchr(s + 14, 'T', n - 14);
	for (int i = 0; i < 7; i++)
		p = memchr(p + 1, 'T', (size_t)(s + n - p - 1));
	size_t cut = (size_t)(p - s);
	s[cut] = 'E';
	d = demangle(s, cut + 1);
	T_OK(d && strlen(d) > 256 * 2, "8 doublings by back reference demangled");
	free(d);

	/* Numbers past 64 bits are refused, not wrapped. */
	d = demangle("_RNvC1a1fBzzzzzzzzzzzzzzzzzzzzzz_", 34);
	T_OK(!d, "huge back reference refused");
	free(d);
	d = demangle("_RNvC1a99999999999999999999999f", 31);
	T_OK(!d, "huge identifier length refused");
	free(d);
	/* A binder of 2^40 lifetimes stops at the output bound. */
	d = demangle("_RINvC1a1fFGzzzzzzz_RL1_hEuE", 28);
	T_OK(!d, "huge binder refused at the output bound");
	free(d);

	/* Punycode: an identifier of FK_MAX_RUST_PUNYCODE code points or more is
	 * refused; a long valid one is decoded. */
	n = (size_t)snprintf(s, sizeof s, "_RNvC1au%d_", 2000);
	memset(s + n, 'a', 1999);
	s[n + 1999] = '_';
	d = demangle(s, n + 2000);
	T_OK(!d, "2000-byte Punycode identifier refused");
	free(d);
	const char *tail = "_km7b";            /* 500 "a" and one "é" */
	n = (size_t)snprintf(s, sizeof s, "_RNvC1au%zu_", 500 + strlen(tail));
	memset(s + n, 'a', 500);
	memcpy(s + n + 500, tail, strlen(tail));
	d = demangle(s, n + 500 + strlen(tail));
	T_OK(d && strlen(d) == 3 + 500 + 2 && strcmp(d + strlen(d) - 2, "\xc3\xa9") == 0,
	     "long Punycode identifier decoded");
	free(d);
}

/* Clone suffixes are cut after a legacy name's hash, never inside it
 * (its elements hold dots: "core..clone..Clone"). */
static void test_baselen(void)
{
	const char *v = "_ZN4core5clone5impls54_$LT$impl$u20$core..clone..Clone"
			"$u20$for$u20$usize$GT$5clone17h0123456789abcdefE";
	size_t len = strlen(v);
	T_EQ_INT(fk_symname_baselen(v, len), len, "legacy path with ..clone.. kept");
	char buf[256];
	snprintf(buf, sizeof buf, "%s.llvm.4242", v);
	T_EQ_INT(fk_symname_baselen(buf, strlen(buf)), len, ".llvm.N after the hash cut");
	snprintf(buf, sizeof buf, "%s.cold.1", v);
	T_EQ_INT(fk_symname_baselen(buf, strlen(buf)), len, ".cold after the hash cut");
	v = "_ZN4core3ptr13drop_in_place17h0123456789abcdefE.part.0";
	T_EQ_INT(fk_symname_baselen(v, strlen(v)), strlen(v) - 7, ".part.0 cut");
	v = "_RNvCs5BuDpXJTZdk_10fk_rust_v04main.llvm.99";
	T_EQ_INT(fk_symname_baselen(v, strlen(v)), strlen(v) - 8, "v0 .llvm.N cut");
	T_EQ_INT(fk_symname_rust_legacylen("_ZN3foo3barE", 12), 0, "no legacy Rust length without hash");
	T_EQ_INT(fk_symname_rust_legacylen("_ZN3foo17h0123456789abcdefE.x", 29), 27, "legacy Rust length");
}

/* fk_symname_demangle tries Rust before C++. */
static void test_demangle(void)
{
	char *d = fk_symname_demangle("_ZN1m5Cache4fill17h42903005fd403656E", 36);
	T_EQ_STR(d, "m::Cache::fill", "legacy Rust before __cxa_demangle");
	free(d);
	const char *v = "_RNvXs_NtCslNYArtu3iFV_5alloc5allocNtB4_6GlobalNtNtCsgEmfK2I1SDS_"
			"4core5alloc9Allocator8allocate";
	d = fk_symname_demangle(v, strlen(v));
	T_EQ_STR(d, "<alloc::alloc::Global as core::alloc::Allocator>::allocate", "v0");
	free(d);
	d = fk_symname_demangle("_ZN3foo3barE", 12);
	T_EQ_STR(d, "foo::bar", "hashless _ZN left to the C++ demangler");
	free(d);
	d = fk_symname_demangle("_ZN2ns3Foo3barEi", 16);
	T_EQ_STR(d, "ns::Foo::bar(int)", "C++ still demangled");
	free(d);
}

static void test_alloc_frames(void)
{
	static const char *const yes[] = {
		"__rustc::__rust_alloc", "__rustc::__rust_alloc_zeroed",
		"__rustc::__rust_realloc", "__rustc::__rdl_alloc", "__rust_alloc",
		"__rdl_realloc", "__rg_alloc", "alloc::alloc::alloc",
		"alloc::alloc::exchange_malloc",
		"<alloc::alloc::Global as core::alloc::Allocator>::allocate",
		"<alloc::alloc::Global>::alloc_impl", "alloc::alloc::Global::alloc_impl",
		"alloc::raw_vec::finish_grow::<alloc::alloc::Global>",
		"<alloc::raw_vec::RawVecInner>::try_allocate_in",
		"<alloc::raw_vec::RawVec<u8>>::grow_one",
		"alloc::raw_vec::RawVecInner<A>::grow_amortized",
		"<tikv_jemallocator::Jemalloc as core::alloc::global::GlobalAlloc>::alloc",
		"<std::alloc::System as core::alloc::global::GlobalAlloc>::realloc",
		"std::sys::alloc::unix::<impl core::alloc::global::GlobalAlloc for std::alloc::System>::alloc",
		"mycrate::<impl core::alloc::global::GlobalAlloc for mycrate::Counting>::alloc_zeroed",
		"<bumpalo::Bump as core::alloc::Allocator>::allocate",
		"std::sys::pal::unix::alloc::aligned_malloc",
	};
	static const char *const no[] = {
		"__rust_dealloc", "__rustc::__rust_start_panic", "alloc::vec::from_elem",
		"<alloc::vec::Vec<u8>>::push", "alloc::vec::Vec<T,A>::push",
		"<alloc::string::String as core::clone::Clone>::clone",
		"hashbrown::raw::alloc::inner::do_alloc", "fk_rust::Cache::fill",
		"<X as core::alloc::global::GlobalAlloc>::dealloc", "my::alloc::alloc",
		"<alloc::vec::Vec<u8> as alloc::alloc::Foo>::bar::alloc::alloc",
		"mycrate::alloc", "<mycrate::Pool>::allocate",
	};
	for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
		T_OK(fk_alloc_is_frame(NULL, yes[i], NULL), "allocator frame: %s", yes[i]);
	for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
		T_OK(!fk_alloc_is_frame(NULL, no[i], NULL), "program frame: %s", no[i]);
}

int main(void)
{
	check(good, sizeof good / sizeof good[0], "demangled");
	check(real, sizeof real / sizeof real[0], "real name demangled");
	test_bad();
	test_prefixes();
	test_bounds();
	test_baselen();
	test_demangle();
	test_alloc_frames();
	return T_DONE();
}
