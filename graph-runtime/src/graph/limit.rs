//! A WHILE node's iteration limit: a counter the graph owns, reset by a memset before the
//! WHILE node, and one small kernel (`while_limit.cu`) as the body's last node, which counts
//! the iteration and, at the limit, sets the loop's condition to 0. After a launch the count
//! says how many iterations ran, and whether the limit ended the loop.

use cudarc::driver::{CudaSlice, LaunchConfig};

use super::Graph;
use crate::args::Cond;
use crate::bind::BufMut;
use crate::error::{BuildError, DriverFailure};
use crate::id::{Dep, GraphId, NodeId};
use crate::kinds::cond::CondNode;
use crate::kinds::kernel::KernelNode;
use crate::kinds::memset::MemsetNode;

/// The limit kernel's source.
pub const SOURCE: &str = include_str!("while_limit.cu");

/// The limit kernel's name in [`SOURCE`].
const KERNEL: &str = "cuda_graph_while_limit";

/// The limit kernel's arguments: the loop's condition, the counter, the limit.
pub type LimitArgs = (Cond, BufMut<u32>, u32);

/// The limit of one WHILE node of a graph (made by [`Graph::limit_while`]): its counter and
/// the node that counts. Read the iterations of the last launch with
/// [`GraphExec::while_count`](crate::GraphExec::while_count), change the limit with
/// [`GraphExec::set_while_limit`](crate::GraphExec::set_while_limit).
#[derive(Debug, Clone, Copy)]
pub struct WhileLimit {
    pub(crate) graph: GraphId,
    /// The counter, in `Graph::counters`.
    pub(crate) counter: usize,
    /// The limit kernel's node, the body's last.
    pub(crate) node: KernelNode<LimitArgs>,
    /// The memset resetting the counter before the WHILE node.
    reset: MemsetNode<u32>,
}

/// A WHILE node's counter, owned by the graph, and the limit in force.
pub(crate) struct Counter {
    pub(crate) mem: CudaSlice<u32>,
    pub(crate) max: u32,
}

impl WhileLimit {
    /// The limit kernel's node (the last node of the loop's body).
    pub fn node(&self) -> KernelNode<LimitArgs> {
        self.node
    }

    /// The memset node that resets the counter before the WHILE node.
    pub fn reset(&self) -> MemsetNode<u32> {
        self.reset
    }
}

/// What a launch of a WHILE node with a limit did: how many iterations ran, and whether the
/// limit ended the loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoopCount {
    /// Iterations of the body that ran in the last launch (0 when the condition was 0 as the
    /// loop began).
    pub iterations: u32,
    /// The limit in force for that launch.
    pub limit: u32,
}

impl LoopCount {
    /// The iterations of the last launch.
    pub fn iterations(&self) -> u32 {
        self.iterations
    }

    /// Whether the loop ran to its limit: the limit kernel then set the condition to 0 (the
    /// body's own condition may have ended it on that same last iteration too).
    pub fn limit_hit(&self) -> bool {
        self.iterations >= self.limit
    }
}

impl<'a> Graph<'a> {
    /// Gives WHILE node `node` (on condition `cond`, its body's nodes added) a limit of `max`
    /// iterations: a memset resetting a counter the graph owns, before `node`, and a kernel
    /// after every node of the body that ends the loop once it ran `max` times. `max` is at
    /// least 1 (the first iteration runs before any node of the body could stop it). The kernel
    /// is compiled with NVRTC once per context.
    pub fn limit_while(
        &mut self,
        node: &CondNode,
        cond: Cond,
        max: u32,
    ) -> Result<WhileLimit, BuildError> {
        let at = self.index_of(node)?;
        let name = self.topo.name(at).to_owned();
        if max == 0 {
            return Err(BuildError::ZeroWhileLimit { node: name });
        }
        let Some(body) = (1..=self.topo.body_count() as u32)
            .find(|&s| self.topo.owner(s) == Some(at))
            .filter(|&s| self.topo.body_label(s) == "while")
        else {
            return Err(BuildError::NotAWhile { node: name });
        };
        let module = crate::gpu::compile_cached_with(
            &self.ctx,
            SOURCE,
            &crate::gpu::Compile::new().file_name("while_limit.cu"),
        )?;
        let kernel = module.function(KERNEL)?;
        let counter: CudaSlice<u32> =
            self.ctx
                .default_stream()
                .alloc_zeros(1)
                .map_err(|source| DriverFailure {
                    call: "cuMemAlloc",
                    node: Some(name.clone()),
                    source,
                })?;
        // The graph's nodes are its only users: no stream use to record.
        let addr = cudarc::driver::DevicePtr::device_ptr(&counter, counter.stream()).0;
        let index = self.bindings.bind_owned(addr, 1);
        let buf = BufMut::new(self.id, index);
        let scope = self.topo.scope(at);
        let back = self.raw.scope();
        // The reset, in the WHILE node's scope, before it.
        self.raw.enter(scope);
        let reset = self.add_memset(&format!("{name}.reset"), &[], buf, 0u32);
        self.raw.enter(back);
        let reset = reset?;
        self.add_edge(&reset, node)?;
        // The count, after every node of the body that has no successor there.
        let sinks: Vec<u32> = (0..self.topo.len() as u32)
            .filter(|&i| self.topo.scope(i) == body)
            .filter(|&i| {
                self.topo
                    .successors(i)
                    .iter()
                    .all(|&j| self.topo.scope(j) != body)
            })
            .collect();
        let ids: Vec<NodeId> = sinks
            .iter()
            .map(|&index| NodeId {
                graph: self.id,
                index,
            })
            .collect();
        let deps: Vec<&dyn Dep> = ids.iter().map(|d| d as &dyn Dep).collect();
        self.raw.enter(body);
        let counted = self.add_kernel(
            &format!("{name}.limit"),
            &deps,
            kernel,
            LaunchConfig {
                grid_dim: (1, 1, 1),
                block_dim: (1, 1, 1),
                shared_mem_bytes: 0,
            },
            (cond, buf, max),
        );
        self.raw.enter(back);
        let counted = counted?;
        self.counters.push(Counter { mem: counter, max });
        Ok(WhileLimit {
            graph: self.id,
            counter: self.counters.len() - 1,
            node: counted,
            reset,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::check::{self, Arch, Checked};

    /// The limit kernel compiles to machine code for the architectures CI checks (with NVRTC;
    /// skipped without it, an error under `CUDA_GRAPH_REQUIRE_NVRTC=1`).
    #[test]
    fn the_limit_kernel_compiles() {
        for arch in [Arch::SM_90, Arch::SM_80] {
            let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/graph/while_limit.cu");
            let opts = crate::gpu::Compile::new().file_name(path);
            match check::source(arch, SOURCE, &opts, &[KERNEL]) {
                Ok(Checked::Skipped { reason }) => eprintln!("skipped: {reason}"),
                Ok(_) => {}
                Err(e) => panic!("{e}"),
            }
        }
    }

    /// What a launch did, read as the count: the limit hit when the count reached it.
    #[test]
    fn the_limit_is_hit_at_the_limit_only() {
        let c = |iterations, limit| LoopCount { iterations, limit };
        assert!(!c(0, 37).limit_hit());
        assert!(!c(36, 37).limit_hit());
        assert!(c(37, 37).limit_hit());
        assert_eq!(c(10, 37).iterations(), 10);
    }
}
