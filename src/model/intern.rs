//! A string interner backed by one arena.
//!
//! A cluster snapshot repeats the same few thousand strings (namespaces, kinds, apiVersions,
//! finalizer names) millions of times, and every UID appears at least twice (once on its object,
//! once in each ownerReference pointing at it). Interning turns each of those into a 4-byte
//! [`Sym`], makes UID comparison an integer comparison, and keeps one allocation for all text
//! instead of one per string. (Measured on a million UID-shaped keys, an interner crate such
//! as `lasso` costs about what a plain `HashMap<String, u32>` does, ~100 bytes per UID; one
//! arena of text with an index of `(offset, len)` spans avoids the per-string allocation and
//! stays small and under our control.)

// One of the few places `unsafe` is allowed (Cargo.toml [lints]): each block says why it is
// sound in a SAFETY comment, which clippy requires.
#![allow(unsafe_code)]

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

/// Arena string interner: one `String` buffer, `(offset, len)` spans per symbol, and an
/// open-addressing table (linear probing) whose slots carry the hash, the symbol and the text's
/// position. Finding a string costs one slot read plus one read of the text it is compared
/// with; growing the table never touches the text. (A general-purpose hash map of symbols
/// took more memory accesses per lookup and re-hashed every string on each resize: BENCHMARKS.md, "Figures behind the code".)
#[derive(Clone)]
pub struct Interner {
    buf: String,
    spans: Vec<(u32, u32)>,
    table: Table,
    hasher: StrHasher,
}

/// The hash function of an [`Interner`] (its seed included), so that another thread can hash
/// strings ahead of interning them ([`Interner::intern_hashed`]).
#[derive(Clone, Debug, Default)]
pub struct StrHasher(hashbrown::DefaultHashBuilder);

impl StrHasher {
    /// The hash of `s` as the interner uses it.
    #[inline]
    pub fn hash(&self, s: &str) -> u32 {
        let h = self.0.hash_one(s);
        (h ^ (h >> 32)) as u32
    }
}

/// One table slot: an indexed string's hash, symbol and text position.
#[derive(Clone, Copy, Debug)]
struct Slot {
    hash: u32,
    /// [`Slot::EMPTY`] for a free slot.
    sym: u32,
    off: u32,
    len: u32,
}

impl Slot {
    const EMPTY: u32 = u32::MAX;

    /// A slot as the table stores it: four words, the symbol inverted, so that a free slot
    /// is all zeros. A new table is then zeroed memory straight from the allocator, which
    /// the kernel maps on first touch: no pass that writes tens of MiB of "free" marks
    /// before the entries go in (the interning thread stood still for that pass, and the
    /// parser with it once the batch queue was full).
    #[inline]
    fn load(raw: [u32; 4]) -> Slot {
        Slot {
            hash: raw[0],
            sym: !raw[1],
            off: raw[2],
            len: raw[3],
        }
    }

    /// Whether a stored slot is free (its inverted symbol is [`Slot::EMPTY`]).
    #[inline]
    fn is_free(raw: [u32; 4]) -> bool {
        raw[1] == !Slot::EMPTY
    }

    #[inline]
    fn store(self) -> [u32; 4] {
        [self.hash, !self.sym, self.off, self.len]
    }
}

/// Open addressing with linear probing, at most 5/8 full.
#[derive(Debug, Default)]
struct Table {
    /// [`Slot`]s, as [`Slot::store`] writes them.
    slots: Vec<[u32; 4]>,
    used: usize,
    /// The next, larger slots, being made ready on another thread ([`Table::prepare`],
    /// [`Table::reserve_ahead`]).
    next: Option<Ready>,
}

/// Free slots being made on another thread, and how many.
#[derive(Debug)]
struct Ready {
    cap: usize,
    slots: std::thread::JoinHandle<Vec<[u32; 4]>>,
}

impl Clone for Table {
    fn clone(&self) -> Table {
        Table {
            slots: self.slots.clone(),
            used: self.used,
            next: None,
        }
    }
}

/// Tables at least this large (16 MiB) get their successor made ready on another thread.
#[cfg(not(test))]
const PREPARE_FROM: usize = 1 << 20;
/// Small in tests, so that every test that interns more than a few strings takes that path.
#[cfg(test)]
const PREPARE_FROM: usize = 64;

