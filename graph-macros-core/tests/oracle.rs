//! The front end's control-flow checks against a brute-force oracle.
//!
//! Random graphs with nested IF, IF/ELSE, SWITCH and WHILE bodies, temporaries, a buffer,
//! condition handles and edges are written as `cuda_graph!` source and checked by the macro's
//! front end. A plain interpreter enumerates every way a launch can run them (each IF taken or
//! not, each SWITCH case or none, each WHILE body 0, 1 or 2 times: a third iteration orders
//! nothing new), builds the happens-before order of each run's node instances, and decides on
//! each run which temporaries are read before any write and which nodes race.
//!
//! Two interpreters:
//! - the *precise* one also follows condition values: at a conditional node's first run in a
//!   launch, when no node that sets its condition can have run before it, the condition holds
//!   its default (CUDA assigns it at every launch), so a literal default decides the branch;
//! - the *coarse* one lets every IF, IF/ELSE and SWITCH go any way, and uses a default only for
//!   a WHILE's first run (the one rule the macro documents).
//!
//! Each race error's suggested edge, applied to the graph, must leave the two nodes it names
//! racing on no buffer.
//!
//! The macro must reject everything the precise interpreter rejects (soundness), and it reports
//! exactly what the coarse one finds: the same uninitialised reads, the same races, the same
//! loops that cannot end. Where the two interpreters differ is where the macro is conservative
//! on purpose (see the README's "What the checks assume").
//!
//! It makes no CUDA call, so compute-sanitizer refuses to run it; like the trybuild harness it
//! stays out of the GPU pack (`shared/gpu/pack.sh` leaves out tests whose source names trybuild)
//! and runs in CI.

// The interpreter indexes its happens-before matrix by event numbers, as the prose does.
#![allow(clippy::needless_range_loop)]

use std::collections::{BTreeMap, BTreeSet};

use cuda_graph_macros_core::check;
use cuda_graph_macros_core::model::Add;
use proptest::prelude::*;

/// What a generated node does.
#[derive(Debug, Clone)]
enum Op {
    /// A kernel writing buffer `b` (`&mut`).
    Write(usize),
    /// A kernel reading buffer `b` (`&`).
    Read(usize),
    /// A kernel setting condition `c`.
    Set(usize),
    Empty,
    /// A conditional node on condition `cond`, with its bodies (scope indices).
    Cond {
        kind: Kind,
        cond: usize,
        bodies: Vec<usize>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    If,
    IfElse,
    Switch,
    While,
}

/// A condition's default, as written.
#[derive(Debug, Clone, Copy)]
enum Default {
    None,
    Lit(u32),
    /// A constant of the surrounding scope (`K`): the macro cannot read its value.
    Named,
}

impl Default {
    fn value(self) -> Option<u32> {
        match self {
            Default::None => Some(0),
            Default::Lit(v) => Some(v),
            Default::Named => None,
        }
    }
}

/// Buffers: 0 and 1 are temporaries, 2 a plain device buffer.
const BUFFERS: [&str; 3] = ["t0", "t1", "y"];
const TEMPS: usize = 2;

#[derive(Debug, Clone, Default)]
struct Scope {
    nodes: Vec<usize>,
    /// Edges between positions of `nodes` (earlier to later: acyclic).
    edges: Vec<(usize, usize)>,
}

/// A generated graph: node `i` is the `i`th node the macro meets (a conditional node before
/// its bodies' nodes), named `n{i}`.
#[derive(Debug, Clone, Default)]
struct G {
    ops: Vec<Op>,
    scopes: Vec<Scope>,
    conds: Vec<Default>,
}

/// Choices driving generation, drawn by proptest.
struct Draw<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Draw<'_> {
    fn next(&mut self, n: usize) -> usize {
        let b = self.bytes.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b as usize % n
    }
}

impl G {
    fn node(&mut self, scope: usize, op: Op) -> usize {
        self.ops.push(op);
        let id = self.ops.len() - 1;
        self.scopes[scope].nodes.push(id);
        id
    }

