//! Grouping node handles by handle type (see [`Groups`]).

use crate::gen::Groups;
use crate::kinds;
use crate::model::Graph;

/// Groups `g`'s nodes by handle type (compared structurally); indices in a group follow the
/// order `build` adds nodes in. A node of a repeat block has a group of its own (one handle
/// per iteration, indexed by the iteration); a repeat block itself has none.
pub(super) fn of(g: &Graph) -> Groups {
    let mut keys = Vec::new();
    let mut out = Groups {
        of: vec![(0, 0); g.nodes.len()],
        tys: Vec::new(),
        len: Vec::new(),
        members: Vec::new(),
    };
    for &ni in &g.order {
        let op = &g.nodes[ni].op;
        if matches!(op, crate::model::NodeOp::Repeat(_)) {
            out.of[ni] = (usize::MAX, 0);
            continue;
        }
        let mut key = kinds::kind(op).key(g);
        if g.block_of(ni).is_some() {
            key = format!("{key} of node {ni}");
        }
        let gi = match keys.iter().position(|k| *k == key) {
            Some(gi) => gi,
            None => {
                keys.push(key);
                out.tys.push(kinds::handle_ty(g, op));
                out.len.push(0);
                out.members.push(Vec::new());
                keys.len() - 1
            }
        };
        out.of[ni] = (gi, out.len[gi]);
        out.len[gi] += 1;
        out.members[gi].push(ni);
    }
    out
}
