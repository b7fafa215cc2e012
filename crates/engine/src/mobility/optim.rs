//! The attack's L-BFGS over the unknowns, as PyTorch's (`torch.optim.LBFGS` with its defaults
//! and no line search — what the authors' code runs, lr 0.01). It keeps its state across steps,
//! as PyTorch's does, so a step after the road mapping moved the dummy carries on from where it
//! was. InvGrad's Adam is the core's ([`whereabouts_core::optim::Adam`]), kept the same way.

use super::objective::UNKNOWNS;

pub type Point = [f32; UNKNOWNS];

fn dot(a: &Point, b: &Point) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// `torch.optim.LBFGS(lr, max_iter=20, max_eval=25, tolerance_grad=1e-7,
/// tolerance_change=1e-9, history_size=100, line_search_fn=None)`.
#[derive(Clone, Debug)]
pub struct Lbfgs {
    pub lr: f32,
    max_iter: usize,
    max_eval: usize,
    history: usize,
    n_iter: usize,
    d: Point,
    t: f32,
    old_dirs: Vec<Point>,
    old_stps: Vec<Point>,
    ro: Vec<f32>,
    h_diag: f32,
    prev_flat_grad: Point,
}

const TOLERANCE_GRAD: f32 = 1e-7;
const TOLERANCE_CHANGE: f32 = 1e-9;

impl Lbfgs {
    pub fn new(lr: f32) -> Self {
        Lbfgs {
            lr,
            max_iter: 20,
            max_eval: 25,
            history: 100,
            n_iter: 0,
            d: [0.0; UNKNOWNS],
            t: 0.0,
            old_dirs: Vec::new(),
            old_stps: Vec::new(),
            ro: Vec::new(),
            h_diag: 1.0,
            prev_flat_grad: [0.0; UNKNOWNS],
        }
    }

    /// One `step(closure)`: up to 20 inner iterations, each an evaluation of `f` (value and
    /// gradient); returns the value at the start and how many evaluations it made.
    pub fn step(
        &mut self,
        x: &mut Point,
        f: &mut dyn FnMut(&Point) -> (f32, Point),
    ) -> (f32, usize) {
        let (orig_loss, mut flat_grad) = f(x);
        let mut loss = orig_loss;
        let mut evals = 1;
        if flat_grad.iter().all(|g| g.abs() <= TOLERANCE_GRAD) {
            return (orig_loss, evals);
        }
        let mut n_iter = 0;
        while n_iter < self.max_iter {
            n_iter += 1;
            self.n_iter += 1;
            if self.n_iter == 1 {
                self.d = flat_grad.map(|g| -g);
                self.old_dirs.clear();
                self.old_stps.clear();
                self.ro.clear();
                self.h_diag = 1.0;
            } else {
                let y: Point = std::array::from_fn(|i| flat_grad[i] - self.prev_flat_grad[i]);
                let s: Point = self.d.map(|d| d * self.t);
                let ys = dot(&y, &s);
                if ys > 1e-10 {
                    if self.old_dirs.len() == self.history {
                        self.old_dirs.remove(0);
                        self.old_stps.remove(0);
                        self.ro.remove(0);
                    }
                    self.old_dirs.push(y);
                    self.old_stps.push(s);
                    self.ro.push(1.0 / ys);
                    self.h_diag = ys / dot(&y, &y);
                }
                let n = self.old_dirs.len();
                let mut al = vec![0.0f32; n];
                let mut q: Point = flat_grad.map(|g| -g);
                for i in (0..n).rev() {
                    al[i] = dot(&self.old_stps[i], &q) * self.ro[i];
                    for (qk, yk) in q.iter_mut().zip(&self.old_dirs[i]) {
                        *qk -= al[i] * yk;
                    }
                }
                let mut r: Point = q.map(|v| v * self.h_diag);
                for (i, al_i) in al.iter().enumerate() {
                    let be_i = dot(&self.old_dirs[i], &r) * self.ro[i];
                    for (rk, sk) in r.iter_mut().zip(&self.old_stps[i]) {
                        *rk += sk * (al_i - be_i);
                    }
                }
                self.d = r;
            }
            self.prev_flat_grad = flat_grad;
            let prev_loss = loss;
            self.t = if self.n_iter == 1 {
                let l1: f32 = flat_grad.iter().map(|g| g.abs()).sum();
                (1.0f32).min(1.0 / l1) * self.lr
            } else {
                self.lr
            };
            let gtd = dot(&flat_grad, &self.d);
            if gtd > -TOLERANCE_CHANGE {
                break;
            }
            for (xk, dk) in x.iter_mut().zip(&self.d) {
                *xk += self.t * dk;
            }
            if n_iter != self.max_iter {
                (loss, flat_grad) = f(x);
                evals += 1;
            }
            if n_iter == self.max_iter || evals >= self.max_eval {
                break;
            }
            if flat_grad.iter().all(|g| g.abs() <= TOLERANCE_GRAD) {
                break;
            }
            if self
                .d
                .iter()
                .all(|d| (d * self.t).abs() <= TOLERANCE_CHANGE)
            {
                break;
            }
            if (loss - prev_loss).abs() < TOLERANCE_CHANGE {
                break;
            }
        }
        (orig_loss, evals)
    }
}
