//! Jacobi coordinates (Wisdom & Holman 1991, section 3; Rein & Tamayo 2015, section 2.2): body k
//! is placed relative to the centre of mass of the bodies before it, `x'_k = x_k - C_{k-1}` with
//! `C_k = (m_0 x_0 + ... + m_k x_k) / eta_k` and `eta_k = m_0 + ... + m_k`; slot 0 holds the
//! centre of mass of the whole system. Velocities and accelerations transform the same way (the
//! map is linear and constant). Their one home: the map, its correctors and the outputs call
//! these functions.
//!
//! Arrays hold `lanes` systems of one body count side by side, body-major: body k of system s at
//! `[k * lanes + s]`, one array per Cartesian component. Each system's arithmetic is the same
//! whatever `lanes` is.

/// The masses the transforms need, computed once (body-major, `lanes` systems): `m_k`, the
/// interior masses `eta_k = m_0 + ... + m_k`, `1 / eta_k` and `m_k / eta_k`.
#[derive(Debug, Clone)]
pub struct Masses {
    pub lanes: usize,
    pub m: Vec<f64>,
    pub eta: Vec<f64>,
    pub inv_eta: Vec<f64>,
    pub m_over_eta: Vec<f64>,
}

impl Masses {
    /// The masses of `lanes` systems from their body-major masses `m`.
    pub fn new(m: &[f64], lanes: usize) -> Self {
        let mut eta = m.to_vec();
        for k in lanes..m.len() {
            eta[k] = eta[k - lanes] + m[k];
        }
        Masses {
            lanes,
            inv_eta: eta.iter().map(|e| 1.0 / e).collect(),
            m_over_eta: m.iter().zip(&eta).map(|(m, e)| m / e).collect(),
            m: m.to_vec(),
            eta,
        }
    }

    /// Bodies per system.
    pub fn bodies(&self) -> usize {
        self.m.len() / self.lanes
    }

    /// System `s` alone.
    pub fn system(&self, s: usize) -> Masses {
        let take = |a: &[f64]| lane(a, s, self.lanes);
        Masses {
            lanes: 1,
            m: take(&self.m),
            eta: take(&self.eta),
            inv_eta: take(&self.inv_eta),
            m_over_eta: take(&self.m_over_eta),
        }
    }
}

/// System `s`'s values of a body-major array of `lanes` systems.
pub fn lane(a: &[f64], s: usize, lanes: usize) -> Vec<f64> {
    a.iter().skip(s).step_by(lanes).copied().collect()
}

/// Inertial vectors `w` (positions, velocities or accelerations) as Jacobi vectors in `out`
/// (slot 0: the mass-weighted mean, the centre of mass for positions).
pub fn to_jacobi(ms: &Masses, w: [&[f64]; 3], out: [&mut [f64]; 3]) {
    let (lanes, n, m) = (ms.lanes, ms.bodies(), &ms.m);
    for (w, out) in w.into_iter().zip(out) {
        // out[0..lanes] accumulates m_0 w_0 + ... + m_{k-1} w_{k-1} per system.
        for s in 0..lanes {
            out[s] = m[s] * w[s];
        }
        for k in 1..n {
            let (head, tail) = out.split_at_mut(k * lanes);
            let (sum, out_k) = (&mut head[..lanes], &mut tail[..lanes]);
            let body = k * lanes..(k + 1) * lanes;
            let (w_k, m_k) = (&w[body.clone()], &m[body]);
            let inv_before = &ms.inv_eta[(k - 1) * lanes..k * lanes];
            for s in 0..lanes {
                out_k[s] = w_k[s] - sum[s] * inv_before[s];
                sum[s] += m_k[s] * w_k[s];
            }
        }
        for s in 0..lanes {
            out[s] *= ms.inv_eta[(n - 1) * lanes + s];
        }
    }
}

/// Jacobi vectors `wj` back to inertial ones in `out`: from the whole system's mean `C_{n-1}`
/// (slot 0) down, `x_k = x'_k + C_{k-1}` with `C_{k-1} = C_k - m_k x'_k / eta_k`, and
/// `x_0 = C_0`.
pub fn from_jacobi(ms: &Masses, wj: [&[f64]; 3], out: [&mut [f64]; 3]) {
    let (lanes, n) = (ms.lanes, ms.bodies());
    for (wj, out) in wj.into_iter().zip(out) {
        // out[0..lanes] holds C_k per system while k goes down.
        out[..lanes].copy_from_slice(&wj[..lanes]);
        for k in (1..n).rev() {
            let (head, tail) = out.split_at_mut(k * lanes);
            let (c, out_k) = (&mut head[..lanes], &mut tail[..lanes]);
            let body = k * lanes..(k + 1) * lanes;
            let (wj_k, f_k) = (&wj[body.clone()], &ms.m_over_eta[body]);
            for s in 0..lanes {
                c[s] -= f_k[s] * wj_k[s];
                out_k[s] = wj_k[s] + c[s];
            }
        }
    }
}
