//! Repeat blocks (`layers = repeat l in 0..n { .. }`): their carry edges, the params that size
//! the graph, and the races between iterations.
//!
//! Every check holds for every count, and is made on the body once, not on an unrolled graph.
//! Within one iteration the body's edges order its nodes (the graph-wide race check sees to
//! that). Between iterations, only carry edges order anything: node `a` of iteration `l`
//! runs before node `b` of iteration `l + k` exactly when a path of `k` steps through the
//! *iteration relation* `M` joins them, where `M` relates `x` to `y` when `x` reaches (in the
//! body, or is) a carry edge's source and that carry edge's target reaches `y`. So the
//! ordered pairs at distance `k` are `M^k`. The powers of a boolean matrix repeat after a
//! finite prefix, so all of them are seen by computing powers until one comes back: a pair of
//! conflicting accesses is safe at every distance the count allows exactly when it is in
//! every power up to there ([`cross_races`]; `tests/iterations.rs` checks it against a
//! brute-force unrolling).
//!
//! Stacks of buffers refine "the same buffer": `w[l + c]` is another buffer in each
//! iteration, so two accesses `w[l + a]` and `w[l + b]` meet only at distance `a - b`; a
//! literal index is the same buffer in every iteration; any other index may be any buffer.

use std::collections::{BTreeSet, HashMap};

use proc_macro2::Span;
use syn::Ident;

use crate::ast;
use crate::lower::hint;
use crate::model::{Arg, Errors, Graph, NodeOp, Slot, StackIndex};

/// Params that size the graph: repeat counts, stack counts and stack indices. They get no
/// setter.
pub(super) fn structural(g: &Graph) -> BTreeSet<usize> {
    let mut out = BTreeSet::new();
    for n in &g.nodes {
        match &n.op {
            NodeOp::Repeat(r) => out.extend(&r.count.params),
            NodeOp::Launch(l) => {
                for a in &l.args {
                    if let Arg::Buffer {
                        index: Some(StackIndex::Value(v)),
                        ..
                    } = a
                    {
                        out.extend(&v.params);
                    }
                }
            }
            _ => {}
        }
    }
    for i in &g.inputs {
        if let Some((v, _)) = i.kind.buffer().and_then(|b| b.stack.as_ref()) {
            out.extend(&v.params);
        }
    }
    out
}

/// `carry a -> b;` in the body of block `block`: both ends are nodes of that body; written
/// once. Recorded in the block (and in the topology, which draws them).
pub(super) fn check_carries(
    g: &mut Graph,
    failed: &[Ident],
    chain: ast::EdgeChain,
    block: usize,
    errors: &mut Errors,
) {
    let Some(r) = g.repeat(block) else { return };
    let (scope, arrow) = (r.scope, chain.arrows[0]);
    let block_name = g.nodes[block].name.clone();
    let body: Vec<String> = (0..g.nodes.len())
        .filter(|&i| g.topo.scope(i as u32) == scope)
        .map(|i| g.nodes[i].name.to_string())
        .collect();
    let find = |id: &Ident, errors: &mut Errors| -> Option<u32> {
        if failed.contains(id) {
            return None;
        }
        match g.topo.find(&id.to_string()) {
            Some(i) if g.topo.scope(i) == scope => Some(i),
            Some(_) => {
                errors.at(
                    id.span(),
                    format!(
                        "`{id}` is not a node of repeat block `{block_name}`; a carry edge joins two nodes of the block's body (iteration `l`'s first, iteration `l + 1`'s second); order nodes outside the block with edges to or from `{block_name}`"
                    ),
                );
                None
            }
            None => {
                errors.at(
                    id.span(),
                    format!(
                        "no node named `{id}` in repeat block `{block_name}`{}",
                        hint(&id.to_string(), body.clone(), "")
                    ),
                );
                None
            }
        }
    };
    let from: Vec<u32> = chain.groups[0]
        .iter()
        .filter_map(|id| find(id, errors))
        .collect();
    let to: Vec<u32> = chain.groups[1]
        .iter()
        .filter_map(|id| find(id, errors))
        .collect();
    for &a in &from {
        for &b in &to {
            if g.topo.add_carry(a, b).is_err() {
                errors.at(
                    arrow,
                    format!(
                        "the carry edge `{} -> {}` is written twice; remove this one",
                        g.nodes[a as usize].name, g.nodes[b as usize].name
                    ),
                );
                continue;
            }
            let NodeOp::Repeat(r) = &mut g.nodes[block].op else {
                unreachable!("checked")
            };
            r.carry.push((a, b, arrow));
            if let Some(p) = chain.programmatic {
                r.requested.push((a, b, p.join(arrow).unwrap_or(arrow)));
            }
        }
    }
}

