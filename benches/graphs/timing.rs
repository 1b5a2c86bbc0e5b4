//! Medians of repeated host-side timings, alone or interleaved with the floor's.

use std::time::{Duration, Instant};

/// Median of repeated timings, in µs: at least `min` runs, more while under `budget`.
pub fn measure(min: usize, budget: Duration, mut once: impl FnMut() -> Duration) -> (f64, usize) {
    let mut v = Vec::new();
    let start = Instant::now();
    while v.len() < min || (start.elapsed() < budget && v.len() < 2000) {
        v.push(once().as_secs_f64() * 1e6);
    }
    v.sort_by(f64::total_cmp);
    (v[v.len() / 2], v.len())
}

pub fn reps_for(n: usize) -> (usize, Duration) {
    (if n >= 10000 { 5 } else { 9 }, Duration::from_millis(250))
}

/// Two measurements interleaved (a, b, a, b, ...), so both see the same machine state: the
/// driver's set-params cost shifts between runs by up to 2x, which separate runs would read
/// as a difference between the implementations.
pub fn paired(
    min: usize,
    budget: Duration,
    mut a: impl FnMut() -> Duration,
    mut b: impl FnMut() -> Duration,
) -> ((f64, usize), (f64, usize)) {
    let (mut va, mut vb) = (Vec::new(), Vec::new());
    let start = Instant::now();
    while va.len() < min || (start.elapsed() < budget * 2 && va.len() < 2000) {
        va.push(a().as_secs_f64() * 1e6);
        vb.push(b().as_secs_f64() * 1e6);
    }
    let med = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        (v[v.len() / 2], v.len())
    };
    (med(va), med(vb))
}

/// Like [`paired`], for measurements of two parts each: medians of a.0, a.1, b.0, b.1.
pub fn paired2(
    min: usize,
    budget: Duration,
    mut a: impl FnMut() -> (Duration, Duration),
    mut b: impl FnMut() -> (Duration, Duration),
) -> [(f64, usize); 4] {
    let mut v: [Vec<f64>; 4] = Default::default();
    let start = Instant::now();
    while v[0].len() < min || (start.elapsed() < budget * 4 && v[0].len() < 2000) {
        // Each goes first every other time: the one that follows the other's teardown does
        // not always pay for it.
        let ((a0, a1), (b0, b1)) = if v[0].len().is_multiple_of(2) {
            let a = a();
            (a, b())
        } else {
            let b = b();
            (a(), b)
        };
        for (i, d) in [a0, a1, b0, b1].into_iter().enumerate() {
            v[i].push(d.as_secs_f64() * 1e6);
        }
    }
    v.map(|mut v| {
        v.sort_by(f64::total_cmp);
        (v[v.len() / 2], v.len())
    })
}

/// Per-call time of a batch of cheap calls.
pub fn batched(calls: usize, mut f: impl FnMut(usize)) -> Duration {
    let t = Instant::now();
    for i in 0..calls {
        f(i);
    }
    t.elapsed() / calls as u32
}
