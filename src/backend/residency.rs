//! Where each field of an engine's state is valid, the one bookkeeping under both per-pass
//! fallbacks (the hybrid engine's [`crate::backend::fallback`], the sheet's
//! [`crate::backend::sheet::fallback`]).
//!
//! A [`Residency`] keeps, for every field, whether the device and the host hold a valid copy
//! (at least one always does). Before a pass, [`Residency::bring`] copies the pass's reads that
//! are stale on the side that runs it; after it, [`Residency::written`] marks its writes valid
//! on that side only. The copying itself is the engine's (its fields' data differ); the rule of
//! what moves when is written here once.

use super::sets::{Listed, Set};
use crate::error::Result;

/// Where a pass runs and a field copy lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Device,
    Host,
}

/// Counts of the field copies made (for reports and tests).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Transfers {
    /// Fields copied from the device to the host.
    pub to_host: u64,
    /// Fields copied from the host to the device.
    pub to_device: u64,
}

/// Which side holds a valid copy of each field of kind `F` (module docs).
#[derive(Debug, Clone, Copy)]
pub struct Residency<F: Listed> {
    on_device: Set<F>,
    on_host: Set<F>,
    transfers: Transfers,
}

impl<F: Listed> Residency<F> {
    /// Every field valid on the device, and `on_host` on the host too.
    pub fn on_device_and(on_host: Set<F>) -> Self {
        Residency {
            on_device: Set::all(),
            on_host,
            transfers: Transfers::default(),
        }
    }

    /// The fields valid on `side`.
    pub fn valid(&self, side: Side) -> Set<F> {
        match side {
            Side::Device => self.on_device,
            Side::Host => self.on_host,
        }
    }

    /// The fields of `fields` that are stale on `side`.
    pub fn stale(&self, fields: Set<F>, side: Side) -> Set<F> {
        fields.minus(self.valid(side))
    }

    /// Make `fields` valid on `side`: `copy(f, side)` copies each stale field there from the
    /// other side, in [`Listed::LIST`] order. The first failed copy ends it.
    pub fn bring(
        &mut self,
        fields: Set<F>,
        side: Side,
        mut copy: impl FnMut(F, Side) -> Result<()>,
    ) -> Result<()> {
        for f in self.stale(fields, side).iter() {
            copy(f, side)?;
            match side {
                Side::Host => {
                    self.on_host.insert(f);
                    self.transfers.to_host += 1;
                }
                Side::Device => {
                    self.on_device.insert(f);
                    self.transfers.to_device += 1;
                }
            }
        }
        Ok(())
    }

    /// After a pass (or an import) on `side`: `fields` are valid there only.
    pub fn written(&mut self, fields: Set<F>, side: Side) {
        for f in fields.iter() {
            let (valid, stale) = match side {
                Side::Device => (&mut self.on_device, &mut self.on_host),
                Side::Host => (&mut self.on_host, &mut self.on_device),
            };
            valid.insert(f);
            stale.remove(f);
        }
    }

    /// A side holding a valid copy of every field in `fields` (the device when both do).
    pub fn holder(&self, fields: Set<F>) -> Option<Side> {
        [Side::Device, Side::Host]
            .into_iter()
            .find(|&s| self.valid(s).contains_all(fields))
    }

    /// The field copies made so far.
    pub fn transfers(&self) -> Transfers {
        self.transfers
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum F {
        A,
        B,
        C,
    }

    impl Listed for F {
        const LIST: &'static [F] = &[F::A, F::B, F::C];
    }

    #[test]
    fn only_stale_fields_move_and_writes_invalidate_the_other_side() {
        let mut r = Residency::on_device_and(Set::of(&[F::A]));
        let mut moved = Vec::new();
        r.bring(Set::of(&[F::A, F::C]), Side::Host, |f, s| {
            moved.push((f, s));
            Ok(())
        })
        .unwrap();
        assert_eq!(moved, [(F::C, Side::Host)]);
        r.written(Set::of(&[F::C]), Side::Host);
        assert_eq!(r.holder(Set::of(&[F::A, F::C])), Some(Side::Host));
        assert_eq!(r.holder(Set::of(&[F::B, F::C])), None);
        assert_eq!(r.stale(Set::all(), Side::Device), Set::of(&[F::C]));
        let t = r.transfers();
        assert_eq!((t.to_host, t.to_device), (1, 0));
    }
}