/// One access of a body node to a buffer: the node (its index in the body), the buffer (any
/// number that tells buffers apart), which buffer of a stack (`None` for a plain buffer), and
/// whether it writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Access {
    /// The node (its position in the body).
    pub node: usize,
    /// The buffer (a number that tells buffers apart: the input index in the graph's check).
    pub buffer: usize,
    /// Which buffer of a stack (`None` for a plain buffer).
    pub slot: Option<Slot>,
    /// Whether it writes the buffer (else it reads it).
    pub writes: bool,
}

/// A race between iterations: `first`'s access in iteration `l` and `second`'s in iteration
/// `l + distance` touch one buffer, one of them writes, and nothing orders them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Race {
    /// The access in iteration `l`.
    pub first: Access,
    /// The access in iteration `l + distance`.
    pub second: Access,
    /// How many iterations apart they are: at least 1, the smallest at which they race.
    pub distance: u64,
}

/// Why [`cross_races`] could not decide: the powers of the iteration relation did not repeat
/// within this many iterations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Undecided(pub u64);

/// The most powers computed before giving up (a body of a few dozen nodes repeats long before).
const MAX_POWERS: usize = 4096;

/// A square boolean matrix, one bitset per row.
#[derive(Clone, PartialEq, Eq, Hash)]
struct Matrix {
    n: usize,
    rows: Vec<Vec<u64>>,
}

impl Matrix {
    fn new(n: usize) -> Self {
        Matrix {
            n,
            rows: vec![vec![0; n.div_ceil(64).max(1)]; n],
        }
    }
    fn get(&self, i: usize, j: usize) -> bool {
        self.rows[i][j / 64] >> (j % 64) & 1 == 1
    }
    fn set(&mut self, i: usize, j: usize) {
        self.rows[i][j / 64] |= 1 << (j % 64);
    }
    fn or_row(&mut self, i: usize, row: &[u64]) {
        for (a, b) in self.rows[i].iter_mut().zip(row) {
            *a |= b;
        }
    }
    fn times(&self, other: &Matrix) -> Matrix {
        let mut out = Matrix::new(self.n);
        for i in 0..self.n {
            for k in 0..self.n {
                if self.get(i, k) {
                    let row = other.rows[k].clone();
                    out.or_row(i, &row);
                }
            }
        }
        out
    }
}

/// The powers `M^1, M^2, ...` of a matrix, as far as they differ, and how they repeat.
struct Powers {
    list: Vec<Matrix>,
    /// `Some((s, p))`: from exponent `s + 1` on, the powers repeat with period `p`.
    cycle: Option<(usize, usize)>,
}

impl Powers {
    /// Powers up to exponent `limit` (all of them, as a prefix and a cycle, when `None`).
    fn of(m: &Matrix, limit: Option<u64>) -> Result<Self, Undecided> {
        let mut list = vec![m.clone()];
        let mut seen: HashMap<Matrix, usize> = HashMap::from([(m.clone(), 0)]);
        loop {
            if limit.is_some_and(|k| list.len() as u64 >= k) {
                return Ok(Powers { list, cycle: None });
            }
            if list.len() >= MAX_POWERS {
                return Err(Undecided(MAX_POWERS as u64));
            }
            let next = list.last().expect("never empty").times(m);
            if let Some(&s) = seen.get(&next) {
                let t = list.len();
                return Ok(Powers {
                    list,
                    cycle: Some((s, t - s)),
                });
            }
            seen.insert(next.clone(), list.len());
            list.push(next);
        }
    }

    /// `M^k`, `k >= 1`.
    fn at(&self, k: u64) -> &Matrix {
        let i = (k - 1) as usize;
        match self.cycle {
            Some((s, p)) if i >= self.list.len() => &self.list[s + (i - s) % p],
            _ => &self.list[i.min(self.list.len() - 1)],
        }
    }

    /// The exponents whose powers are all the different ones up to `limit`.
    fn exponents(&self, limit: Option<u64>) -> std::ops::RangeInclusive<u64> {
        let last = self.list.len() as u64;
        1..=limit.map_or(last, |k| k.min(last))
    }
}

