//! Grouping node handles by handle type (see [`Groups`]).

use crate::gen::Groups;
use crate::kinds;
use crate::model::Graph;

/// Groups `g`'s nodes by handle type (compared structurally); indices in a group follow the
/// order `build` adds nodes in.
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
        let key = kinds::kind(op).key(g);
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
