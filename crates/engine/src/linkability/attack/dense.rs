//! The dense layers the attack networks are built from, with their gradients written out (the
//! networks are small; hand-written backpropagation is faster in wasm than a tensor library's
//! graph, and `tests.rs` checks every gradient against finite differences), Keras' default
//! initialisation, and the two optimisers the paper names: SGD with momentum and decay for the
//! MLP, RMSProp for the Siamese network ([004] App. A).

use whereabouts_core::rng::Stream;

/// z = W x + b for each row; W is (outputs × inputs), row-major.
#[derive(Clone, Debug, PartialEq)]
pub struct Dense {
    pub inputs: usize,
    pub outputs: usize,
    pub w: Vec<f64>,
    pub b: Vec<f64>,
}

/// A gradient (or any per-parameter state) shaped like a [`Dense`].
#[derive(Clone, Debug, PartialEq)]
pub struct DenseGrad {
    pub w: Vec<f64>,
    pub b: Vec<f64>,
}

impl Dense {
    /// Glorot-uniform weights and zero biases (Keras' defaults; the paper trains in Keras).
    pub fn glorot(inputs: usize, outputs: usize, stream: &mut Stream) -> Self {
        let limit = (6.0 / (inputs + outputs) as f64).sqrt();
        Self {
            inputs,
            outputs,
            w: (0..inputs * outputs)
                .map(|_| stream.range(-limit, limit))
                .collect(),
            b: vec![0.0; outputs],
        }
    }

    pub fn zero_grad(&self) -> DenseGrad {
        DenseGrad {
            w: vec![0.0; self.w.len()],
            b: vec![0.0; self.b.len()],
        }
    }

    /// z for `rows` inputs laid out row-major in `x`.
    pub fn forward(&self, x: &[f64], rows: usize) -> Vec<f64> {
        let mut z = Vec::with_capacity(rows * self.outputs);
        for r in 0..rows {
            let xr = &x[r * self.inputs..(r + 1) * self.inputs];
            for o in 0..self.outputs {
                let wr = &self.w[o * self.inputs..(o + 1) * self.inputs];
                z.push(self.b[o] + dot(wr, xr));
            }
        }
        z
    }

    /// Adds ∂L/∂W and ∂L/∂b to `grad` given ∂L/∂z (`dz`, rows × outputs) and the inputs;
    /// returns ∂L/∂x when `want_dx`.
    pub fn backward(
        &self,
        x: &[f64],
        dz: &[f64],
        rows: usize,
        grad: &mut DenseGrad,
        want_dx: bool,
    ) -> Option<Vec<f64>> {
        let mut dx = want_dx.then(|| vec![0.0; rows * self.inputs]);
        for r in 0..rows {
            let xr = &x[r * self.inputs..(r + 1) * self.inputs];
            for o in 0..self.outputs {
                let d = dz[r * self.outputs + o];
                if d == 0.0 {
                    continue;
                }
                grad.b[o] += d;
                let wr = &self.w[o * self.inputs..(o + 1) * self.inputs];
                let gw = &mut grad.w[o * self.inputs..(o + 1) * self.inputs];
                for (g, &xi) in gw.iter_mut().zip(xr) {
                    *g += d * xi;
                }
                if let Some(dx) = dx.as_mut() {
                    let dxr = &mut dx[r * self.inputs..(r + 1) * self.inputs];
                    for (g, &wi) in dxr.iter_mut().zip(wr) {
                        *g += d * wi;
                    }
                }
            }
        }
        dx
    }
}

pub fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// ReLU in place.
pub fn relu(z: &mut [f64]) {
    for v in z {
        *v = v.max(0.0);
    }
}

/// Zeroes ∂L/∂z where the ReLU was off (`a` is the ReLU's output).
pub fn relu_back(da: &mut [f64], a: &[f64]) {
    for (d, &v) in da.iter_mut().zip(a) {
        if v <= 0.0 {
            *d = 0.0;
        }
    }
}

/// Inverted dropout (Keras semantics: kept units scaled by 1/(1 − p)); returns the mask so the
/// backward pass applies the same one.
pub fn dropout(a: &mut [f64], p: f64, stream: &mut Stream) -> Vec<f64> {
    let keep = 1.0 / (1.0 - p);
    let mask: Vec<f64> = (0..a.len())
        .map(|_| if stream.chance(p) { 0.0 } else { keep })
        .collect();
    for (v, m) in a.iter_mut().zip(&mask) {
        *v *= m;
    }
    mask
}

