//! What every benchmark and GPU test of the workspace's own crates shares: a GPU or a printed
//! skip (a failure under `CUDA_GRAPH_REQUIRE_GPU=1`), medians of repeated host-side timings,
//! and results written as JSON rows for `bench_report`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use cuda_graph::cudarc::driver::{CudaContext, CudaSlice, CudaStream, DeviceRepr};

/// A GPU: a context and its legacy default stream.
pub struct Gpu {
    /// The device's context.
    pub ctx: Arc<CudaContext>,
    /// Its legacy default stream.
    pub stream: Arc<CudaStream>,
    /// The device's name, for labelling results.
    pub name: String,
}

impl Gpu {
    /// GPU 0, or `None` after printing why it is skipped. Under `CUDA_GRAPH_REQUIRE_GPU=1`
    /// (the device runner sets it) a missing GPU panics instead: there a skip would hide a
    /// failure.
    pub fn find() -> Option<Gpu> {
        match cuda_graph::context(0) {
            Ok(ctx) => {
                let stream = ctx.default_stream();
                let name = ctx.name().unwrap_or_default();
                Some(Gpu { ctx, stream, name })
            }
            Err(e) => {
                if std::env::var("CUDA_GRAPH_REQUIRE_GPU").as_deref() == Ok("1") {
                    panic!("CUDA_GRAPH_REQUIRE_GPU=1 but no GPU can be used: {e}");
                }
                println!("skipped: no GPU ({e})");
                None
            }
        }
    }

