//! Which nodes of a topology reach which.

use crate::Topology;

/// Which nodes reach which, as one bitset per node each way.
///
/// ```
/// use cuda_graph_topology::{NodeKind, Topology};
/// let mut t = Topology::new();
/// let (a, b, c) = (
///     t.add_node("a", NodeKind::Empty)?,
///     t.add_node("b", NodeKind::Empty)?,
///     t.add_node("c", NodeKind::Empty)?,
/// );
/// t.add_edge(a, b)?;
/// let r = t.reach();
/// assert!(r.ordered(a, b) && r.ordered(b, a));
/// assert!(!r.ordered(a, c));
/// # Ok::<(), cuda_graph_topology::TopologyError>(())
/// ```
pub struct Reach {
    words: usize,
    fwd: Vec<u64>,
    bwd: Vec<u64>,
}

impl Reach {
    pub(crate) fn new(t: &Topology) -> Self {
        let n = t.len();
        let words = n.div_ceil(64);
        let (mut fwd, mut bwd) = (vec![0u64; n * words], vec![0u64; n * words]);
        let succ = t.succ();
        let order = t.order();
        let or_into = |bits: &mut Vec<u64>, to: usize, from: usize| {
            bits[to * words + from / 64] |= 1 << (from % 64);
            for w in 0..words {
                bits[to * words + w] |= bits[from * words + w];
            }
        };
        for &v in order.iter().rev() {
            for &s in &succ[v as usize] {
                or_into(&mut fwd, v as usize, s as usize);
            }
        }
        for &v in &order {
            for &s in &succ[v as usize] {
                or_into(&mut bwd, s as usize, v as usize);
            }
        }
        Reach { words, fwd, bwd }
    }

    /// Words per bitset.
    pub fn words(&self) -> usize {
        self.words
    }

    /// The nodes `v` reaches, as a bitset.
    pub fn forward(&self, v: u32) -> &[u64] {
        let v = v as usize;
        &self.fwd[v * self.words..(v + 1) * self.words]
    }

    /// The nodes that reach `v`, as a bitset.
    pub fn backward(&self, v: u32) -> &[u64] {
        let v = v as usize;
        &self.bwd[v * self.words..(v + 1) * self.words]
    }

    /// Whether a path leads from `a` to `b`.
    pub fn reaches(&self, a: u32, b: u32) -> bool {
        self.forward(a)[b as usize / 64] & (1 << (b % 64)) != 0
    }

    /// Whether a path leads from `a` to `b` or from `b` to `a`.
    pub fn ordered(&self, a: u32, b: u32) -> bool {
        self.reaches(a, b) || self.reaches(b, a)
    }
}
