//! The attack objective's derivative by reverse mode over reverse mode: what PyTorch's double
//! backward computes, written out for this LSTM.
//!
//! The objective is D(G(z)), with G the model's gradient for the unknowns z (the window and the
//! label). With A = ∂D/∂G taken at the current G (a constant), ∂D/∂z is the gradient of
//! S(z) = Σ A ⊙ G(z). S is computed by the forward pass and back-propagation through time, so
//! its gradient is one reverse sweep over both: the backward pass's steps in reverse (t = 0 … 7),
//! then the loss, then the forward pass's steps in reverse (t = 7 … 0). It costs a few times one
//! gradient, against [`crate::mobility::objective::evaluate`]'s 18 tangents on every number,
//! which stays as the reference the tests hold this one to.
//!
//! Notation as in [`crate::mobility::lstm`]: z_t = W_ih x_t + b + W_hh h_{t−1}; gates i, f, g, o;
//! c_t = f c_{t−1} + i g; τ_t = tanh c_t; h_t = o τ_t; out = V h_7 + b_V; and the backward pass
//! dc'_t = dc_t + dh_t o (1 − τ²), di = dc' g, dg = dc' i, df = dc' c_{t−1}, do = dh_t τ,
//! dc_{t−1} = dc' f, dz_t = (di i(1−i), df f(1−f), dg (1−g²), do o(1−o)), dh_{t−1} = W_hhᵀ dz_t.
//! A bar is an adjoint, ∂S/∂·.

use super::lstm::{
    B_HH, B_IH, FC_B, FC_W, HIDDEN, INPUT, OUTPUT, PARAMETERS, W_HH, W_IH, WINDOW, Window,
};
use super::objective::{Distance, Evaluation, Observed, UNKNOWNS, cotangent};
use super::scalar::sigmoid;

const GATES: usize = 4 * HIDDEN;
const H: usize = HIDDEN;

/// Everything the forward pass and the backward pass computed, per step.
#[derive(Clone, Copy)]
struct Tape {
    i: [f32; H],
    f: [f32; H],
    g: [f32; H],
    o: [f32; H],
    c: [f32; H],
    tau: [f32; H],
    h: [f32; H],
    /// The backward pass at this step: dh_t, dc'_t and dz_t.
    dh: [f32; H],
    dcp: [f32; H],
    dz: [f32; GATES],
}

const ZERO_STEP: Tape = Tape {
    i: [0.0; H],
    f: [0.0; H],
    g: [0.0; H],
    o: [0.0; H],
    c: [0.0; H],
    tau: [0.0; H],
    h: [0.0; H],
    dh: [0.0; H],
    dcp: [0.0; H],
    dz: [0.0; GATES],
};