/// Zeroed (free) slots, asked to be backed by huge pages when large, every page mapped
/// ([`map_pages`]). Mapping them now costs no more than leaving it to the table's first use:
/// with 256 slots to a 4 KiB page, a table filled to a tenth has touched every page (and the
/// re-insert of a growth fills it to more than that at once).
fn free_slots(cap: usize) -> Vec<[u32; 4]> {
    // Zeroed memory from the allocator, not touched yet: the advice applies.
    let mut slots = vec![[0u32; 4]; cap];
    advise(&slots, Advice::HugePages);
    map_pages(&mut slots, SLOW_HUGE_PAGE);
    slots
}

/// Slots in a 4 KiB page, and in 2 MiB (a huge page).
const SLOTS_PER_PAGE: usize = 4096 / std::mem::size_of::<[u32; 4]>();
const SLOTS_PER_HUGE_PAGE: usize = (2 << 20) / std::mem::size_of::<[u32; 4]>();

/// A huge page that takes longer than this to map is one the host has not backed yet (see
/// [`map_pages`]).
const SLOW_HUGE_PAGE: std::time::Duration = std::time::Duration::from_millis(1);

/// Maps every page of fresh `slots` now, one write per 4 KiB page, rather than at the first
/// probes, timed 2 MiB at a time: on a virtual machine a huge page the host has not backed yet
/// is far slower to map (the host faults its 512 small pages in one by one) than one it has,
/// and in some runs most pages of a fresh table were of that kind, with the interning thread
/// and the parser behind it waiting. Small pages come from memory the system freed recently,
/// which the host backs, and were no worse for random probes (BENCHMARKS.md, "Figures behind the code"): after
/// the first 2 MiB slower than `slow`, the rest of the slots are advised back to them. Returns
/// whether it did so.
fn map_pages(slots: &mut [[u32; 4]], slow: std::time::Duration) -> bool {
    let mut watch = true;
    let mut at = 0;
    while at < slots.len() {
        let end = (at + SLOTS_PER_HUGE_PAGE).min(slots.len());
        let started = watch.then(std::time::Instant::now);
        for i in (at..end).step_by(SLOTS_PER_PAGE) {
            // The value is opaque to the compiler, which could otherwise drop a store of zero
            // into memory it knows is zeroed.
            slots[i] = std::hint::black_box([0; 4]);
        }
        if started.is_some_and(|t| t.elapsed() > slow) {
            advise(&slots[end..], Advice::SmallPages);
            watch = false;
        }
        at = end;
    }
    !watch
}

impl Table {
    fn capacity_for(n: usize) -> usize {
        (n.max(8) * 8 / 5 + 1).next_power_of_two()
    }

    /// The symbol of `s` (hash `h`), or the free slot where it would go.
    #[inline]
    fn find(&self, buf: &str, s: &str, h: u32) -> Result<u32, usize> {
        if self.slots.is_empty() {
            return Err(usize::MAX);
        }
        let mask = self.slots.len() - 1;
        let mut i = h as usize & mask;
        loop {
            let e = Slot::load(self.slots[i]);
            if e.sym == Slot::EMPTY {
                return Err(i);
            }
            if e.hash == h
                && e.len as usize == s.len()
                && &buf[e.off as usize..(e.off + e.len) as usize] == s
            {
                return Ok(e.sym);
            }
            i = (i + 1) & mask;
        }
    }

    /// Makes room for `more` entries; true when the slots moved (free-slot positions from
    /// `find` are then stale).
    fn reserve(&mut self, more: usize) -> bool {
        let need = self.used + more;
        if need * 8 <= self.slots.len() * 5 {
            return false;
        }
        // The successor still being made on its thread: fill this table further (to 3/4, a
        // probe or two more per miss) rather than wait for it. Waiting stood the interning
        // thread still until the other thread had mapped every page (one core of two idle and
        // the parser stalled behind its batch queue; BENCHMARKS.md, "Figures behind the code").
        if need * 4 <= self.slots.len() * 3
            && self.next.as_ref().is_some_and(|n| !n.slots.is_finished())
        {
            return false;
        }
        let cap = Table::capacity_for(need).max(self.slots.len() * 2);
        let ready = self.next.take().and_then(|t| t.slots.join().ok());
        let slots = match ready {
            // A table made ready for an estimate ([`Table::reserve_ahead`]) may be larger.
            Some(slots) if slots.len() >= cap => slots,
            _ => free_slots(cap),
        };
        let old = std::mem::replace(&mut self.slots, slots);
        let mask = self.slots.len() - 1;
        for raw in old.into_iter().filter(|&raw| !Slot::is_free(raw)) {
            let mut i = Slot::load(raw).hash as usize & mask;
            while !Slot::is_free(self.slots[i]) {
                i = (i + 1) & mask;
            }
            self.slots[i] = raw;
        }
        true
    }

