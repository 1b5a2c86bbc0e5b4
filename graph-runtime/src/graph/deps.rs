//! A new node's dependencies: checked (nodes before it, each once, in its scope) and turned
//! into the driver's nodes.

use crate::driver::RawNode;
use crate::error::BuildError;
use crate::kinds::NodeRec;
use cuda_graph_topology::{NodeKind, Topology};

/// How many dependencies a node's driver call takes from the stack, not the graph's scratch.
pub(super) const INLINE_DEPS: usize = 8;

/// Checks that a node of kind `kind` can go into scope `scope`, after `deps`.
pub(super) fn check_scope(
    topo: &Topology,
    deps: &[u32],
    name: &str,
    kind: NodeKind,
    scope: u32,
) -> Result<(), BuildError> {
    if scope != 0
        && matches!(
            kind,
            NodeKind::Host
                | NodeKind::EventRecord
                | NodeKind::EventWait
                | NodeKind::MemAlloc
                | NodeKind::MemFree
        )
    {
        let owner = topo.owner(scope).expect("a body has an owner");
        return Err(BuildError::NotInBody {
            node: name.to_owned(),
            kind: kind.as_str(),
            conditional: topo.name(owner).to_owned(),
        });
    }
    // A dependency the topology does not hold yet is a node of the same batch (the nodes of one
    // kernel, checked before any is recorded), made in this scope too.
    let recorded = topo.len() as u32;
    if let Some(&d) = deps
        .iter()
        .find(|&&d| d < recorded && topo.scope(d) != scope)
    {
        let inner = if scope != 0 { scope } else { topo.scope(d) };
        let owner = topo.owner(inner).expect("a body has an owner");
        return Err(BuildError::DependencyOutsideBody {
            node: name.to_owned(),
            dependency: topo.name(d).to_owned(),
            conditional: topo.name(owner).to_owned(),
        });
    }
    Ok(())
}

/// The driver nodes of the nodes `deps`: in `inline` when there are few, else in `spill`.
#[inline(always)]
pub(super) fn raw_deps<'r>(
    nodes: &[NodeRec],
    deps: &[u32],
    inline: &'r mut [RawNode; INLINE_DEPS],
    spill: &'r mut Vec<RawNode>,
) -> &'r [RawNode] {
    if deps.len() <= INLINE_DEPS {
        for (r, &d) in inline.iter_mut().zip(deps) {
            *r = nodes[d as usize].raw;
        }
        &inline[..deps.len()]
    } else {
        spill.clear();
        spill.extend(deps.iter().map(|&d| nodes[d as usize].raw));
        spill
    }
}

/// A node `deps` holds twice, if any. Dependencies in increasing order (what `cuda_graph!`
/// gives when edges are declared in node order) take one comparison each; a few are compared
/// pairwise; many in another order are sorted in a copy. No hashing: a fan-in's check of a
/// thousand dependencies through a hash set cost more than the rest of its node's bookkeeping.
#[inline]
pub(super) fn repeated(deps: &[u32]) -> Option<u32> {
    if deps.windows(2).all(|w| w[0] < w[1]) {
        None
    } else if deps.len() <= INLINE_DEPS {
        (1..deps.len()).find_map(|i| deps[..i].contains(&deps[i]).then_some(deps[i]))
    } else {
        repeated_unordered(deps)
    }
}

/// [`repeated`] for many dependencies in no order (kept out of line).
#[inline(never)]
fn repeated_unordered(deps: &[u32]) -> Option<u32> {
    let mut sorted = deps.to_vec();
    sorted.sort_unstable();
    sorted.windows(2).find(|w| w[0] == w[1]).map(|w| w[0])
}

/// The error of a dependency on node `index` of a graph of `len` nodes (kept out of line).
#[cold]
#[inline(never)]
pub(super) fn unknown_dependency(node: &str, index: u32, len: u32) -> BuildError {
    BuildError::UnknownDependency {
        node: node.to_owned(),
        index,
        len: len as usize,
    }
}

/// Checks the dependencies `deps` of a node `name` of `batch` (the nodes of one kernel, the
/// first to be node `base`) that will be node `index`, in scope `scope`: nodes before it, each
/// once, in its scope.
#[inline]
pub(super) fn check_row(
    topo: &Topology,
    batch: &[(&'static str, &[u32])],
    base: u32,
    name: &str,
    deps: &[u32],
    index: u32,
    scope: u32,
) -> Result<(), BuildError> {
    if let Some(&d) = deps.iter().find(|&&d| d >= index) {
        return Err(unknown_dependency(name, d, index));
    }
    if let Some(d) = repeated(deps) {
        return Err(repeated_dependency(topo, batch, base, name, d));
    }
    if topo.body_count() > 0 {
        check_scope(topo, deps, name, NodeKind::Kernel, scope)?;
    }
    Ok(())
}

/// The error of node `node` given `dependency` twice (kept out of line). A node of `batch`
/// (the first of which is node `base`) is not recorded yet: its name is the batch's.
#[cold]
#[inline(never)]
fn repeated_dependency(
    topo: &Topology,
    batch: &[(&'static str, &[u32])],
    base: u32,
    node: &str,
    dependency: u32,
) -> BuildError {
    let name = if (dependency as usize) < topo.len() {
        topo.name(dependency)
    } else {
        batch[(dependency - base) as usize].0
    };
    BuildError::RepeatedDependency {
        node: node.to_owned(),
        dependency: name.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::repeated;

    /// A small deterministic generator (no dependency for one test).
    fn next(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    /// `repeated` against every pair compared: whether it finds a repeat, and that what it
    /// names is one, over sorted, reversed and shuffled lists of 0 to 40 dependencies.
    #[test]
    fn repeated_agrees_with_every_pair_compared() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for case in 0..20_000 {
            let len = (next(&mut seed) % 41) as usize;
            let range = 1 + next(&mut seed) % 64;
            let mut deps: Vec<u32> = (0..len).map(|_| (next(&mut seed) % range) as u32).collect();
            match case % 3 {
                0 => {
                    deps.sort_unstable();
                    if case % 2 == 0 {
                        deps.dedup();
                    }
                }
                1 => deps.sort_unstable_by(|a, b| b.cmp(a)),
                _ => {}
            }
            let oracle = (0..deps.len()).any(|i| deps[..i].contains(&deps[i]));
            let found = repeated(&deps);
            assert_eq!(found.is_some(), oracle, "{deps:?}");
            if let Some(d) = found {
                assert!(deps.iter().filter(|&&x| x == d).count() > 1, "{deps:?} {d}");
            }
        }
    }
}