/// Whether two accesses of one buffer can touch the same element when the second runs
/// `distance` iterations after the first (`None`: at some distance, or in different blocks).
pub fn same_buffer(a: Option<Slot>, b: Option<Slot>, distance: Option<u64>) -> bool {
    match (a, b) {
        (Some(Slot::Iter(x)), Some(Slot::Iter(y))) => match distance {
            Some(k) => x as i128 == y as i128 + k as i128,
            None => true,
        },
        (Some(Slot::Const(x)), Some(Slot::Const(y))) => x == y,
        _ => true,
    }
}

/// The distances at which two accesses touch one buffer (see [`meets`]).
enum Meets {
    Never,
    /// At this distance only.
    At(u64),
    /// At distances 1 to this.
    UpTo(u64),
    /// At every distance.
    Always,
}

/// At which distances `k >= 1` an access of slot `x` in iteration `i` and one of slot `y` in
/// iteration `i + k` touch the same buffer, for some `i` with both iterations below the count
/// (`limit` is the count less one, the largest distance; `None`: any count). Plain buffers
/// (`None`) are one buffer.
fn meets(x: Option<Slot>, y: Option<Slot>, limit: Option<u64>) -> Meets {
    let fits = |i: i128, k: i128| i >= 0 && limit.is_none_or(|l| i + k <= l as i128);
    match (x, y) {
        // `i + a == i + k + b`.
        (Some(Slot::Iter(a)), Some(Slot::Iter(b))) => {
            let k = a as i128 - b as i128;
            if k >= 1 && fits(0, k) {
                Meets::At(k as u64)
            } else {
                Meets::Never
            }
        }
        // `i + a == d`: `i = d - a`, then any `k` while `i + k` is in the block.
        (Some(Slot::Iter(a)), Some(Slot::Const(d))) => {
            let i = d - a as i128;
            match limit {
                _ if i < 0 => Meets::Never,
                None => Meets::Always,
                Some(l) if (l as i128) > i => Meets::UpTo((l as i128 - i) as u64),
                Some(_) => Meets::Never,
            }
        }
        // `d == i + k + b`: `i = d - b - k >= 0`, and `i + k = d - b` in the block.
        (Some(Slot::Const(d)), Some(Slot::Iter(b))) => {
            let top = d - b as i128;
            if top >= 1 && fits(top, 0) {
                Meets::UpTo(top as u64)
            } else {
                Meets::Never
            }
        }
        (Some(Slot::Const(d)), Some(Slot::Const(e))) if d != e => Meets::Never,
        _ => Meets::Always,
    }
}

/// The races between iterations of a repeat block whose body has `nodes` nodes, `edges`
/// (within one iteration), `carry` edges (iteration `l` to `l + 1`) and `accesses`, when it
/// runs `count` times (`None`: any number of times). Each race is reported at the smallest
/// distance where it happens.
pub fn cross_races(
    nodes: usize,
    edges: &[(usize, usize)],
    carry: &[(usize, usize)],
    accesses: &[Access],
    count: Option<u64>,
) -> Result<Vec<Race>, Undecided> {
    // The largest distance between two iterations.
    let limit = count.map(|n| n.saturating_sub(1));
    if limit == Some(0) {
        return Ok(Vec::new());
    }
    // Reach within one iteration (each node reaches itself).
    let mut reach = Matrix::new(nodes);
    for i in 0..nodes {
        reach.set(i, i);
    }
    for &(a, b) in edges {
        reach.set(a, b);
    }
    for k in 0..nodes {
        for i in 0..nodes {
            if reach.get(i, k) {
                let row = reach.rows[k].clone();
                reach.or_row(i, &row);
            }
        }
    }
    let mut c = Matrix::new(nodes);
    for &(a, b) in carry {
        c.set(a, b);
    }
    let step = reach.times(&c).times(&reach);
    let powers = Powers::of(&step, limit)?;
    let mut out = Vec::new();
    for x in accesses {
        for y in accesses {
            if x.buffer != y.buffer || !(x.writes || y.writes) {
                continue;
            }
            let unordered = |k: u64| !powers.at(k).get(x.node, y.node);
            // The distances `k` at which `x` (in iteration `i`) and `y` (in `i + k`) can touch
            // one buffer, for some `i` with both iterations in the block.
            let last = powers.list.len() as u64;
            let up_to = |k: u64| limit.map_or(k, |l| k.min(l));
            let found = match meets(x.slot, y.slot, limit) {
                Meets::Never => None,
                Meets::At(k) => {
                    (k >= 1 && limit.is_none_or(|l| k <= l) && unordered(k)).then_some(k)
                }
                // Beyond the distinct powers nothing new can be unordered.
                Meets::UpTo(k) => (1..=up_to(k).min(last)).find(|&k| unordered(k)),
                Meets::Always => powers.exponents(limit).find(|&k| unordered(k)),
            };
            if let Some(distance) = found {
                out.push(Race {
                    first: *x,
                    second: *y,
                    distance,
                });
            }
        }
    }
    out.sort_by_key(|r| (r.distance, r.second.node, r.first.node));
    Ok(out)
}

