//! Bulirsch-Stoer integration of one close-encounter group under H_A in democratic heliocentric
//! coordinates (GENGA paper section 3.2.6; Chambers 1999; Mercury's `mdt_bs2`).
//!
//! For the members i of a group, with the central mass `M0` fixed at the origin (paper 3.2.6),
//! `dx_i/dt = v_i` and
//! `dv_i/dt = -M0 x_i / |x_i|^3 + sum_{j != i} m_j (x_j - x_i) / r_ij^3 (1 - K(r_ij, rcrit_ij))`
//! with `K` the changeover of eqs 4-5 applied to the force and `rcrit_ij = max(rcrit_i, rcrit_j)`.
//! The H_C (Sun kick) part is not included: the stepper applies it separately.
//!
//! The method: modified-midpoint (Gragg) sweeps with `n = 2, 4, ..., 16` substeps, polynomial
//! (Aitken-Neville) extrapolation in `(H/n)^2` to `H -> 0`, and the step control of Mercury's
//! `mdt_bs2`: a step is accepted as soon as the extrapolated value changes by less than
//! `rel_tol` from one level to the next (relative to each body's heliocentric distance and speed,
//! the scales of `mdt_bs2`; for the speed at least 1e-3 of the circular speed); the next step grows by
//! 1.3 when that happened early in the sequence and shrinks to 0.55 when only the last level
//! converged; a step that does not converge is halved and retried.
//!
//! Collisions (paper 3.2.7) are searched after every accepted substep with the end-point
//! separation and the cubic Hermite minimum of [`crate::physics::encounter`]; a colliding pair is
//! merged perfectly ([`crate::physics::merge`]) at the state at the END of that substep (at most one
//! substep past contact: BS substeps shrink as a close pair approaches, so the overshoot is small;
//! the merger conserves mass, momentum and angular momentum whatever the separation, and the
//! energy bookkeeping `U` is exact for that state). The collision record holds both bodies at the
//! START of the substep (GENGA's "last time step before the collision"). With a collision
//! precision ([`BsOptions::collision_precision`], GENGA's `Collision Precision`) the substep is
//! redone, shortened, until the pair's separation at its end is within the precision of the
//! sum of the radii ([`contact`]); the merger and the record are then at that end.

mod contact;

use crate::physics::changeover::Changeover;
use crate::physics::encounter::min_separation_sq;
use crate::physics::merge::{perfect_merger, third_body_potential_change, MergeError};
use crate::state::Body;
use contact::{refine_contact, Contact, MAX_REFINEMENTS};
use std::fmt;

/// Number of levels of the midpoint sequence.
const KMAX: usize = 8;
/// Midpoint substep counts per level (Mercury's `mdt_bs2` sequence).
const NSEQ: [usize; KMAX] = [2, 4, 6, 8, 10, 12, 14, 16];

/// The bodies of one encounter group, as parallel arrays (democratic heliocentric coordinates:
/// heliocentric positions, barycentric velocities). Every array has length [`GroupState::len`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GroupState {
    /// Masses (Msun); set to 0 for a body that merged into another.
    pub m: Vec<f64>,
    /// Physical radii (AU), for the collision test.
    pub r: Vec<f64>,
    /// Critical radii of eq. 6, fixed for the step.
    pub rcrit: Vec<f64>,
    /// Heliocentric positions.
    pub pos: Vec<[f64; 3]>,
    /// Barycentric velocities.
    pub vel: Vec<[f64; 3]>,
    /// Spins.
    pub spin: Vec<[f64; 3]>,
    /// Body ids (for reports).
    pub id: Vec<u64>,
    /// False for a body removed by a merger (the caller compacts it away).
    pub alive: Vec<bool>,
    /// The changeover function whose `1 - K` weights the pair forces (the run's, as in the
    /// kicks; [`GroupState::clear`] keeps it).
    pub changeover: Changeover,
    /// Levels of recursive symplectic sub-steps enclosing this integration
    /// ([`crate::physics::recursion`]; 0 for the plain hybrid step): each multiplies the pair
    /// force by its own `1 - K(r, rcrit_l)`, so that Bulirsch-Stoer takes exactly what the
    /// levels' kicks left.
    pub outer_levels: usize,
    /// The enclosing levels' critical radii, body-major: `outer_rcrit[k * outer_levels + l]`.
    pub outer_rcrit: Vec<f64>,
}