/// The objective and its derivative with respect to the window and (if `label_free`) the label;
/// the same numbers as [`crate::mobility::objective::evaluate`] up to f32 rounding.
pub fn evaluate(
    p: &[f32],
    observed: &Observed,
    distance: Distance,
    x: &Window<f32>,
    y: &[f32; OUTPUT],
    label_free: bool,
) -> Evaluation {
    assert_eq!(p.len(), PARAMETERS, "LSTM parameters");
    let mut tape = [ZERO_STEP; WINDOW];
    // Forward.
    let zero = [0.0f32; H];
    for t in 0..WINDOW {
        let (h_prev, c_prev) = if t > 0 {
            (tape[t - 1].h, tape[t - 1].c)
        } else {
            (zero, zero)
        };
        let s = &mut tape[t];
        let mut z = [0.0f32; GATES];
        for (r, zr) in z.iter_mut().enumerate() {
            let mut acc = p[B_IH + r] + p[B_HH + r];
            for k in 0..INPUT {
                acc += x[t][k] * p[W_IH + r * INPUT + k];
            }
            for j in 0..H {
                acc += h_prev[j] * p[W_HH + r * H + j];
            }
            *zr = acc;
        }
        for j in 0..H {
            s.i[j] = sigmoid(z[j]);
            s.f[j] = sigmoid(z[H + j]);
            s.g[j] = libm::tanhf(z[2 * H + j]);
            s.o[j] = sigmoid(z[3 * H + j]);
            s.c[j] = s.f[j] * c_prev[j] + s.i[j] * s.g[j];
            s.tau[j] = libm::tanhf(s.c[j]);
            s.h[j] = s.o[j] * s.tau[j];
        }
    }
    let h7 = tape[WINDOW - 1].h;
    let mut dout = [0.0f32; OUTPUT];
    let kappa = 2.0 / OUTPUT as f32;
    for k in 0..OUTPUT {
        let mut out = p[FC_B + k];
        for j in 0..H {
            out += h7[j] * p[FC_W + k * H + j];
        }
        dout[k] = (out - y[k]) * kappa;
    }
    // Backward: the model's gradient G, keeping dh, dc' and dz per step.
    let mut grad = vec![0.0f32; PARAMETERS];
    let mut dh = [0.0f32; H];
    for k in 0..OUTPUT {
        grad[FC_B + k] = dout[k];
        for j in 0..H {
            grad[FC_W + k * H + j] = dout[k] * h7[j];
            dh[j] += dout[k] * p[FC_W + k * H + j];
        }
    }
    let mut dc = [0.0f32; H];
    for t in (0..WINDOW).rev() {
        let c_prev = if t > 0 { tape[t - 1].c } else { zero };
        let h_prev = if t > 0 { tape[t - 1].h } else { zero };
        let s = &mut tape[t];
        s.dh = dh;
        for j in 0..H {
            let d_o = dh[j] * s.tau[j];
            let dcp = dc[j] + dh[j] * s.o[j] * (1.0 - s.tau[j] * s.tau[j]);
            s.dcp[j] = dcp;
            dc[j] = dcp * s.f[j];
            s.dz[j] = dcp * s.g[j] * s.i[j] * (1.0 - s.i[j]);
            s.dz[H + j] = dcp * c_prev[j] * s.f[j] * (1.0 - s.f[j]);
            s.dz[2 * H + j] = dcp * s.i[j] * (1.0 - s.g[j] * s.g[j]);
            s.dz[3 * H + j] = d_o * s.o[j] * (1.0 - s.o[j]);
        }
        let mut dh_prev = [0.0f32; H];
        for r in 0..GATES {
            let dzr = s.dz[r];
            grad[B_IH + r] += dzr;
            grad[B_HH + r] += dzr;
            for k in 0..INPUT {
                grad[W_IH + r * INPUT + k] += dzr * x[t][k];
            }
            for j in 0..H {
                grad[W_HH + r * H + j] += dzr * h_prev[j];
                dh_prev[j] += dzr * p[W_HH + r * H + j];
            }
        }
        dh = dh_prev;
    }
    // The distance and A = ∂D/∂G.
    let (value, a) = cotangent(&grad, observed, distance);

    // Reverse sweep of S = Σ A ⊙ G. Adjoints of the primal values, accumulated over both
    // phases: of every step's gates, τ, c and h; and of the unknowns.
    let mut bar_x = [[0.0f32; INPUT]; WINDOW];
    let mut bar_i = [[0.0f32; H]; WINDOW];
    let mut bar_f = [[0.0f32; H]; WINDOW];
    let mut bar_g = [[0.0f32; H]; WINDOW];
    let mut bar_o = [[0.0f32; H]; WINDOW];
    let mut bar_tau = [[0.0f32; H]; WINDOW];
    let mut bar_c = [[0.0f32; H]; WINDOW];
    let mut bar_h = [[0.0f32; H]; WINDOW];
    // The backward pass in reverse: t = 0 … 7. bar_dh_prev, bar_dc_prev are the adjoints of
    // dh_{t−1}, dc_{t−1}, which step t produced (none for t = 0: they were not used).
    let mut bar_dh_prev = [0.0f32; H];
    let mut bar_dc_prev = [0.0f32; H];
    for t in 0..WINDOW {
        let s = &tape[t];
        let c_prev = if t > 0 { tape[t - 1].c } else { zero };
        let h_prev = if t > 0 { tape[t - 1].h } else { zero };
        // S's terms at this step: Σ_r dz_r (A_Wih[r]·x_t + A_b[r] + A_Whh[r]·h_{t−1}), and
        // dh_{t−1} = W_hhᵀ dz.
        let mut bar_dz = [0.0f32; GATES];
        for r in 0..GATES {
            let mut q = a[B_IH + r] + a[B_HH + r];
            for k in 0..INPUT {
                q += a[W_IH + r * INPUT + k] * x[t][k];
                bar_x[t][k] += s.dz[r] * a[W_IH + r * INPUT + k];
            }
            for j in 0..H {
                q += a[W_HH + r * H + j] * h_prev[j] + p[W_HH + r * H + j] * bar_dh_prev[j];
            }
            bar_dz[r] = q;
        }
        if t > 0 {
            for j in 0..H {
                let mut acc = 0.0;
                for r in 0..GATES {
                    acc += s.dz[r] * a[W_HH + r * H + j];
                }
                bar_h[t - 1][j] += acc;
            }
        }
        let mut bar_dh = [0.0f32; H];
        let mut bar_dc = [0.0f32; H];
        for j in 0..H {
            let (i, f, g, o, tau) = (s.i[j], s.f[j], s.g[j], s.o[j], s.tau[j]);
            let dcp = s.dcp[j];
            let (di, dg, df, d_o) = (dcp * g, dcp * i, dcp * c_prev[j], s.dh[j] * tau);
            // dz = (di i(1−i), df f(1−f), dg (1−g²), do o(1−o)).
            let (bzi, bzf, bzg, bzo) = (
                bar_dz[j],
                bar_dz[H + j],
                bar_dz[2 * H + j],
                bar_dz[3 * H + j],
            );
            let bar_di = bzi * i * (1.0 - i);
            bar_i[t][j] += bzi * di * (1.0 - 2.0 * i);
            let bar_df = bzf * f * (1.0 - f);
            bar_f[t][j] += bzf * df * (1.0 - 2.0 * f);
            let bar_dg = bzg * (1.0 - g * g);
            bar_g[t][j] += bzg * dg * (-2.0 * g);
            let bar_do = bzo * o * (1.0 - o);
            bar_o[t][j] += bzo * d_o * (1.0 - 2.0 * o);
            // dc_{t−1} = dc' f; df = dc' c_{t−1}; dg = dc' i; di = dc' g.
            let bar_dcp = bar_dc_prev[j] * f + bar_df * c_prev[j] + bar_dg * i + bar_di * g;
            bar_f[t][j] += bar_dc_prev[j] * dcp;
            if t > 0 {
                bar_c[t - 1][j] += bar_df * dcp;
            }
            bar_i[t][j] += bar_dg * dcp;
            bar_g[t][j] += bar_di * dcp;
            // dc' = dc_t + dh_t o (1 − τ²); do = dh_t τ.
            let one_tau = 1.0 - tau * tau;
            bar_dc[j] = bar_dcp;
            bar_dh[j] = bar_dcp * o * one_tau + bar_do * tau;
            bar_o[t][j] += bar_dcp * s.dh[j] * one_tau;
            bar_tau[t][j] += bar_dcp * s.dh[j] * o * (-2.0 * tau) + bar_do * s.dh[j];
        }
        bar_dh_prev = bar_dh;
        bar_dc_prev = bar_dc;
    }
    // dh_7 = Vᵀ dout, and S's terms A_V · (dout h_7ᵀ) + A_bV · dout.
    let mut bar_dout = [0.0f32; OUTPUT];
    for k in 0..OUTPUT {
        let mut acc = a[FC_B + k];
        for j in 0..H {
            acc += p[FC_W + k * H + j] * bar_dh_prev[j] + a[FC_W + k * H + j] * h7[j];
            bar_h[WINDOW - 1][j] += dout[k] * a[FC_W + k * H + j];
        }
        bar_dout[k] = acc;
    }
    // dout = κ (out − y); out = V h_7 + b_V.
    let mut bar_y = [0.0f32; OUTPUT];
    for k in 0..OUTPUT {
        let bar_out = kappa * bar_dout[k];
        bar_y[k] = -bar_out;
        for j in 0..H {
            bar_h[WINDOW - 1][j] += p[FC_W + k * H + j] * bar_out;
        }
    }
    // The forward pass in reverse: t = 7 … 0.
    for t in (0..WINDOW).rev() {
        let s = &tape[t];
        let c_prev = if t > 0 { tape[t - 1].c } else { zero };
        let mut bar_z = [0.0f32; GATES];
        for j in 0..H {
            // h = o τ; τ = tanh c; c = f c_{t−1} + i g.
            let bo = bar_o[t][j] + bar_h[t][j] * s.tau[j];
            let btau = bar_tau[t][j] + bar_h[t][j] * s.o[j];
            let bc = bar_c[t][j] + btau * (1.0 - s.tau[j] * s.tau[j]);
            let bf = bar_f[t][j] + bc * c_prev[j];
            let bi = bar_i[t][j] + bc * s.g[j];
            let bg = bar_g[t][j] + bc * s.i[j];
            if t > 0 {
                bar_c[t - 1][j] += bc * s.f[j];
            }
            bar_z[j] = bi * s.i[j] * (1.0 - s.i[j]);
            bar_z[H + j] = bf * s.f[j] * (1.0 - s.f[j]);
            bar_z[2 * H + j] = bg * (1.0 - s.g[j] * s.g[j]);
            bar_z[3 * H + j] = bo * s.o[j] * (1.0 - s.o[j]);
        }
        for r in 0..GATES {
            for k in 0..INPUT {
                bar_x[t][k] += p[W_IH + r * INPUT + k] * bar_z[r];
            }
            if t > 0 {
                for j in 0..H {
                    bar_h[t - 1][j] += p[W_HH + r * H + j] * bar_z[r];
                }
            }
        }
    }
    let mut gradient = [0.0f32; UNKNOWNS];
    for t in 0..WINDOW {
        for k in 0..INPUT {
            gradient[t * INPUT + k] = bar_x[t][k];
        }
    }
    if label_free {
        gradient[WINDOW * INPUT..].copy_from_slice(&bar_y);
    }
    Evaluation { value, gradient }
}
