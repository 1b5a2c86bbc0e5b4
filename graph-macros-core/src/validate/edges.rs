//! Graph-structure checks: edges between known nodes, with no self-edge, repeat or cycle (the
//! shared [`Topology`](cuda_graph_topology::Topology) decides, the error points at the arrow);
//! and no data race between unordered nodes.

use cuda_graph_topology::TopologyError;
use syn::Ident;

use proc_macro2::Span;

use crate::ast;
use crate::lower::{addr_of, hint};
use crate::model::{Arg, Errors, Graph, NodeOp};

/// The order that edges left out (for an error) may have given: the race check claims no race
/// it could have ordered.
#[derive(Default)]
pub(super) struct Unsure {
    /// Nodes an edge left out leaves: what runs before one of them may run before any node.
    pub from: Vec<u32>,
    /// Nodes an edge left out enters: what runs after one may run after any node.
    pub to: Vec<u32>,
    /// An edge left out between two nodes neither known: any two nodes may be ordered.
    pub any: bool,
}

impl Unsure {
    /// The nodes of an edge chain left out whole (a carry edge with an error, which may have
    /// been meant as a plain edge): each may have been ordered with any node.
    pub(super) fn loose(&mut self, model: &Graph, names: &[Ident]) {
        for id in names {
            if let Some(i) = model.topo.find(&id.to_string()) {
                self.from.push(i);
                self.to.push(i);
            }
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        !self.any && self.from.is_empty() && self.to.is_empty()
    }

    /// Whether an edge left out could have ordered nodes `i` and `j`: one of them (or a
    /// conditional node holding it) runs before a node an edge left out leaves, or after one it
    /// enters.
    fn may_order(
        &self,
        model: &Graph,
        reach: &cuda_graph_topology::Reach,
        i: usize,
        j: usize,
    ) -> bool {
        if self.any {
            return true;
        }
        let holders = |n: usize| {
            let mut out = vec![n as u32];
            let mut x = n as u32;
            while let Some(o) = model.topo.owner(model.topo.scope(x)) {
                out.push(o);
                x = o;
            }
            out
        };
        holders(i).into_iter().chain(holders(j)).any(|x| {
            self.from.iter().any(|&a| a == x || reach.reaches(x, a))
                || self.to.iter().any(|&b| b == x || reach.reaches(b, x))
        })
    }
}

/// Edges of one chain `a -> [b, c] -> d;`. Each error points at the edge's arrow; a cycle
/// prints its path. Edges naming a node left out by an earlier error are skipped silently.
/// What each edge left out may have ordered is noted in `unsure`.
pub(super) fn check_edges(
    model: &mut Graph,
    failed: &[Ident],
    chain: ast::EdgeChain,
    unsure: &mut Unsure,
    errors: &mut Errors,
) {
    let find = |model: &Graph, id: &Ident, errors: &mut Errors| -> Option<u32> {
        let found = model.topo.find(&id.to_string());
        if found.is_none() && !failed.contains(id) {
            let names = model.nodes.iter().map(|n| n.name.to_string()).collect();
            errors.at(
                id.span(),
                format!("no node named `{id}`{}", hint(&id.to_string(), names, "")),
            );
        }
        found
    };
    let groups: Vec<Vec<Option<u32>>> = chain
        .groups
        .iter()
        .map(|g| g.iter().map(|id| find(model, id, errors)).collect())
        .collect();
    for (k, arrow) in chain.arrows.iter().enumerate() {
        let (froms, tos) = (&groups[k], &groups[k + 1]);
        let lost = |g: &Vec<Option<u32>>| g.iter().any(Option::is_none);
        if lost(froms) {
            unsure.to.extend(tos.iter().flatten());
        }
        if lost(tos) {
            unsure.from.extend(froms.iter().flatten());
        }
        unsure.any |= lost(froms) && lost(tos);
        for &a in froms.iter().flatten() {
            for &b in tos.iter().flatten() {
                let Err(e) = model.topo.add_edge(a, b) else {
                    if chain.programmatic.is_some() {
                        model.programmatic.push((a, b, *arrow));
                    }
                    continue;
                };
                // A repeated edge or a self-edge orders nothing more.
                if !matches!(
                    e,
                    TopologyError::DuplicateEdge { .. } | TopologyError::SelfEdge { .. }
                ) {
                    unsure.from.push(a);
                    unsure.to.push(b);
                }
                let msg = match e {
                    TopologyError::SelfEdge { node } => {
                        format!("node `{node}` cannot depend on itself")
                    }
                    TopologyError::DuplicateEdge { from, to } => {
                        format!("the edge `{from} -> {to}` is written twice; remove this one")
                    }
                    TopologyError::Cycle { from, to, path, .. } => format!(
                        "the edge `{from} -> {to}` closes a cycle: {path}; a graph must be acyclic"
                    ),
                    TopologyError::CrossScope { from, to, .. } if block(model, a, b).is_some() => {
                        let block = block(model, a, b).expect("checked");
                        format!(
                            "the edge `{from} -> {to}` crosses the boundary of repeat block `{block}`: a node inside the block runs once per iteration; order work outside the block with an edge to or from `{block}` (it waits for every iteration, or every iteration waits for it), and iterations with `carry` edges inside"
                        )
                    }
                    other => other.to_string(),
                };
                errors.at(*arrow, msg);
            }
        }
    }
}

/// The repeat block on whose boundary the edge `a -> b` lies, if one does.
fn block(model: &Graph, a: u32, b: u32) -> Option<String> {
    let (ba, bb) = (model.block_of(a as usize), model.block_of(b as usize));
    (ba != bb)
        .then(|| ba.or(bb))
        .flatten()
        .map(|i| model.nodes[i].name.to_string())
}

/// Programmatic edges: each written `#[programmatic]` joins two kernel nodes whose target's
/// CUDA source waits for its predecessors before it uses a pointer (else an error at the
/// arrow); a predecessor that never triggers gets a warning (correct, but no overlap). With
/// `#[programmatic]` on the graph, every plain edge between kernels whose target waits and
/// whose source triggers becomes programmatic too.
pub(super) fn check_programmatic(model: &mut Graph, errors: &mut Errors) {
    let requests = std::mem::take(&mut model.programmatic);
    for &(a, b, arrow) in &requests {
        if programmatic_ok(model, a, b, arrow, errors) {
            let _ = model
                .topo
                .set_programmatic(a, b, cuda_graph_topology::Port::Programmatic);
        }
    }
    // Carry edges of repeat blocks: the same rule, between iteration `l` and `l + 1`.
    for ni in 0..model.nodes.len() {
        let Some(r) = model.repeat(ni) else { continue };
        let (requested, carry) = (r.requested.clone(), r.carry.clone());
        let mut ok: Vec<(u32, u32)> = requested
            .iter()
            .filter(|&&(a, b, arrow)| programmatic_ok(model, a, b, arrow, errors))
            .map(|&(a, b, _)| (a, b))
            .collect();
        if model.auto_programmatic {
            let more: Vec<(u32, u32)> = carry
                .iter()
                .map(|&(a, b, _)| (a, b))
                .filter(|&(a, b)| auto(model, a, b) && !ok.contains(&(a, b)))
                .collect();
            ok.extend(more);
        }
        if let NodeOp::Repeat(r) = &mut model.nodes[ni].op {
            r.programmatic = ok;
        }
    }
    if model.auto_programmatic {
        let edges = model.topo.edges().to_vec();
        for &(a, b) in &edges {
            if auto(model, a, b) && model.topo.programmatic_port(a, b).is_none() {
                let _ = model
                    .topo
                    .set_programmatic(a, b, cuda_graph_topology::Port::Programmatic);
            }
        }
        block_boundaries(model, &edges);
    }
}

/// With `#[programmatic]` on the graph, the edges into and out of a repeat block (not itself
/// in a block) by the same rule (`auto`): from the kernel before the block to a first node of
/// its first iteration, and from a last node of its last iteration to the kernel after it,
/// where a carry edge makes that node the only one of its kind the outside edge reaches (a
/// carry edge enters the first node, leaves the last). Other boundary edges stay plain.
fn block_boundaries(model: &mut Graph, edges: &[(u32, u32)]) {
    let mut found = Vec::new();
    for (blk, node) in model.nodes.iter().enumerate() {
        let NodeOp::Repeat(r) = &node.op else {
            continue;
        };
        if model.block_of(blk).is_some() {
            continue;
        }
        let body: Vec<u32> = (0..model.nodes.len() as u32)
            .filter(|&i| model.block_of(i as usize) == Some(blk))
            .collect();
        let first =
            |i: u32| !edges.iter().any(|&(_, b)| b == i) && r.carry.iter().any(|c| c.1 == i);
        let last = |i: u32| !edges.iter().any(|&(a, _)| a == i) && r.carry.iter().any(|c| c.0 == i);
        let (mut entries, mut exits) = (Vec::new(), Vec::new());
        for &(a, b) in edges {
            if b as usize == blk && model.block_of(a as usize).is_none() {
                let into = body.iter().filter(|&&e| first(e) && auto(model, a, e));
                entries.extend(into.map(|&e| (a, e)));
            }
            if a as usize == blk && model.block_of(b as usize).is_none() {
                let out = body.iter().filter(|&&x| last(x) && auto(model, x, b));
                exits.extend(out.map(|&x| (x, b)));
            }
        }
        found.push((blk, entries, exits));
    }
    for (blk, entries, exits) in found {
        if let NodeOp::Repeat(r) = &mut model.nodes[blk].op {
            r.entries = entries;
            r.exits = exits;
        }
    }
}

/// The kernel node `i` launches, if it is a kernel node.
fn kernel_of(model: &Graph, i: u32) -> Option<usize> {
    match &model.nodes[i as usize].op {
        NodeOp::Launch(l) => Some(l.kernel),
        _ => None,
    }
}

/// Whether `#[programmatic]` on the graph makes `a -> b` programmatic: both are kernels, the
/// target waits (reading before its wait only memory no node writes) and the source triggers.
fn auto(model: &Graph, a: u32, b: u32) -> bool {
    let (Some(ka), Some(kb)) = (kernel_of(model, a), kernel_of(model, b)) else {
        return false;
    };
    let waits = model.kernels[kb]
        .pdl
        .as_ref()
        .is_some_and(|p| p.waits.is_ok());
    let triggers = model.kernels[ka].pdl.as_ref().is_some_and(|p| p.triggers);
    waits && triggers && early_reads(model, b).is_ok()
}

/// Whether what kernel node `b` uses before its wait is safe to use while its predecessor
/// runs: each such parameter must be given a buffer declared without `mut`, which no node of
/// the graph writes (a predecessor still running, or one before it that triggered early,
/// cannot be writing it). Else why not, in words.
fn early_reads(model: &Graph, b: u32) -> Result<(), String> {
    let NodeOp::Launch(l) = &model.nodes[b as usize].op else {
        return Ok(());
    };
    let k = &model.kernels[l.kernel];
    let Some(pdl) = &k.pdl else { return Ok(()) };
    let nb = &model.nodes[b as usize].name;
    for e in &pdl.early {
        let (given, fix) = match l.args.get(e.index) {
            _ if e.through => (
                "addresses of memory the graph does not track (which a node may be writing)"
                    .to_owned(),
                "move the wait above that use".to_owned(),
            ),
            Some(Arg::Buffer { input, .. }) => {
                let inp = &model.inputs[*input];
                match inp.kind.buffer() {
                    Some(buf) if !buf.mutable && buf.temp.is_none() => match untracked(model) {
                        None => continue,
                        Some((kernel, param, what)) => (
                            format!(
                                "`{}`, declared without `mut`; but kernel `{kernel}` may write through `{param}` ({what}) to memory the graph does not track, which could be `{}`'s,",
                                inp.name, inp.name
                            ),
                            "move the wait above that use".to_owned(),
                        ),
                    },
                    Some(buf) if buf.temp.is_some() => (
                        format!("the temporary `{}`, which the graph writes", inp.name),
                        "move the wait above that use".to_owned(),
                    ),
                    _ => (
                        format!("`{}`, a `buffer mut`, which nodes may write", inp.name),
                        format!(
                            "move the wait above that use, or, if no node writes `{}`, declare it without `mut` (only such buffers may be read before the wait)",
                            inp.name
                        ),
                    ),
                }
            }
            _ => (
                "an argument that is not a buffer".to_owned(),
                "move the wait above that use".to_owned(),
            ),
        };
        return Err(format!(
            "kernel `{}` uses `{}` before it waits for its predecessors, and node `{nb}` gives it {given} while `{nb}` starts: {fix}\n  {}",
            k.name, e.param, e.line
        ));
    }
    Ok(())
}

/// A kernel of the graph that may write memory the graph does not track (through an array of
/// device addresses, or a tensor map's stores): its name, the parameter, and what it is. Where
/// one is, no buffer is proved unwritten, so none may be read before a wait.
fn untracked(model: &Graph) -> Option<(String, String, &'static str)> {
    let tensor_map = |t: &syn::Type| matches!(t, syn::Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "TensorMap"));
    // A written array of addresses (`float**`) is named first: it says most plainly why.
    let mut found: Vec<(bool, String, String, &'static str)> = Vec::new();
    for k in model.kernels.iter().filter(|k| k.used) {
        found.extend(k.params.iter().filter_map(|(name, ty)| {
            let what = match ty {
                ast::ParamTy::Slice { elem, .. } if addr_of(elem).is_some() => {
                    "a buffer of device addresses"
                }
                ast::ParamTy::Slice { elem: t, .. } | ast::ParamTy::Scalar(t) if tensor_map(t) => {
                    "a tensor map"
                }
                _ => return None,
            };
            let written = matches!(ty, ast::ParamTy::Slice { mutable: true, .. });
            Some((written, k.name.to_string(), name.to_string(), what))
        }));
    }
    found.sort_by_key(|f| !f.0);
    found
        .into_iter()
        .next()
        .map(|(_, kernel, param, what)| (kernel, param, what))
}

/// Whether the edge `a -> b` written `#[programmatic]` (at `arrow`) can be: two kernel nodes,
/// the target's source waiting before it uses a pointer; reports why not, and warns when the
/// source never triggers.
fn programmatic_ok(model: &mut Graph, a: u32, b: u32, arrow: Span, errors: &mut Errors) -> bool {
    // A node kept after its own error (reported) is no kernel node to tell.
    if model.ghosts.contains(&(a as usize)) || model.ghosts.contains(&(b as usize)) {
        return false;
    }
    let (na, nb) = (&model.nodes[a as usize].name, &model.nodes[b as usize].name);
    let (ka, kb) = match (kernel_of(model, a), kernel_of(model, b)) {
        (Some(ka), Some(kb)) => (ka, kb),
        (ka, _) => {
            let other = if ka.is_none() { na } else { nb };
            errors.at(
                arrow,
                format!(
                    "a programmatic edge joins two kernel nodes, but `{other}` is a {}; write this edge without `#[programmatic]`",
                    model.topo.kind(if ka.is_none() { a } else { b }).as_str()
                ),
            );
            return false;
        }
    };
    let (ka, kb) = (&model.kernels[ka], &model.kernels[kb]);
    let Some(target) = &kb.pdl else {
        errors.at(
            arrow,
            format!(
                "the programmatic edge `{na} -> {nb}` lets `{nb}` start before `{na}` finishes, which is safe only if kernel `{}` waits for it first, and kernel `{}` has no CUDA source here to show that; declare it from its `.cu` file (`source \"kernels.cu\";`)",
                kb.name, kb.name
            ),
        );
        return false;
    };
    if let Err(why) = target.waits.clone().and_then(|()| early_reads(model, b)) {
        errors.at(
            arrow,
            format!(
                "the programmatic edge `{na} -> {nb}` lets `{nb}` start before `{na}` finishes, but {why}"
            ),
        );
        return false;
    }
    if !ka.pdl.as_ref().is_some_and(|p| p.triggers) {
        let msg = format!(
            "kernel `{}` (node `{na}`) never triggers its dependents (`cudaTriggerProgrammaticLaunchCompletion()` or `griddepcontrol.launch_dependents`): the programmatic edge `{na} -> {nb}` is correct, but `{nb}` starts only as `{na}`'s blocks exit, with little overlap; trigger in `{}` once it no longer needs to hold `{nb}` back",
            ka.name, ka.name
        );
        model.warnings.push((arrow, msg));
    }
    true
}

/// Two nodes that touch one buffer, at least one writing, must be ordered by a path. A race an
/// edge left out (for its error) could have ordered is not claimed.
pub(super) fn check_races(model: &Graph, unsure: &Unsure, errors: &mut Errors) {
    let reach = model.topo.reach();
    let stacks = model
        .inputs
        .iter()
        .any(|i| i.kind.buffer().is_some_and(|b| b.stack.is_some()));
    if model.topo.body_count() > 0 || stacks {
        let mut found = races_in_bodies(model, &reach);
        found.retain(|c| !unsure.may_order(model, &reach, c.i, c.j));
        return report_races(model, found, errors);
    }
    let words = reach.words();
    let mut found = Vec::new();
    for (x, input) in model.inputs.iter().enumerate() {
        if !matches!(input.kind.buffer(), Some(b) if !b.disjoint) {
            continue;
        }
        // Earlier users of the buffer, and earlier writers, as bitsets: each node is checked
        // against all of them a word at a time.
        let (mut users, mut writers) = (vec![0u64; words], vec![0u64; words]);
        for (j, b) in model.nodes.iter().enumerate() {
            let writes = b.uses.writes.contains(&x);
            if !writes && !b.uses.reads.contains(&x) {
                continue;
            }
            // A writer clashes with any earlier user, a reader with any earlier writer, unless
            // a path orders the two.
            let pool = if writes { &users } else { &writers };
            let (fwd, bwd) = (reach.forward(j as u32), reach.backward(j as u32));
            let clash = (0..words).find_map(|w| {
                let mut open = pool[w] & !(fwd[w] | bwd[w]);
                // Two collectives of one communicator: the order check's (`same_comm`).
                while open != 0 && model.same_comm(w * 64 + open.trailing_zeros() as usize, j) {
                    open &= open - 1;
                }
                (open != 0).then(|| w * 64 + open.trailing_zeros() as usize)
            });
            if let Some(i) = clash {
                found.push(Clash {
                    i,
                    j,
                    x,
                    j_writes: writes,
                });
            }
            users[j / 64] |= 1 << (j % 64);
            if writes {
                writers[j / 64] |= 1 << (j % 64);
            }
        }
    }
    found.retain(|c| !unsure.may_order(model, &reach, c.i, c.j));
    report_races(model, found, errors);
}

/// A race found: earlier node `i` and node `j` on buffer `x` (`j_writes`: `j` writes it, else
/// `i` does).
#[derive(Clone, Copy)]
struct Clash {
    i: usize,
    j: usize,
    x: usize,
    j_writes: bool,
}

/// One error for each pair of nodes found racing (for each node and buffer, the first earlier
/// node it races with), naming every buffer the two race on: one edge orders them on all.
fn report_races(model: &Graph, found: Vec<Clash>, errors: &mut Errors) {
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    for c in &found {
        if !pairs.contains(&(c.i, c.j)) {
            pairs.push((c.i, c.j));
        }
    }
    // In the order of their later node, as the checks met them.
    pairs.sort_by_key(|&(i, j)| (j, i));
    for (i, j) in pairs {
        let mut on: Vec<(usize, bool)> = all_clashes(model, i, j);
        // What was found is among them (the whole list where nothing is told apart).
        for c in found.iter().filter(|c| (c.i, c.j) == (i, j)) {
            if !on.iter().any(|&(x, _)| x == c.x) {
                on.push((c.x, c.j_writes));
            }
        }
        on.sort_unstable();
        race(model, i, j, &on, errors);
    }
}

/// Every buffer nodes `i` and `j` (`i` before `j`, known unordered) both use, one of them
/// writing it, with whether `j` writes it: plain buffers, not `#[disjoint]`, not stacks.
fn all_clashes(model: &Graph, i: usize, j: usize) -> Vec<(usize, bool)> {
    let (a, b) = (&model.nodes[i].uses, &model.nodes[j].uses);
    model
        .inputs
        .iter()
        .enumerate()
        .filter(|(_, inp)| {
            inp.kind
                .buffer()
                .is_some_and(|b| !b.disjoint && b.stack.is_none())
        })
        .filter_map(|(x, _)| {
            let (aw, bw) = (a.writes.contains(&x), b.writes.contains(&x));
            let (au, bu) = (aw || a.reads.contains(&x), bw || b.reads.contains(&x));
            (au && bu && (aw || bw)).then_some((x, bw))
        })
        .collect()
}

/// Reports the race between earlier node `i` and node `j` on the buffers `on` (each with
/// whether `j` writes it, else `i` does), with the edge that orders them on all.
fn race(model: &Graph, i: usize, j: usize, on: &[(usize, bool)], errors: &mut Errors) {
    let (a, b) = (&model.nodes[i], &model.nodes[j]);
    // Within one scope, the edge to add joins the two; across scopes, the nodes that hold
    // them in their closest common scope.
    let (from, to) = model
        .topo
        .meeting(i as u32, j as u32)
        .map(|(p, q)| (model.topo.name(p).to_owned(), model.topo.name(q).to_owned()))
        .unwrap_or_else(|| (a.name.to_string(), b.name.to_string()));
    let writer = |j_writes: bool| if j_writes { &b.name } else { &a.name };
    let named = |x: usize| format!("{} `{}`", model.inputs[x].kind.noun(), model.inputs[x].name);
    let what = match on {
        [(x, w)] => format!("{} and `{}` writes it", named(*x), writer(*w)),
        _ => {
            let each: Vec<String> = on
                .iter()
                .map(|&(x, w)| format!("{} (`{}` writes it)", named(x), writer(w)))
                .collect();
            let (last, rest) = each.split_last().expect("two or more buffers");
            format!("{} and {last}", rest.join(", "))
        }
    };
    // `#[disjoint]` fixes the race only if it can be written on every buffer of it.
    let marks: Vec<String> = on
        .iter()
        .filter(|&&(x, _)| model.buffer(x).temp.is_none())
        .map(|&(x, _)| format!("`{}`", model.inputs[x].name))
        .collect();
    let disjoint = match marks.len() {
        n if n < on.len() => String::new(),
        1 => ", or mark the buffer `#[disjoint]` if they touch disjoint parts".to_owned(),
        _ => {
            let (last, rest) = marks.split_last().expect("two or more buffers");
            format!(
                ", or mark {} and {last} `#[disjoint]` if they touch disjoint parts of each",
                rest.join(", ")
            )
        }
    };
    let all = if on.len() > 1 {
        ", which orders them on all"
    } else {
        ""
    };
    errors.at(
        b.name.span(),
        format!(
            "data race: nodes `{}` and `{}` both use {what}, but neither depends on the other; add an edge `{from} -> {to}` (or the reverse){all}{disjoint}",
            a.name, b.name,
        ),
    );
    errors.propose(vec![crate::model::Add::Edge { from, to }]);
}

/// The races of a graph with conditional bodies, repeat blocks or stacks of buffers:
/// two nodes conflict unless [`Topology::serial`](cuda_graph_topology::Topology::serial) says
/// they never overlap (a path between the nodes that hold them in their closest common scope,
/// or different branches of one conditional). Two nodes of one repeat block are compared within
/// one iteration here (`validate::repeat` compares iterations); a stack's buffers are told
/// apart by their index where it is known.
fn races_in_bodies(model: &Graph, reach: &cuda_graph_topology::Reach) -> Vec<Clash> {
    let mut found = Vec::new();
    use crate::model::Slot;
    for (x, input) in model.inputs.iter().enumerate() {
        let Some(b) = input.kind.buffer().filter(|b| !b.disjoint) else {
            continue;
        };
        // Each access: node, which buffer of a stack, writes.
        let mut seen: Vec<(usize, Option<Slot>, bool)> = Vec::new();
        for (j, n) in model.nodes.iter().enumerate() {
            let mine: Vec<(Option<Slot>, bool)> = if b.stack.is_some() {
                n.uses
                    .slots
                    .iter()
                    .filter(|s| s.0 == x)
                    .map(|&(_, slot, w)| (Some(slot), w))
                    .collect()
            } else {
                let writes = n.uses.writes.contains(&x);
                if !writes && !n.uses.reads.contains(&x) {
                    continue;
                }
                vec![(None, writes)]
            };
            let same_block =
                |i: usize| model.block_of(i).is_some() && model.block_of(i) == model.block_of(j);
            for &(slot, writes) in &mine {
                let clash = seen.iter().find(|&&(i, s, w)| {
                    i != j
                        && !model.same_comm(i, j)
                        && (writes || w)
                        && super::repeat::same_buffer(s, slot, same_block(i).then_some(0))
                        && !model.topo.serial(reach, i as u32, j as u32)
                });
                if let Some(&(i, _, _)) = clash {
                    found.push(Clash {
                        i,
                        j,
                        x,
                        j_writes: writes,
                    });
                    break;
                }
            }
            seen.extend(mine.into_iter().map(|(s, w)| (j, s, w)));
        }
    }
    found
}
