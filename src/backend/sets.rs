//! Small sets over an engine's listed kinds: the passes `--cpu-passes` names and the fields the
//! fallback tracks, for both engines ([`Set`] over [`Listed`]).

use std::fmt;
use std::marker::PhantomData;

/// A kind with a fixed list of at most 32 values: an engine's passes (in step order) or its
/// fields (in table order).
pub trait Listed: Copy + Eq + fmt::Debug + 'static {
    /// Every value, in order (at most 32).
    const LIST: &'static [Self];

    /// The bit of `self` in a [`Set`]: its position in [`Listed::LIST`].
    fn bit(self) -> u32 {
        1 << Self::LIST.iter().position(|&q| q == self).unwrap_or(0)
    }
}

/// A set of values of a [`Listed`] kind, one bit each.
pub struct Set<T>(u32, PhantomData<T>);

impl<T: Listed> Set<T> {
    /// The empty set.
    pub const NONE: Set<T> = Set(0, PhantomData);

    /// Every value.
    pub fn all() -> Self {
        Self::of(T::LIST)
    }

    /// The set of `values`.
    pub fn of(values: &[T]) -> Self {
        Set(
            values.iter().fold(0, |bits, &v| bits | v.bit()),
            PhantomData,
        )
    }

    /// The subset whose positions in [`Listed::LIST`] are the set bits of `mask`.
    pub fn from_mask(mask: u32) -> Self {
        let all = match T::LIST.len() {
            n if n >= 32 => u32::MAX,
            n => (1 << n) - 1,
        };
        Set(mask & all, PhantomData)
    }

    pub fn contains(self, v: T) -> bool {
        self.0 & v.bit() != 0
    }

    /// Every value of `o` is in this set.
    pub fn contains_all(self, o: Self) -> bool {
        o.0 & !self.0 == 0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn insert(&mut self, v: T) {
        self.0 |= v.bit();
    }

    pub fn remove(&mut self, v: T) {
        self.0 &= !v.bit();
    }

    /// The values in either set.
    pub fn union(self, o: Self) -> Self {
        Set(self.0 | o.0, PhantomData)
    }

    /// The values of this set that are not in `o`.
    pub fn minus(self, o: Self) -> Self {
        Set(self.0 & !o.0, PhantomData)
    }

    /// The values not in this set.
    pub fn complement(self) -> Self {
        Self::from_mask(!self.0)
    }

    /// The values in [`Listed::LIST`] order.
    pub fn iter(self) -> impl Iterator<Item = T> {
        T::LIST.iter().copied().filter(move |v| self.contains(*v))
    }
}

impl<T> Clone for Set<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Set<T> {}

impl<T> PartialEq for Set<T> {
    fn eq(&self, o: &Self) -> bool {
        self.0 == o.0
    }
}

impl<T> Eq for Set<T> {}

impl<T> std::hash::Hash for Set<T> {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.0.hash(h);
    }
}

impl<T> Default for Set<T> {
    fn default() -> Self {
        Set(0, PhantomData)
    }
}

impl<T: Listed> fmt::Debug for Set<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}
