//! Heap profiles of a jemalloc Rust service: flamekit's hook linked in.
//!
//! `handle` answers the hook's routes (`/internal/heap...`,
//! `/debug/pprof/...`) from the service's own router; `serve` starts the
//! hook's own endpoint instead, as `FLAMEKIT_HTTP` does. jemalloc must be
//! the global allocator and start with `prof:true` (see [`alloc`] and the
//! README). The hook is linked statically; nothing is preloaded.
use std::ffi::{CStr, CString};
use std::fmt;
use std::net::SocketAddr;
use std::os::raw::{c_char, c_int, c_ulong, c_void};

pub mod alloc;

/// An answer to send as it is: status, `Content-Type`, the other headers
/// the hook's own server sends with it, and the body.
#[derive(Debug, Clone)]
pub struct Response {
    pub status: u16,
    pub content_type: String,
    /// `X-Content-Type-Options`, `Cache-Control` and, for a download,
    /// `Content-Disposition`: send them too.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

/// Who sent a request: the hook's rule for who may ask (README, "Who may
/// ask"). With `FLAMEKIT_TOKEN` set, the bearer token admits whoever holds
/// it, whatever the peer.
#[derive(Debug, Clone)]
pub enum Peer {
    /// Nothing known: refused, as a stranger on the hook's own socket,
    /// unless the token is sent.
    Unknown,
    /// The connection's two ends: a loopback peer's user is found as on
    /// the hook's own socket (root, the program's user and `FLAMEKIT_ALLOW`
    /// may ask); a peer on another host may not without the token.
    Tcp { remote: SocketAddr, local: SocketAddr },
    /// The peer's user as the service found it (SO_PEERCRED).
    Uid(u32),
    /// The service admitted its client itself (its own authentication):
    /// no user is checked; the token, Host and cross-site rules still are.
    Vouched,
}

/// A failure of the hook's C API, in its one sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error(pub String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

/// jemalloc's `mallctl`, as [`set_mallctl`] takes it.
pub type Mallctl =
    unsafe extern "C" fn(*const c_char, *mut c_void, *mut usize, *mut c_void, usize) -> c_int;

/// What the hook reads from jemalloc (`fk_hook_status`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Status {
    pub jemalloc_found: bool,
    pub prof_compiled: bool,
    pub prof_started: bool,
    pub active: bool,
    pub lg_sample: i32,
    pub serving: bool,
}

#[repr(C)]
struct FkPeer {
    kind: c_int,
    remote: *const c_char,
    local: *const c_char,
    uid: c_ulong,
}

#[repr(C)]
struct FkResponse {
    status: c_int,
    content_type: *const c_char,
    disposition: *const c_char,
    body: *mut c_char,
    len: usize,
    maplen: usize,
}

#[repr(C)]
#[derive(Default)]
struct FkStatus {
    jemalloc_found: c_int,
    prof_compiled: c_int,
    prof_started: c_int,
    active: c_int,
    lg_sample: c_int,
    active_seconds: f64,
    dumps_served: c_ulong,
    serving: c_int,
}

extern "C" {
    fn fk_hook_start(addr: *const c_char, errbuf: *mut c_char, errsize: usize) -> c_int;
    fn fk_hook_stop();
    fn fk_hook_set_active(active: c_int, lg: c_int, errbuf: *mut c_char, errsize: usize)
        -> c_int;
    fn fk_hook_set_mallctl(f: Mallctl, errbuf: *mut c_char, errsize: usize) -> c_int;
    fn fk_hook_status(st: *mut FkStatus) -> c_int;
    fn fk_hook_handle(
        method: *const c_char,
        target: *const c_char,
        headers: *const *const c_char,
        nheaders: usize,
        peer: *const FkPeer,
        out: *mut FkResponse,
        errbuf: *mut c_char,
        errsize: usize,
    ) -> c_int;
    fn fk_hook_response_release(r: *mut FkResponse);
}

const PEER_UNKNOWN: c_int = 0;
const PEER_TCP: c_int = 1;
const PEER_UID: c_int = 2;
const PEER_VOUCHED: c_int = 3;

/// Calls f with an error buffer; Err with its sentence when f fails.
fn call(f: impl FnOnce(*mut c_char, usize) -> c_int) -> Result<(), Error> {
    let mut buf = [0 as c_char; 512];
    if f(buf.as_mut_ptr(), buf.len()) == 0 {
        return Ok(());
    }
    let msg = unsafe { CStr::from_ptr(buf.as_ptr()) };
    Err(Error(msg.to_string_lossy().into_owned()))
}

/// A C string of s; one with a NUL byte is cut there (the hook's
/// server never sees one either: admission refuses %00 in a parameter).
fn cstr(s: &str) -> CString {
    let cut = s.split('\0').next().unwrap_or("");
    CString::new(cut).expect("no NUL left")
}

fn text_response(status: u16, msg: &str) -> Response {
    Response {
        status,
        content_type: "text/plain; charset=utf-8".to_string(),
        headers: Vec::new(),
        body: format!("{}\n", msg).into_bytes(),
    }
}

