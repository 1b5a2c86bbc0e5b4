///The inputs of the [`Cond`] graph: the buffers it borrows, its params, callbacks and events.
struct CondInputs<'a> {
    ///a buffer `count`.
    pub count: &'a mut ::cuda_graph::cudarc::driver::CudaSlice<u32>,
    ///a buffer `y`.
    pub y: &'a mut ::cuda_graph::cudarc::driver::CudaSlice<u32>,
    ///a param `by`.
    pub by: u32,
}
///The inputs of [`Cond`] used as a child graph (`child(Cond { ... })`): buffer handles of the parent, constant params, callbacks and events.
struct CondChild {
    ///a buffer `count`.
    pub count: ::cuda_graph::buffer::BufMut<u32>,
    ///a buffer `y`.
    pub y: ::cuda_graph::buffer::BufMut<u32>,
    ///a param `by`.
    pub by: u32,
}
///The node handles of a [`Cond`] graph built as a child of another (`child(Cond { ... })`): one accessor per node, for the parent's `edit_<node>`.
struct CondNodes {
    __cg: <Cond<'static> as ::cuda_graph::__private::Generated<'static>>::Nodes,
}
struct Cond<'a> {
    __cg_graph: ::cuda_graph::Graph<'a>,
    __cg: <Cond<'a> as ::cuda_graph::__private::Generated<'a>>::State,
}
///The executable [`Cond`] graph: launch it, and edit it live through the node views (`exec.node_name()`) and the graph-level setters (`exec.set_param(..)`).
struct CondExec<'a> {
    __cg_exec: ::cuda_graph::GraphExec<'a>,
    __cg: <Cond<'a> as ::cuda_graph::__private::Generated<'a>>::State,
}
const _: () = {
    /// The inputs bound to the graph: params, buffer handles, callbacks, events.
    pub struct __CgInputs<'a> {
        b_count: ::cuda_graph::buffer::BufMut<u32>,
        b_y: ::cuda_graph::buffer::BufMut<u32>,
        p_by: u32,
        q_again: ::cuda_graph::kernel::Cond,
        q_odd: ::cuda_graph::kernel::Cond,
        q_pick: ::cuda_graph::kernel::Cond,
        q_which: ::cuda_graph::kernel::Cond,
        __cg_borrow: ::core::marker::PhantomData<&'a ()>,
    }
    /// The node handles, one array per handle type.
    pub struct __CgNodes {
        n0: ::std::boxed::Box<
            [::cuda_graph::node::KernelNode<(::cuda_graph::buffer::BufMut<u32>, u32)>; 6],
        >,
        n1: ::std::boxed::Box<[::cuda_graph::node::CondNode; 4]>,
        n2: ::std::boxed::Box<
            [::cuda_graph::node::KernelNode<
                (::cuda_graph::buffer::BufMut<u32>, u32, Cond),
            >; 1],
        >,
        n3: ::std::boxed::Box<
            [::cuda_graph::node::KernelNode<(::cuda_graph::buffer::Buf<u32>, Cond)>; 3],
        >,
    }
    pub struct __CgState<'a> {
        inputs: __CgInputs<'a>,
        nodes: __CgNodes,
    }
    impl<'a> ::cuda_graph::__private::Generated<'a> for Cond<'a> {
        type State = __CgState<'a>;
        type Nodes = __CgNodes;
    }
    impl CondNodes {
        ///The handle of node `init`.
        pub fn init(
            &self,
        ) -> ::cuda_graph::node::KernelNode<(::cuda_graph::buffer::BufMut<u32>, u32)> {
            self.__cg.n0[0]
        }
        ///The handle of node `run`.
        pub fn run(&self) -> ::cuda_graph::node::CondNode {
            self.__cg.n1[0]
        }
        ///The handle of node `up`.
        pub fn up(
            &self,
        ) -> ::cuda_graph::node::KernelNode<
            (::cuda_graph::buffer::BufMut<u32>, u32, Cond),
        > {
            self.__cg.n2[0]
        }
        ///The handle of node `test`.
        pub fn test(
            &self,
        ) -> ::cuda_graph::node::KernelNode<(::cuda_graph::buffer::Buf<u32>, Cond)> {
            self.__cg.n3[0]
        }
        ///The handle of node `bump`.
        pub fn bump(&self) -> ::cuda_graph::node::CondNode {
            self.__cg.n1[1]
        }
        ///The handle of node `mark`.
        pub fn mark(
            &self,
        ) -> ::cuda_graph::node::KernelNode<(::cuda_graph::buffer::BufMut<u32>, u32)> {
            self.__cg.n0[1]
        }
        ///The handle of node `choose`.
        pub fn choose(
            &self,
        ) -> ::cuda_graph::node::KernelNode<(::cuda_graph::buffer::Buf<u32>, Cond)> {
            self.__cg.n3[1]
        }
        ///The handle of node `branch`.
        pub fn branch(&self) -> ::cuda_graph::node::CondNode {
            self.__cg.n1[2]
        }
        ///The handle of node `a`.
        pub fn a(
            &self,
        ) -> ::cuda_graph::node::KernelNode<(::cuda_graph::buffer::BufMut<u32>, u32)> {
            self.__cg.n0[2]
        }
        ///The handle of node `b`.
        pub fn b(
            &self,
        ) -> ::cuda_graph::node::KernelNode<(::cuda_graph::buffer::BufMut<u32>, u32)> {
            self.__cg.n0[3]
        }
        ///The handle of node `sel`.
        pub fn sel(
            &self,
        ) -> ::cuda_graph::node::KernelNode<(::cuda_graph::buffer::Buf<u32>, Cond)> {
            self.__cg.n3[2]
        }
        ///The handle of node `cases`.
        pub fn cases(&self) -> ::cuda_graph::node::CondNode {
            self.__cg.n1[3]
        }
        ///The handle of node `c0`.
        pub fn c0(
            &self,
        ) -> ::cuda_graph::node::KernelNode<(::cuda_graph::buffer::BufMut<u32>, u32)> {
            self.__cg.n0[4]
        }
        ///The handle of node `c1`.
        pub fn c1(
            &self,
        ) -> ::cuda_graph::node::KernelNode<(::cuda_graph::buffer::BufMut<u32>, u32)> {
            self.__cg.n0[5]
        }
    }
    impl<'a> Cond<'a> {
        /// The graph as DOT text, computed at compile time from the names written here.
        pub const DOT: &'static str = "digraph \"Cond\" {\n  rankdir=TB;\n  \"init\" [label=\"init\\nkernel\", shape=box];\n  \"run\" [label=\"run\\nconditional\", shape=hexagon];\n  \"choose\" [label=\"choose\\nkernel\", shape=box];\n  \"branch\" [label=\"branch\\nconditional\", shape=hexagon];\n  \"sel\" [label=\"sel\\nkernel\", shape=box];\n  \"cases\" [label=\"cases\\nconditional\", shape=hexagon];\n  subgraph \"cluster_1\" {\n    label=\"run: while\";\n    style=rounded;\n    \"up\" [label=\"up\\nkernel\", shape=box];\n    \"test\" [label=\"test\\nkernel\", shape=box];\n    \"bump\" [label=\"bump\\nconditional\", shape=hexagon];\n    subgraph \"cluster_2\" {\n      label=\"bump: if\";\n      style=rounded;\n      \"mark\" [label=\"mark\\nkernel\", shape=box];\n    }\n  }\n  subgraph \"cluster_3\" {\n    label=\"branch: then\";\n    style=rounded;\n    \"a\" [label=\"a\\nkernel\", shape=box];\n  }\n  subgraph \"cluster_4\" {\n    label=\"branch: else\";\n    style=rounded;\n    \"b\" [label=\"b\\nkernel\", shape=box];\n  }\n  subgraph \"cluster_5\" {\n    label=\"cases: case 0\";\n    style=rounded;\n    \"c0\" [label=\"c0\\nkernel\", shape=box];\n  }\n  subgraph \"cluster_6\" {\n    label=\"cases: case 1\";\n    style=rounded;\n    \"c1\" [label=\"c1\\nkernel\", shape=box];\n  }\n  \"up\" -> \"test\";\n  \"test\" -> \"bump\";\n  \"init\" -> \"run\";\n  \"run\" -> \"choose\";\n  \"choose\" -> \"branch\";\n  \"branch\" -> \"sel\";\n  \"sel\" -> \"cases\";\n}\n";
        /// The CUDA C prototypes of the kernels as declared here: a start for the `.cu`
        /// file.
        pub const PROTOTYPES: &'static str = "extern \"C\" __global__ void step(unsigned int* count, unsigned int by, cudaGraphConditionalHandle again);\nextern \"C\" __global__ void decide(const unsigned int* v, cudaGraphConditionalHandle c);\nextern \"C\" __global__ void fill(unsigned int* y, unsigned int v);\n";
        /// The temporaries (graph-owned memory): name, element type and length, as
        /// written.
        pub const TEMPORARIES: &'static [(&'static str, &'static str, &'static str)] = &[];
        /// The graph as DOT text (no GPU needed).
        pub fn to_dot() -> &'static str {
            Self::DOT
        }
        /// Builds the template: binds the inputs and adds every node, loading the
        /// kernels from `module` by name.
        pub fn build(
            __cg_module: &::cuda_graph::Module,
            inputs: CondInputs<'a>,
        ) -> ::cuda_graph::Result<Self> {
            let mut __cg_g = ::cuda_graph::Graph::new(__cg_module.context())?
                .with_name("Cond");
            let mut __cg_s = __CgInputs {
                b_count: __cg_g.bind_mut(inputs.count)?,
                b_y: __cg_g.bind_mut(inputs.y)?,
                p_by: inputs.by,
                q_again: ::cuda_graph::kernel::Cond::unset(),
                q_odd: ::cuda_graph::kernel::Cond::unset(),
                q_pick: ::cuda_graph::kernel::Cond::unset(),
                q_which: ::cuda_graph::kernel::Cond::unset(),
                __cg_borrow: ::core::marker::PhantomData,
            };
            let nodes = Self::__cg_populate(&mut __cg_g, __cg_module, &mut __cg_s)?;
            ::core::result::Result::Ok(Self {
                __cg_graph: __cg_g,
                __cg: __CgState { inputs: __cg_s, nodes },
            })
        }
        /// Makes the executable graph.
        pub fn instantiate(
            self,
        ) -> ::core::result::Result<CondExec<'a>, ::cuda_graph::error::UpdateError> {
            self.instantiate_with(::cuda_graph::exec::Instantiate::new())
        }
        /// Makes the executable graph with options.
        pub fn instantiate_with(
            self,
            opts: ::cuda_graph::exec::Instantiate<'_>,
        ) -> ::core::result::Result<CondExec<'a>, ::cuda_graph::error::UpdateError> {
            ::core::result::Result::Ok(CondExec {
                __cg_exec: self.__cg_graph.instantiate_with(opts)?,
                __cg: self.__cg,
            })
        }
        /// The runtime template graph.
        pub fn graph(&self) -> &::cuda_graph::Graph<'a> {
            &self.__cg_graph
        }
        /// Builds this graph as a child of `parent` (used by `child(...)` nodes).
        #[doc(hidden)]
        pub fn __cg_child(
            parent: &::cuda_graph::Graph<'a>,
            __cg_module: &::cuda_graph::Module,
            __cg_args: CondChild,
        ) -> ::cuda_graph::Result<(::cuda_graph::Graph<'a>, CondNodes)> {
            let mut __cg_g = parent.child_graph()?;
            let mut __cg_s = __CgInputs {
                b_count: __cg_args.count,
                b_y: __cg_args.y,
                p_by: __cg_args.by,
                q_again: ::cuda_graph::kernel::Cond::unset(),
                q_odd: ::cuda_graph::kernel::Cond::unset(),
                q_pick: ::cuda_graph::kernel::Cond::unset(),
                q_which: ::cuda_graph::kernel::Cond::unset(),
                __cg_borrow: ::core::marker::PhantomData,
            };
            let nodes = Self::__cg_populate(&mut __cg_g, __cg_module, &mut __cg_s)?;
            ::core::result::Result::Ok((__cg_g, CondNodes { __cg: nodes }))
        }
        #[allow(unused_variables, unused_mut, unused_assignments, clippy::all)]
        fn __cg_populate(
            __cg_g: &mut ::cuda_graph::Graph<'a>,
            __cg_module: &::cuda_graph::Module,
            __cg_s: &mut __CgInputs<'a>,
        ) -> ::cuda_graph::Result<__CgNodes> {
            let __cg_k0 = __cg_module.function("step")?;
            let __cg_k1 = __cg_module.function("decide")?;
            let __cg_k2 = __cg_module.function("fill")?;
            let mut __cg_b1: u32 = 0;
            let mut __cg_b2: u32 = 0;
            let mut __cg_b3: u32 = 0;
            let mut __cg_b4: u32 = 0;
            let mut __cg_b5: u32 = 0;
            let mut __cg_b6: u32 = 0;
            __cg_g.reserve(14usize, 10usize, 7usize);
            let mut __cg_h0: ::std::vec::Vec<
                ::cuda_graph::node::KernelNode<(::cuda_graph::buffer::BufMut<u32>, u32)>,
            > = ::std::vec::Vec::with_capacity(6usize);
            let mut __cg_h1: ::std::vec::Vec<::cuda_graph::node::CondNode> = ::std::vec::Vec::with_capacity(
                4usize,
            );
            let mut __cg_h2: ::std::vec::Vec<
                ::cuda_graph::node::KernelNode<
                    (::cuda_graph::buffer::BufMut<u32>, u32, Cond),
                >,
            > = ::std::vec::Vec::with_capacity(1usize);
            let mut __cg_h3: ::std::vec::Vec<
                ::cuda_graph::node::KernelNode<(::cuda_graph::buffer::Buf<u32>, Cond)>,
            > = ::std::vec::Vec::with_capacity(3usize);
            {
                const __CG_NODES: &[(&str, &[u32])] = &[("init", &[])];
                for &(__cg_name, __cg_deps) in __CG_NODES {
                    let __cg_j = __cg_h0.len();
                    let __cg_n = __cg_g
                        .add_kernel_after(
                            __cg_name,
                            __cg_deps,
                            &__cg_k2,
                            Self::__cg_cfg_0(__cg_j, __cg_s),
                            Self::__cg_args_0(__cg_j, __cg_s),
                        )?;
                    __cg_h0.push(__cg_n);
                }
            }
            __cg_s.q_again = __cg_g
                .add_condition({
                    let __cg_v: u32 = 1;
                    __cg_v
                })?;
            {
                let __cg_n = {
                    let (__cg_n, __cg_body) = __cg_g
                        .add_while(
                            "run",
                            &[&__cg_h0[0] as &dyn ::cuda_graph::node::Dep],
                            __cg_s.q_again,
                        )?;
                    __cg_b1 = __cg_body.scope();
                    __cg_n
                };
                __cg_h1.push(__cg_n);
            }
            __cg_g.enter_scope(__cg_b1);
            {
                const __CG_NODES: &[(&str, &[u32])] = &[("up", &[])];
                for &(__cg_name, __cg_deps) in __CG_NODES {
                    let __cg_j = __cg_h2.len();
                    let __cg_n = __cg_g
                        .add_kernel_after(
                            __cg_name,
                            __cg_deps,
                            &__cg_k0,
                            Self::__cg_cfg_2(__cg_j, __cg_s),
                            Self::__cg_args_2(__cg_j, __cg_s),
                        )?;
                    __cg_h2.push(__cg_n);
                }
            }
            __cg_s.q_odd = __cg_g.add_condition(0u32)?;
            {
                const __CG_NODES: &[(&str, &[u32])] = &[("test", &[2u32])];
                for &(__cg_name, __cg_deps) in __CG_NODES {
                    let __cg_j = __cg_h3.len();
                    let __cg_n = __cg_g
                        .add_kernel_after(
                            __cg_name,
                            __cg_deps,
                            &__cg_k1,
                            Self::__cg_cfg_3(__cg_j, __cg_s),
                            Self::__cg_args_3(__cg_j, __cg_s),
                        )?;
                    __cg_h3.push(__cg_n);
                }
            }
            {
                let __cg_n = {
                    let (__cg_n, __cg_body) = __cg_g
                        .add_if(
                            "bump",
                            &[&__cg_h3[0] as &dyn ::cuda_graph::node::Dep],
                            __cg_s.q_odd,
                        )?;
                    __cg_b2 = __cg_body.scope();
                    __cg_n
                };
                __cg_h1.push(__cg_n);
            }
            __cg_g.enter_scope(__cg_b2);
            {
                const __CG_NODES: &[(&str, &[u32])] = &[("mark", &[])];
                for &(__cg_name, __cg_deps) in __CG_NODES {
                    let __cg_j = __cg_h0.len();
                    let __cg_n = __cg_g
                        .add_kernel_after(
                            __cg_name,
                            __cg_deps,
                            &__cg_k2,
                            Self::__cg_cfg_0(__cg_j, __cg_s),
                            Self::__cg_args_0(__cg_j, __cg_s),
                        )?;
                    __cg_h0.push(__cg_n);
                }
            }
            __cg_g.enter_scope(0u32);
            __cg_s.q_pick = __cg_g.add_condition(0u32)?;
            {
                const __CG_NODES: &[(&str, &[u32])] = &[("choose", &[1u32])];
                for &(__cg_name, __cg_deps) in __CG_NODES {
                    let __cg_j = __cg_h3.len();
                    let __cg_n = __cg_g
                        .add_kernel_after(
                            __cg_name,
                            __cg_deps,
                            &__cg_k1,
                            Self::__cg_cfg_3(__cg_j, __cg_s),
                            Self::__cg_args_3(__cg_j, __cg_s),
                        )?;
                    __cg_h3.push(__cg_n);
                }
            }
            {
                let __cg_n = {
                    let (__cg_n, [__cg_then, __cg_else]) = __cg_g
                        .add_if_else(
                            "branch",
                            &[&__cg_h3[1] as &dyn ::cuda_graph::node::Dep],
                            __cg_s.q_pick,
                        )?;
                    __cg_b3 = __cg_then.scope();
                    __cg_b4 = __cg_else.scope();
                    __cg_n
                };
                __cg_h1.push(__cg_n);
            }
            __cg_g.enter_scope(__cg_b3);
            {
                const __CG_NODES: &[(&str, &[u32])] = &[("a", &[])];
                for &(__cg_name, __cg_deps) in __CG_NODES {
                    let __cg_j = __cg_h0.len();
                    let __cg_n = __cg_g
                        .add_kernel_after(
                            __cg_name,
                            __cg_deps,
                            &__cg_k2,
                            Self::__cg_cfg_0(__cg_j, __cg_s),
                            Self::__cg_args_0(__cg_j, __cg_s),
                        )?;
                    __cg_h0.push(__cg_n);
                }
            }
            __cg_g.enter_scope(__cg_b4);
            {
                const __CG_NODES: &[(&str, &[u32])] = &[("b", &[])];
                for &(__cg_name, __cg_deps) in __CG_NODES {
                    let __cg_j = __cg_h0.len();
                    let __cg_n = __cg_g
                        .add_kernel_after(
                            __cg_name,
                            __cg_deps,
                            &__cg_k2,
                            Self::__cg_cfg_0(__cg_j, __cg_s),
                            Self::__cg_args_0(__cg_j, __cg_s),
                        )?;
                    __cg_h0.push(__cg_n);
                }
            }
            __cg_g.enter_scope(0u32);
            __cg_s.q_which = __cg_g.add_condition(0u32)?;
            {
                const __CG_NODES: &[(&str, &[u32])] = &[("sel", &[7u32])];
                for &(__cg_name, __cg_deps) in __CG_NODES {
                    let __cg_j = __cg_h3.len();
                    let __cg_n = __cg_g
                        .add_kernel_after(
                            __cg_name,
                            __cg_deps,
                            &__cg_k1,
                            Self::__cg_cfg_3(__cg_j, __cg_s),
                            Self::__cg_args_3(__cg_j, __cg_s),
                        )?;
                    __cg_h3.push(__cg_n);
                }
            }
            {
                let __cg_n = {
                    let (__cg_n, __cg_cases) = __cg_g
                        .add_switch(
                            "cases",
                            &[&__cg_h3[2] as &dyn ::cuda_graph::node::Dep],
                            __cg_s.q_which,
                            2u32,
                        )?;
                    __cg_b5 = __cg_cases[0usize].scope();
                    __cg_b6 = __cg_cases[1usize].scope();
                    __cg_n
                };
                __cg_h1.push(__cg_n);
            }
            __cg_g.enter_scope(__cg_b5);
            {
                const __CG_NODES: &[(&str, &[u32])] = &[("c0", &[])];
                for &(__cg_name, __cg_deps) in __CG_NODES {
                    let __cg_j = __cg_h0.len();
                    let __cg_n = __cg_g
                        .add_kernel_after(
                            __cg_name,
                            __cg_deps,
                            &__cg_k2,
                            Self::__cg_cfg_0(__cg_j, __cg_s),
                            Self::__cg_args_0(__cg_j, __cg_s),
                        )?;
                    __cg_h0.push(__cg_n);
                }
            }
            __cg_g.enter_scope(__cg_b6);
            {
                const __CG_NODES: &[(&str, &[u32])] = &[("c1", &[])];
                for &(__cg_name, __cg_deps) in __CG_NODES {
                    let __cg_j = __cg_h0.len();
                    let __cg_n = __cg_g
                        .add_kernel_after(
                            __cg_name,
                            __cg_deps,
                            &__cg_k2,
                            Self::__cg_cfg_0(__cg_j, __cg_s),
                            Self::__cg_args_0(__cg_j, __cg_s),
                        )?;
                    __cg_h0.push(__cg_n);
                }
            }
            __cg_g.enter_scope(0u32);
            ::core::result::Result::Ok(__CgNodes {
                n0: match ::core::convert::TryFrom::try_from(
                    __cg_h0.into_boxed_slice(),
                ) {
                    ::core::result::Result::Ok(a) => a,
                    ::core::result::Result::Err(_) => {
                        ::core::unreachable!("every node of the group was added")
                    }
                },
                n1: match ::core::convert::TryFrom::try_from(
                    __cg_h1.into_boxed_slice(),
                ) {
                    ::core::result::Result::Ok(a) => a,
                    ::core::result::Result::Err(_) => {
                        ::core::unreachable!("every node of the group was added")
                    }
                },
                n2: match ::core::convert::TryFrom::try_from(
                    __cg_h2.into_boxed_slice(),
                ) {
                    ::core::result::Result::Ok(a) => a,
                    ::core::result::Result::Err(_) => {
                        ::core::unreachable!("every node of the group was added")
                    }
                },
                n3: match ::core::convert::TryFrom::try_from(
                    __cg_h3.into_boxed_slice(),
                ) {
                    ::core::result::Result::Ok(a) => a,
                    ::core::result::Result::Err(_) => {
                        ::core::unreachable!("every node of the group was added")
                    }
                },
            })
        }
        #[allow(unused_variables, unreachable_patterns, clippy::all)]
        #[inline(never)]
        fn __cg_args_0(
            __cg_j: usize,
            __cg_s: &__CgInputs<'a>,
        ) -> (::cuda_graph::buffer::BufMut<u32>, u32) {
            match __cg_j {
                0 => {
                    (
                        {
                            let __cg_v: ::cuda_graph::buffer::BufMut<u32> = __cg_s
                                .b_count;
                            __cg_v
                        },
                        {
                            let __cg_v: u32 = 0;
                            __cg_v
                        },
                    )
                }
                1 => {
                    (
                        {
                            let __cg_v: ::cuda_graph::buffer::BufMut<u32> = __cg_s.b_y;
                            __cg_v
                        },
                        {
                            let __cg_v: u32 = 1;
                            __cg_v
                        },
                    )
                }
                2 => {
                    (
                        {
                            let __cg_v: ::cuda_graph::buffer::BufMut<u32> = __cg_s.b_y;
                            __cg_v
                        },
                        {
                            let __cg_v: u32 = 2;
                            __cg_v
                        },
                    )
                }
                3 => {
                    (
                        {
                            let __cg_v: ::cuda_graph::buffer::BufMut<u32> = __cg_s.b_y;
                            __cg_v
                        },
                        {
                            let __cg_v: u32 = 3;
                            __cg_v
                        },
                    )
                }
                4 => {
                    (
                        {
                            let __cg_v: ::cuda_graph::buffer::BufMut<u32> = __cg_s.b_y;
                            __cg_v
                        },
                        {
                            let __cg_v: u32 = 4;
                            __cg_v
                        },
                    )
                }
                5 => {
                    let by = ::core::clone::Clone::clone(&__cg_s.p_by);
                    (
                        {
                            let __cg_v: ::cuda_graph::buffer::BufMut<u32> = __cg_s.b_y;
                            __cg_v
                        },
                        {
                            let __cg_v: u32 = by;
                            __cg_v
                        },
                    )
                }
                _ => ::core::unreachable!("no such node in this group"),
            }
        }
        #[allow(unused_variables, unreachable_patterns, clippy::all)]
        #[inline(never)]
        fn __cg_cfg_0(
            __cg_j: usize,
            __cg_s: &__CgInputs<'a>,
        ) -> ::cuda_graph::LaunchConfig {
            match __cg_j {
                0 => {
                    ::cuda_graph::LaunchConfig {
                        grid_dim: ::cuda_graph::__private::dim3(1),
                        block_dim: ::cuda_graph::__private::dim3(32),
                        shared_mem_bytes: 0u32,
                    }
                }
                1 => {
                    ::cuda_graph::LaunchConfig {
                        grid_dim: ::cuda_graph::__private::dim3(1),
                        block_dim: ::cuda_graph::__private::dim3(32),
                        shared_mem_bytes: 0u32,
                    }
                }
                2 => {
                    ::cuda_graph::LaunchConfig {
                        grid_dim: ::cuda_graph::__private::dim3(1),
                        block_dim: ::cuda_graph::__private::dim3(32),
                        shared_mem_bytes: 0u32,
                    }
                }
                3 => {
                    ::cuda_graph::LaunchConfig {
                        grid_dim: ::cuda_graph::__private::dim3(1),
                        block_dim: ::cuda_graph::__private::dim3(32),
                        shared_mem_bytes: 0u32,
                    }
                }
                4 => {
                    ::cuda_graph::LaunchConfig {
                        grid_dim: ::cuda_graph::__private::dim3(1),
                        block_dim: ::cuda_graph::__private::dim3(32),
                        shared_mem_bytes: 0u32,
                    }
                }
                5 => {
                    ::cuda_graph::LaunchConfig {
                        grid_dim: ::cuda_graph::__private::dim3(1),
                        block_dim: ::cuda_graph::__private::dim3(32),
                        shared_mem_bytes: 0u32,
                    }
                }
                _ => ::core::unreachable!("no such node in this group"),
            }
        }
        #[allow(unused_variables, unreachable_patterns, clippy::all)]
        #[inline(never)]
        fn __cg_args_2(
            __cg_j: usize,
            __cg_s: &__CgInputs<'a>,
        ) -> (::cuda_graph::buffer::BufMut<u32>, u32, Cond) {
            match __cg_j {
                0 => {
                    let by = ::core::clone::Clone::clone(&__cg_s.p_by);
                    (
                        {
                            let __cg_v: ::cuda_graph::buffer::BufMut<u32> = __cg_s
                                .b_count;
                            __cg_v
                        },
                        {
                            let __cg_v: u32 = by;
                            __cg_v
                        },
                        {
                            let __cg_v: Cond = __cg_s.q_again;
                            __cg_v
                        },
                    )
                }
                _ => ::core::unreachable!("no such node in this group"),
            }
        }
        #[allow(unused_variables, unreachable_patterns, clippy::all)]
        #[inline(never)]
        fn __cg_cfg_2(
            __cg_j: usize,
            __cg_s: &__CgInputs<'a>,
        ) -> ::cuda_graph::LaunchConfig {
            match __cg_j {
                0 => {
                    ::cuda_graph::LaunchConfig {
                        grid_dim: ::cuda_graph::__private::dim3(1),
                        block_dim: ::cuda_graph::__private::dim3(1),
                        shared_mem_bytes: 0u32,
                    }
                }
                _ => ::core::unreachable!("no such node in this group"),
            }
        }
        #[allow(unused_variables, unreachable_patterns, clippy::all)]
        #[inline(never)]
        fn __cg_args_3(
            __cg_j: usize,
            __cg_s: &__CgInputs<'a>,
        ) -> (::cuda_graph::buffer::Buf<u32>, Cond) {
            match __cg_j {
                0 => {
                    (
                        {
                            let __cg_v: ::cuda_graph::buffer::Buf<u32> = __cg_s
                                .b_count
                                .read();
                            __cg_v
                        },
                        {
                            let __cg_v: Cond = __cg_s.q_odd;
                            __cg_v
                        },
                    )
                }
                1 => {
                    (
                        {
                            let __cg_v: ::cuda_graph::buffer::Buf<u32> = __cg_s
                                .b_count
                                .read();
                            __cg_v
                        },
                        {
                            let __cg_v: Cond = __cg_s.q_pick;
                            __cg_v
                        },
                    )
                }
                2 => {
                    (
                        {
                            let __cg_v: ::cuda_graph::buffer::Buf<u32> = __cg_s
                                .b_count
                                .read();
                            __cg_v
                        },
                        {
                            let __cg_v: Cond = __cg_s.q_which;
                            __cg_v
                        },
                    )
                }
                _ => ::core::unreachable!("no such node in this group"),
            }
        }
        #[allow(unused_variables, unreachable_patterns, clippy::all)]
        #[inline(never)]
        fn __cg_cfg_3(
            __cg_j: usize,
            __cg_s: &__CgInputs<'a>,
        ) -> ::cuda_graph::LaunchConfig {
            match __cg_j {
                0 => {
                    ::cuda_graph::LaunchConfig {
                        grid_dim: ::cuda_graph::__private::dim3(1),
                        block_dim: ::cuda_graph::__private::dim3(1),
                        shared_mem_bytes: 0u32,
                    }
                }
                1 => {
                    ::cuda_graph::LaunchConfig {
                        grid_dim: ::cuda_graph::__private::dim3(1),
                        block_dim: ::cuda_graph::__private::dim3(1),
                        shared_mem_bytes: 0u32,
                    }
                }
                2 => {
                    ::cuda_graph::LaunchConfig {
                        grid_dim: ::cuda_graph::__private::dim3(1),
                        block_dim: ::cuda_graph::__private::dim3(1),
                        shared_mem_bytes: 0u32,
                    }
                }
                _ => ::core::unreachable!("no such node in this group"),
            }
        }
    }
    impl<'a> CondExec<'a> {
        /// Launches the graph on `stream`.
        pub fn launch(
            &mut self,
            stream: &::std::sync::Arc<::cuda_graph::cudarc::driver::CudaStream>,
        ) -> ::core::result::Result<(), ::cuda_graph::error::LaunchError> {
            self.__cg_exec.launch(stream)
        }
        /// Waits for every launch, then reports a host-callback panic if one happened.
        pub fn synchronize(
            &mut self,
        ) -> ::core::result::Result<(), ::cuda_graph::error::LaunchError> {
            self.__cg_exec.synchronize()
        }
        /// Applies template edits made through `inner_mut().graph_mut()`.
        pub fn update(
            &mut self,
        ) -> ::core::result::Result<
            ::cuda_graph::exec::UpdatePath,
            ::cuda_graph::error::UpdateError,
        > {
            self.__cg_exec.update()
        }
        /// Bytes of graph-owned memory the temporaries hold, all together (sized from the
        /// params when the graph was built).
        pub fn temporary_bytes(&self) -> usize {
            self.__cg_exec.graph().temporary_bytes()
        }
        /// The runtime executable graph.
        pub fn inner(&self) -> &::cuda_graph::GraphExec<'a> {
            &self.__cg_exec
        }
        /// The runtime executable graph, mutable.
        pub fn inner_mut(&mut self) -> &mut ::cuda_graph::GraphExec<'a> {
            &mut self.__cg_exec
        }
        /// The runtime executable graph, taken out.
        pub fn into_inner(self) -> ::cuda_graph::GraphExec<'a> {
            self.__cg_exec
        }
        ///Buffer `count`, for cudarc calls between launches.
        pub fn count(
            &self,
        ) -> ::core::result::Result<
            &::cuda_graph::cudarc::driver::CudaSlice<u32>,
            ::cuda_graph::error::AccessError,
        > {
            self.__cg_exec.buffer(self.__cg.inputs.b_count)
        }
        ///Buffer `count`, writable (a view), e.g. to upload new input.
        pub fn count_mut(
            &mut self,
        ) -> ::core::result::Result<
            ::cuda_graph::cudarc::driver::CudaViewMut<'_, u32>,
            ::cuda_graph::error::AccessError,
        > {
            self.__cg_exec.buffer_mut(self.__cg.inputs.b_count)
        }
        ///Binds another buffer as `count` and re-points every node that uses it. On failure nothing changes.
        pub fn set_count(
            &mut self,
            buffer: &'a mut ::cuda_graph::cudarc::driver::CudaSlice<u32>,
        ) -> ::core::result::Result<(), ::cuda_graph::error::EditError> {
            let __cg_h = self.__cg.inputs.b_count;
            let __cg_old = self.__cg_exec.swap_buffer_mut(__cg_h, buffer)?;
            match self.__cg_refresh_0() {
                ::core::result::Result::Ok(()) => ::core::result::Result::Ok(()),
                ::core::result::Result::Err(e) => {
                    let _ = self.__cg_exec.restore_buffer(__cg_h, __cg_old);
                    let _ = self.__cg_refresh_0();
                    ::core::result::Result::Err(e)
                }
            }
        }
        #[allow(unused_variables, unreachable_code, clippy::all)]
        fn __cg_refresh_0(
            &mut self,
        ) -> ::core::result::Result<(), ::cuda_graph::error::EditError> {
            {
                let __cg_j: usize = 0usize;
                self.__cg_exec
                    .node(self.__cg.nodes.n0[__cg_j])?
                    .set_arg::<0usize>(Cond::__cg_args_0(__cg_j, &self.__cg.inputs).0)?;
            }
            {
                let __cg_j: usize = 0usize;
                self.__cg_exec
                    .node(self.__cg.nodes.n2[__cg_j])?
                    .set_arg::<0usize>(Cond::__cg_args_2(__cg_j, &self.__cg.inputs).0)?;
            }
            for __cg_j in 0..3usize {
                self.__cg_exec
                    .node(self.__cg.nodes.n3[__cg_j])?
                    .set_arg::<0usize>(Cond::__cg_args_3(__cg_j, &self.__cg.inputs).0)?;
            }
            ::core::result::Result::Ok(())
        }
        ///Buffer `y`, for cudarc calls between launches.
        pub fn y(
            &self,
        ) -> ::core::result::Result<
            &::cuda_graph::cudarc::driver::CudaSlice<u32>,
            ::cuda_graph::error::AccessError,
        > {
            self.__cg_exec.buffer(self.__cg.inputs.b_y)
        }
        ///Buffer `y`, writable (a view), e.g. to upload new input.
        pub fn y_mut(
            &mut self,
        ) -> ::core::result::Result<
            ::cuda_graph::cudarc::driver::CudaViewMut<'_, u32>,
            ::cuda_graph::error::AccessError,
        > {
            self.__cg_exec.buffer_mut(self.__cg.inputs.b_y)
        }
        ///Binds another buffer as `y` and re-points every node that uses it. On failure nothing changes.
        pub fn set_y(
            &mut self,
            buffer: &'a mut ::cuda_graph::cudarc::driver::CudaSlice<u32>,
        ) -> ::core::result::Result<(), ::cuda_graph::error::EditError> {
            let __cg_h = self.__cg.inputs.b_y;
            let __cg_old = self.__cg_exec.swap_buffer_mut(__cg_h, buffer)?;
            match self.__cg_refresh_1() {
                ::core::result::Result::Ok(()) => ::core::result::Result::Ok(()),
                ::core::result::Result::Err(e) => {
                    let _ = self.__cg_exec.restore_buffer(__cg_h, __cg_old);
                    let _ = self.__cg_refresh_1();
                    ::core::result::Result::Err(e)
                }
            }
        }
        #[allow(unused_variables, unreachable_code, clippy::all)]
        fn __cg_refresh_1(
            &mut self,
        ) -> ::core::result::Result<(), ::cuda_graph::error::EditError> {
            for &__cg_j in &[1usize, 2usize, 3usize, 4usize, 5usize] {
                self.__cg_exec
                    .node(self.__cg.nodes.n0[__cg_j])?
                    .set_arg::<0usize>(Cond::__cg_args_0(__cg_j, &self.__cg.inputs).0)?;
            }
            ::core::result::Result::Ok(())
        }
        ///The current value of param `by`.
        pub fn by(&self) -> u32 {
            ::core::clone::Clone::clone(&self.__cg.inputs.p_by)
        }
        ///Sets param `by` and updates every node that uses it (one driver call each). On failure nothing changes.
        pub fn set_by(
            &mut self,
            value: u32,
        ) -> ::core::result::Result<(), ::cuda_graph::error::EditError> {
            let __cg_old = ::core::mem::replace(&mut self.__cg.inputs.p_by, value);
            match self.__cg_refresh_2() {
                ::core::result::Result::Ok(()) => ::core::result::Result::Ok(()),
                ::core::result::Result::Err(e) => {
                    self.__cg.inputs.p_by = __cg_old;
                    let _ = self.__cg_refresh_2();
                    ::core::result::Result::Err(e)
                }
            }
        }
        #[allow(unused_variables, unreachable_code, clippy::all)]
        fn __cg_refresh_2(
            &mut self,
        ) -> ::core::result::Result<(), ::cuda_graph::error::EditError> {
            {
                let __cg_j: usize = 0usize;
                self.__cg_exec
                    .node(self.__cg.nodes.n2[__cg_j])?
                    .set_arg::<
                        1usize,
                    >(::core::clone::Clone::clone(&self.__cg.inputs.p_by))?;
            }
            {
                let __cg_j: usize = 5usize;
                self.__cg_exec
                    .node(self.__cg.nodes.n0[__cg_j])?
                    .set_arg::<
                        1usize,
                    >(::core::clone::Clone::clone(&self.__cg.inputs.p_by))?;
            }
            ::core::result::Result::Ok(())
        }
    }
    /// Handles of the bound buffers, for the node views' buffer setters.
    #[derive(Clone, Copy, Debug)]
    pub struct __CgHandles {
        pub count: ::cuda_graph::buffer::BufMut<u32>,
        pub y: ::cuda_graph::buffer::BufMut<u32>,
    }
    impl<'a> CondExec<'a> {
        /// Handles of the bound buffers, for the node views' buffer setters.
        pub fn handles(&self) -> __CgHandles {
            __CgHandles {
                count: self.__cg.inputs.b_count,
                y: self.__cg.inputs.b_y,
            }
        }
    }
    pub struct __CgView2Fill<'v, 'a>(
        ::cuda_graph::node::KernelMut<
            'v,
            'a,
            (::cuda_graph::buffer::BufMut<u32>, u32),
            ::cuda_graph::node::OnExec,
        >,
    );
    impl<'v, 'a> ::core::ops::Deref for __CgView2Fill<'v, 'a> {
        type Target = ::cuda_graph::node::KernelMut<
            'v,
            'a,
            (::cuda_graph::buffer::BufMut<u32>, u32),
            ::cuda_graph::node::OnExec,
        >;
        fn deref(&self) -> &Self::Target {
            &self.0
        }
    }
    impl<'v, 'a> ::core::ops::DerefMut for __CgView2Fill<'v, 'a> {
        fn deref_mut(&mut self) -> &mut Self::Target {
            &mut self.0
        }
    }
    impl<'v, 'a> __CgView2Fill<'v, 'a> {
        ///Sets kernel parameter `y` of this node only.
        pub fn set_y(
            &mut self,
            value: ::cuda_graph::buffer::BufMut<u32>,
        ) -> ::core::result::Result<(), ::cuda_graph::error::EditError> {
            self.0.set_arg::<0usize>(value)
        }
        ///Sets kernel parameter `v` of this node only.
        pub fn set_v(
            &mut self,
            value: u32,
        ) -> ::core::result::Result<(), ::cuda_graph::error::EditError> {
            self.0.set_arg::<1usize>(value)
        }
    }
    impl<'a> CondExec<'a> {
        ///The view of node `init`: its typed setters.
        pub fn init(
            &mut self,
        ) -> ::core::result::Result<
            __CgView2Fill<'_, 'a>,
            ::cuda_graph::error::EditError,
        > {
            ::core::result::Result::Ok(
                __CgView2Fill(self.__cg_exec.node(self.__cg.nodes.n0[0])?),
            )
        }
    }
    pub struct __CgView0Step<'v, 'a>(
        ::cuda_graph::node::KernelMut<
            'v,
            'a,
            (::cuda_graph::buffer::BufMut<u32>, u32, Cond),
            ::cuda_graph::node::OnExec,
        >,
    );
    impl<'v, 'a> ::core::ops::Deref for __CgView0Step<'v, 'a> {
        type Target = ::cuda_graph::node::KernelMut<
            'v,
            'a,
            (::cuda_graph::buffer::BufMut<u32>, u32, Cond),
            ::cuda_graph::node::OnExec,
        >;
        fn deref(&self) -> &Self::Target {
            &self.0
        }
    }
    impl<'v, 'a> ::core::ops::DerefMut for __CgView0Step<'v, 'a> {
        fn deref_mut(&mut self) -> &mut Self::Target {
            &mut self.0
        }
    }
    impl<'v, 'a> __CgView0Step<'v, 'a> {
        ///Sets kernel parameter `count` of this node only.
        pub fn set_count(
            &mut self,
            value: ::cuda_graph::buffer::BufMut<u32>,
        ) -> ::core::result::Result<(), ::cuda_graph::error::EditError> {
            self.0.set_arg::<0usize>(value)
        }
        ///Sets kernel parameter `by` of this node only.
        pub fn set_by(
            &mut self,
            value: u32,
        ) -> ::core::result::Result<(), ::cuda_graph::error::EditError> {
            self.0.set_arg::<1usize>(value)
        }
        ///Sets kernel parameter `again` of this node only.
        pub fn set_again(
            &mut self,
            value: Cond,
        ) -> ::core::result::Result<(), ::cuda_graph::error::EditError> {
            self.0.set_arg::<2usize>(value)
        }
    }
    impl<'a> CondExec<'a> {
        ///The view of node `up`: its typed setters.
        pub fn up(
            &mut self,
        ) -> ::core::result::Result<
            __CgView0Step<'_, 'a>,
            ::cuda_graph::error::EditError,
        > {
            ::core::result::Result::Ok(
                __CgView0Step(self.__cg_exec.node(self.__cg.nodes.n2[0])?),
            )
        }
    }
    pub struct __CgView1Decide<'v, 'a>(
        ::cuda_graph::node::KernelMut<
            'v,
            'a,
            (::cuda_graph::buffer::Buf<u32>, Cond),
            ::cuda_graph::node::OnExec,
        >,
    );
    impl<'v, 'a> ::core::ops::Deref for __CgView1Decide<'v, 'a> {
        type Target = ::cuda_graph::node::KernelMut<
            'v,
            'a,
            (::cuda_graph::buffer::Buf<u32>, Cond),
            ::cuda_graph::node::OnExec,
        >;
        fn deref(&self) -> &Self::Target {
            &self.0
        }
    }
    impl<'v, 'a> ::core::ops::DerefMut for __CgView1Decide<'v, 'a> {
        fn deref_mut(&mut self) -> &mut Self::Target {
            &mut self.0
        }
    }
    impl<'v, 'a> __CgView1Decide<'v, 'a> {
        ///Sets kernel parameter `v` of this node only.
        pub fn set_v(
            &mut self,
            value: ::cuda_graph::buffer::Buf<u32>,
        ) -> ::core::result::Result<(), ::cuda_graph::error::EditError> {
            self.0.set_arg::<0usize>(value)
        }
        ///Sets kernel parameter `c` of this node only.
        pub fn set_c(
            &mut self,
            value: Cond,
        ) -> ::core::result::Result<(), ::cuda_graph::error::EditError> {
            self.0.set_arg::<1usize>(value)
        }
    }
    impl<'a> CondExec<'a> {
        ///The view of node `test`: its typed setters.
        pub fn test(
            &mut self,
        ) -> ::core::result::Result<
            __CgView1Decide<'_, 'a>,
            ::cuda_graph::error::EditError,
        > {
            ::core::result::Result::Ok(
                __CgView1Decide(self.__cg_exec.node(self.__cg.nodes.n3[0])?),
            )
        }
    }
    impl<'a> CondExec<'a> {
        ///The view of node `mark`: its typed setters.
        pub fn mark(
            &mut self,
        ) -> ::core::result::Result<
            __CgView2Fill<'_, 'a>,
            ::cuda_graph::error::EditError,
        > {
            ::core::result::Result::Ok(
                __CgView2Fill(self.__cg_exec.node(self.__cg.nodes.n0[1])?),
            )
        }
    }
    impl<'a> CondExec<'a> {
        ///The view of node `choose`: its typed setters.
        pub fn choose(
            &mut self,
        ) -> ::core::result::Result<
            __CgView1Decide<'_, 'a>,
            ::cuda_graph::error::EditError,
        > {
            ::core::result::Result::Ok(
                __CgView1Decide(self.__cg_exec.node(self.__cg.nodes.n3[1])?),
            )
        }
    }
    impl<'a> CondExec<'a> {
        ///The view of node `a`: its typed setters.
        pub fn a(
            &mut self,
        ) -> ::core::result::Result<
            __CgView2Fill<'_, 'a>,
            ::cuda_graph::error::EditError,
        > {
            ::core::result::Result::Ok(
                __CgView2Fill(self.__cg_exec.node(self.__cg.nodes.n0[2])?),
            )
        }
    }
    impl<'a> CondExec<'a> {
        ///The view of node `b`: its typed setters.
        pub fn b(
            &mut self,
        ) -> ::core::result::Result<
            __CgView2Fill<'_, 'a>,
            ::cuda_graph::error::EditError,
        > {
            ::core::result::Result::Ok(
                __CgView2Fill(self.__cg_exec.node(self.__cg.nodes.n0[3])?),
            )
        }
    }
    impl<'a> CondExec<'a> {
        ///The view of node `sel`: its typed setters.
        pub fn sel(
            &mut self,
        ) -> ::core::result::Result<
            __CgView1Decide<'_, 'a>,
            ::cuda_graph::error::EditError,
        > {
            ::core::result::Result::Ok(
                __CgView1Decide(self.__cg_exec.node(self.__cg.nodes.n3[2])?),
            )
        }
    }
    impl<'a> CondExec<'a> {
        ///The view of node `c0`: its typed setters.
        pub fn c0(
            &mut self,
        ) -> ::core::result::Result<
            __CgView2Fill<'_, 'a>,
            ::cuda_graph::error::EditError,
        > {
            ::core::result::Result::Ok(
                __CgView2Fill(self.__cg_exec.node(self.__cg.nodes.n0[4])?),
            )
        }
    }
    impl<'a> CondExec<'a> {
        ///The view of node `c1`: its typed setters.
        pub fn c1(
            &mut self,
        ) -> ::core::result::Result<
            __CgView2Fill<'_, 'a>,
            ::cuda_graph::error::EditError,
        > {
            ::core::result::Result::Ok(
                __CgView2Fill(self.__cg_exec.node(self.__cg.nodes.n0[5])?),
            )
        }
    }
    impl<'a> CondExec<'a> {
        ///The view of node `run`: its typed setters.
        pub fn run(
            &mut self,
        ) -> ::core::result::Result<
            <::cuda_graph::node::CondNode as ::cuda_graph::node::NodeHandle>::OnExec<
                '_,
                'a,
            >,
            ::cuda_graph::error::EditError,
        > {
            self.__cg_exec.node(self.__cg.nodes.n1[0])
        }
    }
    impl<'a> CondExec<'a> {
        ///The view of node `bump`: its typed setters.
        pub fn bump(
            &mut self,
        ) -> ::core::result::Result<
            <::cuda_graph::node::CondNode as ::cuda_graph::node::NodeHandle>::OnExec<
                '_,
                'a,
            >,
            ::cuda_graph::error::EditError,
        > {
            self.__cg_exec.node(self.__cg.nodes.n1[1])
        }
    }
    impl<'a> CondExec<'a> {
        ///The view of node `branch`: its typed setters.
        pub fn branch(
            &mut self,
        ) -> ::core::result::Result<
            <::cuda_graph::node::CondNode as ::cuda_graph::node::NodeHandle>::OnExec<
                '_,
                'a,
            >,
            ::cuda_graph::error::EditError,
        > {
            self.__cg_exec.node(self.__cg.nodes.n1[2])
        }
    }
    impl<'a> CondExec<'a> {
        ///The view of node `cases`: its typed setters.
        pub fn cases(
            &mut self,
        ) -> ::core::result::Result<
            <::cuda_graph::node::CondNode as ::cuda_graph::node::NodeHandle>::OnExec<
                '_,
                'a,
            >,
            ::cuda_graph::error::EditError,
        > {
            self.__cg_exec.node(self.__cg.nodes.n1[3])
        }
    }
};
