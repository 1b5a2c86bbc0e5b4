//! Where the shadows live: one typed store per node kind (the table `stores!`), the record of
//! each node of a template (its driver handle, its shadow's store and slot, what it owes), and
//! what a graph does with every store alike, one shadow at a time.

use super::captured::CapturedShadow;
use super::child::ChildShadow;
use super::cond::CondShadow;
use super::cx::NodeRec;
use super::empty::EmptyShadow;
use super::event::{RecordShadow, WaitShadow};
use super::host::HostShadow;
use super::kernel::KernelShadow;
use super::mem::{MemAllocShadow, MemFreeShadow};
use super::memcpy::MemcpyShadow;
use super::memset::MemsetShadow;
use super::{Children, Shadow, Target};
use crate::driver::{CallResult, RawExec, RawGraph, RawNode};
use crate::error::DriverFailure;
use cuda_graph_topology::Topology;

/// The shadows of one kind, by slot. Which node a shadow belongs to is the node's record's
/// (`NodeRec::store`, `NodeRec::slot`): the store keeps no map back.
pub(crate) struct Store<S> {
    pub items: Vec<S>,
}

impl<S: Clone> Clone for Store<S> {
    fn clone(&self) -> Self {
        Store {
            items: self.items.clone(),
        }
    }

    /// Reuses this store's room (and each shadow's, see `KernelShadow::clone_from`).
    fn clone_from(&mut self, source: &Self) {
        self.items.clone_from(&source.items);
    }
}

impl<S> Default for Store<S> {
    fn default() -> Self {
        Self::new()
    }
}

impl<S> Store<S> {
    /// An empty store.
    #[inline]
    pub const fn new() -> Self {
        Store { items: Vec::new() }
    }

    /// Makes room for `n` more shadows.
    pub fn reserve(&mut self, n: usize) {
        cuda_graph_topology::room(&mut self.items, n);
    }

    /// Adds a shadow; its slot is returned.
    #[inline]
    pub fn push(&mut self, s: S) -> u32 {
        self.items.push(s);
        (self.items.len() - 1) as u32
    }

    /// Adds the shadow `make` gives, made where it is kept: room is made first, so the shadow
    /// is written once in its slot instead of built aside and copied in (a copy of a value
    /// written just before reads it back before the writes have landed, which stalls). Its
    /// slot is returned.
    #[inline(always)]
    pub fn push_with(&mut self, make: impl FnOnce() -> S) -> u32 {
        let slot = self.items.len();
        let mut make = Some(make);
        self.items
            .resize_with(slot + 1, || make.take().expect("one item made")());
        slot as u32
    }

    /// Takes back the items from slot `len` on (nodes not made after all).
    pub fn truncate(&mut self, len: usize) {
        self.items.truncate(len);
    }

    /// Takes back the last item pushed (a node the driver refused).
    pub fn pop(&mut self) {
        self.items.pop();
    }
}

/// This kind's store among a graph's stores (from the table in [`stores!`]).
pub(crate) trait Stored<'a>: Sized {
    /// The store's number, for [`Stores::at`].
    const STORE: u8;
    fn store<'s>(stores: &'s Stores<'a>) -> &'s Store<Self>;
    fn store_mut<'s>(stores: &'s mut Stores<'a>) -> &'s mut Store<Self>;
}

/// The table of node kinds: per kind, its store's field and its shadow. Makes [`Stores`], each
/// shadow's [`Stored`] and the list of every store (`Stores::all_mut`).
macro_rules! stores {
    ($($n:literal $field:ident: $shadow:ty,)*) => {
        /// One store per node kind.
        pub(crate) struct Stores<'a> {
            $(pub $field: Store<$shadow>,)*
        }

        impl Clone for Stores<'_> {
            fn clone(&self) -> Self {
                Stores { $($field: self.$field.clone(),)* }
            }

            /// Reuses every store's room (an executable graph's copy made into kept tables).
            fn clone_from(&mut self, source: &Self) {
                $(self.$field.clone_from(&source.$field);)*
            }
        }

        impl Default for Stores<'_> {
            fn default() -> Self {
                Self::new()
            }
        }

        impl Stores<'_> {
            /// Every store empty.
            #[inline]
            pub const fn new() -> Self {
                Stores { $($field: Store::new(),)* }
            }
        }

        $(impl<'a> Stored<'a> for $shadow {
            const STORE: u8 = $n;
            fn store<'s>(s: &'s Stores<'a>) -> &'s Store<Self> {
                &s.$field
            }
            fn store_mut<'s>(s: &'s mut Stores<'a>) -> &'s mut Store<Self> {
                &mut s.$field
            }
        })*

        impl<'a> Stores<'a> {
            /// Every store, mutable, for what is done to all kinds alike.
            pub fn all_mut(&mut self) -> impl Iterator<Item = &mut dyn StoreOps<'a>> {
                [$(&mut self.$field as &mut dyn StoreOps<'a>),*].into_iter()
            }

            /// Store number `n` (a node's `NodeRec::store`).
            pub fn at(&self, n: u8) -> &dyn StoreOps<'a> {
                match n {
                    $($n => &self.$field,)*
                    _ => unreachable!("a store number from the table"),
                }
            }

            /// Store number `n`, mutable.
            pub fn at_mut(&mut self, n: u8) -> &mut dyn StoreOps<'a> {
                match n {
                    $($n => &mut self.$field,)*
                    _ => unreachable!("a store number from the table"),
                }
            }
        }
    };
}

