//! A set of small integers as one bit each: the side tables keyed by object id or symbol that a
//! million-object pass fills and reads (which objects are not quiet, which are owners, which
//! namespaces hold objects), at an eighth of a `Vec<bool>`.

/// A set of indices below the length it was made for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BitSet {
    words: Vec<u64>,
}

impl BitSet {
    /// An empty set of indices below `len`.
    pub fn new(len: usize) -> BitSet {
        BitSet {
            words: vec![0; len.div_ceil(64)],
        }
    }

    /// Adds `i`.
    pub fn insert(&mut self, i: usize) {
        self.words[i / 64] |= 1 << (i % 64);
    }

    /// Removes `i`.
    pub fn remove(&mut self, i: usize) {
        self.words[i / 64] &= !(1 << (i % 64));
    }

    /// Whether `i` is in the set.
    pub fn contains(&self, i: usize) -> bool {
        self.words[i / 64] & (1 << (i % 64)) != 0
    }

    /// The members of either set (made for the same length).
    pub fn union(&self, other: &BitSet) -> BitSet {
        debug_assert_eq!(self.words.len(), other.words.len());
        BitSet {
            words: self
                .words
                .iter()
                .zip(&other.words)
                .map(|(a, b)| a | b)
                .collect(),
        }
    }

    /// The members, in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        // Word by word, lowest set bit first, clearing it: a sparse set of millions of bits
        // costs a step per word and per member, not per bit.
        self.words.iter().enumerate().flat_map(|(w, &bits)| {
            std::iter::successors((bits != 0).then_some(bits), |&rest| {
                let rest = rest & (rest - 1);
                (rest != 0).then_some(rest)
            })
            .map(move |rest| w * 64 + rest.trailing_zeros() as usize)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::BitSet;

    #[test]
    fn members_come_back_in_order_across_words() {
        let mut s = BitSet::new(200);
        for i in [199, 0, 63, 64, 130, 64] {
            s.insert(i);
        }
        s.remove(130);
        assert_eq!(s.iter().collect::<Vec<_>>(), [0, 63, 64, 199]);
        assert!(s.contains(63) && !s.contains(62) && !s.contains(130));
        let mut t = BitSet::new(200);
        [1, 63, 150].into_iter().for_each(|i| t.insert(i));
        assert_eq!(
            s.union(&t).iter().collect::<Vec<_>>(),
            [0, 1, 63, 64, 150, 199]
        );
        assert_eq!(BitSet::new(0).iter().count(), 0);
        // A whole word, and the words either side of it empty.
        let mut full = BitSet::new(192);
        (64..128).for_each(|i| full.insert(i));
        assert_eq!(
            full.iter().collect::<Vec<_>>(),
            (64..128).collect::<Vec<_>>()
        );
    }
}