    /// Once a large table is half full, makes its successor ready on another thread: the
    /// kernel zeroes and maps tens of MiB of fresh memory on first touch, during which the
    /// interning thread stood still (and the parser with it once the batch queue was full;
    /// BENCHMARKS.md, "Figures behind the code"). Done ahead, only the re-insert
    /// is left for the growth. Only a head start: the growth makes the slots itself if they
    /// are not there, or not the size it needs.
    fn prepare(&mut self) {
        let len = self.slots.len();
        if len < PREPARE_FROM || self.next.is_some() || self.used * 2 < len {
            return;
        }
        self.next = Table::make_ready(len * 2);
    }

    /// Makes room for `more` entries to come, as [`Table::reserve`] does, but for a large
    /// table on another thread ([`Table::prepare`]'s), taken at the next growth. For an
    /// estimate of the rest of an input (`Store::reserve_more`): made at once, the table's
    /// pages were zeroed by the kernel on the interning thread when the re-insert first
    /// touched them, while the parsing thread, its batch queue full, stood still too and one
    /// core of two was idle (BENCHMARKS.md, "Figures behind the code").
    fn reserve_ahead(&mut self, more: usize) {
        let need = self.used + more;
        if need * 8 <= self.slots.len() * 5 {
            return;
        }
        let cap = Table::capacity_for(need).max(self.slots.len() * 2);
        match &self.next {
            // Already on its way.
            Some(next) if next.cap >= cap => {}
            None if cap >= PREPARE_FROM => self.next = Table::make_ready(cap),
            // Small, or a smaller successor on its way: grown here, as `reserve` grows.
            _ => {
                self.reserve(more);
            }
        }
    }

    /// Free slots for a table of `cap`, every page mapped, on a thread of its own.
    fn make_ready(cap: usize) -> Option<Ready> {
        let slots = std::thread::Builder::new()
            .name("intern-grow".into())
            .spawn(move || free_slots(cap))
            .ok()?;
        Some(Ready { cap, slots })
    }
}

/// How slots are to be backed.
#[derive(Clone, Copy)]
enum Advice {
    /// Huge pages (2 MiB), where the kernel makes them on request (Linux's transparent huge
    /// pages in `madvise` mode, the common default). Interning a million objects probes a
    /// table of tens of MiB at random: with 4 KiB pages nearly every probe also misses the
    /// TLB, and filling the table takes a page fault per 4 KiB. (Asked for the store's other
    /// large vectors as well, which are written in order, it cost time and 70 MiB of memory:
    /// measured, left out.)
    HugePages,
    /// Small pages again (see [`map_pages`]).
    SmallPages,
}

/// Advises the kernel how to back slots not written yet (only advice: it changes how memory
/// is backed, never its contents). Huge pages only from two of them up: false when the slots
/// are too few for that, else true (elsewhere than on Linux there is no call to make).
fn advise(slots: &[[u32; 4]], advice: Advice) -> bool {
    if matches!(advice, Advice::HugePages) && slots.len() < 2 * SLOTS_PER_HUGE_PAGE {
        return false;
    }
    #[cfg(target_os = "linux")]
    {
        // madvise takes whole pages: the page-aligned part of the slots.
        let page = 4096;
        let (ptr, bytes) = (slots.as_ptr() as usize, std::mem::size_of_val(slots));
        let start = ptr.next_multiple_of(page);
        let end = (ptr + bytes) & !(page - 1);
        if end > start {
            let advice = match advice {
                Advice::HugePages => libc::MADV_HUGEPAGE,
                Advice::SmallPages => libc::MADV_NOHUGEPAGE,
            };
            // SAFETY: the range lies within slots the caller owns; the advice changes how it
            // is backed, never its contents or validity.
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, advice);
            }
        }
    }
    true
}