stores! {
    0 empty: EmptyShadow,
    1 kernel: KernelShadow,
    2 memset: MemsetShadow,
    3 memcpy: MemcpyShadow<'a>,
    4 host: HostShadow<'a>,
    5 child: ChildShadow,
    6 record: RecordShadow<'a>,
    7 wait: WaitShadow<'a>,
    8 cond: CondShadow,
    9 alloc: MemAllocShadow,
    10 free: MemFreeShadow,
    11 captured: CapturedShadow,
}

impl Stores<'_> {
    /// Whether the shadow in `slot` of store `store` holds what instantiation and whole-graph
    /// update do not carry over ([`StoreOps::needs_reapply`]). Most nodes launch kernels: theirs
    /// is read without the table's dispatch.
    #[inline]
    pub fn needs_reapply(&self, store: u8, slot: u32) -> bool {
        if store == <KernelShadow as Stored>::STORE {
            self.kernel.items[slot as usize].needs_reapply()
        } else {
            self.at(store).needs_reapply(slot)
        }
    }
}

impl<'a> Stores<'a> {
    /// The (executable graph's) shadow in `slot` of store `store` takes the template's
    /// ([`StoreOps::adopt_one`]). Most nodes edited between updates launch kernels: theirs is
    /// copied without the table's dispatch.
    #[inline(always)]
    pub fn adopt_one(&mut self, store: u8, slot: u32, template: &Stores<'a>) {
        if store == <KernelShadow as Stored>::STORE {
            let slot = slot as usize;
            self.kernel.items[slot].adopt(&template.kernel.items[slot]);
        } else {
            self.at_mut(store).adopt_one(slot, template);
        }
    }

    /// Sends every node's shadow to the executable graph (after a failed update), node by
    /// node (`nodes`: the template's records, which say where each node's shadow is).
    pub fn restore(
        &self,
        e: &mut RawExec<'a>,
        nodes: &[NodeRec],
        topo: &Topology,
    ) -> Result<(), DriverFailure> {
        for (i, n) in nodes.iter().enumerate() {
            self.at(n.store)
                .restore_one(n.slot, e, n.raw)
                .map_err(|e| e.at(Some(topo.name(i as u32))))?;
        }
        Ok(())
    }
}

/// What a graph does with every store alike, whatever its kind: to one shadow (by its slot),
/// or, rarely, to all.
pub(crate) trait StoreOps<'a> {
    /// Sends the shadow in `slot` to node `n` of the template's driver graph.
    fn flush_one(&self, slot: u32, g: &mut RawGraph<'a>, n: RawNode) -> CallResult<()>;
    /// Sends the shadow in `slot` to node `n` of the executable graph (after a failed update).
    fn restore_one(&self, slot: u32, e: &mut RawExec<'a>, n: RawNode) -> CallResult<()>;
    /// Whether the shadow in `slot` holds what instantiation and update do not carry over.
    fn needs_reapply(&self, slot: u32) -> bool;
    /// Sends what instantiation and update do not carry over, of the shadow in `slot`, to node
    /// `n` of the executable graph.
    fn reapply_one(
        &self,
        slot: u32,
        e: &mut RawExec<'a>,
        n: RawNode,
        children: &Children<'a>,
    ) -> CallResult<()>;
    /// This (executable graph's) shadow in `slot` takes the template's.
    fn adopt_one(&mut self, slot: u32, template: &Stores<'a>);
    /// This (executable graph's) store takes the shadows of the nodes added to the template
    /// since it was made or last updated.
    fn adopt_new(&mut self, template: &Stores<'a>);
}

impl<'a, S: Shadow<'a>> StoreOps<'a> for Store<S> {
    #[inline]
    fn flush_one(&self, slot: u32, g: &mut RawGraph<'a>, n: RawNode) -> CallResult<()> {
        self.items[slot as usize].apply(&mut Target::Template(g), n)
    }

    fn restore_one(&self, slot: u32, e: &mut RawExec<'a>, n: RawNode) -> CallResult<()> {
        self.items[slot as usize].apply(&mut Target::Exec(e), n)
    }

    #[inline]
    fn needs_reapply(&self, slot: u32) -> bool {
        self.items[slot as usize].needs_reapply()
    }

    fn reapply_one(
        &self,
        slot: u32,
        e: &mut RawExec<'a>,
        n: RawNode,
        children: &Children<'a>,
    ) -> CallResult<()> {
        self.items[slot as usize].reapply(e, n, children)
    }

    /// Edits through the executable graph reached the template too, so only nodes edited on
    /// the template side differ. `clone_from` reuses storage.
    fn adopt_one(&mut self, slot: u32, template: &Stores<'a>) {
        let theirs = &S::store(template).items[slot as usize];
        self.items[slot as usize].clone_from(theirs);
    }

    fn adopt_new(&mut self, template: &Stores<'a>) {
        let theirs = S::store(template);
        let from = self.items.len();
        self.items.extend_from_slice(&theirs.items[from..]);
    }
}