    /// Fills scope `s` (at nesting `depth`) with nodes and edges; `setter`: a condition whose
    /// setter goes into this scope.
    fn fill(&mut self, s: usize, depth: usize, setter: Option<usize>, d: &mut Draw<'_>) {
        let count = if depth == 0 {
            2 + d.next(4)
        } else {
            1 + d.next(3)
        };
        let setter_at = setter.map(|_| d.next(count + 1));
        for k in 0..=count {
            if setter_at == Some(k) {
                self.node(s, Op::Set(setter.expect("a setter")));
            }
            if k == count {
                break;
            }
            let conditional = self.ops.len() < 14 && depth < 3 && d.next(10) < 4 - depth;
            if !conditional {
                // Mostly `t0`; writes more likely early in a scope, reads late.
                let b = [0, 0, 0, 0, 0, 1, 1, 2][d.next(8)];
                let op = match (d.next(8) + 4 * k / count, d.next(8)) {
                    (_, 0) => Op::Empty,
                    (0..=4, _) => Op::Write(b),
                    _ => Op::Read(b),
                };
                self.node(s, op);
                continue;
            }
            let kind = [Kind::If, Kind::IfElse, Kind::Switch, Kind::While][d.next(4)];
            let cond = self.conds.len();
            self.conds.push(match d.next(6) {
                0 => Default::None,
                1 => Default::Lit(0),
                2 | 3 => Default::Lit(1),
                4 => Default::Lit(2),
                _ => Default::Named,
            });
            let bodies = match kind {
                Kind::If | Kind::While => 1,
                Kind::IfElse => 2,
                Kind::Switch => 2 + d.next(2),
            };
            // Where the condition is set: before the node, after it, or in one of its bodies
            // (a WHILE's setter is in its body but now and then, to test the loop rule).
            let place = match (kind, d.next(10)) {
                (Kind::While, 0) => 0,
                (Kind::While, 1) => 1,
                (Kind::While, _) => 2,
                (_, 0..=3) => 0,
                (_, 4..=6) => 1,
                _ => 2,
            };
            if place == 0 {
                self.node(s, Op::Set(cond));
            }
            let id = self.node(
                s,
                Op::Cond {
                    kind,
                    cond,
                    bodies: Vec::new(),
                },
            );
            let with_setter = if place == 2 {
                d.next(bodies)
            } else {
                usize::MAX
            };
            let mut scopes = Vec::new();
            for b in 0..bodies {
                self.scopes.push(Scope::default());
                let inner = self.scopes.len() - 1;
                scopes.push(inner);
                self.fill(inner, depth + 1, (b == with_setter).then_some(cond), d);
            }
            if let Op::Cond { bodies, .. } = &mut self.ops[id] {
                *bodies = scopes;
            }
            if place == 1 {
                self.node(s, Op::Set(cond));
            }
        }
        let n = self.scopes[s].nodes.len();
        let mut edges = BTreeSet::new();
        // Mostly a chain, with gaps, and a few edges more.
        for a in 1..n {
            if d.next(10) < 7 {
                edges.insert((a - 1, a));
            }
        }
        for _ in 0..d.next(n + 1) {
            let (a, b) = (d.next(n), d.next(n));
            if a < b {
                edges.insert((a, b));
            }
        }
        self.scopes[s].edges = edges.into_iter().collect();
    }

    fn generate(bytes: &[u8]) -> G {
        let mut g = G {
            scopes: vec![Scope::default()],
            ..G::default()
        };
        g.fill(0, 0, None, &mut Draw { bytes, at: 0 });
        g
    }

    fn used(&self, f: impl Fn(&Op) -> bool) -> bool {
        self.ops.iter().any(f)
    }

    fn uses_buffer(&self, b: usize) -> bool {
        self.used(|o| matches!(o, Op::Write(x) | Op::Read(x) if *x == b))
    }

    /// The `cuda_graph!` source.
    fn source(&self) -> String {
        let mut s = String::from("graph G {\n");
        if self.used(|o| matches!(o, Op::Write(_))) {
            s += "    kernel wr(y: &mut [f32]);\n";
        }
        if self.used(|o| matches!(o, Op::Read(_))) {
            s += "    kernel rd(y: &[f32]);\n";
        }
        if self.used(|o| matches!(o, Op::Set(_))) {
            s += "    kernel set(c: Cond);\n";
        }
        if (0..TEMPS).any(|b| self.uses_buffer(b)) {
            s += "    param n: u32;\n";
        }
        for (b, name) in BUFFERS.iter().enumerate() {
            if self.uses_buffer(b) {
                s += &if b < TEMPS {
                    format!("    temp {name}: [f32; n];\n")
                } else {
                    format!("    buffer mut {name}: f32;\n")
                };
            }
        }
        for (c, d) in self.conds.iter().enumerate() {
            s += &match d {
                Default::None => format!("    cond c{c};\n"),
                Default::Lit(v) => format!("    cond c{c} = {v};\n"),
                Default::Named => format!("    cond c{c} = K;\n"),
            };
        }
        self.write_scope(0, 1, &mut s);
        s += "}\n";
        s
    }