/// SGD with momentum and time-based decay, as Keras' `SGD(lr, momentum, decay)`:
/// lr_t = lr / (1 + decay·t), v ← μ v − lr_t g, θ ← θ + v.
#[derive(Clone, Debug)]
pub struct Momentum {
    pub learning_rate: f64,
    pub momentum: f64,
    pub decay: f64,
    iterations: u64,
    velocity: Vec<DenseGrad>,
}

impl Momentum {
    pub fn new(learning_rate: f64, momentum: f64, decay: f64, layers: &[&Dense]) -> Self {
        Self {
            learning_rate,
            momentum,
            decay,
            iterations: 0,
            velocity: layers.iter().map(|l| l.zero_grad()).collect(),
        }
    }

    pub fn step(&mut self, layers: &mut [&mut Dense], grads: &[DenseGrad]) {
        let lr = self.learning_rate / (1.0 + self.decay * self.iterations as f64);
        for ((layer, g), v) in layers.iter_mut().zip(grads).zip(&mut self.velocity) {
            for (p, (gi, vi)) in [
                (&mut layer.w, (&g.w, &mut v.w)),
                (&mut layer.b, (&g.b, &mut v.b)),
            ] {
                for ((pk, &gk), vk) in p.iter_mut().zip(gi.iter()).zip(vi.iter_mut()) {
                    *vk = self.momentum * *vk - lr * gk;
                    *pk += *vk;
                }
            }
        }
        self.iterations += 1;
    }
}

/// RMSProp as Keras: a ← ρ a + (1 − ρ) g², θ ← θ − lr·g / (√a + ε), with Keras' defaults
/// ρ = 0.9, ε = 1e-7.
#[derive(Clone, Debug)]
pub struct RmsProp {
    pub learning_rate: f64,
    pub rho: f64,
    pub epsilon: f64,
    average: Vec<DenseGrad>,
}

impl RmsProp {
    pub fn new(learning_rate: f64, layers: &[&Dense]) -> Self {
        Self {
            learning_rate,
            rho: 0.9,
            epsilon: 1e-7,
            average: layers.iter().map(|l| l.zero_grad()).collect(),
        }
    }

    pub fn step(&mut self, layers: &mut [&mut Dense], grads: &[DenseGrad]) {
        for ((layer, g), a) in layers.iter_mut().zip(grads).zip(&mut self.average) {
            for (p, (gi, ai)) in [
                (&mut layer.w, (&g.w, &mut a.w)),
                (&mut layer.b, (&g.b, &mut a.b)),
            ] {
                for ((pk, &gk), ak) in p.iter_mut().zip(gi.iter()).zip(ai.iter_mut()) {
                    *ak = self.rho * *ak + (1.0 - self.rho) * gk * gk;
                    *pk -= self.learning_rate * gk / (ak.sqrt() + self.epsilon);
                }
            }
        }
    }
}

/// The next mini-batch of a shuffled pass over `n` rows: the epoch's order and where it is.
#[derive(Clone, Debug)]
pub struct Batches {
    order: Vec<usize>,
    at: usize,
    pub size: usize,
    pub epoch: usize,
}

impl Batches {
    pub fn new(n: usize, size: usize) -> Self {
        Self {
            order: (0..n).collect(),
            at: n,
            size: size.max(1),
            epoch: 0,
        }
    }

    /// The next batch's row indices; a new shuffled epoch begins when one ends (Keras' `fit`
    /// shuffles every epoch). `epoch` counts the epochs begun.
    pub fn next(&mut self, stream: &mut Stream) -> &[usize] {
        if self.at >= self.order.len() {
            stream.shuffle(&mut self.order);
            self.at = 0;
            self.epoch += 1;
        }
        let start = self.at;
        self.at = (start + self.size).min(self.order.len());
        &self.order[start..self.at]
    }

    /// True when the current epoch has no batch left.
    pub fn epoch_done(&self) -> bool {
        self.at >= self.order.len()
    }
}