impl GroupState {
    /// An empty group.
    pub fn new() -> Self {
        Self::default()
    }

    /// Remove all bodies, keeping the capacity.
    pub fn clear(&mut self) {
        self.m.clear();
        self.r.clear();
        self.rcrit.clear();
        self.pos.clear();
        self.vel.clear();
        self.spin.clear();
        self.id.clear();
        self.alive.clear();
        self.outer_levels = 0;
        self.outer_rcrit.clear();
    }

    /// Append an alive body with critical radius `rcrit`.
    pub fn push(&mut self, b: &Body, rcrit: f64) {
        self.m.push(b.m);
        self.r.push(b.r);
        self.rcrit.push(rcrit);
        self.pos.push(b.pos);
        self.vel.push(b.vel);
        self.spin.push(b.spin);
        self.id.push(b.id);
        self.alive.push(true);
    }

    /// Number of bodies (alive or not).
    pub fn len(&self) -> usize {
        self.m.len()
    }

    /// True when the group holds no body.
    pub fn is_empty(&self) -> bool {
        self.m.is_empty()
    }

    /// Body `k` as a value.
    pub fn body(&self, k: usize) -> Body {
        Body {
            id: self.id[k],
            m: self.m[k],
            r: self.r[k],
            pos: self.pos[k],
            vel: self.vel[k],
            spin: self.spin[k],
        }
    }

    fn validate(&self) -> Result<(), BsError> {
        let n = self.m.len();
        if self.outer_rcrit.len() != n * self.outer_levels {
            return Err(BsError::BadInput {
                ids: self.id.clone(),
                reason: format!(
                    "{} critical radii of enclosing levels for {n} bodies and {} levels",
                    self.outer_rcrit.len(),
                    self.outer_levels
                ),
            });
        }
        let lens = [
            self.r.len(),
            self.rcrit.len(),
            self.pos.len(),
            self.vel.len(),
            self.spin.len(),
            self.id.len(),
            self.alive.len(),
        ];
        if lens.iter().any(|&l| l != n) {
            return Err(BsError::BadInput {
                ids: self.id.clone(),
                reason: format!(
                    "group arrays have different lengths: m {n}, r/rcrit/pos/vel/spin/id/alive {lens:?}"
                ),
            });
        }
        for k in 0..n {
            let finite = self.m[k].is_finite()
                && self.r[k].is_finite()
                && self.rcrit[k].is_finite()
                && self.pos[k]
                    .iter()
                    .chain(&self.vel[k])
                    .chain(&self.spin[k])
                    .all(|x| x.is_finite());
            if !finite {
                return Err(BsError::NonFinite {
                    ids: self.id.clone(),
                    t: 0.0,
                });
            }
            if self.m[k] < 0.0 || self.r[k] < 0.0 || self.rcrit[k] < 0.0 {
                return Err(BsError::BadInput {
                    ids: self.id.clone(),
                    reason: format!(
                        "body {} has a negative mass, radius or critical radius",
                        self.id[k]
                    ),
                });
            }
        }
        Ok(())
    }
}

/// Accuracy and limits of [`integrate_group`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BsOptions {
    /// Relative error allowed per substep (positions relative to the heliocentric distance,
    /// velocities relative to the speed). Default 1e-12.
    pub rel_tol: f64,
    /// Smallest allowed substep as a fraction of |tau|. Default 1e-12.
    pub min_step: f64,
    /// Most substeps (accepted + rejected) per call. Default 100 000.
    pub max_substeps: usize,
    /// Refine each contact time to this precision, a fraction of the sum of the radii
    /// ([`contact`]; GENGA's `Collision Precision`). `None` (the default): merge at the end of
    /// the substep in which contact is found.
    pub collision_precision: Option<f64>,
    /// The ids of a pair that never merges (the stopping pair of a collision stop, carried to
    /// its contact for `OutCollision.dat`); `None`: every touching pair merges.
    pub spare: Option<[u64; 2]>,
}