    fn write_scope(&self, sc: usize, depth: usize, s: &mut String) {
        let pad = "    ".repeat(depth);
        let scope = &self.scopes[sc];
        for &i in &scope.nodes {
            match &self.ops[i] {
                Op::Write(b) => *s += &format!("{pad}n{i} = wr<<<1, 1>>>({});\n", BUFFERS[*b]),
                Op::Read(b) => *s += &format!("{pad}n{i} = rd<<<1, 1>>>({});\n", BUFFERS[*b]),
                Op::Set(c) => *s += &format!("{pad}n{i} = set<<<1, 1>>>(c{c});\n"),
                Op::Empty => *s += &format!("{pad}n{i} = empty;\n"),
                Op::Cond { kind, cond, bodies } => {
                    let head = match kind {
                        Kind::If | Kind::IfElse => "if",
                        Kind::While => "while",
                        Kind::Switch => "switch",
                    };
                    *s += &format!("{pad}n{i} = {head} c{cond} {{\n");
                    if *kind == Kind::Switch {
                        for (k, &b) in bodies.iter().enumerate() {
                            *s += &format!("{pad}    {k} => {{\n");
                            self.write_scope(b, depth + 2, s);
                            *s += &format!("{pad}    }}\n");
                        }
                    } else {
                        self.write_scope(bodies[0], depth + 1, s);
                        if *kind == Kind::IfElse {
                            *s += &format!("{pad}}} else {{\n");
                            self.write_scope(bodies[1], depth + 1, s);
                        }
                    }
                    *s += &format!("{pad}}}\n");
                }
            }
        }
        for &(a, b) in &scope.edges {
            *s += &format!("{pad}n{} -> n{};\n", scope.nodes[a], scope.nodes[b]);
        }
    }
}

/// What a run or a set of runs shows: uninitialised reads `(temp, reader)`, races
/// `(buffer, earlier node, later node)`, and WHILE nodes that cannot end.
#[derive(Debug, Default, PartialEq, Eq, Clone)]
struct Findings {
    uninit: BTreeSet<(usize, usize)>,
    races: BTreeSet<(usize, usize, usize)>,
    endless: BTreeSet<usize>,
}

