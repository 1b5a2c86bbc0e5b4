//! The Llama decoder's kernels one at a time (`llama/kernels.cu`, f32), each in a small graph
//! of its own, against float64 host computations on random inputs: the query, key and value
//! projection with RMSNorm, the rotary embedding and the cache write; SwiGLU; the projection
//! with the residual add; the head with its argmax (each on a grid of fewer warps than rows);
//! the prefill's kernels over many rows (RMSNorm, the matrix-matrix product, SwiGLU, the rotary
//! embedding, causal attention); attention over several chunks, merged by
//! the last block, with the position from the host and from the device.

use cuda_graph::cuda_graph;
use cuda_graph_flagships::harness::Gpu;

cuda_graph! {
    graph Projections {
        source "src/llama/kernels.cu";
        kernel gu = norm_gate_up<f32>;
        kernel ma = matvec_add<f32>;
        kernel hd = norm_head<f32>;
        kernel argmax_step;
        buffer x: f32;
        buffer g: f32;
        buffer w: f32;
        buffer w2: f32;
        buffer a: f32;
        buffer mut h: f32;
        buffer mut y: f32;
        buffer mut logits: f32;
        buffer mut best: f32;
        buffer mut best_at: u32;
        buffer mut ids: u32;
        buffer mut dpos: u32;
        param cols: u32;
        param rows: u32;
        param blocks: u32;
        // Grids of fewer warps than rows: each warp streams several rows.
        p2 = gu<<<blocks, 256, cols * 4>>>(x, g, w, h, cols, rows / 2, 1e-5);
        p3 = ma<<<blocks, 256, cols * 4>>>(w2, a, y, cols, rows);
        p4 = hd<<<blocks, 256, cols * 4>>>(x, g, w, logits, best, best_at, cols, rows, 1e-5);
        p5 = argmax_step<<<1, 1024>>>(best, best_at, blocks, ids, dpos, 0, 1, 1, 64);
        p4 -> p5;
    }

    graph Qkv {
        source "src/llama/kernels.cu";
        kernel qkv_t = qkv_rope<f32>;
        buffer x: f32;
        buffer g: f32;
        buffer w: f32;
        buffer cos_t: f32;
        buffer sin_t: f32;
        buffer mut q: f32;
        buffer mut kc: f32;
        buffer mut vc: f32;
        buffer dpos: u32;
        param pos: u32;
        param cols: u32;
        param heads: u32;
        param kv: u32;
        param hd: u32;
        param max_ctx: u32;
        param blocks: u32;
        k = qkv_t<<<blocks, 256, cols * 4>>>(
            x, g, w, cos_t, sin_t, q, kc, vc, dpos, pos, 0, max_ctx, cols, heads, kv, hd, 1e-5);
    }

    graph Attention {
        source "src/llama/kernels.cu";
        kernel att_t = attention<f32>;
        buffer q: f32;
        buffer kc: f32;
        buffer vc: f32;
        buffer mut part_o: f32;
        buffer mut part_ml: f32;
        buffer mut done: u32;
        buffer mut out: f32;
        buffer dpos: u32;
        param pos: u32;
        param counter: u32;
        param heads: u32;
        param kv: u32;
        param hd: u32;
        param max_ctx: u32;
        // Blocks a head: as many as the chunks, or fewer (each then takes every `ys`-th chunk).
        param ys: u32;
        att = att_t<<<(heads, ys, 1), cuda_graph_flagships::llama::graph::ATTENTION_THREADS>>>(
            q, kc, vc, part_o, part_ml, done, out, dpos, pos, counter, max_ctx, heads, kv, hd,
            max_ctx.div_ceil(128), 0.125);
    }

    /// The prefill's kernels: RMSNorm of rows, the matrix-matrix product with the residual
    /// add, SwiGLU of rows, the rotary embedding with the cache write, causal attention.
    graph Batch {
        source "src/llama/kernels.cu";
        kernel nr = norm_rows<f32>;
        kernel mm = gemm<f32>;
        kernel sw = swiglu_rows<f32>;
        kernel rr = rope_rows<f32>;
        kernel ca = causal_attention<f32>;
        buffer xs: f32;
        buffer g: f32;
        buffer w: f32;
        buffer gu: f32;
        buffer cos_t: f32;
        buffer sin_t: f32;
        buffer mut ns: f32;
        buffer mut y: f32;
        buffer mut acts: f32;
        buffer mut qkv: f32;
        buffer mut kc: f32;
        buffer mut vc: f32;
        buffer mut att: f32;
        param rows: u32;
        param cols: u32;
        param n: u32;
        param ffn: u32;
        param heads: u32;
        param kv: u32;
        param hd: u32;
        param scale: f32;
        norm = nr<<<rows, 256, cols * 4>>>(xs, g, ns, cols, rows, 1e-5);
        prod = mm<<<(n.div_ceil(64), rows.div_ceil(64), 1), 256>>>(ns, w, y, rows, n, cols, 1);
        act = sw<<<(rows * ffn).div_ceil(256), 256>>>(gu, acts, rows, ffn);
        rope = rr<<<(rows * (heads + 2 * kv) * (hd / 2)).div_ceil(256), 256>>>(
            qkv, cos_t, sin_t, kc, vc, rows, heads, kv, hd);
        attn = ca<<<(rows * heads).div_ceil(8), 256>>>(qkv, kc, vc, att, rows, heads, kv, hd, scale);
        norm -> prod;
        rope -> attn;
    }
}