impl Default for BsOptions {
    fn default() -> Self {
        BsOptions {
            rel_tol: 1e-12,
            min_step: 1e-12,
            max_substeps: 100_000,
            collision_precision: None,
            spare: None,
        }
    }
}

/// Counters of one [`integrate_group`] call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BsStats {
    /// Accepted substeps.
    pub accepted: usize,
    /// Rejected (halved and retried) substeps.
    pub rejected: usize,
    /// Evaluations of the group's accelerations.
    pub force_evaluations: usize,
    /// Mergers performed.
    pub collisions: usize,
    /// Substeps redone to refine a contact time (accepted, then shortened; not in `accepted`).
    pub refined: usize,
}

/// One perfect merger inside a Bulirsch-Stoer integration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CollisionEvent {
    /// Time offset, from the start of the integration, of the recorded states `bodies` (the
    /// start of the substep in which contact was found).
    pub t_before: f64,
    /// Time offset at which the merger was made (the end of that substep).
    pub t_merge: f64,
    /// Both bodies at `t_before` (democratic coordinates: velocities are barycentric),
    /// in group order.
    pub bodies: [Body; 2],
    /// Both bodies at `t_merge`, just before they were merged (for the energy bookkeeping of
    /// bodies outside the group with [`third_body_potential_change`]).
    pub at_merge: [Body; 2],
    /// Group slots of `bodies`.
    pub slots: [usize; 2],
    /// Group slot of the survivor (the other slot is marked not alive with mass 0).
    pub survivor_slot: usize,
    /// The merged body as written into the survivor's slot at `t_merge`.
    pub merged: Body,
    /// Energy removed by the merger, `E_before - E_after` at `t_merge`: GENGA's
    /// `1/2 mu v^2 - mi mj / r` plus the change of the Sun potential and of the potential with
    /// the other alive members of the group (see [`crate::physics::merge`]). The potential with
    /// bodies outside the group is not included.
    pub u: f64,
}

/// Why a group integration failed. Every variant names the group's body ids.
#[derive(Debug, Clone, PartialEq)]
pub enum BsError {
    /// Inconsistent or invalid input.
    BadInput { ids: Vec<u64>, reason: String },
    /// The step fell below `min_step * |tau|` at time offset `t` without converging.
    StepTooSmall { ids: Vec<u64>, t: f64, h: f64 },
    /// More than `max_substeps` substeps were needed.
    TooManySubsteps {
        ids: Vec<u64>,
        t: f64,
        substeps: usize,
    },
    /// A position, velocity or mass became non-finite at time offset `t`.
    NonFinite { ids: Vec<u64>, t: f64 },
    /// A merger could not be formed.
    Merge(MergeError),
}

impl fmt::Display for BsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BsError::BadInput { ids, reason } => {
                write!(f, "Bulirsch-Stoer group {ids:?}: {reason}")
            }
            BsError::StepTooSmall { ids, t, h } => write!(
                f,
                "Bulirsch-Stoer group {ids:?}: step {h:e} below the minimum at time offset {t:e} without convergence"
            ),
            BsError::TooManySubsteps { ids, t, substeps } => write!(
                f,
                "Bulirsch-Stoer group {ids:?}: {substeps} substeps exceed the limit at time offset {t:e}"
            ),
            BsError::NonFinite { ids, t } => {
                write!(
                    f,
                    "Bulirsch-Stoer group {ids:?}: non-finite state at time offset {t:e}"
                )
            }
            BsError::Merge(e) => write!(f, "Bulirsch-Stoer: {e}"),
        }
    }
}

impl std::error::Error for BsError {}

impl From<MergeError> for BsError {
    fn from(e: MergeError) -> Self {
        BsError::Merge(e)
    }
}

impl From<BsError> for crate::error::Error {
    fn from(e: BsError) -> Self {
        crate::error::Error::run(e.to_string())
    }
}

