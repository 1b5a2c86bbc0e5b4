//! Programmatic edges (programmatic dependent launch, Hopper and later): an edge between two
//! kernels that lets the dependent start before its predecessor has finished. The dependent
//! must wait (`cudaGridDependencySynchronize()`, `griddepcontrol.wait`) before it reads what
//! the predecessor writes; `cuda_graph!` proves that from the kernel's source.

use crate::{NodeKind, Topology, TopologyError};

/// Which event of the predecessor lets the dependent launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Port {
    /// When every block of the predecessor has triggered
    /// (`cudaTriggerProgrammaticLaunchCompletion()`, `griddepcontrol.launch_dependents`) or
    /// exited. The usual choice.
    #[default]
    Programmatic,
    /// When every block of the predecessor has started.
    LaunchOrder,
}

impl Port {
    /// As DOT output labels it.
    pub fn as_str(self) -> &'static str {
        match self {
            Port::Programmatic => "programmatic",
            Port::LaunchOrder => "launch order",
        }
    }
}

impl Topology {
    /// Makes the edge `from -> to` (which exists) programmatic, through `port`. Both ends must
    /// be kernels.
    pub fn set_programmatic(
        &mut self,
        from: u32,
        to: u32,
        port: Port,
    ) -> Result<(), TopologyError> {
        let name = |i: u32| self.name(i).to_owned();
        if !self.edges().contains(&(from, to)) {
            return Err(TopologyError::NoSuchEdge {
                from: name(from),
                to: name(to),
            });
        }
        for i in [from, to] {
            if self.kind(i) != NodeKind::Kernel {
                return Err(TopologyError::NotKernels {
                    from: name(from),
                    to: name(to),
                    node: name(i),
                });
            }
        }
        self.programmatic.retain(|&(a, b, _)| (a, b) != (from, to));
        self.programmatic.push((from, to, port));
        Ok(())
    }

    /// The port of edge `from -> to` if it is programmatic.
    pub fn programmatic_port(&self, from: u32, to: u32) -> Option<Port> {
        self.programmatic
            .iter()
            .find(|&&(a, b, _)| (a, b) == (from, to))
            .map(|&(.., p)| p)
    }

    /// The programmatic edges, with their ports.
    pub fn programmatic_edges(&self) -> &[(u32, u32, Port)] {
        &self.programmatic
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_existing_edges_between_kernels_become_programmatic() {
        let mut t = Topology::new();
        let a = t.add_node("a", NodeKind::Kernel).unwrap();
        let b = t.add_node("b", NodeKind::Kernel).unwrap();
        let m = t.add_node("m", NodeKind::Memset).unwrap();
        t.add_edge(a, b).unwrap();
        t.add_edge(b, m).unwrap();
        assert!(matches!(
            t.set_programmatic(a, m, Port::Programmatic),
            Err(TopologyError::NoSuchEdge { .. })
        ));
        assert!(matches!(
            t.set_programmatic(b, m, Port::Programmatic),
            Err(TopologyError::NotKernels { .. })
        ));
        t.set_programmatic(a, b, Port::LaunchOrder).unwrap();
        assert_eq!(t.programmatic_port(a, b), Some(Port::LaunchOrder));
        assert!(t
            .to_dot("g")
            .contains("\"a\" -> \"b\" [style=bold, label=\"launch order\"];"));
        let mut u = t.clone();
        u.remove_edge(a, b).unwrap();
        assert!(u.programmatic_edges().is_empty());
        u.add_edge(a, b).unwrap();
        assert_eq!(
            t.differs_from(&u).as_deref(),
            Some("its programmatic edges differ")
        );
    }
}
