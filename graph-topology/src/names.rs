//! Node names as a topology keeps them, and the hash its name index uses.

use std::hash::Hasher;
use std::sync::Arc;

/// A node's name: borrowed for the program's life (names written in `cuda_graph!`), or shared.
#[doc(hidden)]
#[derive(Debug, Clone)]
pub enum NodeName {
    Static(&'static str),
    Shared(Arc<str>),
}

impl std::ops::Deref for NodeName {
    type Target = str;
    fn deref(&self) -> &str {
        match self {
            NodeName::Static(s) => s,
            NodeName::Shared(s) => s,
        }
    }
}

impl std::borrow::Borrow<str> for NodeName {
    fn borrow(&self) -> &str {
        self
    }
}

impl PartialEq for NodeName {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl Eq for NodeName {}

impl std::hash::Hash for NodeName {
    // As `str` hashes, so lookups by `&str` find it.
    fn hash<H: Hasher>(&self, state: &mut H) {
        (**self).hash(state)
    }
}

/// A fast hash for node names (multiply-rotate over 8-byte words). Names come from the program,
/// not from an adversary, so the default hasher's protection against crafted collisions buys
/// nothing here, and it costs a large share of adding a node.
#[derive(Default)]
#[doc(hidden)]
pub struct NameHasher(u64);

impl NameHasher {
    #[inline]
    fn mix(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for NameHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.mix(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            self.mix(u64::from_le_bytes(last));
        }
    }

    #[inline]
    fn write_u8(&mut self, b: u8) {
        self.mix(b as u64);
    }

    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.mix(n as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}
