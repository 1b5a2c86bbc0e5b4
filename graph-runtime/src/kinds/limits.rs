//! A kernel function's own launch limits and the check of a launch configuration against them
//! and the device's, made when a kernel node is added and on every launch edit.

use cudarc::driver::LaunchConfig;

use crate::driver::{FuncInfo, Limits};
use crate::error::LaunchLimit;

/// A kernel function's own launch limits, copied out of its [`FuncInfo`] once for all of its
/// nodes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct FuncLimits {
    max_threads: u32,
    max_dynamic_smem: u32,
}

impl FuncLimits {
    pub fn of(info: &FuncInfo) -> Self {
        FuncLimits {
            max_threads: info.max_threads,
            max_dynamic_smem: info.max_dynamic_smem,
        }
    }

    /// Checks `cfg` against these limits and the device's (`lim`): every dimension from 1 to its
    /// maximum, the block's threads, the dynamic shared memory.
    #[inline]
    pub fn check(&self, cfg: &LaunchConfig, lim: &Limits) -> Result<(), LaunchLimit> {
        // Every limit at once, without branches (a dimension of 0 wraps past its maximum); the
        // limit that failed is found apart, out of line.
        let (g, b) = (cfg.grid_dim, cfg.block_dim);
        let within = |v: u32, max: u32| v.wrapping_sub(1) < max;
        // Saturating: dimensions past their limits may multiply past u64's range.
        let threads = (b.0 as u64)
            .saturating_mul(b.1 as u64)
            .saturating_mul(b.2 as u64);
        let ok = within(g.0, lim.max_grid[0])
            & within(g.1, lim.max_grid[1])
            & within(g.2, lim.max_grid[2])
            & within(b.0, lim.max_block[0])
            & within(b.1, lim.max_block[1])
            & within(b.2, lim.max_block[2])
            & (threads <= self.max_threads.min(lim.max_threads) as u64)
            & (cfg.shared_mem_bytes <= self.max_dynamic_smem);
        if ok {
            Ok(())
        } else {
            self.which_limit(cfg, lim)
        }
    }

    /// The first limit `cfg` breaks, axis by axis (what [`check`](Self::check) reports).
    #[cold]
    #[inline(never)]
    fn which_limit(&self, cfg: &LaunchConfig, lim: &Limits) -> Result<(), LaunchLimit> {
        let g = [cfg.grid_dim.0, cfg.grid_dim.1, cfg.grid_dim.2];
        let b = [cfg.block_dim.0, cfg.block_dim.1, cfg.block_dim.2];
        for (axis, i) in ['x', 'y', 'z'].into_iter().zip(0..3) {
            if g[i] == 0 || g[i] > lim.max_grid[i] {
                return Err(LaunchLimit::Grid {
                    axis,
                    value: g[i],
                    max: lim.max_grid[i],
                });
            }
            if b[i] == 0 || b[i] > lim.max_block[i] {
                return Err(LaunchLimit::Block {
                    axis,
                    value: b[i],
                    max: lim.max_block[i],
                });
            }
        }
        let threads = b.iter().map(|&v| v as u64).product::<u64>();
        let max = self.max_threads.min(lim.max_threads) as u64;
        if threads > max {
            return Err(LaunchLimit::Threads {
                block: cfg.block_dim,
                threads,
                max,
            });
        }
        if cfg.shared_mem_bytes > self.max_dynamic_smem {
            return Err(LaunchLimit::SharedMemory {
                bytes: cfg.shared_mem_bytes,
                max: self.max_dynamic_smem,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The branch-free check of a launch configuration agrees with the axis-by-axis one (the
    /// oracle, which also names the limit) on every configuration around small limits: each
    /// dimension from 0 to past its maximum, the thread count and the shared memory.
    #[test]
    fn the_quick_launch_check_agrees_with_the_detailed_one() {
        let f = FuncLimits {
            max_threads: 6,
            max_dynamic_smem: 8,
        };
        let lim = Limits {
            max_block: [4, 2, 3],
            max_grid: [3, 2, 4],
            max_threads: 7,
        };
        let values = [0u32, 1, 2, 3, 4, 5, u32::MAX];
        let mut within = 0;
        for &g0 in &values {
            for &g1 in &values[..4] {
                for &g2 in &values[..6] {
                    for &b0 in &values {
                        for &b1 in &values[..4] {
                            for &b2 in values[..5].iter().chain([&u32::MAX]) {
                                for smem in [0, 8, 9] {
                                    let cfg = LaunchConfig {
                                        grid_dim: (g0, g1, g2),
                                        block_dim: (b0, b1, b2),
                                        shared_mem_bytes: smem,
                                    };
                                    let quick = f.check(&cfg, &lim);
                                    let oracle = f.which_limit(&cfg, &lim);
                                    assert_eq!(quick.is_ok(), oracle.is_ok(), "{cfg:?}");
                                    within += usize::from(oracle.is_ok());
                                }
                            }
                        }
                    }
                }
            }
        }
        assert!(within > 0, "some configurations are within the limits");
    }
}
