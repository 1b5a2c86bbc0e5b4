//! Kernel nodes: a launch of a kernel function with typed arguments.

use cudarc::driver::{CudaFunction, LaunchConfig};

use super::limits::FuncLimits;
use super::{kind, switchable, Children, NodeCtx, Shadow, Switchable, Target, CONFIG};
use crate::args::{ArgAt, KernelArg, KernelArgs};
use crate::bind::Bindings;
use crate::block::{ArgBlock, ArgOffsets};
use crate::driver::{CallResult, FuncInfo, Launchable, Limits, Mismatch, RawGraph, RawNode};
use crate::error::{BuildError, EditError, LaunchLimit};
use cuda_graph_topology::NodeKind;

kind!(
    /// A kernel node whose arguments have the tuple type `A`: made by
    /// [`Graph::add_kernel`](crate::Graph::add_kernel).
    ///
    /// ```no_run
    /// # fn demo<'a>(g: &mut cuda_graph_runtime::Graph<'a>, k: &'a cuda_graph_runtime::Kernel,
    /// #         x: cuda_graph_runtime::buffer::Buf<f32>, y: cuda_graph_runtime::buffer::BufMut<f32>)
    /// #   -> cuda_graph_runtime::Result<()> {
    /// use cuda_graph_runtime::{LaunchConfig, node::KernelNode};
    /// let step: KernelNode<(f32, _, _, u32)> =
    ///     g.add_kernel("step", &[], k, LaunchConfig::for_num_elems(1024), (2.0f32, x, y, 1024u32))?;
    /// # let _ = step; Ok(()) }
    /// ```
    handle KernelNode<A>,
    /// Setters of a kernel node with argument tuple `A`: what
    /// [`GraphExec::node`](crate::GraphExec::node) gives for a [`KernelNode`].
    ///
    /// ```no_run
    /// # fn demo(exec: &mut cuda_graph_runtime::GraphExec<'_>,
    /// #         step: cuda_graph_runtime::node::KernelNode<(f32, u32)>) -> cuda_graph_runtime::Result<()> {
    /// let mut k = exec.node(step)?;
    /// k.set_arg::<0>(3.0)?;                 // one argument, typed
    /// k.set_grid((8, 1, 1))?;               // checked against the device's limits first
    /// k.disable()?;
    /// # Ok(()) }
    /// ```
    view KernelMut,
    shadow KernelShadow,
    kind Kernel
);

/// Laid out so a setter touches two cache lines of it: the launch and the bookkeeping in the
/// first, the argument block (its first 32 bytes of arguments) in the second; the function's
/// limits, read by launch edits only, after them. A graph-level
/// setter walks every node's shadow, and its driver calls walk the driver's own records of
/// them: the fewer lines a shadow costs, the more of both stay in cache.
#[repr(C, align(64))]
pub(crate) struct KernelShadow {
    launch: Launchable,
    pub cfg: LaunchConfig,
    enabled: bool,
    /// On an executable graph's shadow: the arguments (bit `i`) and the launch configuration
    /// ([`CONFIG`](super::CONFIG)) edited here that the template's shadow has not taken yet
    /// (see [`catch_up`](Self::catch_up)). A setter's hot path touches this shadow only, as
    /// the driver call it makes touches one node.
    behind: u64,
    pub args: ArgBlock,
    /// A copy of argument blocks too long to keep in place (over 64 bytes), made on the first
    /// whole-argument edit: what such an edit puts back if it fails. Shorter blocks are copied
    /// on the stack. Boxed: most nodes never need one.
    spare: Option<Box<ArgBlock>>,
    /// The function's own limits.
    limits: FuncLimits,
}