/// Deterministic values in [-1, 1).
fn values(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            ((s >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0) as f32
        })
        .collect()
}

fn rms(x: &[f32], g: &[f32]) -> Vec<f64> {
    let ms = x.iter().map(|&v| (v as f64).powi(2)).sum::<f64>() / x.len() as f64;
    let inv = 1.0 / (ms + 1e-5).sqrt();
    x.iter()
        .zip(g)
        .map(|(&v, &w)| v as f64 * inv * w as f64)
        .collect()
}

fn dot(row: &[f32], v: &[f64]) -> f64 {
    row.iter().zip(v).map(|(&a, b)| a as f64 * b).sum()
}

fn close(what: &str, got: &[f32], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (*g as f64 - w).abs() <= tol * (1.0 + w.abs()),
            "{what}[{i}]: {g} instead of {w}"
        );
    }
}

#[test]
fn projections_compute_their_float64_values() {
    let Some(gpu) = Gpu::find() else { return };
    // Rows shorter than one batch of a warp's loads (8 pieces of 16 bytes a lane), and rows of
    // three batches, the last one ragged.
    for (cols, rows) in [(264usize, 202usize), (2312, 66)] {
        projections(&gpu, cols, rows);
    }
}

fn projections(gpu: &Gpu, cols: usize, rows: usize) {
    // f32 sums of `cols` products drift from the float64 ones by about 1e-7 of the sum of
    // their magnitudes: within 1e-5 of the result for short rows, 1e-4 for long ones (SwiGLU
    // multiplies two of them). A lost or repeated piece of a row is off by far more.
    let tol = if cols > 1000 { 1e-4 } else { 1e-5 };
    let (xh, gh) = (values(cols, 1), values(cols, 2));
    let wh = values(rows * cols, 3);
    let (w2h, ah, yh) = (values(rows * cols, 4), values(cols, 5), values(rows, 6));
    let (x, g, w, w2, a) = (
        gpu.upload(&xh),
        gpu.upload(&gh),
        gpu.upload(&wh),
        gpu.upload(&w2h),
        gpu.upload(&ah),
    );
    let nan = |n| gpu.upload(&vec![f32::NAN; n]);
    let (mut h, mut y) = (nan(rows / 2), gpu.upload(&yh));
    let (mut logits, mut best) = (nan(rows), nan(3));
    let mut best_at = gpu.upload(&[u32::MAX; 3]);
    let (mut ids, mut dpos) = (gpu.upload(&vec![u32::MAX; 64]), gpu.upload(&[0u32]));
    {
        let graph = Projections::build_from_source(
            &gpu.ctx,
            ProjectionsInputs {
                x: &x,
                g: &g,
                w: &w,
                w2: &w2,
                a: &a,
                h: &mut h,
                y: &mut y,
                logits: &mut logits,
                best: &mut best,
                best_at: &mut best_at,
                ids: &mut ids,
                dpos: &mut dpos,
                cols: cols as u32,
                rows: rows as u32,
                blocks: 3,
            },
        )
        .unwrap();
        let mut exec = graph.instantiate().unwrap();
        exec.launch(&gpu.stream).unwrap();
        exec.synchronize().unwrap();
    }
    let n = rms(&xh, &gh);
    let rowv = |r: usize| &wh[r * cols..(r + 1) * cols];
    let want: Vec<f64> = (0..rows).map(|r| dot(rowv(r), &n)).collect();
    close("norm_head", &gpu.read(&logits), &want, tol);
    let f = rows / 2;
    let swiglu: Vec<f64> = (0..f)
        .map(|r| {
            let (gate, up) = (dot(rowv(r), &n), dot(rowv(f + r), &n));
            gate / (1.0 + (-gate).exp()) * up
        })
        .collect();
    close("norm_gate_up", &gpu.read(&h), &swiglu, tol);
    let a64: Vec<f64> = ah.iter().map(|&v| v as f64).collect();
    let resid: Vec<f64> = (0..rows)
        .map(|r| yh[r] as f64 + dot(&w2h[r * cols..(r + 1) * cols], &a64))
        .collect();
    close("matvec_add", &gpu.read(&y), &resid, tol);
    let top = (0..rows).fold(0, |b, r| if want[r] > want[b] { r } else { b });
    let (ids, dpos) = (gpu.read(&ids), gpu.read(&dpos));
    assert_eq!(ids[1], top as u32, "argmax");
    assert_eq!(dpos[0], 1, "the position advances in counter mode");
}

