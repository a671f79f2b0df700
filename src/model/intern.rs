//! A string interner backed by one arena.
//!
//! A cluster snapshot repeats the same few thousand strings (namespaces, kinds, apiVersions,
//! finalizer names) millions of times, and every UID appears at least twice (once on its object,
//! once in each ownerReference pointing at it). Interning turns each of those into a 4-byte
//! [`Sym`], makes UID comparison an integer comparison, and keeps one allocation for all text
//! instead of one per string (see `rust-notes.md` §4.2).

use hashbrown::HashTable;
use std::hash::BuildHasher;

/// An interned string. Only meaningful together with the [`Interner`] that produced it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug, Default)]
pub struct Sym(pub u32);

impl Sym {
    /// The empty string; every interner maps `""` to this symbol.
    pub const EMPTY: Sym = Sym(0);

    /// True for the empty string.
    pub fn is_empty(self) -> bool {
        self == Sym::EMPTY
    }

    /// The symbol's index, usable to address side tables sized by [`Interner::len`].
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Arena string interner: one `String` buffer, `(offset, len)` spans, and a hash table of
/// span indices keyed by the string's hash.
#[derive(Clone)]
pub struct Interner {
    buf: String,
    spans: Vec<(u32, u32)>,
    table: HashTable<u32>,
    hasher: hashbrown::DefaultHashBuilder,
}

impl Default for Interner {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for Interner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Interner")
            .field("strings", &self.spans.len())
            .finish()
    }
}

impl Interner {
    /// A new interner holding only the empty string ([`Sym::EMPTY`]).
    pub fn new() -> Self {
        let mut interner = Interner {
            buf: String::new(),
            spans: Vec::new(),
            table: HashTable::new(),
            hasher: hashbrown::DefaultHashBuilder::default(),
        };
        let empty = interner.intern("");
        debug_assert_eq!(empty, Sym::EMPTY);
        interner
    }

    /// Interns `s`, returning the existing symbol when the string was seen before.
    pub fn intern(&mut self, s: &str) -> Sym {
        let hash = self.hasher.hash_one(s);
        let (buf, spans) = (&self.buf, &self.spans);
        if let Some(&id) = self.table.find(hash, |&id| {
            let (off, len) = spans[id as usize];
            &buf[off as usize..(off + len) as usize] == s
        }) {
            return Sym(id);
        }
        let id = u32::try_from(self.spans.len()).expect("more than 4 billion distinct strings");
        let off = u32::try_from(self.buf.len()).expect("interned text exceeds 4 GiB");
        self.buf.push_str(s);
        self.spans.push((off, s.len() as u32));
        let (buf, spans, hasher) = (&self.buf, &self.spans, &self.hasher);
        self.table.insert_unique(hash, id, |&id| {
            let (off, len) = spans[id as usize];
            hasher.hash_one(&buf[off as usize..(off + len) as usize])
        });
        Sym(id)
    }

    /// The symbol of `s` if it was interned, without interning it.
    pub fn get(&self, s: &str) -> Option<Sym> {
        let hash = self.hasher.hash_one(s);
        self.table
            .find(hash, |&id| self.resolve(Sym(id)) == s)
            .map(|&id| Sym(id))
    }

    /// The text of a symbol.
    pub fn resolve(&self, sym: Sym) -> &str {
        let (off, len) = self.spans[sym.index()];
        &self.buf[off as usize..(off + len) as usize]
    }

    /// Number of distinct strings (including the empty string).
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// Always false: the empty string is always present.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Heap bytes held (text plus spans plus table), for memory reports.
    pub fn heap_bytes(&self) -> usize {
        self.buf.capacity() + self.spans.capacity() * 8 + self.table.capacity() * 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interning_is_idempotent_and_resolves_back() {
        let mut i = Interner::new();
        let a = i.intern("apps/v1");
        let b = i.intern("Deployment");
        assert_ne!(a, b);
        assert_eq!(i.intern("apps/v1"), a);
        assert_eq!(i.resolve(a), "apps/v1");
        assert_eq!(i.resolve(b), "Deployment");
        assert_eq!(i.intern(""), Sym::EMPTY);
        assert_eq!(i.get("Deployment"), Some(b));
        assert_eq!(i.get("nope"), None);
        assert_eq!(i.len(), 3);
    }

    #[test]
    fn many_strings_survive_table_growth() {
        let mut i = Interner::new();
        let syms: Vec<Sym> = (0..10_000).map(|n| i.intern(&format!("uid-{n}"))).collect();
        for (n, s) in syms.iter().enumerate() {
            assert_eq!(i.resolve(*s), format!("uid-{n}"));
            assert_eq!(i.get(&format!("uid-{n}")), Some(*s));
        }
    }
}
