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

/// The interior masses `eta_k = m_0 + ... + m_k` of masses `m` (body-major, `lanes` systems).
pub fn interior_masses(m: &[f64], lanes: usize) -> Vec<f64> {
    let mut eta = m.to_vec();
    for k in lanes..m.len() {
        eta[k] = eta[k - lanes] + m[k];
    }
    eta
}

/// Inertial vectors `w` (positions, velocities or accelerations) as Jacobi vectors in `out`
/// (slot 0: the mass-weighted mean, the centre of mass for positions).
pub fn to_jacobi(m: &[f64], eta: &[f64], w: [&[f64]; 3], out: [&mut [f64]; 3], lanes: usize) {
    let n = m.len() / lanes;
    for (w, out) in w.into_iter().zip(out) {
        // out[0..lanes] accumulates m_0 w_0 + ... + m_{k-1} w_{k-1} per system.
        for s in 0..lanes {
            out[s] = m[s] * w[s];
        }
        for k in 1..n {
            let (head, tail) = out.split_at_mut(k * lanes);
            let sum = &mut head[..lanes];
            for s in 0..lanes {
                let (i, p) = (k * lanes + s, (k - 1) * lanes + s);
                tail[s] = w[i] - sum[s] * (1.0 / eta[p]);
                sum[s] += m[i] * w[i];
            }
        }
        for s in 0..lanes {
            out[s] *= 1.0 / eta[(n - 1) * lanes + s];
        }
    }
}

/// Jacobi vectors `wj` back to inertial ones in `out`: from the whole system's mean `C_{n-1}`
/// (slot 0) down, `x_k = x'_k + C_{k-1}` with `C_{k-1} = C_k - m_k x'_k / eta_k`, and
/// `x_0 = C_0`.
pub fn from_jacobi(m: &[f64], eta: &[f64], wj: [&[f64]; 3], out: [&mut [f64]; 3], lanes: usize) {
    let n = m.len() / lanes;
    for (wj, out) in wj.into_iter().zip(out) {
        // out[0..lanes] holds C_k per system while k goes down.
        out[..lanes].copy_from_slice(&wj[..lanes]);
        for k in (1..n).rev() {
            let (head, tail) = out.split_at_mut(k * lanes);
            let c = &mut head[..lanes];
            for s in 0..lanes {
                let i = k * lanes + s;
                c[s] -= m[i] / eta[i] * wj[i];
                tail[s] = wj[i] + c[s];
            }
        }
    }
}
