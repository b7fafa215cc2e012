//! The next-location model of [002]: an LSTM over a window of `WINDOW` = 8 positions (one layer,
//! 2 inputs, `HIDDEN` = 16 units, zero initial state) and a linear layer from its last hidden
//! state to the next position, trained on the mean squared error (the authors' code; the paper
//! says only "LSTM", docs/papers.md). Positions are (latitude, longitude) min-max normalised per
//! user to [0, 1].
//!
//! The parameters are one flat vector in PyTorch's order and gate order (input, forget, cell,
//! output), so a window's gradient here is the gradient `torch.autograd.grad` gives for
//! `nn.LSTM(2, 16, batch_first=True)` + `nn.Linear(16, 2)`:
//! W_ih (64×2) | W_hh (64×16) | b_ih (64) | b_hh (64) | fc.W (2×16) | fc.b (2), 1,314 numbers.
//!
//! [`loss_and_gradient`] is the forward pass and back-propagation through time, written once for
//! any [`Scalar`]: on `f32` it is what a phone computes; on dual numbers it also gives how that
//! gradient moves with the window and label, which the attack needs.

use super::scalar::Scalar;
use whereabouts_core::rng::Stream;

pub const INPUT: usize = 2;
pub const HIDDEN: usize = 16;
pub const OUTPUT: usize = 2;
pub const WINDOW: usize = 8;
const GATES: usize = 4 * HIDDEN;

/// Where each tensor starts in the flat parameter vector.
pub const W_IH: usize = 0;
pub const W_HH: usize = W_IH + GATES * INPUT;
pub const B_IH: usize = W_HH + GATES * HIDDEN;
pub const B_HH: usize = B_IH + GATES;
pub const FC_W: usize = B_HH + GATES;
pub const FC_B: usize = FC_W + OUTPUT * HIDDEN;
pub const PARAMETERS: usize = FC_B + OUTPUT;

/// One parameter tensor: where it starts, and its rows × columns (a vector is one row).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tensor {
    pub start: usize,
    pub rows: usize,
    pub cols: usize,
    /// A bias vector (PyTorch's distances treat it as one row).
    pub vector: bool,
}