impl KernelShadow {
    /// A launch of `func` (whose parameters and limits are `info`) named `node`, checked: the
    /// arguments against the parameter list, the launch configuration against the limits.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn new<'a, A: KernelArgs>(
        g: &mut RawGraph<'a>,
        func: &CudaFunction,
        info: &FuncInfo,
        node: &str,
        cfg: LaunchConfig,
        args: A,
        bindings: &Bindings<'a>,
        limits: &Limits,
    ) -> Result<Self, BuildError> {
        let launch = Self::launch_of::<A>(g, func, info, node)?;
        Self::with_launch(
            launch,
            FuncLimits::of(info),
            node,
            cfg,
            args,
            bindings,
            limits,
        )
    }

    /// `func` made callable from `g`'s nodes with argument tuples `A`, the tuple's layout checked
    /// against its parameter list (a mismatch names `node`): what every node of `func` with
    /// arguments `A` launches, so nodes of one kernel check it once.
    #[inline]
    pub fn launch_of<A: KernelArgs>(
        g: &mut RawGraph<'_>,
        func: &CudaFunction,
        info: &FuncInfo,
        node: &str,
    ) -> Result<Launchable, BuildError> {
        // One reference for both: blocks are sent with the layout the launch was checked with,
        // which the driver layer confirms by address first.
        let offsets: &'static ArgOffsets = &A::OFFSETS;
        g.launchable(
            func,
            &info.sizes,
            info.offsets.as_deref(),
            A::LAYOUT,
            offsets,
        )
        .map_err(|m| match m {
            Mismatch::Count { expected, given } => BuildError::ArgumentCount {
                node: node.to_owned(),
                expected,
                given,
            },
            Mismatch::Size {
                index,
                expected,
                given,
            } => BuildError::ArgumentSize {
                node: node.to_owned(),
                index,
                expected,
                given,
            },
        })
    }

    /// A node `node` of a launch made by [`launch_of`](Self::launch_of) for `A`: the launch
    /// configuration checked against the device's and the function's limits, the arguments
    /// written.
    #[inline]
    pub fn with_launch<'a, A: KernelArgs>(
        launch: Launchable,
        func: FuncLimits,
        node: &str,
        cfg: LaunchConfig,
        args: A,
        bindings: &Bindings<'a>,
        limits: &Limits,
    ) -> Result<Self, BuildError> {
        Self::check_launch(&func, node, &cfg, limits)?;
        let mut k = Self::unwritten(launch, func);
        k.write(cfg, args, bindings)?;
        Ok(k)
    }

    /// Checks the launch configuration `cfg` of a node `node` of a function with limits
    /// `func` against them and the device's `limits`.
    #[inline(always)]
    pub fn check_launch(
        func: &FuncLimits,
        node: &str,
        cfg: &LaunchConfig,
        limits: &Limits,
    ) -> Result<(), BuildError> {
        func.check(cfg, limits)
            .map_err(|limit| invalid_launch(node, limit))
    }

    /// The shadow of a launch, its launch configuration and arguments zero until
    /// [`write`](Self::write): made where it is kept, a shadow (three cache lines) is written
    /// once, not moved.
    #[inline(always)]
    pub fn unwritten(launch: Launchable, func: FuncLimits) -> Self {
        KernelShadow {
            // The launch's own reference: a setter's layout check then holds by address.
            args: ArgBlock::new(launch.offsets()),
            launch,
            cfg: NO_CONFIG,
            behind: 0,
            spare: None,
            enabled: true,
            limits: func,
        }
    }

    /// Writes the launch configuration (checked: [`check_launch`](Self::check_launch)) and
    /// the arguments of an [`unwritten`](Self::unwritten) shadow of a launch for `A`. The
    /// configuration is copied here, once, from where the caller made it: built into the
    /// shadow's value and the value then copied to its slot, its 28 bytes were read back
    /// across two writes just made, a stall the CPU paid on every node (measured in the
    /// benchmark's builds: `docs/bench/live-edits.md`).
    #[inline(always)]
    pub fn write<'a, A: KernelArgs>(
        &mut self,
        cfg: LaunchConfig,
        args: A,
        bindings: &Bindings<'a>,
    ) -> Result<(), BuildError> {
        self.cfg = cfg;
        Ok(args.write(bindings, &mut self.args)?)
    }

    /// Checks a launch configuration against the device's and the function's limits.
    #[inline]
    fn check(&self, cfg: &LaunchConfig, lim: &Limits) -> Result<(), LaunchLimit> {
        self.limits.check(cfg, lim)
    }

    /// On an executable graph's shadow: hands the edits the template's shadow (`template`) has
    /// not taken yet over to it, argument by argument, so template-side edits of the other
    /// arguments stay. Whether there were any.
    pub fn catch_up(&mut self, template: &mut Self) -> bool {
        let behind = std::mem::take(&mut self.behind);
        if behind & CONFIG != 0 {
            template.cfg = self.cfg;
        }
        let mut args = behind & !CONFIG;
        while args != 0 {
            template
                .args
                .copy_arg(args.trailing_zeros() as usize, &self.args);
            args &= args - 1;
        }
        behind != 0
    }

    /// On an executable graph's shadow, after an update: takes what the template's shadow may
    /// hold that this one does not (its arguments, launch configuration and enabled state).
    /// The function and its limits are the node's for life, so they are not copied.
    #[inline]
    pub fn adopt(&mut self, template: &Self) {
        debug_assert!(self.launch == template.launch && self.limits == template.limits);
        self.cfg = template.cfg;
        self.behind = 0;
        self.args.assign(&template.args);
        self.enabled = template.enabled;
    }

    /// Runs `edit` on the arguments in place; if it fails, puts them back as they were.
    #[inline(always)]
    fn edit_in_place<E>(
        &mut self,
        edit: impl FnOnce(&mut ArgBlock, &Launchable, &LaunchConfig) -> Result<(), E>,
    ) -> Result<(), E> {
        // One call of `edit` (so it inlines): the bytes are saved on the stack, or for a long
        // block in the spare one.
        let saved = self.args.inline_copy();
        if saved.is_none() {
            let args = &self.args;
            self.spare
                .get_or_insert_with(|| Box::new(args.clone()))
                .assign(args);
        }
        let r = edit(&mut self.args, &self.launch, &self.cfg);
        if r.is_err() {
            match (saved, &self.spare) {
                (Some(words), _) => self.args.set_inline(words),
                (None, Some(spare)) => self.args.assign(spare),
                (None, None) => unreachable!("a long block was saved in the spare one"),
            }
        }
        r
    }
}