    /// GPUs 0 to `n - 1`, or `None` after printing why the test is skipped (fewer GPUs here).
    /// Under `CUDA_GRAPH_REQUIRE_GPUS=m` with `m >= n` (the run on a machine of `m` GPUs) a
    /// missing GPU panics instead. GPU 0 is found with [`Gpu::find`] first.
    pub fn find_many(n: usize) -> Option<Vec<Gpu>> {
        let first = Gpu::find()?;
        let required: usize = std::env::var("CUDA_GRAPH_REQUIRE_GPUS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        // Counted first: asking for a device that is not there is a failed driver call, which
        // compute-sanitizer reports.
        let count = CudaContext::device_count().unwrap_or(1).max(1) as usize;
        let mut out = vec![first];
        for i in 1..n {
            let ctx = if i < count {
                cuda_graph::context(i).map_err(|e| e.to_string())
            } else {
                Err(format!("this machine has {count} GPU(s)"))
            };
            match ctx {
                Ok(ctx) => {
                    let stream = ctx.default_stream();
                    let name = ctx.name().unwrap_or_default();
                    out.push(Gpu { ctx, stream, name });
                }
                Err(e) if required >= n => {
                    panic!("CUDA_GRAPH_REQUIRE_GPUS={required} but GPU {i} cannot be used: {e}")
                }
                Err(e) => {
                    println!("skipped: this test needs {n} GPUs and GPU {i} cannot be used ({e}); CUDA_GRAPH_REQUIRE_GPUS={n} makes that a failure");
                    return None;
                }
            }
        }
        Some(out)
    }

    /// A new device buffer holding `v`.
    pub fn upload<T: DeviceRepr + Clone>(&self, v: &[T]) -> CudaSlice<T> {
        self.stream.clone_htod(v).expect("upload")
    }

    /// A buffer's contents, after the stream's work.
    pub fn read<T: DeviceRepr + Clone + Default>(&self, s: &CudaSlice<T>) -> Vec<T> {
        self.stream.clone_dtoh(s).expect("download")
    }
}

/// Whether the binary runs as a benchmark (`cargo bench` passes `--bench`; `cargo test`
/// builds bench targets and runs them without it, when they should do nothing).
pub fn bench_requested() -> bool {
    std::env::args().any(|a| a == "--bench")
}

/// The median of `v`.
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Median of repeated timings, in µs, and how many: at least `min` runs, more while under
/// `budget` (up to 2000).
pub fn measure(min: usize, budget: Duration, mut once: impl FnMut() -> Duration) -> (f64, usize) {
    let mut v = Vec::new();
    let start = Instant::now();
    while v.len() < min || (start.elapsed() < budget && v.len() < 2000) {
        v.push(once().as_secs_f64() * 1e6);
    }
    let n = v.len();
    (median(v), n)
}

/// Two measurements interleaved (a, b, a, b, ...), so both see the same machine state: the
/// driver's set-params cost shifts between runs by up to 2x, which separate runs would read
/// as a difference between the implementations.
pub fn paired(
    min: usize,
    budget: Duration,
    a: impl FnMut() -> Duration,
    b: impl FnMut() -> Duration,
) -> ((f64, usize), (f64, usize)) {
    let [va, vb] = paired_samples(min, budget, a, b);
    let n = va.len();
    ((median(va), n), (median(vb), n))
}

/// Like [`paired`], but the samples themselves (in microseconds), to pool with others.
pub fn paired_samples(
    min: usize,
    budget: Duration,
    mut a: impl FnMut() -> Duration,
    mut b: impl FnMut() -> Duration,
) -> [Vec<f64>; 2] {
    let (mut va, mut vb) = (Vec::new(), Vec::new());
    let start = Instant::now();
    while va.len() < min || (start.elapsed() < budget * 2 && va.len() < 2000) {
        va.push(a().as_secs_f64() * 1e6);
        vb.push(b().as_secs_f64() * 1e6);
    }
    [va, vb]
}

/// Like [`paired`], for measurements of two parts each: medians of a.0, a.1, b.0, b.1. Each
/// goes first every other time, so the one that follows the other's teardown does not always
/// pay for it.
pub fn paired2(
    min: usize,
    budget: Duration,
    mut a: impl FnMut() -> (Duration, Duration),
    mut b: impl FnMut() -> (Duration, Duration),
) -> [(f64, usize); 4] {
    let mut v: [Vec<f64>; 4] = Default::default();
    let start = Instant::now();
    while v[0].len() < min || (start.elapsed() < budget * 4 && v[0].len() < 2000) {
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
    v.map(|v| {
        let n = v.len();
        (median(v), n)
    })
}

/// Per-call time of a batch of `calls` cheap calls.
pub fn batched(calls: usize, mut f: impl FnMut(usize)) -> Duration {
    let t = Instant::now();
    for i in 0..calls {
        f(i);
    }
    t.elapsed() / calls as u32
}

/// Writes results (a JSON array) to `$OUT/<file>` on the device machine, else to
/// `docs/bench/raw/<file>` in the workspace, where `bench_report` reads them; returns the path.
pub fn write_json(file: &str, json: &str) -> String {
    let path = match std::env::var("OUT") {
        Ok(dir) => format!("{dir}/{file}"),
        Err(_) => format!("{}/../docs/bench/raw/{file}", env!("CARGO_MANIFEST_DIR")),
    };
    if let Some(dir) = std::path::Path::new(&path).parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    std::fs::write(&path, json).unwrap_or_else(|e| panic!("write {path}: {e}"));
    println!("wrote {path}");
    path
}

/// Now, in UTC, as `2026-11-26T01:50:07Z`: which run a benchmark's rows are.
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    utc(secs)
}

/// Seconds since 1970-01-01 UTC as `YYYY-MM-DDTHH:MM:SSZ` (the proleptic Gregorian calendar).
pub fn utc(secs: u64) -> String {
    let (days, rest) = (secs / 86_400, secs % 86_400);
    // Days to a civil date (after Howard Hinnant's days_from_civil inverse).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest / 60 % 60,
        rest % 60
    )
}

/// Writes result rows (each a JSON object) as a JSON array, as [`write_json`] does.
pub fn write_rows(file: &str, rows: &[String]) -> String {
    write_json(file, &format!("[\n{}\n]\n", rows.join(",\n")))
}

#[cfg(test)]
mod tests {
    use super::utc;

    #[test]
    fn utc_dates_are_the_calendar_s() {
        assert_eq!(utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(utc(946_684_799), "1999-12-31T23:59:59Z");
        assert_eq!(utc(4_107_585_600), "2100-03-01T12:00:00Z");
        assert_eq!(utc(1_795_657_807), "2026-11-26T01:50:07Z");
    }
}
