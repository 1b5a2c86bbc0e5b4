//! The handles a `cuda_graph!` graph keeps of the nodes that launch one kernel function
//! ([`Kernels`]), and the thread's kept lists of them.
//!
//! A graph of many nodes of one kernel keeps their handles in one list (12 bytes a node). A
//! program that builds such a graph again and again (a graph per shape, per request) would
//! allocate that list every time; a list of 1000 handles is large enough that the allocator
//! first merges every small chunk freed since the last large request (a driver frees thousands
//! when a graph is destroyed), which a 1000-node build measured as a tenth of its own time.
//! So a dropped graph's list of [`KEPT_FROM`] handles or more goes, emptied, to the thread's
//! next graph with nodes of the same argument types, as the runtime keeps its own tables.

use std::any::{Any, TypeId};
use std::cell::RefCell;

use cuda_graph_runtime::error::{BuildError, ModuleError};
use cuda_graph_runtime::kernel::KernelArgs;
use cuda_graph_runtime::node::{KernelNode, NodeId};
use cuda_graph_runtime::{Graph, Kernel, LaunchConfig, Module};

/// Lists with room for fewer handles than this are allocated as usual (small allocations
/// come from the allocator's per-thread caches, cheaply).
pub(crate) const KEPT_FROM: usize = 64;

/// Lists with room for more handles than this are not kept (48 KB).
pub(crate) const KEPT_UP_TO: usize = 4096;

/// How many argument types a thread keeps a list for (at most 16 × 48 KB).
const KEPT_TYPES: usize = 16;

thread_local! {
    /// One emptied list per argument tuple type (`Vec<KernelNode<A>>` behind `dyn Any`).
    static KEPT: RefCell<Vec<(TypeId, Box<dyn Any>)>> = const { RefCell::new(Vec::new()) };
}

/// A list with room for `n` handles: the thread's kept one of this type if it has the room.
#[inline]
fn list<A: KernelArgs>(n: usize) -> Vec<KernelNode<A>> {
    if n < KEPT_FROM {
        Vec::with_capacity(n)
    } else {
        kept_list(n)
    }
}

/// [`list`] of a large group, kept out of line (a small graph's build is not made longer).
#[inline(never)]
fn kept_list<A: KernelArgs>(n: usize) -> Vec<KernelNode<A>> {
    let kept = KEPT.try_with(|k| {
        let mut k = k.try_borrow_mut().ok()?;
        let (_, list) = k.iter_mut().find(|(t, _)| *t == TypeId::of::<A>())?;
        let list = list.downcast_mut::<Vec<KernelNode<A>>>()?;
        (list.capacity() >= n).then(|| std::mem::take(list))
    });
    kept.ok().flatten().unwrap_or_else(|| Vec::with_capacity(n))
}

/// Keeps `list`, emptied, for the thread's next graph with nodes of this type (unless it is
/// small, or too large, or the thread already keeps as many types as it may).
fn keep<A: KernelArgs>(mut list: Vec<KernelNode<A>>) {
    if !(KEPT_FROM..=KEPT_UP_TO).contains(&list.capacity()) {
        return;
    }
    list.clear();
    // A thread being torn down keeps nothing; nor does a list whose slot is in use.
    let _ = KEPT.try_with(|k| {
        let Ok(mut k) = k.try_borrow_mut() else {
            return;
        };
        let types = k.len();
        match k.iter_mut().find(|(t, _)| *t == TypeId::of::<A>()) {
            Some((_, slot)) => {
                if let Some(kept) = slot.downcast_mut::<Vec<KernelNode<A>>>() {
                    if kept.capacity() < list.capacity() {
                        *kept = list;
                    }
                }
            }
            None if types < KEPT_TYPES => k.push((TypeId::of::<A>(), Box::new(list))),
            None => {}
        }
    });
}

/// The nodes of a graph that launch one kernel function: the function, and their handles
/// (what the graph's state keeps, indexed like a slice).
pub struct Kernels<A: KernelArgs> {
    kernel: Kernel,
    nodes: Vec<KernelNode<A>>,
}