/// Whether the hook answers path (its routes: `/internal/heap...` and
/// `/debug/pprof/...`), for a router that hands it over by prefix.
pub fn serves(path: &str) -> bool {
    let p = path.split('?').next().unwrap_or("");
    p == "/internal/heap"
        || p.starts_with("/internal/heap/")
        || p == "/debug/pprof"
        || p.starts_with("/debug/pprof/")
}

/// Answers one request as the hook's own server would, the service
/// vouching for its client ([`Peer::Vouched`]: whoever may reach this
/// route of the service may ask; the token, the Host and cross-site rules
/// and the parameters are checked). `target` is the path and query, e.g.
/// `"/internal/heap?format=flame"`. Blocking: call it where a blocking
/// call may run (`tokio::task::spawn_blocking`); a delta
/// (`?seconds=N`) takes N seconds.
pub fn handle(method: &str, target: &str, headers: &[(&str, &str)]) -> Response {
    handle_from(&Peer::Vouched, method, target, headers)
}

/// [`handle`] for a request from peer, checked by the hook's rule.
pub fn handle_from(peer: &Peer, method: &str, target: &str, headers: &[(&str, &str)]) -> Response {
    let m = cstr(method);
    let t = cstr(target);
    let owned: Vec<CString> = headers
        .iter()
        .flat_map(|(k, v)| vec![cstr(k), cstr(v)])
        .collect();
    let ptrs: Vec<*const c_char> = owned.iter().map(|c| c.as_ptr()).collect();
    let (remote, local) = match peer {
        Peer::Tcp { remote, local } => (cstr(&remote.to_string()), cstr(&local.to_string())),
        _ => (cstr(""), cstr("")),
    };
    let p = FkPeer {
        kind: match peer {
            Peer::Unknown => PEER_UNKNOWN,
            Peer::Tcp { .. } => PEER_TCP,
            Peer::Uid(_) => PEER_UID,
            Peer::Vouched => PEER_VOUCHED,
        },
        remote: remote.as_ptr(),
        local: local.as_ptr(),
        uid: match peer {
            Peer::Uid(u) => *u as c_ulong,
            _ => 0,
        },
    };
    let mut out = FkResponse {
        status: 0,
        content_type: std::ptr::null(),
        disposition: std::ptr::null(),
        body: std::ptr::null_mut(),
        len: 0,
        maplen: 0,
    };
    let rc = call(|eb, es| unsafe {
        fk_hook_handle(m.as_ptr(), t.as_ptr(), ptrs.as_ptr(), headers.len(), &p, &mut out, eb, es)
    });
    if let Err(e) = rc {
        return text_response(500, &e.0);
    }
    let ctype = unsafe { CStr::from_ptr(out.content_type) }
        .to_string_lossy()
        .into_owned();
    let mut extra = vec![
        ("X-Content-Type-Options".to_string(), "nosniff".to_string()),
        ("Cache-Control".to_string(), "no-store".to_string()),
    ];
    if !out.disposition.is_null() {
        let d = unsafe { CStr::from_ptr(out.disposition) };
        extra.push(("Content-Disposition".to_string(), d.to_string_lossy().into_owned()));
    }
    let body = if out.body.is_null() || out.len == 0 {
        Vec::new()
    } else {
        unsafe { std::slice::from_raw_parts(out.body as *const u8, out.len) }.to_vec()
    };
    unsafe { fk_hook_response_release(&mut out) };
    Response {
        status: out.status as u16,
        content_type: ctype,
        headers: extra,
        body,
    }
}

/// Starts the hook's own HTTP endpoint on addr (`"127.0.0.1:6060"`,
/// `"[::1]:6060"`, `"unix:/path"`), on its own thread, as `FLAMEKIT_HTTP`
/// does; a non-loopback address needs `FLAMEKIT_HTTP_ALLOW_REMOTE=1` and
/// `FLAMEKIT_TOKEN`.
pub fn serve(addr: &str) -> Result<(), Error> {
    let a = cstr(addr);
    call(|eb, es| unsafe { fk_hook_start(a.as_ptr(), eb, es) })
}

/// Stops what [`serve`] started (nothing when none runs).
pub fn stop() {
    unsafe { fk_hook_stop() }
}

/// Turns sampling on or off (jemalloc's `prof.active`), as `POST
/// /internal/heap/settings?enabled=...` does.
pub fn set_active(on: bool) -> Result<(), Error> {
    call(|eb, es| unsafe { fk_hook_set_active(on as c_int, -1, eb, es) })
}

/// Makes f the `mallctl` the hook drives: for a jemalloc the hook cannot
/// find by itself (a static `_rjem_` one in a binary stripped of its
/// symbol table). Call it before the first request.
pub fn set_mallctl(f: Mallctl) -> Result<(), Error> {
    call(|eb, es| unsafe { fk_hook_set_mallctl(f, eb, es) })
}

/// What the hook reads from jemalloc now.
pub fn status() -> Status {
    let mut st = FkStatus::default();
    unsafe { fk_hook_status(&mut st) };
    Status {
        jemalloc_found: st.jemalloc_found != 0,
        prof_compiled: st.prof_compiled != 0,
        prof_started: st.prof_started != 0,
        active: st.active != 0,
        lg_sample: st.lg_sample,
        serving: st.serving != 0,
    }
}