/// Where a view of an executable graph notes what the template's shadow has not taken yet
/// (`which`: argument bits and [`CONFIG`]): the bits on the shadow, the node on the executable
/// graph's list the first time.
#[inline(always)]
fn defer(cx: &mut NodeCtx<'_, '_, KernelShadow>, which: u64) {
    if let Some(m) = cx.mirror.as_mut() {
        if cx.shadow.behind == 0 {
            m.pending.behind.push(cx.index);
        }
        cx.shadow.behind |= which;
    }
}

/// The launch configuration of a shadow not written yet.
const NO_CONFIG: LaunchConfig = LaunchConfig {
    grid_dim: (0, 0, 0),
    block_dim: (0, 0, 0),
    shared_mem_bytes: 0,
};

/// The error of a launch configuration over `limit` for node `node` (kept out of line).
#[cold]
#[inline(never)]
fn invalid_launch(node: &str, limit: LaunchLimit) -> BuildError {
    BuildError::InvalidLaunch {
        node: node.to_owned(),
        limit,
    }
}

/// The error of a call the driver refused for node `name` (kept out of line: setters take the
/// other path).
#[cold]
#[inline(never)]
fn refused(e: crate::driver::CallError, name: &str) -> EditError {
    e.at(Some(name)).into()
}

/// Sends a launch of `l` with `cfg` and `args` to node `n`.
#[inline(always)]
fn send(
    t: &mut Target<'_, '_>,
    n: RawNode,
    l: &Launchable,
    cfg: &LaunchConfig,
    args: &ArgBlock,
) -> CallResult<()> {
    match t {
        Target::Template(g) => g.set_kernel(n, l, cfg, args),
        Target::Exec(e) => e.set_kernel(n, l, cfg, args),
    }
}

impl Clone for KernelShadow {
    fn clone(&self) -> Self {
        KernelShadow {
            args: self.args.clone(),
            launch: self.launch,
            cfg: self.cfg,
            // A copy is of what a template holds, which is never ahead of anything.
            behind: 0,
            // A copy builds its own spare block when it first needs one.
            spare: None,
            enabled: self.enabled,
            limits: self.limits,
        }
    }

    /// Reuses the argument block's storage (no allocation when the layouts match).
    fn clone_from(&mut self, source: &Self) {
        self.launch = source.launch;
        self.cfg = source.cfg;
        self.behind = 0;
        self.args.assign(&source.args);
        self.enabled = source.enabled;
        self.limits = source.limits;
    }
}

impl<'a> Shadow<'a> for KernelShadow {
    const KIND: NodeKind = NodeKind::Kernel;

