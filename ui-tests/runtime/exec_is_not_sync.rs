// An executable graph is Send but not Sync: launches and edits need `&mut`.
use cuda_graph::GraphExec;

fn need_sync<T: Sync>() {}
fn need_send<T: Send>() {}

fn main() {
    need_send::<GraphExec<'static>>();
    need_sync::<GraphExec<'static>>();
}