impl Findings {
    fn is_empty(&self) -> bool {
        self.uninit.is_empty() && self.races.is_empty() && self.endless.is_empty()
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Ev {
    /// A node's work (a kernel, an empty node).
    Node(usize),
    /// A conditional node decides, and after its bodies, ends.
    Start(usize),
    End,
    /// All of a scope's nodes have finished.
    Exit,
}

/// One run of a launch: events and their direct predecessors.
#[derive(Default)]
struct Run {
    events: Vec<Ev>,
    preds: Vec<Vec<usize>>,
    /// Each conditional node's runs: its start event, whether it is the first in the launch,
    /// and the choice taken (the branch, or the iterations of a WHILE).
    decisions: Vec<(usize, usize, bool, usize)>,
}

impl Run {
    fn push(&mut self, ev: Ev, preds: Vec<usize>) -> usize {
        self.events.push(ev);
        self.preds.push(preds);
        self.events.len() - 1
    }
}

/// Choices made while building a run, replayed from a prefix and extended with 0s: walking
/// them like an odometer visits every run once.
struct Chooser {
    taken: Vec<(usize, usize)>,
    at: usize,
}

impl Chooser {
    fn choose(&mut self, options: usize) -> usize {
        if self.at == self.taken.len() {
            self.taken.push((0, options));
        }
        self.at += 1;
        self.taken[self.at - 1].0
    }

    /// The next choice sequence, or `false` when all were visited.
    fn advance(&mut self) -> bool {
        while let Some((c, n)) = self.taken.pop() {
            if c + 1 < n {
                self.taken.push((c + 1, n));
                self.at = 0;
                return true;
            }
        }
        false
    }
}

impl G {
    /// Adds scope `sc`'s nodes after event `entry`; returns its exit event.
    fn expand(&self, sc: usize, entry: usize, run: &mut Run, ch: &mut Chooser) -> usize {
        let scope = &self.scopes[sc];
        let mut end = vec![usize::MAX; scope.nodes.len()];
        for (k, &v) in scope.nodes.iter().enumerate() {
            let mut preds = vec![entry];
            preds.extend(scope.edges.iter().filter(|e| e.1 == k).map(|e| end[e.0]));
            end[k] = match &self.ops[v] {
                Op::Cond { kind, bodies, .. } => {
                    let start = run.push(Ev::Start(v), preds);
                    let first = !run.decisions.iter().any(|d| d.1 == v);
                    let (options, seq): (usize, Box<dyn Fn(usize) -> Vec<usize>>) = match kind {
                        Kind::If => (
                            2,
                            Box::new(|c| if c == 1 { vec![bodies[0]] } else { vec![] }),
                        ),
                        Kind::IfElse => (2, Box::new(|c| vec![bodies[c]])),
                        Kind::Switch => (
                            bodies.len() + 1,
                            Box::new(|c| bodies.get(c).map(|&b| vec![b]).unwrap_or_default()),
                        ),
                        Kind::While => (3, Box::new(|c| vec![bodies[0]; c])),
                    };
                    let c = ch.choose(options);
                    run.decisions.push((start, v, first, c));
                    let mut cur = start;
                    for b in seq(c) {
                        cur = self.expand(b, cur, run, ch);
                    }
                    run.push(Ev::End, vec![cur])
                }
                _ => run.push(Ev::Node(v), preds),
            };
        }
        run.push(Ev::Exit, end)
    }

    /// Whether decision `(start, node, first, choice)` can happen: at a conditional node's
    /// first run, with no setter of its condition able to run before it, the condition holds
    /// its default. `precise`: for every kind; else for a WHILE's iterations only.
    fn feasible(
        &self,
        run: &Run,
        hb: &[Vec<bool>],
        d: (usize, usize, bool, usize),
        precise: bool,
    ) -> bool {
        let (start, v, first, choice) = d;
        let Op::Cond { kind, cond, bodies } = &self.ops[v] else {
            unreachable!()
        };
        if !first {
            return true;
        }
        let Some(value) = self.conds[*cond].value() else {
            return true;
        };
        let set_before = run.events.iter().enumerate().any(|(e, ev)| {
            matches!(ev, Ev::Node(s) if matches!(self.ops[*s], Op::Set(c) if c == *cond))
                && !hb[start][e]
        });
        if set_before {
            return true;
        }
        match (kind, precise) {
            (Kind::While, _) if value != 0 => choice >= 1,
            (_, false) => true,
            (Kind::While, true) => choice == 0,
            (Kind::If, true) => choice == usize::from(value != 0),
            (Kind::IfElse, true) => choice == usize::from(value == 0),
            (Kind::Switch, true) => choice == (value as usize).min(bodies.len()),
        }
    }

    /// Every run the interpreter allows, and what they show together.
    fn oracle(&self, precise: bool) -> Findings {
        let mut out = Findings::default();
        // A WHILE none of whose bodies' nodes (nested ones too) sets its condition never ends.
        for (v, op) in self.ops.iter().enumerate() {
            if let Op::Cond {
                kind: Kind::While,
                cond,
                bodies,
            } = op
            {
                if !self.sets_inside(bodies[0], *cond) {
                    out.endless.insert(v);
                }
            }
        }
        let mut ch = Chooser {
            taken: Vec::new(),
            at: 0,
        };
        loop {
            let mut run = Run::default();
            let entry = run.push(Ev::Exit, Vec::new());
            self.expand(0, entry, &mut run, &mut ch);
            let hb = closure(&run);
            if run
                .decisions
                .iter()
                .all(|&d| self.feasible(&run, &hb, d, precise))
            {
                self.inspect(&run, &hb, &mut out);
            }
            if !ch.advance() {
                break;
            }
        }
        out
    }

    fn sets_inside(&self, sc: usize, cond: usize) -> bool {
        self.scopes[sc].nodes.iter().any(|&v| match &self.ops[v] {
            Op::Set(c) => *c == cond,
            Op::Cond { bodies, .. } => bodies.iter().any(|&b| self.sets_inside(b, cond)),
            _ => false,
        })
    }

    /// Uninitialised reads and races of one run.
    fn inspect(&self, run: &Run, hb: &[Vec<bool>], out: &mut Findings) {
        let touch = |e: usize| match run.events[e] {
            Ev::Node(v) => match self.ops[v] {
                Op::Write(b) => Some((v, b, true)),
                Op::Read(b) => Some((v, b, false)),
                _ => None,
            },
            _ => None,
        };
        let n = run.events.len();
        for r in 0..n {
            let Some((rv, b, false)) = touch(r) else {
                continue;
            };
            if b < TEMPS
                && !(0..n).any(|w| matches!(touch(w), Some((_, x, true)) if x == b) && hb[w][r])
            {
                out.uninit.insert((b, rv));
            }
        }
        for i in 0..n {
            for j in 0..n {
                let (Some((a, x, wa)), Some((b, y, wb))) = (touch(i), touch(j)) else {
                    continue;
                };
                if x == y && (wa || wb) && a < b && !hb[i][j] && !hb[j][i] {
                    out.races.insert((x, a, b));
                }
            }
        }
    }
}

/// `hb[a][b]`: event `a` happens before event `b`.
fn closure(run: &Run) -> Vec<Vec<bool>> {
    let n = run.events.len();
    let mut hb = vec![vec![false; n]; n];
    // Events are created after their predecessors.
    for b in 0..n {
        for &a in &run.preds[b] {
            hb[a][b] = true;
            for x in 0..a {
                if hb[x][a] {
                    hb[x][b] = true;
                }
            }
        }
    }
    hb
}

/// The macro's verdict, read from its messages.
fn macro_findings(src: &str) -> Result<Findings, String> {
    let (_, errors) = check(src.parse().expect("generated source is valid tokens"))
        .map_err(|e| format!("parse error: {e}"))?;
    let mut out = Findings::default();
    let id = |s: &str| -> usize { s.trim_start_matches('n').parse().expect("a node name") };
    for m in errors.messages() {
        let names: Vec<&str> = m.split('`').skip(1).step_by(2).collect();
        if m.starts_with("temporary") && m.contains("uninitialised")
            || m.contains("before any node writes it")
        {
            let b = BUFFERS
                .iter()
                .position(|x| *x == names[0])
                .expect("a temporary");
            out.uninit.insert((b, id(names[1])));
        } else if m.starts_with("data race") {
            // Every buffer the two race on, named before the fix.
            let what = m.split(", but neither").next().expect("a message");
            let on: Vec<usize> = what
                .split('`')
                .skip(1)
                .step_by(2)
                .filter_map(|n| BUFFERS.iter().position(|x| *x == n))
                .collect();
            assert!(!on.is_empty(), "a race names a buffer: {m}");
            for b in on {
                out.races.insert((b, id(names[0]), id(names[1])));
            }
        } else if m.contains("can never stop") {
            out.endless.insert(id(names[0]));
        } else {
            return Err(format!("unexpected error: {m}"));
        }
    }
    Ok(out)
}

/// What the macro reports of `all` races: the pairs where a node first races with an earlier
/// one on some buffer (for each node and buffer, the first earlier node), each pair with every
/// buffer the two race on (one error per pair).
fn first_races(all: &BTreeSet<(usize, usize, usize)>) -> BTreeSet<(usize, usize, usize)> {
    let mut first: BTreeMap<(usize, usize), usize> = BTreeMap::new();
    for &(x, a, b) in all {
        let e = first.entry((x, b)).or_insert(a);
        *e = (*e).min(a);
    }
    let pairs: BTreeSet<(usize, usize)> = first.into_iter().map(|((_, b), a)| (a, b)).collect();
    all.iter()
        .copied()
        .filter(|&(_, a, b)| pairs.contains(&(a, b)))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn the_checks_agree_with_a_brute_force_interpreter(bytes in prop::collection::vec(any::<u8>(), 64..160)) {
        let g = G::generate(&bytes);
        let src = g.source();
        let found = macro_findings(&src).map_err(|e| TestCaseError::fail(format!("{e}\n{src}")))?;
        let mut coarse = g.oracle(false);
        coarse.races = first_races(&coarse.races);
        let precise = g.oracle(true);
        // Sound: what a real launch can do wrong is rejected.
        prop_assert!(precise.is_empty() || !found.is_empty(), "accepted, but the precise interpreter finds {:?}\n{}", precise, src);
        prop_assert!(precise.uninit.is_subset(&found.uninit), "missed uninitialised reads {:?}\n{}", precise.uninit, src);
        prop_assert!(precise.endless.is_subset(&found.endless), "missed endless loops\n{}", src);
        for &(x, a, b) in &precise.races {
            prop_assert!(found.races.iter().any(|&(y, _, c)| y == x && c == b), "missed race {:?}\n{}", (x, a, b), src);
        }
        // Exact against the interpreter of the documented rules.
        prop_assert_eq!(&found, &coarse, "{}", src);
    }

    /// Each race's suggested edge, written into the graph, leaves the two nodes racing on no
    /// buffer (by the interpreter), and the macro then reports nothing new about them.
    #[test]
    fn each_suggested_edge_ends_the_races_it_was_offered_for(bytes in prop::collection::vec(any::<u8>(), 64..160)) {
        let g = G::generate(&bytes);
        let src = g.source();
        let (_, errors) = check(src.parse().expect("generated source is valid tokens")).expect("it parses");
        let messages = errors.messages();
        let id = |s: &str| -> usize { s.trim_start_matches('n').parse().expect("a node name") };
        for fix in errors.fixes() {
            let m = &messages[fix.error];
            prop_assert!(m.starts_with("data race"), "{}", m);
            let names: Vec<&str> = m.split('`').skip(1).step_by(2).collect();
            let (a, b) = (id(names[0]), id(names[1]));
            let mut fixed = g.clone();
            for add in &fix.add {
                let Add::Edge { from, to } = add else {
                    return Err(TestCaseError::fail(format!("a carry in a graph with no repeat block: {add:?}")));
                };
                let (from, to) = (id(from), id(to));
                let sc = fixed
                    .scopes
                    .iter_mut()
                    .find(|s| s.nodes.contains(&from) && s.nodes.contains(&to))
                    .expect("the edge joins two nodes of one scope");
                let pos = |n: usize| sc.nodes.iter().position(|&x| x == n).expect("in the scope");
                let e = (pos(from), pos(to));
                sc.edges.push(e);
            }
            let after = fixed.source();
            let left = fixed.oracle(false);
            prop_assert!(
                !left.races.iter().any(|&(_, x, y)| (x, y) == (a, b)),
                "the fix {:?} of `{}` leaves a race between n{} and n{}\n{}", fix.add, m, a, b, after
            );
            let found = macro_findings(&after).map_err(|e| TestCaseError::fail(format!("{e}\n{after}")))?;
            prop_assert!(!found.races.iter().any(|&(_, x, y)| (x, y) == (a, b)), "{}", after);
        }
        // Every race error offers its fix.
        let races = messages.iter().filter(|m| m.starts_with("data race")).count();
        prop_assert_eq!(races, errors.fixes().len(), "{}", src);
    }
}

/// The interpreters themselves on graphs whose answers are known: `n0` decides on `c0`
/// (default 1) and holds `n1`, which writes `t0`; `n2` sets `c0`; `n3` reads `t0` after `n0`.
#[test]
fn the_interpreters_know_the_basic_cases() {
    let graph = |kind: Kind, setter_inside: bool, default: Default| {
        let mut top = Scope {
            nodes: vec![0, 3],
            edges: vec![(0, 1)],
        };
        let mut body = Scope {
            nodes: vec![1],
            edges: vec![],
        };
        if setter_inside {
            body.nodes.push(2);
        } else {
            top.nodes = vec![0, 2, 3];
            top.edges = vec![(0, 1), (0, 2)];
        }
        G {
            ops: vec![
                Op::Cond {
                    kind,
                    cond: 0,
                    bodies: vec![1],
                },
                Op::Write(0),
                Op::Set(0),
                Op::Read(0),
            ],
            scopes: vec![top, body],
            conds: vec![default],
        }
    };
    let read_unwritten = BTreeSet::from([(0, 3)]);
    // An IF whose setter runs after it: the coarse interpreter lets it be skipped; the precise
    // one knows the default decides, and it runs.
    let g = graph(Kind::If, false, Default::Lit(1));
    assert_eq!(g.oracle(false).uninit, read_unwritten);
    assert!(g.oracle(true).is_empty());
    assert_eq!(g.oracle(false).races, BTreeSet::new());
    // A WHILE with a non-zero default and its setter inside: the body runs at least once.
    let g = graph(Kind::While, true, Default::Lit(1));
    assert!(g.oracle(false).is_empty(), "{:?}", g.oracle(false));
    // Default 0, or a default the macro cannot read: the body may not run.
    for d in [Default::None, Default::Named] {
        assert_eq!(
            graph(Kind::While, true, d).oracle(false).uninit,
            read_unwritten
        );
    }
    // A WHILE whose condition is set only outside its body never ends.
    assert_eq!(
        graph(Kind::While, false, Default::Lit(1))
            .oracle(false)
            .endless,
        BTreeSet::from([0])
    );
}
