//! Reading and setting a WHILE node's iteration limit (`Graph::limit_while`) on the executable
//! graph.

use super::GraphExec;
use crate::error::{AccessError, DriverFailure, EditError, HandleError};
use crate::graph::limit::{LoopCount, WhileLimit};
use crate::id::Dep;

impl<'a> GraphExec<'a> {
    /// Sets the limit of a WHILE node to `max` iterations, from the next launch on. `max` is at
    /// least 1; 0 is an error and nothing changes.
    pub fn set_while_limit(&mut self, limit: WhileLimit, max: u32) -> Result<(), EditError> {
        if limit.graph != self.graph.id {
            return Err(HandleError::Foreign { what: "limit" }.into());
        }
        if max == 0 {
            let node = self.graph.topo.name(limit.node.node_id().index).to_owned();
            return Err(EditError::ZeroWhileLimit { node });
        }
        self.node(limit.node)?.set_arg::<2>(max)?;
        self.graph.counters[limit.counter].max = max;
        Ok(())
    }

    /// What the last launch did in the WHILE node of `limit`: waits for every launch, then
    /// reads the counter. `limit_hit` compares with the limit set now: read the count before
    /// changing the limit.
    pub fn while_count(&mut self, limit: WhileLimit) -> Result<LoopCount, AccessError> {
        if limit.graph != self.graph.id {
            return Err(HandleError::Foreign { what: "limit" }.into());
        }
        let _idle = self.core.wait()?;
        let counter = &self.graph.counters[limit.counter];
        let failed = |call| {
            move |source| DriverFailure {
                call,
                node: None,
                source,
            }
        };
        let stream = counter.mem.stream();
        let read = stream
            .clone_dtoh(&counter.mem)
            .map_err(failed("cuMemcpyDtoH"))?;
        stream
            .synchronize()
            .map_err(failed("cuStreamSynchronize"))?;
        Ok(LoopCount {
            iterations: read[0],
            limit: counter.max,
        })
    }
}