impl Tensor {
    pub fn len(&self) -> usize {
        self.rows * self.cols
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The model's tensors in order.
pub const TENSORS: [Tensor; 6] = [
    Tensor {
        start: W_IH,
        rows: GATES,
        cols: INPUT,
        vector: false,
    },
    Tensor {
        start: W_HH,
        rows: GATES,
        cols: HIDDEN,
        vector: false,
    },
    Tensor {
        start: B_IH,
        rows: 1,
        cols: GATES,
        vector: true,
    },
    Tensor {
        start: B_HH,
        rows: 1,
        cols: GATES,
        vector: true,
    },
    Tensor {
        start: FC_W,
        rows: OUTPUT,
        cols: HIDDEN,
        vector: false,
    },
    Tensor {
        start: FC_B,
        rows: 1,
        cols: OUTPUT,
        vector: true,
    },
];

/// A window of positions and the next one.
pub type Window<S> = [[S; INPUT]; WINDOW];

/// Fresh parameters as PyTorch draws them: every LSTM tensor U(−1/√16, 1/√16); the linear layer's
/// weight and bias U(−1/√16, 1/√16) (its fan-in is 16).
pub fn init(stream: &mut Stream) -> Vec<f32> {
    let bound = 1.0 / (HIDDEN as f64).sqrt();
    (0..PARAMETERS)
        .map(|_| stream.range(-bound, bound) as f32)
        .collect()
}

/// What the forward pass keeps for the backward one, per step.
struct Step<S> {
    i: [S; HIDDEN],
    f: [S; HIDDEN],
    g: [S; HIDDEN],
    o: [S; HIDDEN],
    /// The cell state after the step, and its tanh.
    c: [S; HIDDEN],
    tc: [S; HIDDEN],
    /// The hidden state after the step.
    h: [S; HIDDEN],
}

/// The forward pass: every step's gates and states, and the prediction.
fn forward<S: Scalar>(params: &[f32], window: &Window<S>) -> (Vec<Step<S>>, [S; OUTPUT]) {
    let mut steps: Vec<Step<S>> = Vec::with_capacity(WINDOW);
    let mut h = [S::zero(); HIDDEN];
    let mut c = [S::zero(); HIDDEN];
    for x in window {
        let mut z = [S::zero(); GATES];
        for (r, zr) in z.iter_mut().enumerate() {
            let mut acc = S::constant(params[B_IH + r] + params[B_HH + r]);
            for k in 0..INPUT {
                acc = acc.add_scaled(x[k], params[W_IH + r * INPUT + k]);
            }
            let w = &params[W_HH + r * HIDDEN..W_HH + (r + 1) * HIDDEN];
            for (hj, &wj) in h.iter().zip(w) {
                acc = acc.add_scaled(*hj, wj);
            }
            *zr = acc;
        }
        let mut s = Step {
            i: [S::zero(); HIDDEN],
            f: [S::zero(); HIDDEN],
            g: [S::zero(); HIDDEN],
            o: [S::zero(); HIDDEN],
            c: [S::zero(); HIDDEN],
            tc: [S::zero(); HIDDEN],
            h: [S::zero(); HIDDEN],
        };
        for j in 0..HIDDEN {
            s.i[j] = z[j].sigmoid();
            s.f[j] = z[HIDDEN + j].sigmoid();
            s.g[j] = z[2 * HIDDEN + j].tanh();
            s.o[j] = z[3 * HIDDEN + j].sigmoid();
            s.c[j] = s.f[j] * c[j] + s.i[j] * s.g[j];
            s.tc[j] = s.c[j].tanh();
            s.h[j] = s.o[j] * s.tc[j];
        }
        h = s.h;
        c = s.c;
        steps.push(s);
    }
    let mut out = [S::zero(); OUTPUT];
    for (k, ok) in out.iter_mut().enumerate() {
        let mut acc = S::constant(params[FC_B + k]);
        for j in 0..HIDDEN {
            acc = acc.add_scaled(h[j], params[FC_W + k * HIDDEN + j]);
        }
        *ok = acc;
    }
    (steps, out)
}

/// The model's prediction of the next position.
pub fn predict(params: &[f32], window: &Window<f32>) -> [f32; OUTPUT] {
    forward(params, window).1
}

/// The model's prediction for any scalar (dual numbers carry its derivative with respect to
/// the window: CPL's output-matching term needs it).
pub fn output<S: Scalar>(params: &[f32], window: &Window<S>) -> [S; OUTPUT] {
    forward(params, window).1
}

/// The mean squared error of the prediction against `label` (PyTorch's `MSELoss`, the mean over
/// the two coordinates) and its gradient with respect to every parameter, by
/// back-propagation through time.
pub fn loss_and_gradient<S: Scalar>(
    params: &[f32],
    window: &Window<S>,
    label: &[S; OUTPUT],
) -> (S, Vec<S>) {
    assert_eq!(params.len(), PARAMETERS, "LSTM parameters");
    let (steps, out) = forward(params, window);
    let mut grad = vec![S::zero(); PARAMETERS];
    // L = ½ Σ_k (out_k − y_k)², so ∂L/∂out_k = out_k − y_k.
    let mut loss = S::zero();
    let mut dout = [S::zero(); OUTPUT];
    for k in 0..OUTPUT {
        let e = out[k] - label[k];
        loss += (e * e).scale(1.0 / OUTPUT as f32);
        dout[k] = e.scale(2.0 / OUTPUT as f32);
    }
    let last = &steps[WINDOW - 1].h;
    let mut dh = [S::zero(); HIDDEN];
    for k in 0..OUTPUT {
        grad[FC_B + k] = dout[k];
        for j in 0..HIDDEN {
            grad[FC_W + k * HIDDEN + j] = dout[k] * last[j];
            dh[j] = dh[j].add_scaled(dout[k], params[FC_W + k * HIDDEN + j]);
        }
    }
    let mut dc = [S::zero(); HIDDEN];
    for t in (0..WINDOW).rev() {
        let s = &steps[t];
        let zero = [S::zero(); HIDDEN];
        let (c_prev, h_prev) = if t > 0 {
            (&steps[t - 1].c, &steps[t - 1].h)
        } else {
            (&zero, &zero)
        };
        let one = S::constant(1.0);
        let mut dz = [S::zero(); GATES];
        for j in 0..HIDDEN {
            let d_o = dh[j] * s.tc[j];
            let dcj = dc[j] + dh[j] * s.o[j] * (one - s.tc[j] * s.tc[j]);
            let di = dcj * s.g[j];
            let dg = dcj * s.i[j];
            let df = dcj * c_prev[j];
            dc[j] = dcj * s.f[j];
            dz[j] = di * s.i[j] * (one - s.i[j]);
            dz[HIDDEN + j] = df * s.f[j] * (one - s.f[j]);
            dz[2 * HIDDEN + j] = dg * (one - s.g[j] * s.g[j]);
            dz[3 * HIDDEN + j] = d_o * s.o[j] * (one - s.o[j]);
        }
        let x = &window[t];
        let mut dh_prev = [S::zero(); HIDDEN];
        for (r, &dzr) in dz.iter().enumerate() {
            grad[B_IH + r] += dzr;
            grad[B_HH + r] += dzr;
            for k in 0..INPUT {
                grad[W_IH + r * INPUT + k] += dzr * x[k];
            }
            let w = &params[W_HH + r * HIDDEN..W_HH + (r + 1) * HIDDEN];
            for j in 0..HIDDEN {
                grad[W_HH + r * HIDDEN + j] += dzr * h_prev[j];
                dh_prev[j] = dh_prev[j].add_scaled(dzr, w[j]);
            }
        }
        dh = dh_prev;
    }
    (loss, grad)
}