/// Scratch memory for [`integrate_group`]; reuse one per thread to avoid allocation.
#[derive(Debug, Clone, Default)]
pub struct BsWorkspace {
    /// State at the start of the substep.
    x0: Vec<[f64; 3]>,
    v0: Vec<[f64; 3]>,
    /// Accelerations at the start of the substep.
    a0: Vec<[f64; 3]>,
    /// Midpoint states z_{m-1} (a) and z_m (b).
    xa: Vec<[f64; 3]>,
    va: Vec<[f64; 3]>,
    xb: Vec<[f64; 3]>,
    vb: Vec<[f64; 3]>,
    acc: Vec<[f64; 3]>,
    /// Extrapolation tableau rows, `KMAX * n`.
    tx: Vec<[f64; 3]>,
    tv: Vec<[f64; 3]>,
    /// Error scales per body.
    xs: Vec<f64>,
    vs: Vec<f64>,
    /// Bodies merged in the current collision pass.
    merged: Vec<bool>,
}

impl BsWorkspace {
    /// An empty workspace; it grows to the largest group seen.
    pub fn new() -> Self {
        Self::default()
    }

    fn ensure(&mut self, n: usize) {
        for v in [
            &mut self.x0,
            &mut self.v0,
            &mut self.a0,
            &mut self.xa,
            &mut self.va,
            &mut self.xb,
            &mut self.vb,
            &mut self.acc,
        ] {
            v.resize(n, [0.0; 3]);
        }
        self.tx.resize(KMAX * n, [0.0; 3]);
        self.tv.resize(KMAX * n, [0.0; 3]);
        self.xs.resize(n, 0.0);
        self.vs.resize(n, 0.0);
        self.merged.resize(n, false);
    }
}

/// H_A accelerations of the group (module docs); zero for bodies not alive.
fn accelerations(m0: f64, g: &GroupState, x: &[[f64; 3]], acc: &mut [[f64; 3]]) {
    let n = g.len();
    for i in 0..n {
        if !g.alive[i] {
            acc[i] = [0.0; 3];
            continue;
        }
        let xi = x[i];
        let r2 = xi[0] * xi[0] + xi[1] * xi[1] + xi[2] * xi[2];
        let f = -m0 / (r2 * r2.sqrt());
        acc[i] = [f * xi[0], f * xi[1], f * xi[2]];
    }
    for i in 0..n {
        if !g.alive[i] {
            continue;
        }
        for j in i + 1..n {
            if !g.alive[j] {
                continue;
            }
            let d = [x[j][0] - x[i][0], x[j][1] - x[i][1], x[j][2] - x[i][2]];
            let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
            let r = r2.sqrt();
            let mut w = 1.0 - g.changeover.k(r, g.rcrit[i].max(g.rcrit[j]));
            let levels = g.outer_levels;
            for l in 0..levels {
                let rc = g.outer_rcrit[i * levels + l].max(g.outer_rcrit[j * levels + l]);
                w *= 1.0 - g.changeover.k(r, rc);
            }
            let w = w / (r2 * r);
            let (fi, fj) = (g.m[j] * w, g.m[i] * w);
            for c in 0..3 {
                acc[i][c] += fi * d[c];
                acc[j][c] -= fj * d[c];
            }
        }
    }
}

/// `max` that propagates NaN (`f64::max` drops it), so a blown-up trial never converges.
#[inline(always)]
fn nan_max(a: f64, b: f64) -> f64 {
    if b > a || b.is_nan() {
        b
    } else {
        a
    }
}

