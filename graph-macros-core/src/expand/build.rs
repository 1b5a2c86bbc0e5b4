//! What `build` does: the body of `__cg_populate` (kernels loaded, condition handles made, every
//! node added in dependency order, bodies entered and left), and the constants and functions
//! the template carries besides (`PROTOTYPES`, `SOURCE`, `build_from_source`).

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;

use crate::gen::{rt, Cx};
use crate::kinds;
use crate::model::{Graph, NodeOp, ParamTy};

/// What a graph whose kernels all come from one CUDA file gets: `SOURCE`, `compile_options`,
/// `build_from_source` and `check_source`.
pub(super) fn source_items(
    g: &Graph,
    inputs_name: &syn::Ident,
    inputs_lt: &TokenStream,
) -> TokenStream {
    let rt = rt();
    let paths: Vec<String> = g
        .sources
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let mut out = TokenStream::new();
    let one_file = g.sources.len() == 1 && g.kernels.iter().all(|k| k.source == Some(0));
    if g.broken && g.one_source && !one_file {
        // The file or a declaration has an error (reported): the same items, with their
        // signatures, so that code calling them reports nothing more. The graph is never built.
        out.extend(quote! {
            /// The CUDA source the kernels are declared in (not read: the graph has errors).
            pub const SOURCE: &'static str = "";

            /// How [`Self::SOURCE`] is compiled (the graph has errors).
            pub fn compile_options() -> #rt::kernel::Compile<'static> {
                ::core::unreachable!()
            }

            /// Compiles [`Self::SOURCE`] for `arch` (the graph has errors).
            pub fn check_source(
                arch: #rt::check::Arch,
            ) -> ::core::result::Result<#rt::check::Checked, #rt::error::ModuleError> {
                let _ = arch;
                ::core::unreachable!()
            }

            /// Builds the template from [`Self::SOURCE`] (the graph has errors).
            pub fn build_from_source(
                ctx: &::std::sync::Arc<#rt::cudarc::driver::CudaContext>,
                inputs: #inputs_name #inputs_lt,
            ) -> #rt::Result<Self> {
                let _ = (ctx, inputs);
                ::core::unreachable!()
            }
        });
    } else if one_file {
        let path = &paths[0];
        let headers = g.headers.iter().map(|(name, p)| {
            let p = p.to_string_lossy().into_owned();
            quote!(.header(#name, ::core::include_str!(#p)))
        });
        // The target's: the architecture compiled for, and the version checked (and defined).
        let defines = g.defines.iter().map(|(n, v)| match n.as_str() {
            "__CUDA_ARCH__" | "CUDA_VERSION" => {
                let x: u32 = v.parse().unwrap_or_default();
                if n == "CUDA_VERSION" {
                    quote!(.toolkit(#x))
                } else {
                    quote!(.arch(#x))
                }
            }
            _ => quote!(.define(#n, #v)),
        });
        let names = g
            .kernels
            .iter()
            .filter_map(|k| k.load.as_deref())
            .map(|l| quote!(.name_expression(#l)));
        // What `build` loads each kernel by.
        let loads = g
            .kernels
            .iter()
            .map(|k| k.load.clone().unwrap_or_else(|| k.name.to_string()));
        out.extend(quote! {
            /// The CUDA source the kernels are declared in, read at compile time.
            pub const SOURCE: &'static str = ::core::include_str!(#path);

            /// How [`Self::SOURCE`] is compiled: the headers it includes (read at compile
            /// time), the graph's `define`s, and the name expressions of its kernels with
            /// C++ linkage.
            pub fn compile_options() -> #rt::kernel::Compile<'static> {
                #rt::kernel::Compile::new().file_name(#path) #(#headers)* #(#defines)* #(#names)*
            }

            /// Compiles [`Self::SOURCE`] as [`Self::build_from_source`] will for a device of
            /// `arch`, but to machine code and with no GPU, and checks that every kernel of the
            /// graph is in it: NVRTC's log is the error. Without NVRTC it prints why and
            /// returns [`Checked::Skipped`](cuda_graph::check::Checked::Skipped) (an error
            /// with `CUDA_GRAPH_REQUIRE_NVRTC=1`), so a `cargo test` can call it anywhere.
            pub fn check_source(
                arch: #rt::check::Arch,
            ) -> ::core::result::Result<#rt::check::Checked, #rt::error::ModuleError> {
                #rt::check::source(arch, Self::SOURCE, &Self::compile_options(), &[#(#loads),*])
            }

            /// Builds the template from [`Self::SOURCE`], compiled with NVRTC for `ctx`'s
            /// device (as [`Self::compile_options`] says) on first use and kept for the
            /// process's life (one module per context).
            pub fn build_from_source(
                ctx: &::std::sync::Arc<#rt::cudarc::driver::CudaContext>,
                inputs: #inputs_name #inputs_lt,
            ) -> #rt::Result<Self> {
                let module = #rt::compile_cached_with(ctx, Self::SOURCE, &Self::compile_options())?;
                Self::build(&module, inputs)
            }
        });
    }
    out
}

/// The kernels' CUDA C prototypes, from their Rust declarations.
pub(super) fn prototypes(g: &Graph) -> String {
    let mut out = String::new();
    for k in &g.kernels {
        let params: Vec<String> = k
            .params
            .iter()
            .map(|(n, t)| {
                let c = |ty: &syn::Type| {
                    if crate::lower::is_void(ty) {
                        return "void".to_owned();
                    }
                    let text = ty.to_token_stream().to_string();
                    // A type with no C spelling known (a struct): its Rust name. A type of the
                    // crate named by its path (`::cuda_graph::half::bf16`) by its last segment.
                    let name = crate::lower::primitive(ty).unwrap_or_else(|| text.clone());
                    crate::csrc::c_of(&name).map_or(text.clone(), str::to_owned)
                };
                match t {
                    ParamTy::Scalar(ty) => format!("{} {n}", c(ty)),
                    // A buffer of device addresses: `T* const*` read-only, `T**` written.
                    ParamTy::Slice { mutable, elem, .. }
                        if crate::lower::addr_of(elem).is_some() =>
                    {
                        let to = crate::lower::addr_of(elem).map(&c).unwrap_or_default();
                        if *mutable {
                            format!("{to}** {n}")
                        } else {
                            format!("{to}* const* {n}")
                        }
                    }
                    ParamTy::Slice {
                        mutable: false,
                        elem,
                        ..
                    } => format!("const {}* {n}", c(elem)),
                    ParamTy::Slice {
                        mutable: true,
                        elem,
                        ..
                    } => format!("{}* {n}", c(elem)),
                }
            })
            .collect();
        match &k.load {
            Some(l) if l.contains('<') => out.push_str(&format!(
                "// {l}: a template instance\n__global__ void {}({});\n",
                k.name,
                params.join(", ")
            )),
            Some(l) if l.contains("::") => out.push_str(&format!(
                "// {l}\n__global__ void {}({});\n",
                k.name,
                params.join(", ")
            )),
            _ => out.push_str(&format!(
                "extern \"C\" __global__ void {}({});\n",
                k.load.as_deref().unwrap_or(&k.name.to_string()),
                params.join(", ")
            )),
        }
    }
    out
}

/// The body of `__cg_populate`: loads the kernels, then adds every node in dependency order.
pub(super) fn populate(cx: &Cx<'_>) -> TokenStream {
    let g = cx.g;
    // Condition defaults (constants of the caller's scope) first, before the variables below.
    let defaults = g.conds.iter().enumerate().map(|(c, cond)| {
        let v = format_ident!("__cg_d{}", c);
        match &cond.default {
            Some(e) => {
                let e = crate::model::bare(e.clone());
                quote_spanned!(e.span()=> let #v: u32 = #e;)
            }
            None => quote!(let #v: u32 = 0;),
        }
    });
    let mut pos = vec![0u32; g.nodes.len()];
    for (p, &ni) in g.order.iter().enumerate() {
        pos[ni] = p as u32;
    }
    // Where each condition handle is made: before the first node that needs it (a kernel that
    // sets it, or its conditional node), in the scope of its conditional node.
    let mut create_at: Vec<Vec<usize>> = vec![Vec::new(); g.nodes.len()];
    // (A condition whose conditional node was left out, for an error, is never made.)
    for (c, cond) in g
        .conds
        .iter()
        .enumerate()
        .filter(|(_, c)| c.conditional.is_some())
    {
        // A setter in a repeat block makes it before the block.
        let first = cond
            .setters
            .iter()
            .chain(&cond.conditional)
            .map(|&ni| g.block_of(ni).unwrap_or(ni))
            .min_by_key(|&ni| pos[ni]);
        if let Some(ni) = first {
            create_at[ni].push(c);
        }
    }
    let mut adds = TokenStream::new();
    let mut scope = 0u32;
    let mut k = 0;
    // With repeat blocks, positions are known only when the graph is built: every node names
    // its dependencies by handle (`expand::repeat`).
    let dynamic = g.nodes.iter().any(|n| matches!(n.op, NodeOp::Repeat(_)));
    while k < g.order.len() {
        let ni = g.order[k];
        let (gi, _) = cx.groups.of[ni];
        for &c in &create_at[ni] {
            let cond = &g.conds[c];
            let home = g.topo.scope(cond.conditional.expect("checked") as u32);
            let (q, at) = (cx.cond_field(c), Cx::scope_expr(home));
            let default = format_ident!("__cg_d{}", c);
            if home != scope {
                adds.extend(quote!(__cg_g.enter_scope(#at);));
                scope = home;
            }
            adds.extend(quote!(__cg_s.#q = __cg_g.add_condition(#default)?;));
        }
        let here = g.nodes[ni].scope;
        if here != scope {
            let at = Cx::scope_expr(here);
            adds.extend(quote!(__cg_g.enter_scope(#at);));
            scope = here;
        }
        if g.repeat(ni).is_some() {
            let body: Vec<usize> = g.order[k + 1..]
                .iter()
                .copied()
                .take_while(|&m| g.block_of(m) == Some(ni))
                .collect();
            k += 1 + body.len();
            adds.extend(super::repeat::block(cx, ni, &body));
            continue;
        }
        if dynamic {
            k += 1;
            adds.extend(super::repeat::add_one(cx, ni));
            continue;
        }
        if matches!(g.nodes[ni].op, NodeOp::Launch(_)) {
            let run: Vec<usize> = std::iter::once(ni)
                .chain(g.order[k + 1..].iter().copied().take_while(|&m| {
                    cx.groups.of[m].0 == gi && g.nodes[m].scope == here && create_at[m].is_empty()
                }))
                .collect();
            k += run.len();
            adds.extend(kinds::add_run(cx, gi, &run, &pos));
            continue;
        }
        k += 1;
        let deps = g.preds[ni].iter().map(|&a| {
            let (ga, ja) = cx.groups.of[a];
            let var = Cx::group_var(ga);
            let ja = proc_macro2::Literal::usize_unsuffixed(ja);
            quote!(&#var[#ja])
        });
        let add = kinds::add(cx, ni, None, quote!(&[#(#deps),*]));
        let var = Cx::group_var(gi);
        adds.extend(quote!(#var.push(#add);));
    }
    if scope != 0 {
        adds.extend(quote!(__cg_g.enter_scope(0u32);));
    }
    // The runtime scopes of conditional bodies (a repeat block's nodes go into the scope the
    // block is in).
    let scopes = (1..=g.topo.body_count() as u32)
        .filter(|&s| {
            g.topo
                .owner(s)
                .is_some_and(|o| g.repeat(o as usize).is_none())
        })
        .map(|s| {
            let v = Cx::scope_expr(s);
            quote!(let mut #v: u32 = 0;)
        });
    let vecs = cx.groups.len.iter().enumerate().map(|(gi, n)| {
        let var = Cx::group_var(gi);
        // A repeat block's node has one handle per iteration.
        let n = match g.block_of(cx.groups.members[gi][0]) {
            Some(b) => {
                let v = super::repeat::count_var(b);
                quote!(#v)
            }
            None => {
                let n = proc_macro2::Literal::usize_unsuffixed(*n);
                quote!(#n)
            }
        };
        match cx.kernel_group(gi) {
            Some(k) => {
                let k = &g.kernels[k];
                let name = k.load.clone().unwrap_or_else(|| k.name.to_string());
                quote!(let mut #var = __cg_module.kernels(#name, #n)?;)
            }
            None => quote!(let mut #var = ::std::vec::Vec::with_capacity(#n);),
        }
    });
    let fields = (0..cx.groups.tys.len()).map(Cx::group_field);
    let lit = proc_macro2::Literal::usize_unsuffixed;
    let (nodes, edges) = (lit(g.nodes.len()), lit(g.topo.edges().len()));
    let launches = lit(g
        .nodes
        .iter()
        .filter(|n| matches!(n.op, crate::model::NodeOp::Launch(_)))
        .count());
    let concurrent = g
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| n.concurrent)
        .map(|(ni, _)| {
            let (gi, j) = cx.groups.of[ni];
            let var = Cx::group_var(gi);
            if g.block_of(ni).is_some() {
                return quote!(for __cg_h in #var.iter() { __cg_g.keep_concurrent(__cg_h)?; });
            }
            let j = proc_macro2::Literal::usize_unsuffixed(j);
            quote!(__cg_g.keep_concurrent(&#var[#j])?;)
        });
    let handle = |ni: u32| {
        let (gi, j) = cx.groups.of[ni as usize];
        let var = Cx::group_var(gi);
        let j = proc_macro2::Literal::usize_unsuffixed(j);
        quote!(&#var[#j])
    };
    let rt = rt();
    let programmatic = if dynamic {
        super::repeat::programmatic(cx)
    } else {
        let edges = g.topo.programmatic_edges().iter().map(|&(a, b, _)| {
            let (a, b) = (handle(a), handle(b));
            quote!(__cg_g.add_programmatic_edge(#a, #b, #rt::topology::Port::Programmatic)?;)
        });
        quote!(#(#edges)*)
    };
    let prologue = super::repeat::prologue(cx);
    let limits = kinds::add_limits(cx);
    quote! {
        #(#defaults)*
        #(#scopes)*
        #prologue
        __cg_g.reserve(#nodes, #launches, #edges);
        #(#vecs)*
        #adds
        #(#concurrent)*
        #programmatic
        #limits
        let nodes = __CgNodes { #(#fields),* };
    }
}