/// The carry edges to add so that no two iterations race on `race`'s buffer (every race
/// [`cross_races`] finds on it, not only `race`): `race`'s own carry (from its first node to its
/// second) where that is enough, else a smallest set found by dropping, one at a time, the
/// carries between the buffer's users that are not needed. Empty when none is found (an order
/// that cannot be proved).
pub fn carry_fix(
    nodes: usize,
    edges: &[(usize, usize)],
    carry: &[(usize, usize)],
    accesses: &[Access],
    count: Option<u64>,
    race: &Race,
) -> Vec<(usize, usize)> {
    let on: Vec<Access> = accesses
        .iter()
        .filter(|a| a.buffer == race.first.buffer)
        .copied()
        .collect();
    let solves = |more: &[(usize, usize)]| {
        let all: Vec<(usize, usize)> = carry.iter().chain(more).copied().collect();
        cross_races(nodes, edges, &all, &on, count).is_ok_and(|r| r.is_empty())
    };
    let own = (race.first.node, race.second.node);
    if solves(&[own]) {
        return vec![own];
    }
    // Every carry between two users (one user to itself too) orders each use before every use
    // in the iterations after: enough. Then each that is not needed goes, `own` last.
    let mut users: Vec<usize> = on.iter().map(|a| a.node).collect();
    users.sort_unstable();
    users.dedup();
    let mut set: Vec<(usize, usize)> = vec![own];
    for &u in &users {
        for &v in &users {
            if !set.contains(&(u, v)) && !carry.contains(&(u, v)) {
                set.push((u, v));
            }
        }
    }
    if !solves(&set) {
        return Vec::new();
    }
    for k in (0..set.len()).rev() {
        let mut fewer = set.clone();
        fewer.remove(k);
        if solves(&fewer) {
            set = fewer;
        }
    }
    set.sort_by_key(|&c| c != own);
    set
}

/// A repeat block's body as [`cross_races`] takes it: its nodes (indices in the graph, in
/// order), and its edges and carry edges between positions in that list.
pub(super) struct Body {
    pub nodes: Vec<usize>,
    pub edges: Vec<(usize, usize)>,
    pub carry: Vec<(usize, usize)>,
}

impl Body {
    pub(super) fn of(g: &Graph, r: &crate::model::Repeat) -> Self {
        let nodes: Vec<usize> = (0..g.nodes.len())
            .filter(|&i| g.topo.scope(i as u32) == r.scope)
            .collect();
        let local = |i: u32| nodes.iter().position(|&b| b == i as usize);
        let edges = g
            .edges()
            .filter_map(|(a, b)| Some((local(a as u32)?, local(b as u32)?)))
            .collect();
        let carry = r
            .carry
            .iter()
            .filter_map(|&(a, b, _)| Some((local(a)?, local(b)?)))
            .collect();
        Body {
            nodes,
            edges,
            carry,
        }
    }
}