/// One trial substep of length `h` from `ws.x0, ws.v0`. On convergence writes the extrapolated
/// state into `g.pos, g.vel` and returns the level reached.
fn attempt(
    m0: f64,
    h: f64,
    tol: f64,
    g: &mut GroupState,
    ws: &mut BsWorkspace,
    stats: &mut BsStats,
) -> Option<usize> {
    let n = g.len();
    for k in 0..KMAX {
        let ns = NSEQ[k];
        let hs = h / ns as f64;
        // Modified midpoint: z1 = z0 + hs f(z0); z_{m+1} = z_{m-1} + 2 hs f(z_m).
        for i in 0..n {
            ws.xa[i] = ws.x0[i];
            ws.va[i] = ws.v0[i];
            for c in 0..3 {
                ws.xb[i][c] = ws.x0[i][c] + hs * ws.v0[i][c];
                ws.vb[i][c] = ws.v0[i][c] + hs * ws.a0[i][c];
            }
        }
        for _ in 1..ns {
            accelerations(m0, g, &ws.xb, &mut ws.acc);
            stats.force_evaluations += 1;
            for i in 0..n {
                for c in 0..3 {
                    ws.xa[i][c] += 2.0 * hs * ws.vb[i][c];
                    ws.va[i][c] += 2.0 * hs * ws.acc[i][c];
                }
            }
            std::mem::swap(&mut ws.xa, &mut ws.xb);
            std::mem::swap(&mut ws.va, &mut ws.vb);
        }
        accelerations(m0, g, &ws.xb, &mut ws.acc);
        stats.force_evaluations += 1;

        // y = (z_n + z_{n-1} + hs f(z_n)) / 2, then Aitken-Neville extrapolation in (h/n)^2.
        // The error estimate is the change of the extrapolated (diagonal) value from the previous
        // level. It is more conservative than the last Neville correction, which under-estimates
        // the error where the changeover's second derivative jumps (at 0.1 and 1 rcrit).
        let mut ratio = [0.0; KMAX];
        for j in 1..=k {
            ratio[j] = (NSEQ[k] as f64 / NSEQ[k - j] as f64).powi(2) - 1.0;
        }
        let mut err: f64 = 0.0;
        for i in 0..n {
            let mut ex: f64 = 0.0;
            let mut ev: f64 = 0.0;
            for c in 0..3 {
                let mut cx = 0.5 * (ws.xb[i][c] + ws.xa[i][c] + hs * ws.vb[i][c]);
                let mut cv = 0.5 * (ws.vb[i][c] + ws.va[i][c] + hs * ws.acc[i][c]);
                if k == 0 {
                    ws.tx[i][c] = cx;
                    ws.tv[i][c] = cv;
                    continue;
                }
                // Slot j - 1 holds T[k-1][j-1] on entry and T[k][j-1] on exit.
                let (px, pv) = (ws.tx[(k - 1) * n + i][c], ws.tv[(k - 1) * n + i][c]);
                for j in 1..=k {
                    let slot = (j - 1) * n + i;
                    let (ox, ov) = (ws.tx[slot][c], ws.tv[slot][c]);
                    ws.tx[slot][c] = cx;
                    ws.tv[slot][c] = cv;
                    cx += (cx - ox) / ratio[j];
                    cv += (cv - ov) / ratio[j];
                }
                ws.tx[k * n + i][c] = cx;
                ws.tv[k * n + i][c] = cv;
                ex = nan_max(ex, (cx - px).abs());
                ev = nan_max(ev, (cv - pv).abs());
            }
            if g.alive[i] {
                err = nan_max(nan_max(err, ex / ws.xs[i]), ev / ws.vs[i]);
            }
        }
        // NaN errors never pass this test, so a blow-up is treated as non-convergence.
        if k >= 1 && err <= tol {
            for i in 0..n {
                if g.alive[i] {
                    g.pos[i] = ws.tx[k * n + i];
                    g.vel[i] = ws.tv[k * n + i];
                }
            }
            return Some(k);
        }
    }
    None
}