    #[inline(always)]
    fn add(&self, g: &mut RawGraph<'a>, deps: &[RawNode], _: &Children<'a>) -> CallResult<RawNode> {
        g.add_kernel(deps, &self.launch, &self.cfg, &self.args)
    }

    fn apply(&self, t: &mut Target<'_, 'a>, n: RawNode) -> CallResult<()> {
        send(t, n, &self.launch, &self.cfg, &self.args)
    }

    fn enabled(&self) -> bool {
        self.enabled
    }
}

impl Switchable for KernelShadow {
    fn set_enabled(&mut self, on: bool) {
        self.enabled = on;
    }
}

switchable!(KernelMut<A>);

impl<A: KernelArgs, S> KernelMut<'_, '_, A, S> {
    /// The node's current launch configuration.
    pub fn launch_config(&self) -> LaunchConfig {
        self.cx.shadow.cfg
    }

    /// Replaces every argument.
    ///
    /// ```no_run
    /// # fn demo(exec: &mut cuda_graph_runtime::GraphExec<'_>,
    /// #         step: cuda_graph_runtime::node::KernelNode<(f32, u32)>) -> cuda_graph_runtime::Result<()> {
    /// exec.node(step)?.set_args((3.0, 1024))?;
    /// # Ok(()) }
    /// ```
    #[inline(always)]
    pub fn set_args(&mut self, args: A) -> Result<(), EditError> {
        self.send_staged(args, None)
    }

    /// Replaces argument `I` and resends the others from the shadow copy.
    ///
    /// ```no_run
    /// # fn demo(exec: &mut cuda_graph_runtime::GraphExec<'_>,
    /// #         step: cuda_graph_runtime::node::KernelNode<(f32, u32)>) -> cuda_graph_runtime::Result<()> {
    /// exec.node(step)?.set_arg::<0>(2.5)?;
    /// # Ok(()) }
    /// ```
    #[inline(always)]
    pub fn set_arg<const I: usize>(&mut self, value: <A as ArgAt<I>>::Arg) -> Result<(), EditError>
    where
        A: ArgAt<I>,
    {
        let cx = &mut self.cx;
        let raw = value.resolve(cx.bindings)?;
        let k = &mut *cx.shadow;
        // Write in place, and put the old value back if the driver refuses. The block is laid
        // out by `A`'s offsets (as `KernelArgs::write` relies on too): a constant here.
        let off = <A as KernelArgs>::OFFSETS.at[I];
        let old: <<A as ArgAt<I>>::Arg as KernelArg>::Raw = k.args.get_at(off);
        k.args.put_at(off, raw);
        if let Err(e) = send(&mut cx.target, cx.node, &k.launch, &k.cfg, &k.args) {
            k.args.put_at(off, old);
            return Err(refused(e, cx.topo.name(cx.index)));
        }
        defer(cx, 1 << I);
        Ok(())
    }

    /// Replaces the arguments whose bit is set in `which` (argument `i` is bit `i`) with those
    /// of `args`, keeping the others as they are, with one driver call: what a graph-level
    /// setter of `cuda_graph!` sends, so edits of other arguments through the view stay.
    #[doc(hidden)]
    #[inline]
    pub fn set_args_where(&mut self, args: A, which: u64) -> Result<(), EditError> {
        self.send_where(args, which, None)
    }

    /// As [`set_args_where`](Self::set_args_where), with a new launch configuration too.
    #[doc(hidden)]
    pub fn set_where(&mut self, args: A, which: u64, cfg: LaunchConfig) -> Result<(), EditError> {
        self.check(&cfg)?;
        self.send_where(args, which, Some(cfg))
    }

    fn send_where(
        &mut self,
        args: A,
        which: u64,
        cfg: Option<LaunchConfig>,
    ) -> Result<(), EditError> {
        self.send_in_place(cfg, which, |b, block| args.write_where(b, block, which))
    }

