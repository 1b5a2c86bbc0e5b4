#![deny(warnings)]
use cuda_graph::cuda_graph;
use cuda_graph::kernel::Cond;

cuda_graph! {
    /// WHILE loops with iteration limits: a param expression (its setter changes it), a
    /// literal with a body that also ends the loop, and one nested in an IF body.
    graph Limited {
        kernel step(x: &mut [u32], n: u32);
        kernel decide(c: Cond, x: &[u32], n: u32);
        buffer mut x: u32;
        param n: u32;
        param most: u32;
        cond go = 1;
        cond more = 1;
        cond outer = 1;
        cond inner = 1;
        spin = while go, max most * 2 + 1 {
            s = step<<<1, 32>>>(x, n);
        }
        fixed = while more, max 37 {
            t = step<<<1, 32>>>(x, n);
            d = decide<<<1, 1>>>(more, x, n);
            t -> d;
        }
        pick = decide<<<1, 1>>>(outer, x, n);
        maybe = if outer {
            nested = while inner, max 3 {
                u = step<<<1, 32>>>(x, n);
            }
        }
        spin -> fixed -> pick -> maybe;
    }
}

fn main() {
    fn _use(exec: &mut LimitedExec<'_>) -> cuda_graph::Result<()> {
        exec.set_most(4)?;
        let c: cuda_graph::exec::LoopCount = exec.spin_count()?;
        let _: (u32, bool) = (c.iterations(), c.limit_hit());
        let _ = exec.fixed_count()?;
        let _ = exec.nested_count()?;
        Ok(())
    }
    let _ = Limited::DOT;
}