/// The host's rotary embedding of one head at `pos` (pairs `i`, `i + half`).
fn rotate(v: &[f64], pos: usize, cos: &[f32], sin: &[f32]) -> Vec<f64> {
    let half = v.len() / 2;
    let mut o = vec![0.0; v.len()];
    for i in 0..half {
        let (c, s) = (cos[pos * half + i] as f64, sin[pos * half + i] as f64);
        o[i] = v[i] * c - v[i + half] * s;
        o[i + half] = v[i + half] * c + v[i] * s;
    }
    o
}

#[test]
fn qkv_projection_rotates_and_fills_the_cache() {
    let Some(gpu) = Gpu::find() else { return };
    let (cols, heads, kv, hd, max_ctx, pos) = (256usize, 8usize, 2usize, 64usize, 40usize, 33usize);
    let rows = (heads + 2 * kv) * hd;
    let (xh, gh, wh) = (values(cols, 11), values(cols, 12), values(rows * cols, 13));
    let angles = values(max_ctx * hd / 2, 14);
    let cos: Vec<f32> = angles.iter().map(|a| (*a * 3.0).cos()).collect();
    let sin: Vec<f32> = angles.iter().map(|a| (*a * 3.0).sin()).collect();
    let (x, g, w, c, s) = (
        gpu.upload(&xh),
        gpu.upload(&gh),
        gpu.upload(&wh),
        gpu.upload(&cos),
        gpu.upload(&sin),
    );
    let nan = |n| gpu.upload(&vec![f32::NAN; n]);
    let (mut q, mut kc, mut vc) = (
        nan(heads * hd),
        nan(max_ctx * kv * hd),
        nan(max_ctx * kv * hd),
    );
    let dpos = gpu.upload(&[0u32]);
    {
        let graph = Qkv::build_from_source(
            &gpu.ctx,
            QkvInputs {
                x: &x,
                g: &g,
                w: &w,
                cos_t: &c,
                sin_t: &s,
                q: &mut q,
                kc: &mut kc,
                vc: &mut vc,
                dpos: &dpos,
                pos: pos as u32,
                cols: cols as u32,
                heads: heads as u32,
                kv: kv as u32,
                hd: hd as u32,
                max_ctx: max_ctx as u32,
                blocks: 5,
            },
        )
        .unwrap();
        let mut exec = graph.instantiate().unwrap();
        exec.launch(&gpu.stream).unwrap();
        exec.synchronize().unwrap();
    }
    let n = rms(&xh, &gh);
    let y: Vec<f64> = (0..rows)
        .map(|r| dot(&wh[r * cols..(r + 1) * cols], &n))
        .collect();
    let want_q: Vec<f64> = (0..heads)
        .flat_map(|h| rotate(&y[h * hd..(h + 1) * hd], pos, &cos, &sin))
        .collect();
    close("queries", &gpu.read(&q), &want_q, 1e-5);
    let (k_all, v_all) = (gpu.read(&kc), gpu.read(&vc));
    let at = pos * kv * hd..(pos + 1) * kv * hd;
    let want_k: Vec<f64> = (0..kv)
        .flat_map(|g| rotate(&y[(heads + g) * hd..(heads + g + 1) * hd], pos, &cos, &sin))
        .collect();
    close("cached keys", &k_all[at.clone()], &want_k, 1e-5);
    close(
        "cached values",
        &v_all[at.clone()],
        &y[(heads + kv) * hd..],
        1e-5,
    );
    // Nothing else of the cache is written.
    assert!(k_all[..at.start]
        .iter()
        .chain(&v_all[at.end..])
        .all(|v| v.is_nan()));
}