    /// Writes arguments into the shadow in place (`write`), sends them with `cfg` (or the
    /// node's own launch configuration, left as it is, for `None`), and keeps them if the
    /// driver accepts; else puts the old ones back. `which`: what changed, for the template
    /// (argument bits).
    #[inline(always)]
    fn send_in_place(
        &mut self,
        cfg: Option<LaunchConfig>,
        which: u64,
        write: impl FnOnce(&Bindings<'_>, &mut ArgBlock) -> Result<(), crate::error::HandleError>,
    ) -> Result<(), EditError> {
        let cx = &mut self.cx;
        let (target, node, bindings) = (&mut cx.target, cx.node, cx.bindings);
        // The name's parts are copied out, so the view need not be kept in memory for it.
        let (topo, index) = (cx.topo, cx.index);
        let name = move || topo.name(index);
        cx.shadow.edit_in_place(|block, launch, own| {
            write(bindings, block)?;
            let cfg = cfg.as_ref().unwrap_or(own);
            send(target, node, launch, cfg, block).map_err(|e| refused(e, name()))
        })?;
        match cfg {
            Some(cfg) => {
                cx.shadow.cfg = cfg;
                defer(cx, which | CONFIG);
            }
            None => defer(cx, which),
        }
        Ok(())
    }

    /// Replaces every argument and the launch configuration with one driver call.
    pub fn set(&mut self, args: A, cfg: LaunchConfig) -> Result<(), EditError> {
        self.check(&cfg)?;
        self.send_staged(args, Some(cfg))
    }

    /// Replaces grid, block and dynamic shared memory at once.
    pub fn set_launch(&mut self, cfg: LaunchConfig) -> Result<(), EditError> {
        self.edit_cfg(|c| *c = cfg)
    }

    /// Replaces the grid size in blocks.
    pub fn set_grid(&mut self, grid: (u32, u32, u32)) -> Result<(), EditError> {
        self.edit_cfg(|c| c.grid_dim = grid)
    }

    /// Replaces the block size in threads.
    pub fn set_block(&mut self, block: (u32, u32, u32)) -> Result<(), EditError> {
        self.edit_cfg(|c| c.block_dim = block)
    }

    /// Replaces the dynamic shared memory size in bytes.
    pub fn set_shared_mem(&mut self, bytes: u32) -> Result<(), EditError> {
        self.edit_cfg(|c| c.shared_mem_bytes = bytes)
    }

    fn check(&self, cfg: &LaunchConfig) -> Result<(), EditError> {
        self.cx
            .shadow
            .check(cfg, self.cx.limits)
            .map_err(|limit| EditError::InvalidLaunch {
                node: self.cx.name().to_owned(),
                limit,
            })
    }

    /// Sends every argument of `args` with `cfg`.
    #[inline(always)]
    fn send_staged(&mut self, args: A, cfg: Option<LaunchConfig>) -> Result<(), EditError> {
        let all = (1u64 << A::COUNT) - 1;
        self.send_in_place(cfg, all, |b, block| args.write(b, block))
    }

    fn edit_cfg(&mut self, edit: impl Fn(&mut LaunchConfig)) -> Result<(), EditError> {
        let mut cfg = self.cx.shadow.cfg;
        edit(&mut cfg);
        self.check(&cfg)?;
        let cx = &mut self.cx;
        let k = &mut *cx.shadow;
        send(&mut cx.target, cx.node, &k.launch, &cfg, &k.args)
            .map_err(|e| e.at(Some(cx.topo.name(cx.index))))?;
        k.cfg = cfg;
        defer(cx, CONFIG);
        Ok(())
    }
}

impl<A: KernelArgs> super::SendAgain<(LaunchConfig, A)> for KernelMut<'_, '_, A, super::OnExec> {
    #[inline]
    fn send_again(&mut self, (c, a): (LaunchConfig, A), which: u64) -> Result<(), EditError> {
        // One arm per mix of parts. Folding them into one inlined path (`send_where` for all,
        // the launch check inlined) took a fifth of the instructions off a node on the
        // stand-in driver, yet ran slower on an H200, the two side by side (1.10x the floor
        // against 1.07x): kept as it is (docs/bench/live-edits.md, "What was tried").
        let all = (1u64 << A::COUNT) - 1;
        match (which & super::CONFIG != 0, which & all == all) {
            (true, true) => self.set(a, c),
            (true, false) => self.set_where(a, which, c),
            (false, true) => self.set_args(a),
            (false, false) => self.set_args_where(a, which),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::KernelShadow;

    /// The launch and bookkeeping fill the first cache line; the argument block starts the
    /// second.
    #[test]
    fn a_shadow_keeps_its_hot_fields_in_two_cache_lines() {
        assert_eq!(std::mem::align_of::<KernelShadow>(), 64);
        assert_eq!(std::mem::offset_of!(KernelShadow, args), 64);
    }
}