/// The races between iterations of every repeat block of `g`, one error per buffer and block.
pub(super) fn check_iterations(g: &Graph, errors: &mut Errors) {
    for (bi, block) in g.nodes.iter().enumerate() {
        let NodeOp::Repeat(r) = &block.op else {
            continue;
        };
        let Body {
            nodes: body,
            edges,
            carry,
        } = Body::of(g, r);
        let mut accesses = Vec::new();
        for (k, &ni) in body.iter().enumerate() {
            let uses = &g.nodes[ni].uses;
            for (&x, writes) in uses
                .reads
                .iter()
                .map(|x| (x, false))
                .chain(uses.writes.iter().map(|x| (x, true)))
            {
                let b = g.buffer(x);
                if b.disjoint || b.stack.is_some() {
                    continue;
                }
                accesses.push(Access {
                    node: k,
                    buffer: x,
                    slot: None,
                    writes,
                });
            }
            for &(x, slot, writes) in &uses.slots {
                accesses.push(Access {
                    node: k,
                    buffer: x,
                    slot: Some(slot),
                    writes,
                });
            }
        }
        let count = r.literal().map(|n| n.max(0) as u64);
        match cross_races(body.len(), &edges, &carry, &accesses, count) {
            Ok(races) => {
                let mut reported = BTreeSet::new();
                for race in races {
                    // Two collectives of one communicator: the order check's (`same_comm`).
                    if g.same_comm(body[race.first.node], body[race.second.node]) {
                        continue;
                    }
                    if reported.insert(race.first.buffer) {
                        let fix = carry_fix(body.len(), &edges, &carry, &accesses, count, &race);
                        report(g, bi, &body, race, &fix, errors);
                    }
                }
            }
            Err(Undecided(n)) => errors.at(
                r.keyword,
                format!(
                    "cannot prove that the iterations of `{}` do not race: the order its carry edges give repeats only after more than {n} iterations; add a carry edge from the body's last node to its first (`carry last -> first;`) so each iteration runs after the one before",
                    block.name
                ),
            ),
        }
    }
}

/// The error for one race between iterations, at the later node, with the carry edges `fixes`
/// that end every race between iterations on its buffer.
fn report(
    g: &Graph,
    block: usize,
    body: &[usize],
    race: Race,
    fixes: &[(usize, usize)],
    errors: &mut Errors,
) {
    let (a, b) = (
        &g.nodes[body[race.first.node]],
        &g.nodes[body[race.second.node]],
    );
    let r = g.repeat(block).expect("a repeat block");
    let var = &r.var_shown();
    let input = &g.inputs[race.first.buffer];
    let what = |acc: &Access| if acc.writes { "writes" } else { "reads" };
    let (buffer, again) = match race.first.slot.zip(race.second.slot) {
        Some((x, y)) => (
            format!("`{}`", crate::kinds::written(&input.name, var, x)),
            format!(
                "the same buffer (`{}` there)",
                crate::kinds::written(&input.name, var, y)
            ),
        ),
        None => (
            format!("{} `{}`", input.kind.noun(), input.name),
            "it".to_owned(),
        ),
    };
    let later = if race.distance == 1 {
        format!("{var} + 1")
    } else {
        format!("{var} + {}", race.distance)
    };
    let own = [(race.first.node, race.second.node)];
    let name = |k: usize| g.nodes[body[k]].name.to_string();
    let fix = if fixes.len() > 1 || (fixes.len() == 1 && fixes != own) {
        let carries: Vec<String> = fixes
            .iter()
            .map(|&(x, y)| format!("carry {} -> {};", name(x), name(y)))
            .collect();
        format!(
            "a carry edge `carry {} -> {};` alone leaves another race on {buffer}; add `{}`, which {} every use of it before the uses of the iterations after",
            a.name,
            b.name,
            carries.join(" "),
            if carries.len() == 1 { "orders" } else { "order" }
        )
    } else if race.first.node == race.second.node {
        format!(
            "add a carry edge that orders one iteration's `{}` before the next one's, such as `carry {} -> {};`",
            a.name, a.name, a.name
        )
    } else {
        format!(
            "add a carry edge from `{}` (or a node after it) to `{}` (or a node before it), such as `carry {} -> {};`",
            a.name, b.name, a.name, b.name
        )
    };
    let span: Span = b.name.span();
    errors.at(
        span,
        format!(
            "data race between iterations of `{}`: `{}` in iteration {var} {} {buffer}, and `{}` in iteration {later} {} {again}, and no carry edge orders them; {fix}",
            g.nodes[block].name,
            a.name,
            what(&race.first),
            b.name,
            what(&race.second),
        ),
    );
    if fixes.is_empty() {
        return;
    }
    let block_name = g.nodes[block].name.to_string();
    errors.propose(
        fixes
            .iter()
            .map(|&(x, y)| crate::model::Add::Carry {
                block: block_name.clone(),
                from: name(x),
                to: name(y),
            })
            .collect(),
    );
}
