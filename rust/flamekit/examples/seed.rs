//! The seed's server in Rust: a small HTTP API of its own (a cache that
//! grows and empties) on std's TcpListener, one thread a connection, with
//! the heap routes mounted through `flamekit::handle_from`: enable, status
//! and disable at /internal/heap/settings, the profile at /internal/heap
//! (pprof, ?format=flame for a browser), Go's /debug/pprof/heap.
//! jemalloc is the system's shared libjemalloc.so.2, which starts with
//! prof:true from the hook's own malloc_conf.
//!
//!   cargo run --release --features shared-jemalloc --example seed [ADDR]
//!   curl -X POST 'localhost:PORT/cache?items=1000'
//!   curl -X POST 'localhost:PORT/internal/heap/settings?enabled=true'
//!   go tool pprof -top http://localhost:PORT/internal/heap
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Mutex;
use std::thread;

use flamekit::{Peer, Response};

#[global_allocator]
static ALLOC: flamekit::alloc::SharedJemalloc = flamekit::alloc::SharedJemalloc;

/// The service's own state: entries of 4 KiB, kept until /cache/clear.
static CACHE: Mutex<Vec<Vec<u8>>> = Mutex::new(Vec::new());

#[inline(never)]
fn seed_cache_entry(i: usize) -> Vec<u8> {
    let mut v = vec![0u8; 4096];
    v[0] = i as u8;
    v
}

#[inline(never)]
fn seed_fill_cache(n: usize) -> usize {
    let mut c = CACHE.lock().unwrap();
    for i in 0..n {
        c.push(seed_cache_entry(i));
    }
    c.len()
}

fn text(status: u16, body: String) -> Response {
    Response {
        status,
        content_type: "text/plain; charset=utf-8".to_string(),
        headers: Vec::new(),
        body: body.into_bytes(),
    }
}

/// The service's own routes.
fn own_route(method: &str, target: &str) -> Response {
    let (path, query) = match target.find('?') {
        Some(i) => (&target[..i], &target[i + 1..]),
        None => (target, ""),
    };
    match (method, path) {
        ("GET", "/health") => text(200, "ok\n".to_string()),
        ("POST", "/cache") => {
            let n = query
                .split('&')
                .find_map(|kv| kv.strip_prefix("items="))
                .and_then(|v| v.parse::<usize>().ok())
                .filter(|n| *n <= 1_000_000);
            match n {
                Some(n) => text(200, format!("{} entries\n", seed_fill_cache(n))),
                None => text(400, "want ?items=N (0 to 1000000)\n".to_string()),
            }
        }
        ("POST", "/cache/clear") => {
            let mut c = CACHE.lock().unwrap();
            c.clear();
            c.shrink_to_fit();
            text(200, "cleared\n".to_string())
        }
        _ => text(404, format!("no route {} {}\n", method, path)),
    }
}

/// One request on one connection, then close.
fn serve_conn(mut s: TcpStream) -> std::io::Result<()> {
    let remote = s.peer_addr()?;
    let local = s.local_addr()?;
    let mut r = BufReader::new(s.try_clone()?);
    let mut line = String::new();
    r.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let (method, target) = match (parts.next(), parts.next()) {
        (Some(m), Some(t)) => (m.to_string(), t.to_string()),
        _ => return Ok(()),
    };
    let mut headers: Vec<(String, String)> = Vec::new();
    let mut body_len = 0usize;
    loop {
        let mut h = String::new();
        if r.read_line(&mut h)? == 0 || h == "\r\n" || h == "\n" {
            break;
        }
        if let Some(i) = h.find(':') {
            let (k, v) = (h[..i].trim().to_string(), h[i + 1..].trim().to_string());
            if k.eq_ignore_ascii_case("content-length") {
                body_len = v.parse().unwrap_or(0).min(1 << 20);
            }
            headers.push((k, v));
        }
    }
    let mut body = vec![0u8; body_len];
    r.read_exact(&mut body)?;

    let resp = if flamekit::serves(&target) {
        let hs: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        // The hook's own rule for who may ask: the owner of the loopback
        // peer's socket must be root, this program's user or one of
        // FLAMEKIT_ALLOW (or the token, when FLAMEKIT_TOKEN is set).
        flamekit::handle_from(&Peer::Tcp { remote, local }, &method, &target, &hs)
    } else {
        own_route(&method, &target)
    };
    write!(
        s,
        "HTTP/1.1 {} X\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n",
        resp.status,
        resp.content_type,
        resp.body.len()
    )?;
    for (k, v) in &resp.headers {
        write!(s, "{}: {}\r\n", k, v)?;
    }
    s.write_all(b"\r\n")?;
    if method != "HEAD" {
        s.write_all(&resp.body)?;
    }
    s.flush()
}

fn main() {
    let addr = std::env::args().nth(1).unwrap_or_else(|| "127.0.0.1:0".to_string());
    let l = match TcpListener::bind(&addr) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("seed: {}: {}", addr, e);
            std::process::exit(1);
        }
    };
    println!("listening on {}", l.local_addr().unwrap());
    for s in l.incoming().flatten() {
        thread::spawn(move || {
            let _ = serve_conn(s);
        });
    }
}