/// Search the substep `[t, t + h]` (start state in `ws.x0, ws.v0`, end state in `g`) for
/// colliding pairs and merge them, and the pair `forced` too (a refined contact in its band,
/// [`contact`]). With `refined` (a collision precision is set) the records hold the bodies at
/// the merger, the refined contact, instead of at the substep's start.
#[allow(clippy::too_many_arguments)]
fn collide(
    m0: f64,
    (t, h): (f64, f64),
    (forced, refined, spare): (Option<(usize, usize)>, bool, Option<[u64; 2]>),
    g: &mut GroupState,
    ws: &mut BsWorkspace,
    stats: &mut BsStats,
    events: &mut Vec<CollisionEvent>,
) -> Result<(), BsError> {
    let n = g.len();
    ws.merged[..n].fill(false);
    for i in 0..n {
        for j in i + 1..n {
            if !g.alive[i] || !g.alive[j] {
                continue;
            }
            let rsum = g.r[i] + g.r[j];
            if rsum <= 0.0 || spared(spare, g.id[i], g.id[j]) {
                continue;
            }
            let rsum2 = rsum * rsum;
            let mut dr1 = [0.0; 3];
            for c in 0..3 {
                dr1[c] = g.pos[j][c] - g.pos[i][c];
            }
            let p1 = dr1[0] * dr1[0] + dr1[1] * dr1[1] + dr1[2] * dr1[2];
            let mut hit = p1 < rsum2 || forced == Some((i, j));
            // The interpolation needs one trajectory: skip it for a body merged in this pass (it
            // is tested from its new state in the next substep).
            if !hit && !ws.merged[i] && !ws.merged[j] {
                let mut dr0 = [0.0; 3];
                let mut dv0 = [0.0; 3];
                let mut dv1 = [0.0; 3];
                for c in 0..3 {
                    dr0[c] = ws.x0[j][c] - ws.x0[i][c];
                    dv0[c] = ws.v0[j][c] - ws.v0[i][c];
                    dv1[c] = g.vel[j][c] - g.vel[i][c];
                }
                hit = min_separation_sq(dr0, dv0, dr1, dv1, h).0 < rsum2;
            }
            if !hit {
                continue;
            }
            let a = g.body(i);
            let b = g.body(j);
            let mg = perfect_merger(m0, &a, &b)?;
            let mut u = mg.u;
            for k in 0..n {
                if k != i && k != j && g.alive[k] {
                    u += third_body_potential_change(&a, &b, &mg.body, g.m[k], g.pos[k]);
                }
            }
            let before = |k: usize, now: &Body| Body {
                pos: ws.x0[k],
                vel: ws.v0[k],
                ..*now
            };
            let (s, d) = if mg.survivor == 0 { (i, j) } else { (j, i) };
            let (t_before, bodies) = match refined {
                true => (t + h, [a, b]),
                false => (t, [before(i, &a), before(j, &b)]),
            };
            events.push(CollisionEvent {
                t_before,
                t_merge: t + h,
                bodies,
                at_merge: [a, b],
                slots: [i, j],
                survivor_slot: s,
                merged: mg.body,
                u,
            });
            g.m[s] = mg.body.m;
            g.r[s] = mg.body.r;
            g.pos[s] = mg.body.pos;
            g.vel[s] = mg.body.vel;
            g.spin[s] = mg.body.spin;
            g.rcrit[s] = g.rcrit[i].max(g.rcrit[j]);
            let levels = g.outer_levels;
            for l in 0..levels {
                let rc = g.outer_rcrit[i * levels + l].max(g.outer_rcrit[j * levels + l]);
                g.outer_rcrit[s * levels + l] = rc;
            }
            g.m[d] = 0.0;
            g.alive[d] = false;
            ws.merged[s] = true;
            stats.collisions += 1;
        }
    }
    Ok(())
}

/// Whether the pair of ids `(a, b)` is the spared pair (either order).
fn spared(spare: Option<[u64; 2]>, a: u64, b: u64) -> bool {
    spare.is_some_and(|[x, y]| (x, y) == (a, b) || (x, y) == (b, a))
}