#[test]
fn attention_over_several_chunks_in_both_position_modes() {
    let Some(gpu) = Gpu::find() else { return };
    // Groups of 4, 1, 8 and 16 query heads; heads of 64, 128, 32 and 96 elements (each way
    // of loading steps, each number of lanes a row).
    // Positions in three chunks (merged by the last block) and in one (written by its block).
    for (heads, kv, hd) in [
        (8usize, 2usize, 64usize),
        (3, 3, 128),
        (24, 3, 32),
        (16, 1, 96),
    ] {
        for pos in [300, 37] {
            attention_case(&gpu, heads, kv, hd, pos, None);
        }
    }
    // Fewer blocks a head than chunks: a block takes chunks 0, 2, .. or all of them.
    for ys in [1, 2] {
        attention_case(&gpu, 8, 2, 64, 300, Some(ys));
    }
}

fn attention_case(gpu: &Gpu, heads: usize, kv: usize, hd: usize, pos: usize, ys: Option<u32>) {
    let max_ctx = 400usize;
    let qh = values(heads * hd, 8);
    let kc_h = values(max_ctx * kv * hd, 9);
    let vc_h = values(max_ctx * kv * hd, 10);
    let (q, kc, vc) = (gpu.upload(&qh), gpu.upload(&kc_h), gpu.upload(&vc_h));
    let chunks = max_ctx.div_ceil(128);
    let mut part_o = gpu.upload(&vec![f32::NAN; heads * chunks * hd]);
    let mut part_ml = gpu.upload(&vec![f32::NAN; heads * chunks * 2]);
    let mut done = gpu.upload(&vec![0u32; heads]);
    let dpos = gpu.upload(&[pos as u32]);
    let mut want = Vec::new();
    for h in 0..heads {
        let g = h / (heads / kv);
        let scores: Vec<f64> = (0..=pos)
            .map(|t| {
                (0..hd)
                    .map(|d| qh[h * hd + d] as f64 * kc_h[(t * kv + g) * hd + d] as f64)
                    .sum::<f64>()
                    * 0.125
            })
            .collect();
        let m = scores.iter().cloned().fold(f64::MIN, f64::max);
        let e: Vec<f64> = scores.iter().map(|s| (s - m).exp()).collect();
        let z: f64 = e.iter().sum();
        for d in 0..hd {
            want.push(
                (0..=pos)
                    .map(|t| e[t] * vc_h[(t * kv + g) * hd + d] as f64)
                    .sum::<f64>()
                    / z,
            );
        }
    }
    for counter in [0u32, 1] {
        let mut out = gpu.upload(&vec![f32::NAN; heads * hd]);
        {
            let graph = Attention::build_from_source(
                &gpu.ctx,
                AttentionInputs {
                    q: &q,
                    kc: &kc,
                    vc: &vc,
                    part_o: &mut part_o,
                    part_ml: &mut part_ml,
                    done: &mut done,
                    out: &mut out,
                    dpos: &dpos,
                    pos: pos as u32,
                    counter,
                    heads: heads as u32,
                    kv: kv as u32,
                    hd: hd as u32,
                    max_ctx: max_ctx as u32,
                    ys: ys.unwrap_or_else(|| {
                        cuda_graph_flagships::llama::graph::attention_chunks(
                            counter,
                            pos as u32,
                            max_ctx as u32,
                        )
                    }),
                },
            )
            .unwrap();
            let mut exec = graph.instantiate().unwrap();
            // Twice: the block that merges sets the count back for the next launch.
            for _ in 0..2 {
                exec.launch(&gpu.stream).unwrap();
            }
            exec.synchronize().unwrap();
        }
        close(
            &format!(
                "attention ({heads} heads, {kv} kv, {hd} long, position {pos}, counter {counter}, blocks a head {ys:?})"
            ),
            &gpu.read(&out),
            &want,
            1e-5,
        );
        assert_eq!(
            gpu.read(&done),
            vec![0u32; heads],
            "the counts are back to 0"
        );
    }
}