impl<A: KernelArgs> Kernels<A> {
    /// Room for `n` nodes of `kernel`.
    pub fn new(kernel: Kernel, n: usize) -> Self {
        Kernels {
            kernel,
            nodes: list(n),
        }
    }

    /// Adds a node called `name` after `deps`, with the launch configuration and arguments
    /// `made` (what graphs with repeat blocks use: their nodes' positions are known only
    /// when they are built).
    pub fn add_with_deps(
        &mut self,
        g: &mut Graph<'_>,
        name: &str,
        deps: &[NodeId],
        made: (LaunchConfig, A),
    ) -> Result<(), BuildError> {
        let deps = crate::__private::deps(deps);
        let n = g.add_kernel(name, &deps, self.kernel.clone(), made.0, made.1)?;
        self.nodes.push(n);
        Ok(())
    }

    /// Adds nodes, each after the nodes at the positions listed, with the launch
    /// configuration and arguments `node(j)` gives for its index among these nodes.
    pub fn add(
        &mut self,
        g: &mut Graph<'_>,
        rows: &[(&'static str, &[u32])],
        node: impl Fn(usize) -> (LaunchConfig, A),
    ) -> Result<(), BuildError> {
        g.add_kernels_after(&self.kernel, rows, &mut self.nodes, node)
    }
}

/// A graph's list of handles goes, emptied, to the thread's next graph (see [`keep`]).
impl<A: KernelArgs> Drop for Kernels<A> {
    fn drop(&mut self) {
        keep(std::mem::take(&mut self.nodes));
    }
}

/// `module.kernels(name, n)`: room for `n` nodes of the module's kernel `name` (imported as
/// `_` by generated code).
#[doc(hidden)]
pub trait ModuleKernels {
    /// The kernel, and room for its nodes.
    fn kernels<A: KernelArgs>(&self, name: &str, n: usize) -> Result<Kernels<A>, ModuleError>;
}

impl ModuleKernels for Module {
    fn kernels<A: KernelArgs>(&self, name: &str, n: usize) -> Result<Kernels<A>, ModuleError> {
        Ok(Kernels::new(self.function(name)?, n))
    }
}

impl<A: KernelArgs> std::ops::Deref for Kernels<A> {
    type Target = [KernelNode<A>];
    fn deref(&self) -> &[KernelNode<A>] {
        &self.nodes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Small = (u32, f32);
    type Other = (u64,);

    /// Kept lists come back empty with their room, one per type; small and very large ones
    /// are not kept.
    #[test]
    fn lists_come_back_empty_per_type_within_the_limits() {
        let a: Vec<KernelNode<Small>> = list(100);
        assert!(a.capacity() >= 100);
        let room = a.capacity();
        keep(a);
        let b: Vec<KernelNode<Small>> = list(80);
        assert!(b.is_empty() && b.capacity() == room, "the kept list");
        let c: Vec<KernelNode<Small>> = list(80);
        assert!(c.capacity() >= 80, "taken once; a new list after");
        keep(c);

        // Another type has a list of its own.
        let o: Vec<KernelNode<Other>> = list(200);
        assert!(o.capacity() >= 200);
        keep(o);
        let s: Vec<KernelNode<Small>> = list(KEPT_FROM);
        assert!(s.capacity() >= KEPT_FROM && s.capacity() < 200);

        // A list too small for the request stays kept; small and large lists are not kept.
        keep(Vec::<KernelNode<Other>>::with_capacity(KEPT_FROM - 1));
        keep(Vec::<KernelNode<Other>>::with_capacity(KEPT_UP_TO + 1));
        let o: Vec<KernelNode<Other>> = list(300);
        assert!(o.capacity() >= 300);
        let o2: Vec<KernelNode<Other>> = list(150);
        assert!(
            o2.capacity() >= 200,
            "the list of 200 was kept through the others"
        );
    }
}
