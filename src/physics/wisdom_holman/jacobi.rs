//! Jacobi coordinates (Wisdom & Holman 1991, section 3; Rein & Tamayo 2015, section 2.2): body i
//! is placed relative to the centre of mass of the bodies before it, `x'_i = x_i - C_{i-1}` with
//! `C_k = (m_0 x_0 + ... + m_k x_k) / eta_k` and `eta_k = m_0 + ... + m_k`; slot 0 holds the
//! centre of mass of the whole system. Velocities and accelerations transform the same way (the
//! map is linear and constant). Their one home: the map, its correctors and the outputs call
//! these functions.

/// The interior masses `eta_k = m_0 + ... + m_k` of masses `m`.
pub fn interior_masses(m: &[f64]) -> Vec<f64> {
    let mut eta = Vec::with_capacity(m.len());
    let mut sum = 0.0;
    for &mk in m {
        sum += mk;
        eta.push(sum);
    }
    eta
}

/// Inertial vectors `w` (positions, velocities or accelerations) of bodies with masses `m` as
/// Jacobi vectors in `out` (slot 0: the mass-weighted mean, the centre of mass for positions).
pub fn to_jacobi(m: &[f64], eta: &[f64], w: &[[f64; 3]], out: &mut [[f64; 3]]) {
    let n = m.len();
    if n == 0 {
        return;
    }
    // s = m_0 w_0 + ... + m_{i-1} w_{i-1}, the interior bodies' mass-weighted sum.
    let mut s = [m[0] * w[0][0], m[0] * w[0][1], m[0] * w[0][2]];
    for i in 1..n {
        let inv = 1.0 / eta[i - 1];
        for k in 0..3 {
            out[i][k] = w[i][k] - s[k] * inv;
            s[k] += m[i] * w[i][k];
        }
    }
    let inv = 1.0 / eta[n - 1];
    out[0] = [s[0] * inv, s[1] * inv, s[2] * inv];
}

/// Jacobi vectors `wj` back to inertial ones in `out`: from the whole system's mean `C_{n-1}`
/// (slot 0) down, `x_i = x'_i + C_{i-1}` with `C_{i-1} = C_i - m_i x'_i / eta_i`, and
/// `x_0 = C_0`.
pub fn from_jacobi(m: &[f64], eta: &[f64], wj: &[[f64; 3]], out: &mut [[f64; 3]]) {
    let n = m.len();
    if n == 0 {
        return;
    }
    let mut c = wj[0];
    for i in (1..n).rev() {
        let f = m[i] / eta[i];
        for k in 0..3 {
            c[k] -= f * wj[i][k];
            out[i][k] = wj[i][k] + c[k];
        }
    }
    out[0] = c;
}
