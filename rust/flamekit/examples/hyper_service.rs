//! A hyper 0.14 service (tokio) that mounts the hook's routes in its own
//! router: every path flamekit::serves goes to flamekit::handle on a
//! blocking thread, with the peer's addresses, so the hook's own rule for
//! who may ask applies. jemalloc is jemalloc-sys's static `_rjem_` one,
//! started with prof:true by rjem_malloc_conf!.
//!
//!   cargo run --release --features static-jemalloc --example hyper_service [ADDR]
//!   curl -X POST 'localhost:PORT/sessions?n=500'
//!   curl -X POST 'localhost:PORT/internal/heap/settings?enabled=true'
//!   curl 'localhost:PORT/internal/heap?format=flame' > heap.svg
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Mutex;

use hyper::server::conn::AddrStream;
use hyper::service::{make_service_fn, service_fn};
use hyper::{Body, Request, Response, Server, StatusCode};

#[global_allocator]
static ALLOC: flamekit::alloc::StaticJemalloc = flamekit::alloc::StaticJemalloc;

flamekit::rjem_malloc_conf!();

/// The service's own state: sessions of 2 KiB each.
static SESSIONS: Mutex<Vec<String>> = Mutex::new(Vec::new());

#[inline(never)]
fn hyper_new_session(i: usize) -> String {
    let mut s = String::with_capacity(2048);
    s.push_str(&i.to_string());
    s
}

#[inline(never)]
fn hyper_open_sessions(n: usize) -> usize {
    let mut v = SESSIONS.lock().unwrap();
    for i in 0..n {
        v.push(hyper_new_session(i));
    }
    v.len()
}

fn plain(status: StatusCode, body: String) -> Response<Body> {
    Response::builder()
        .status(status)
        .header("Content-Type", "text/plain; charset=utf-8")
        .body(Body::from(body))
        .unwrap()
}

/// The hook's routes: the request handed over with its peer.
async fn heap_route(req: Request<Body>, remote: SocketAddr, local: SocketAddr) -> Response<Body> {
    let method = req.method().as_str().to_string();
    let target = req
        .uri()
        .path_and_query()
        .map(|p| p.as_str().to_string())
        .unwrap_or_else(|| "/".to_string());
    let headers: Vec<(String, String)> = req
        .headers()
        .iter()
        .filter_map(|(k, v)| v.to_str().ok().map(|v| (k.as_str().to_string(), v.to_string())))
        .collect();
    // hyper keeps the Host of an HTTP/1.1 request among its headers.
    let r = tokio::task::spawn_blocking(move || {
        let hs: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        flamekit::handle_from(&flamekit::Peer::Tcp { remote, local }, &method, &target, &hs)
    })
    .await
    .unwrap_or_else(|e| flamekit::Response {
        status: 500,
        content_type: "text/plain".to_string(),
        headers: Vec::new(),
        body: format!("{}\n", e).into_bytes(),
    });
    let mut b = Response::builder()
        .status(r.status)
        .header("Content-Type", r.content_type.as_str());
    for (k, v) in &r.headers {
        b = b.header(k.as_str(), v.as_str());
    }
    b.body(Body::from(r.body)).unwrap()
}

async fn route(req: Request<Body>, remote: SocketAddr, local: SocketAddr) -> Result<Response<Body>, Infallible> {
    if flamekit::serves(req.uri().path()) {
        return Ok(heap_route(req, remote, local).await);
    }
    let n = req
        .uri()
        .query()
        .and_then(|q| q.split('&').find_map(|kv| kv.strip_prefix("n=")))
        .and_then(|v| v.parse::<usize>().ok());
    Ok(match (req.method().as_str(), req.uri().path()) {
        ("GET", "/hello") => plain(StatusCode::OK, "hello\n".to_string()),
        ("POST", "/sessions") => match n {
            Some(n) if n <= 1_000_000 => {
                plain(StatusCode::OK, format!("{} sessions\n", hyper_open_sessions(n)))
            }
            _ => plain(StatusCode::BAD_REQUEST, "want ?n=N (0 to 1000000)\n".to_string()),
        },
        _ => plain(StatusCode::NOT_FOUND, "no such route\n".to_string()),
    })
}

#[tokio::main]
async fn main() {
    // The hook finds _rjem_mallctl in the program's symbol table by
    // itself; a program stripped of it hands it over, once, before the
    // first request (HYPER_SERVICE_SET_MALLCTL=1 shows it).
    if std::env::var_os("HYPER_SERVICE_SET_MALLCTL").is_some() {
        if let Err(e) = flamekit::set_mallctl(flamekit::alloc::rjem_mallctl) {
            eprintln!("hyper_service: {}", e);
            std::process::exit(1);
        }
    }
    let addr: SocketAddr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:0".to_string())
        .parse()
        .unwrap_or_else(|e| {
            eprintln!("hyper_service: bad address: {}", e);
            std::process::exit(2);
        });
    let make = make_service_fn(|conn: &AddrStream| {
        let (remote, local) = (conn.remote_addr(), conn.local_addr());
        async move { Ok::<_, Infallible>(service_fn(move |req| route(req, remote, local))) }
    });
    let server = match Server::try_bind(&addr) {
        Ok(b) => b.serve(make),
        Err(e) => {
            eprintln!("hyper_service: {}: {}", addr, e);
            std::process::exit(1);
        }
    };
    println!("listening on {}", server.local_addr());
    if let Err(e) = server.await {
        eprintln!("hyper_service: {}", e);
        std::process::exit(1);
    }
}