/// Asks the processor to bring `p`'s cache line in, without waiting for it.
#[inline(always)]
fn prefetch<T: Copy>(p: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch only hints at the cache: it reads nothing the program sees, and `p`
    // is a valid reference anyway.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>((p as *const T).cast::<i8>());
    }
    // Elsewhere a load the optimiser keeps: it starts the fetch too, only less freely.
    #[cfg(not(target_arch = "x86_64"))]
    std::hint::black_box(*p);
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
            table: Table::default(),
            hasher: StrHasher::default(),
        };
        let empty = interner.intern("");
        debug_assert_eq!(empty, Sym::EMPTY);
        interner
    }

    /// Makes room for `strings` more strings of `bytes` bytes in total, `indexed` of them
    /// distinct and indexed (the rest added by [`Interner::add_unindexed`]). A large input knows
    /// its size up front: growing step by step copies everything several times. The table is
    /// sized by `indexed` alone: its slots are touched at random, so every page of a table
    /// larger than needed is zeroed by the kernel and cached for nothing.
    pub fn reserve(&mut self, strings: usize, indexed: usize, bytes: usize) {
        self.buf.reserve(bytes);
        self.spans.reserve(strings);
        self.table.reserve(indexed);
    }

    /// [`Interner::reserve`] for strings still to come while interning goes on: the table's
    /// room is made on another thread and taken at the next growth.
    pub fn reserve_ahead(&mut self, strings: usize, indexed: usize, bytes: usize) {
        self.buf.reserve(bytes);
        self.spans.reserve(strings);
        self.table.reserve_ahead(indexed);
    }

    /// Bytes of text held.
    pub fn text_len(&self) -> usize {
        self.buf.len()
    }

    /// The hash function, for hashing on another thread ([`Interner::intern_hashed`]).
    pub fn hasher(&self) -> StrHasher {
        self.hasher.clone()
    }

    /// Interns `s`, returning the existing symbol when the string was seen before.
    #[inline]
    pub fn intern(&mut self, s: &str) -> Sym {
        let h = self.hasher.hash(s);
        self.intern_hashed(s, h)
    }

    /// Interns `s` whose hash is `h` (= `self.hasher().hash(s)`).
    pub fn intern_hashed(&mut self, s: &str, h: u32) -> Sym {
        debug_assert_eq!(h, self.hasher.hash(s));
        let mut free = match self.table.find(&self.buf, s, h) {
            Ok(sym) => return Sym(sym),
            Err(free) => free,
        };
        if self.table.reserve(1) {
            free = self
                .table
                .find(&self.buf, s, h)
                .expect_err("not interned yet");
        } else {
            self.table.prepare();
        }
        let id = self.push(s);
        let (off, len) = self.spans[id as usize];
        self.table.slots[free] = Slot {
            hash: h,
            sym: id,
            off,
            len,
        }
        .store();
        self.table.used += 1;
        Sym(id)
    }

    /// Stores `s` without indexing it: a fresh symbol even if the text was seen before, never
    /// equal to any other symbol, and invisible to [`Interner::get`]. For text that is only
    /// ever displayed, never compared (resourceVersions, creation timestamps): it skips the
    /// hash table, which is most of the cost of interning unique strings. `""` is still
    /// [`Sym::EMPTY`].
    pub fn add_unindexed(&mut self, s: &str) -> Sym {
        if s.is_empty() {
            return Sym::EMPTY;
        }
        Sym(self.push(s))
    }

    fn push(&mut self, s: &str) -> u32 {
        let id = u32::try_from(self.spans.len()).expect("more than 4 billion distinct strings");
        let off = u32::try_from(self.buf.len()).expect("interned text exceeds 4 GiB");
        u32::try_from(self.buf.len() + s.len()).expect("interned text exceeds 4 GiB");
        self.buf.push_str(s);
        self.spans.push((off, s.len() as u32));
        id
    }

    /// Asks the processor to fetch the table slots that interning strings of these hashes
    /// will read first, without waiting for them. Interning a million objects is bound by
    /// cache misses on a table far larger than the caches; fetching the slots of many strings
    /// in one go overlaps their misses. Only a hint: it never changes a result.
    ///
    /// A prefetch, not a load: loads that had to compare what they read (to find the text of
    /// a matching slot) put a branch on every miss, and each mispredicted one threw away the
    /// loads issued after it, so the misses came one after another again (`perf annotate`;
    /// BENCHMARKS.md, "Figures behind the code").
    #[inline]
    pub fn prefetch_slots(&self, hashes: impl Iterator<Item = u32>) {
        let slots = &self.table.slots;
        if slots.is_empty() {
            return;
        }
        let mask = slots.len() - 1;
        for h in hashes {
            prefetch(&slots[h as usize & mask]);
        }
    }

    /// Asks the processor to fetch the texts that interning strings of these hashes will
    /// compare: those of slots whose hash matches. Meant for strings whose slots
    /// [`Interner::prefetch_slots`] fetched a while before, so that reading the slots here
    /// mostly hits the cache. Only a hint: it never changes a result.
    #[inline]
    pub fn prefetch_texts(&self, hashes: impl Iterator<Item = u32>) {
        let slots = &self.table.slots;
        if slots.is_empty() {
            return;
        }
        let (mask, buf) = (slots.len() - 1, self.buf.as_bytes());
        for h in hashes {
            let e = Slot::load(slots[h as usize & mask]);
            if e.hash == h
                && e.sym != Slot::EMPTY
                && let Some(b) = buf.get(e.off as usize)
            {
                prefetch(b);
            }
        }
    }

    /// The symbol of `s` if it was interned, without interning it.
    pub fn get(&self, s: &str) -> Option<Sym> {
        self.table
            .find(&self.buf, s, self.hasher.hash(s))
            .ok()
            .map(Sym)
    }

    /// The text of a symbol.
    #[inline]
    pub fn resolve(&self, sym: Sym) -> &str {
        let (off, len) = self.spans[sym.index()];
        &self.buf[off as usize..(off + len) as usize]
    }

    /// Number of symbols (including the empty string and unindexed text).
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// Always false: the empty string is always present.
    pub fn is_empty(&self) -> bool {
        false
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
        // Reserving up front, then growing past it, keeps every symbol findable.
        let mut j = Interner::new();
        j.reserve(100, 100, 1000);
        for n in 0..5_000 {
            let s = format!("name-{}", n % 2_500);
            let sym = j.intern(&s);
            assert_eq!(j.resolve(sym), s);
        }
        assert_eq!(j.len(), 2_501);
    }

    #[test]
    fn the_table_is_reserved_for_the_indexed_strings_only() {
        // Text added without an index (resourceVersions, timestamps) takes spans and bytes,
        // never table slots: a table sized for it would be zeroed and cached for nothing.
        let mut i = Interner::new();
        i.reserve(100_000, 10_000, 1 << 20);
        assert_eq!(i.table.slots.len(), Table::capacity_for(10_000));
        assert!(i.spans.capacity() >= 100_000 && i.buf.capacity() >= 1 << 20);
        assert!(Table::capacity_for(10_000) < Table::capacity_for(100_000));
    }

    /// Interns `s-1`, `s-2`, … one string per call; `n` counts them.
    fn intern_numbered(i: &mut Interner, n: &mut usize) -> Sym {
        *n += 1;
        i.intern(&format!("s-{n}"))
    }

    #[test]
    fn the_next_table_is_made_ready_ahead_and_used() {
        let mut i = Interner::new();
        let mut n = 0;
        let mut intern_next = |i: &mut Interner| intern_numbered(i, &mut n);
        while i.table.slots.len() < PREPARE_FROM {
            intern_next(&mut i);
        }
        let len = i.table.slots.len();
        while i.table.used * 2 < len {
            assert!(i.table.next.is_none());
            intern_next(&mut i);
        }
        intern_next(&mut i);
        assert!(
            i.table.next.is_some(),
            "half full: the next table is on its way"
        );
        while i.table.slots.len() == len {
            intern_next(&mut i);
        }
        assert_eq!(i.table.slots.len(), 2 * len);
        assert!(i.table.next.is_none(), "taken by the growth");
        for k in 1..=n {
            let s = format!("s-{k}");
            assert_eq!(i.get(&s).map(|sym| i.resolve(sym)), Some(s.as_str()));
        }
        // A clone leaves the pending table behind and still finds everything.
        let j = i.clone();
        assert_eq!(j.get("s-1"), i.get("s-1"));
    }

    /// Fresh slots are mapped page by page; a 2 MiB stretch slower than the bound sends the
    /// rest back to small pages (said by the return), and the slots stay free either way.
    #[test]
    fn mapping_fresh_slots_falls_back_to_small_pages_after_a_slow_huge_page() {
        let len = 3 * SLOTS_PER_HUGE_PAGE + 7;
        for (slow, fell_back) in [
            (std::time::Duration::ZERO, true),
            (std::time::Duration::MAX, false),
        ] {
            let mut slots = vec![[0u32; 4]; len];
            assert!(advise(&slots, Advice::HugePages));
            assert_eq!(map_pages(&mut slots, slow), fell_back);
            assert!(slots.iter().all(|&raw| Slot::is_free(raw)));
        }
        // Too small for huge pages: not advised. Large ones come from `free_slots` advised
        // and mapped, and free.
        assert!(!advise(
            &vec![[0u32; 4]; SLOTS_PER_HUGE_PAGE],
            Advice::HugePages
        ));
        assert!(free_slots(len).iter().all(|&raw| Slot::is_free(raw)));
    }

    /// While the successor is still being made, the table fills past 5/8 (to 3/4) instead of
    /// waiting for it; once it is there, the next growth takes it.
    #[test]
    fn a_successor_still_being_made_is_not_waited_for_until_three_quarters() {
        let mut i = Interner::new();
        let mut n = 0;
        let mut intern_next = |i: &mut Interner| intern_numbered(i, &mut n);
        while i.table.slots.len() < 4 * PREPARE_FROM {
            intern_next(&mut i);
        }
        let len = i.table.slots.len();
        // A successor that is not done until the test says so (or, if the table waits for
        // it, after a while: then the table has grown where it should not have).
        let (done, wait) = std::sync::mpsc::channel::<()>();
        i.table.next = Some(Ready {
            cap: 2 * len,
            slots: std::thread::spawn(move || {
                let _ = wait.recv_timeout(std::time::Duration::from_secs(10));
                free_slots(2 * len)
            }),
        });
        while (i.table.used + 1) * 4 <= len * 3 {
            intern_next(&mut i);
        }
        assert_eq!(i.table.slots.len(), len, "filled to 3/4 without waiting");
        assert!(i.table.used * 8 > len * 5, "past the usual 5/8");
        done.send(()).unwrap();
        intern_next(&mut i);
        assert_eq!(i.table.slots.len(), 2 * len, "grown into the successor");
        assert!(i.table.next.is_none());
        for k in 1..=n {
            let s = format!("s-{k}");
            assert_eq!(i.get(&s).map(|sym| i.resolve(sym)), Some(s.as_str()));
        }
    }

    #[test]
    fn room_reserved_ahead_is_made_on_another_thread_and_taken_at_the_next_growth() {
        let mut i = Interner::new();
        let mut n = 0;
        let mut intern_next = |i: &mut Interner| intern_numbered(i, &mut n);
        for _ in 0..20 {
            intern_next(&mut i);
        }
        let len = i.table.slots.len();
        let first = i.get("s-1");
        // Room for many more: the table stays as it is until it has to grow...
        i.reserve_ahead(0, 16 * PREPARE_FROM, 0);
        assert_eq!(i.table.slots.len(), len, "not grown on the caller's thread");
        assert!(i.table.next.is_some(), "the room is on its way");
        let want = Table::capacity_for(i.table.used + 16 * PREPARE_FROM);
        // ...reserving less again changes nothing...
        i.reserve_ahead(0, 8 * PREPARE_FROM, 0);
        assert_eq!(i.table.slots.len(), len);
        assert_eq!(i.table.next.as_ref().map(|r| r.cap), Some(want));
        while i.table.slots.len() == len {
            intern_next(&mut i);
        }
        // ...and the growth takes the room made ahead, larger than a doubling.
        assert_eq!(i.table.slots.len(), want);
        assert!(want > 2 * len);
        assert!(i.table.next.is_none(), "taken by the growth");
        assert_eq!(i.get("s-1"), first);
        for k in 1..=n {
            let s = format!("s-{k}");
            assert_eq!(i.get(&s).map(|sym| i.resolve(sym)), Some(s.as_str()));
        }
        // Small room is made at once, as `reserve` makes it.
        let mut j = Interner::new();
        j.reserve_ahead(0, 8, 0);
        assert!(j.table.next.is_none());
        assert_eq!(j.table.slots.len(), Table::capacity_for(9));
    }

    #[test]
    fn unindexed_text_resolves_but_is_never_shared() {
        let mut i = Interner::new();
        let a = i.intern("12345");
        let b = i.add_unindexed("12345");
        let c = i.add_unindexed("12345");
        assert!(a != b && b != c);
        assert_eq!((i.resolve(b), i.resolve(c)), ("12345", "12345"));
        assert_eq!(i.get("12345"), Some(a));
        assert_eq!(i.add_unindexed(""), Sym::EMPTY);
        assert_eq!(i.get("99"), None);
        i.add_unindexed("99");
        assert_eq!(i.get("99"), None);
        assert_ne!(i.intern("99"), Sym::EMPTY);
    }
}