#[test]
fn prefill_kernels_compute_their_float64_values() {
    let Some(gpu) = Gpu::find() else { return };
    // 70 rows and 130 output columns: past one 64 x 64 tile each way; 200 columns, not a
    // multiple of the tile's 32.
    let (rows, cols, n, ffn) = (70usize, 200usize, 130usize, 48usize);
    let (heads, kv, hd) = (4usize, 2usize, 64usize);
    let width = (heads + 2 * kv) * hd;
    let (xh, gh, wh) = (
        values(rows * cols, 11),
        values(cols, 12),
        values(n * cols, 13),
    );
    let (y0, guh, qkvh) = (
        values(rows * n, 14),
        values(rows * 2 * ffn, 15),
        values(rows * width, 16),
    );
    let half = hd / 2;
    let angle = |p: usize, i: usize| p as f64 * 10000f64.powf(-(i as f64) / half as f64);
    let cos: Vec<f32> = (0..rows * half)
        .map(|k| angle(k / half, k % half).cos() as f32)
        .collect();
    let sin: Vec<f32> = (0..rows * half)
        .map(|k| angle(k / half, k % half).sin() as f32)
        .collect();
    let (xs, g, w, gu, c, sn) = (
        gpu.upload(&xh),
        gpu.upload(&gh),
        gpu.upload(&wh),
        gpu.upload(&guh),
        gpu.upload(&cos),
        gpu.upload(&sin),
    );
    let nan = |k| gpu.upload(&vec![f32::NAN; k]);
    let (mut ns, mut y, mut acts) = (nan(rows * cols), gpu.upload(&y0), nan(rows * ffn));
    let (mut qkv, mut kc, mut vc, mut att) = (
        gpu.upload(&qkvh),
        nan(rows * kv * hd),
        nan(rows * kv * hd),
        nan(rows * heads * hd),
    );
    let scale = (hd as f64).powf(-0.5);
    {
        let graph = Batch::build_from_source(
            &gpu.ctx,
            BatchInputs {
                xs: &xs,
                g: &g,
                w: &w,
                gu: &gu,
                cos_t: &c,
                sin_t: &sn,
                ns: &mut ns,
                y: &mut y,
                acts: &mut acts,
                qkv: &mut qkv,
                kc: &mut kc,
                vc: &mut vc,
                att: &mut att,
                rows: rows as u32,
                cols: cols as u32,
                n: n as u32,
                ffn: ffn as u32,
                heads: heads as u32,
                kv: kv as u32,
                hd: hd as u32,
                scale: scale as f32,
            },
        )
        .unwrap();
        let mut exec = graph.instantiate().unwrap();
        exec.launch(&gpu.stream).unwrap();
        exec.synchronize().unwrap();
    }
    let normed: Vec<Vec<f64>> = (0..rows)
        .map(|r| rms(&xh[r * cols..(r + 1) * cols], &gh))
        .collect();
    close("norm_rows", &gpu.read(&ns), &normed.concat(), 1e-5);
    // The product reads the rows as the norm stored them (f32).
    let stored: Vec<f64> = gpu.read(&ns).iter().map(|&v| v as f64).collect();
    let prod: Vec<f64> = (0..rows * n)
        .map(|k| {
            let (r, j) = (k / n, k % n);
            y0[k] as f64
                + dot(
                    &wh[j * cols..(j + 1) * cols],
                    &stored[r * cols..(r + 1) * cols],
                )
        })
        .collect();
    close("gemm (with the residual)", &gpu.read(&y), &prod, 1e-5);
    let swiglu: Vec<f64> = (0..rows * ffn)
        .map(|k| {
            let (r, i) = (k / ffn, k % ffn);
            let (gt, up) = (
                guh[r * 2 * ffn + i] as f64,
                guh[r * 2 * ffn + ffn + i] as f64,
            );
            gt / (1.0 + (-gt).exp()) * up
        })
        .collect();
    close("swiglu_rows", &gpu.read(&acts), &swiglu, 1e-5);
    // Rotated query heads in place, rotated key heads and value heads in the cache.
    let head = |r: usize, h: usize| -> Vec<f64> {
        qkvh[r * width + h * hd..r * width + (h + 1) * hd]
            .iter()
            .map(|&v| v as f64)
            .collect()
    };
    let q: Vec<Vec<Vec<f64>>> = (0..rows)
        .map(|r| {
            (0..heads)
                .map(|h| rotate(&head(r, h), r, &cos, &sin))
                .collect()
        })
        .collect();
    let k: Vec<Vec<Vec<f64>>> = (0..rows)
        .map(|r| {
            (0..kv)
                .map(|h| rotate(&head(r, heads + h), r, &cos, &sin))
                .collect()
        })
        .collect();
    let v: Vec<Vec<Vec<f64>>> = (0..rows)
        .map(|r| (0..kv).map(|h| head(r, heads + kv + h)).collect())
        .collect();
    let got_qkv = gpu.read(&qkv);
    let got_q: Vec<f32> = (0..rows)
        .flat_map(|r| got_qkv[r * width..r * width + heads * hd].to_vec())
        .collect();
    close("rope_rows (query)", &got_q, &q.concat().concat(), 1e-5);
    close(
        "rope_rows (key cache)",
        &gpu.read(&kc),
        &k.concat().concat(),
        1e-5,
    );
    close(
        "rope_rows (value cache)",
        &gpu.read(&vc),
        &v.concat().concat(),
        1e-5,
    );
    let mut want = Vec::with_capacity(rows * heads * hd);
    for (r, qr) in q.iter().enumerate() {
        for (h, qh) in qr.iter().enumerate() {
            let kvh = h / (heads / kv);
            let s: Vec<f64> = k[..=r]
                .iter()
                .map(|kj| qh.iter().zip(&kj[kvh]).map(|(a, b)| a * b).sum::<f64>() * scale)
                .collect();
            let m = s.iter().cloned().fold(f64::MIN, f64::max);
            let e: Vec<f64> = s.iter().map(|x| (x - m).exp()).collect();
            let z: f64 = e.iter().sum();
            want.extend((0..hd).map(|d| {
                e.iter()
                    .zip(&v[..=r])
                    .map(|(ej, vj)| ej * vj[kvh][d])
                    .sum::<f64>()
                    / z
            }));
        }
    }
    close("causal_attention", &gpu.read(&att), &want, 1e-4);
}

/// The graphs' source compiled as `build_from_source` will, to machine code, with no GPU
/// (sm_90: the kernels run `griddepcontrol` themselves).
#[test]
fn sources_compile_to_machine_code() {
    let graphs: &[cuda_graph::check::GraphCheck] = &[
        ("Projections", Projections::check_source),
        ("Qkv", Qkv::check_source),
        ("Attention", Attention::check_source),
        ("Batch", Batch::check_source),
    ];
    if let Err(e) = cuda_graph::check::graphs(graphs, &[cuda_graph::check::Arch::SM_90]) {
        panic!("{e}");
    }
}
