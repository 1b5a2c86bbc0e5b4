//! The Llama decoder's kernels one at a time (`llama/kernels.cu`, f32), each in a small graph
//! of its own, against float64 host computations on random inputs: the fused RMSNorm and
//! projection, SwiGLU, the projection with the residual add, the head with its argmax, the
//! rotary embedding and cache write, and attention over several chunks.

use cuda_graph::cuda_graph;
use cuda_graph_flagships::harness::Gpu;

cuda_graph! {
    graph Projections {
        source "src/llama/kernels.cu";
        kernel nm = norm_matvec<f32>;
        kernel gu = norm_gate_up<f32>;
        kernel ma = matvec_add<f32>;
        kernel hd = norm_head<f32>;
        kernel argmax_step;
        buffer x: f32;
        buffer g: f32;
        buffer w: f32;
        buffer w2: f32;
        buffer a: f32;
        buffer mut out: f32;
        buffer mut h: f32;
        buffer mut y: f32;
        buffer mut logits: f32;
        buffer mut best: f32;
        buffer mut best_at: u32;
        buffer mut ids: u32;
        buffer mut dpos: u32;
        param cols: u32;
        param rows: u32;
        p1 = nm<<<rows.div_ceil(4), 128, cols * 4>>>(x, g, w, out, cols, rows, 1e-5);
        p2 = gu<<<(rows / 2).div_ceil(4), 128, cols * 4>>>(x, g, w, h, cols, rows / 2, 1e-5);
        p3 = ma<<<rows.div_ceil(4), 128>>>(w2, a, y, cols, rows);
        p4 = hd<<<rows.div_ceil(4), 128, cols * 4>>>(x, g, w, logits, best, best_at, cols, rows, 1e-5);
        p5 = argmax_step<<<1, 1024>>>(best, best_at, rows.div_ceil(4), ids, dpos, 0, 1, 1, 64);
        p4 -> p5;
    }

    graph Attention {
        source "src/llama/kernels.cu";
        kernel rope_t = rope_cache<f32>;
        kernel att_t = attention<f32>;
        kernel comb_t = attn_combine<f32>;
        buffer cos_t: f32;
        buffer sin_t: f32;
        buffer mut qkv: f32;
        buffer mut kc: f32;
        buffer mut vc: f32;
        buffer mut part_o: f32;
        buffer mut part_ml: f32;
        buffer mut out: f32;
        buffer dpos: u32;
        param pos: u32;
        param heads: u32;
        param kv: u32;
        param hd: u32;
        param max_ctx: u32;
        rope = rope_t<<<heads + kv, hd / 2>>>(qkv, cos_t, sin_t, kc, vc, dpos, pos, 0, max_ctx, heads, kv, hd);
        att = att_t<<<(kv, (pos + 1).div_ceil(128), 1), 128>>>(
            qkv, kc, vc, part_o, part_ml, dpos, pos, 0, max_ctx, heads, kv, hd, max_ctx.div_ceil(128), 0.125);
        comb = comb_t<<<heads, hd>>>(part_o, part_ml, out, dpos, pos, 0, max_ctx, hd, max_ctx.div_ceil(128));
        rope -> att -> comb;
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
    let (cols, rows) = (264usize, 202usize);
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
    let (mut out, mut h, mut y) = (nan(rows), nan(rows / 2), gpu.upload(&yh));
    let (mut logits, mut best) = (nan(rows), nan(rows.div_ceil(4)));
    let mut best_at = gpu.upload(&vec![u32::MAX; rows.div_ceil(4)]);
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
                out: &mut out,
                h: &mut h,
                y: &mut y,
                logits: &mut logits,
                best: &mut best,
                best_at: &mut best_at,
                ids: &mut ids,
                dpos: &mut dpos,
                cols: cols as u32,
                rows: rows as u32,
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
    close("norm_matvec", &gpu.read(&out), &want, 1e-5);
    close("norm_head", &gpu.read(&logits), &want, 1e-5);
    let f = rows / 2;
    let swiglu: Vec<f64> = (0..f)
        .map(|r| {
            let (gate, up) = (dot(rowv(r), &n), dot(rowv(f + r), &n));
            gate / (1.0 + (-gate).exp()) * up
        })
        .collect();
    close("norm_gate_up", &gpu.read(&h), &swiglu, 1e-5);
    let a64: Vec<f64> = ah.iter().map(|&v| v as f64).collect();
    let resid: Vec<f64> = (0..rows)
        .map(|r| yh[r] as f64 + dot(&w2h[r * cols..(r + 1) * cols], &a64))
        .collect();
    close("matvec_add", &gpu.read(&y), &resid, 1e-5);
    let top = (0..rows).fold(0, |b, r| if want[r] > want[b] { r } else { b });
    let (ids, dpos) = (gpu.read(&ids), gpu.read(&dpos));
    assert_eq!(ids[1], top as u32, "argmax");
    assert_eq!(dpos[0], 1, "the position advances in counter mode");
}

#[test]
fn rope_and_attention_over_several_chunks() {
    let Some(gpu) = Gpu::find() else { return };
    let (heads, kv, hd, max_ctx) = (8usize, 2usize, 64usize, 400usize);
    let pos = 300usize;
    let half = hd / 2;
    // Rotary tables of any angles: the kernel only multiplies by them.
    let angles = values(max_ctx * half, 7);
    let cos: Vec<f32> = angles.iter().map(|a| (*a * 3.0).cos()).collect();
    let sin: Vec<f32> = angles.iter().map(|a| (*a * 3.0).sin()).collect();
    let qkv_h = values((heads + 2 * kv) * hd, 8);
    // The cache before the step: positions below `pos` hold random keys and values.
    let kc_h = values(max_ctx * kv * hd, 9);
    let vc_h = values(max_ctx * kv * hd, 10);
    let (cos_t, sin_t) = (gpu.upload(&cos), gpu.upload(&sin));
    let (mut qkv, mut kc, mut vc) = (gpu.upload(&qkv_h), gpu.upload(&kc_h), gpu.upload(&vc_h));
    let chunks = max_ctx.div_ceil(128);
    let mut part_o = gpu.upload(&vec![f32::NAN; heads * chunks * hd]);
    let mut part_ml = gpu.upload(&vec![f32::NAN; heads * chunks * 2]);
    let mut out = gpu.upload(&vec![f32::NAN; heads * hd]);
    let dpos = gpu.upload(&[0u32]);
    {
        let graph = Attention::build_from_source(
            &gpu.ctx,
            AttentionInputs {
                cos_t: &cos_t,
                sin_t: &sin_t,
                qkv: &mut qkv,
                kc: &mut kc,
                vc: &mut vc,
                part_o: &mut part_o,
                part_ml: &mut part_ml,
                out: &mut out,
                dpos: &dpos,
                pos: pos as u32,
                heads: heads as u32,
                kv: kv as u32,
                hd: hd as u32,
                max_ctx: max_ctx as u32,
            },
        )
        .unwrap();
        let mut exec = graph.instantiate().unwrap();
        exec.launch(&gpu.stream).unwrap();
        exec.synchronize().unwrap();
    }
    // The host's rope: pairs (i, i + half).
    let rot = |v: &[f32]| -> Vec<f64> {
        let mut o = vec![0.0; hd];
        for i in 0..half {
            let (c, s) = (cos[pos * half + i] as f64, sin[pos * half + i] as f64);
            let (a, b) = (v[i] as f64, v[i + half] as f64);
            o[i] = a * c - b * s;
            o[i + half] = b * c + a * s;
        }
        o
    };
    let q: Vec<Vec<f64>> = (0..heads)
        .map(|h| rot(&qkv_h[h * hd..(h + 1) * hd]))
        .collect();
    let mut keys = kc_h.clone();
    let mut vals = vc_h.clone();
    for g in 0..kv {
        let k = rot(&qkv_h[(heads + g) * hd..(heads + g + 1) * hd]);
        for d in 0..hd {
            keys[(pos * kv + g) * hd + d] = k[d] as f32;
            vals[(pos * kv + g) * hd + d] = qkv_h[(heads + kv + g) * hd + d];
        }
    }
    let qk = gpu.read(&qkv);
    let want_q: Vec<f64> = q.iter().flatten().copied().collect();
    close("rotated queries", &qk[..heads * hd], &want_q, 1e-6);
    let kc_after = gpu.read(&kc);
    let want_k: Vec<f64> = keys[pos * kv * hd..(pos + 1) * kv * hd]
        .iter()
        .map(|&v| v as f64)
        .collect();
    close(
        "cached keys",
        &kc_after[pos * kv * hd..(pos + 1) * kv * hd],
        &want_k,
        1e-6,
    );
    let mut want = Vec::new();
    for (h, qh) in q.iter().enumerate() {
        let g = h / (heads / kv);
        let scores: Vec<f64> = (0..=pos)
            .map(|t| {
                (0..hd)
                    .map(|d| qh[d] * keys[(t * kv + g) * hd + d] as f64)
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
                    .map(|t| e[t] * vals[(t * kv + g) * hd + d] as f64)
                    .sum::<f64>()
                    / z,
            );
        }
    }
    close("attention", &gpu.read(&out), &want, 1e-5);
}