/// Integrate the group `g` over `tau` (negative: backward) under H_A (module docs) around a
/// central mass `m0` fixed at the origin, merging colliding bodies on the way (events appended to
/// `collisions`). Bodies with `alive == false` are ignored and left unchanged. On error `g` holds
/// the state of the last accepted substep.
pub fn integrate_group(
    m0: f64,
    tau: f64,
    g: &mut GroupState,
    ws: &mut BsWorkspace,
    opts: &BsOptions,
    collisions: &mut Vec<CollisionEvent>,
) -> Result<BsStats, BsError> {
    g.validate()?;
    if !m0.is_finite() || !tau.is_finite() || m0 < 0.0 {
        return Err(BsError::BadInput {
            ids: g.id.clone(),
            reason: format!(
                "central mass {m0} and step {tau} must be finite, the mass non-negative"
            ),
        });
    }
    let opts_ok = opts.rel_tol > 0.0 && opts.rel_tol.is_finite() && opts.min_step >= 0.0;
    if !opts_ok {
        return Err(BsError::BadInput {
            ids: g.id.clone(),
            reason: format!(
                "tolerance {} and minimum step {} must be positive",
                opts.rel_tol, opts.min_step
            ),
        });
    }
    let n = g.len();
    let mut stats = BsStats::default();
    if n == 0 || tau == 0.0 {
        return Ok(stats);
    }
    ws.ensure(n);
    let h_min = opts.min_step * tau.abs();
    let mut t = 0.0;
    let mut h = tau;
    let m_group: f64 = g.m.iter().sum();
    // The pair a redone substep was shortened for, and how often this contact was redone.
    let mut refining = None;
    let mut refinements = 0;
    loop {
        let remaining = tau - t;
        if remaining == 0.0 || remaining.signum() != tau.signum() {
            break;
        }
        let last = h.abs() >= remaining.abs();
        let hstep = if last { remaining } else { h };
        for i in 0..n {
            ws.x0[i] = g.pos[i];
            ws.v0[i] = g.vel[i];
            let x = g.pos[i];
            let v = g.vel[i];
            let r = (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]).sqrt();
            let s = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
            ws.xs[i] = r.max(f64::MIN_POSITIVE);
            ws.vs[i] = s
                .max(1e-3 * ((m0 + m_group) / ws.xs[i]).sqrt())
                .max(f64::MIN_POSITIVE);
        }
        accelerations(m0, g, &ws.x0, &mut ws.a0);
        stats.force_evaluations += 1;
        if stats.accepted + stats.rejected >= opts.max_substeps {
            return Err(BsError::TooManySubsteps {
                ids: g.id.clone(),
                t,
                substeps: stats.accepted + stats.rejected,
            });
        }
        match attempt(m0, hstep, opts.rel_tol, g, ws, &mut stats) {
            Some(k) => {
                stats.accepted += 1;
                let finite =
                    (0..n).all(|i| g.pos[i].iter().chain(&g.vel[i]).all(|x| x.is_finite()));
                if !finite {
                    return Err(BsError::NonFinite {
                        ids: g.id.clone(),
                        t: t + hstep,
                    });
                }
                let verdict = match opts.collision_precision {
                    Some(p) if refinements < MAX_REFINEMENTS => {
                        refine_contact(p, hstep, (g, ws), (refining, opts.spare))
                    }
                    _ => Contact::Keep { forced: None },
                };
                let forced = match verdict {
                    Contact::Redo { fraction, pair } => {
                        // Back to the substep's start, shortened to the contact.
                        g.pos[..n].copy_from_slice(&ws.x0[..n]);
                        g.vel[..n].copy_from_slice(&ws.v0[..n]);
                        stats.accepted -= 1;
                        stats.refined += 1;
                        refinements += 1;
                        refining = Some(pair);
                        h = fraction * hstep;
                        continue;
                    }
                    Contact::Keep { forced } => forced,
                };
                let span = (t, hstep);
                let refined = opts.collision_precision.is_some();
                let how = (forced, refined, opts.spare);
                collide(m0, span, how, g, ws, &mut stats, collisions)?;
                // A kept substep ends the contact's refinement: it merged the pair, or fell short
                // of its band (the next substep touches again).
                (refining, refinements) = (None, 0);
                t = if last { tau } else { t + hstep };
                h = if k == KMAX - 1 {
                    0.55 * hstep
                } else if k + 2 < KMAX {
                    1.3 * hstep
                } else {
                    hstep
                };
            }
            None => {
                stats.rejected += 1;
                h = 0.5 * hstep;
                if h.abs() < h_min || h == 0.0 {
                    return Err(BsError::StepTooSmall {
                        ids: g.id.clone(),
                        t,
                        h,
                    });
                }
            }
        }
    }
    Ok(stats)
}

#[cfg(test)]
mod contact_tests;
#[cfg(test)]
mod tests;
