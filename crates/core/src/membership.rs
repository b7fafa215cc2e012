//! Membership inference on aggregate location data: the game of Pyrgelis, Troncoso and De
//! Cristofaro (*Knock Knock, Who's There? Membership Inference on Aggregate Location Data*,
//! NDSS 2018), with the classifier of the authors' and ZK_MIA's code (logistic regression on the
//! aggregates' standardised counts, scored by AUC).
//!
//! An aggregate is, for a group of m people, how many of them were in each region of interest
//! during each time epoch (a *feature*: the pair). The adversary knows the target's own
//! features and a reference set of other people's; it makes aggregates of reference groups
//! with and without the target, trains a classifier to tell them apart, and is scored on the
//! aggregates actually released — groups drawn from the people it does not know, half with the
//! target. AUC 0.5 is a coin; 1 is certainty.
//!
//! The defence is the aggregate's own user-level differential privacy: each person's marks are
//! capped at `cap` (a random `cap` of them kept), so adding or removing the target changes at
//! most `cap` counts by one, and Laplace noise of scale cap/ε on every count makes the release
//! ε-DP for a person (per release, δ = 0). The adversary knows the mechanism and trains on
//! noised aggregates too ("an adversary that mimics the defence"). The choices the paper leaves
//! open are docs/papers.md §3k.

use crate::rng::Stream;

/// One game's settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Game {
    /// People in a group, m (the target counted when in).
    pub group: usize,
    /// Aggregates the adversary trains on, and released aggregates it is scored on (each half
    /// with the target).
    pub train: usize,
    pub test: usize,
    /// The most features a person contributes to one aggregate (the DP bound).
    pub cap: usize,
    /// The release's user-level ε (Laplace noise cap/ε on each count); `None`: exact counts.
    pub epsilon: Option<f64>,
}

impl Game {
    /// Checks the game against `people` (the target and everyone else) and names what is wrong.
    pub fn validate(&self, people: usize) -> Result<(), String> {
        // Half of the others are the adversary's, half are released; a group is drawn from
        // either half and may take at most half of it (a group that is nearly the whole half
        // is nearly the same group every time: its count would give the target away for that
        // reason alone).
        let most = people.saturating_sub(1) / 4;
        if self.group < 2 || self.group > most {
            return Err(format!(
                "membership: the group must be from 2 to {most} people, a quarter of the {} others (not {})",
                people.saturating_sub(1),
                self.group
            ));
        }
        if self.train < 4 || self.test < 4 {
            return Err(format!(
                "membership: at least 4 aggregates to train on and to test (not {} and {})",
                self.train, self.test
            ));
        }
        if self.cap == 0 {
            return Err("membership: the cap must be at least one feature a person (not 0)".into());
        }
        if let Some(e) = self.epsilon
            && !(e.is_finite() && e > 0.0)
        {
            return Err(format!("membership: ε must be a positive number (not {e})"));
        }
        Ok(())
    }
}

/// The area under the ROC curve of `scores` for `labels` (the Mann–Whitney statistic: the
/// chance a random member scores above a random non-member, ties half); `None` without both.
pub fn auc(scores: &[f64], labels: &[bool]) -> Option<f64> {
    let pos: Vec<f64> = scores
        .iter()
        .zip(labels)
        .filter(|(_, l)| **l)
        .map(|(s, _)| *s)
        .collect();
    let neg: Vec<f64> = scores
        .iter()
        .zip(labels)
        .filter(|(_, l)| !**l)
        .map(|(s, _)| *s)
        .collect();
    if pos.is_empty() || neg.is_empty() {
        return None;
    }
    let mut wins = 0.0;
    for p in &pos {
        for n in &neg {
            wins += if p > n {
                1.0
            } else if p == n {
                0.5
            } else {
                0.0
            };
        }
    }
    Some(wins / (pos.len() * neg.len()) as f64)
}

/// Logistic regression with an L2 penalty on standardised features, by gradient descent (the
/// penalty and steps are docs/papers.md §3k's).
#[derive(Clone, Debug, PartialEq)]
pub struct Logistic {
    mean: Vec<f64>,
    scale: Vec<f64>,
    weights: Vec<f64>,
    bias: f64,
}

/// The L2 penalty λ (on the mean log-loss) and the descent's step and iterations.
const L2: f64 = 0.01;
const STEP: f64 = 0.5;
const ITERATIONS: usize = 300;

fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

impl Logistic {
    /// Fits `x` (rows of equal length) to `y`.
    pub fn fit(x: &[Vec<f64>], y: &[bool]) -> Logistic {
        let n = x.len().max(1) as f64;
        let d = x.first().map_or(0, Vec::len);
        let mut mean = vec![0.0; d];
        for row in x {
            for (m, v) in mean.iter_mut().zip(row) {
                *m += v / n;
            }
        }
        let mut scale = vec![0.0; d];
        for row in x {
            for ((s, v), m) in scale.iter_mut().zip(row).zip(&mean) {
                *s += (v - m).powi(2) / n;
            }
        }
        // A feature that never varies is left at 0 (scale 1: nothing to learn from it).
        let scale: Vec<f64> = scale
            .into_iter()
            .map(|v| if v > 1e-12 { v.sqrt() } else { 1.0 })
            .collect();
        let mut model = Logistic {
            mean,
            scale,
            weights: vec![0.0; d],
            bias: 0.0,
        };
        // A feature that is 0 in every row (nobody of these groups was there then) has mean 0,
        // standardised value 0 and gradient 0: its weight stays 0, so the descent skips it —
        // the same model, bit for bit, in a fraction of the time (most of the 840 (place, epoch)
        // pairs are empty in a few hundred groups).
        let active: Vec<usize> = (0..d)
            .filter(|&j| x.iter().any(|row| row[j] != 0.0))
            .collect();
        let z: Vec<Vec<f64>> = x
            .iter()
            .map(|row| {
                let z = model.standardise(row);
                active.iter().map(|&j| z[j]).collect()
            })
            .collect();
        let mut w = vec![0.0; active.len()];
        for _ in 0..ITERATIONS {
            let mut grad = vec![0.0; active.len()];
            let mut grad_b = 0.0;
            for (row, &label) in z.iter().zip(y) {
                let linear = model.bias + row.iter().zip(&w).map(|(a, b)| a * b).sum::<f64>();
                let p = sigmoid(linear);
                let err = p - if label { 1.0 } else { 0.0 };
                for (g, v) in grad.iter_mut().zip(row) {
                    *g += err * v / n;
                }
                grad_b += err / n;
            }
            for (w, g) in w.iter_mut().zip(&grad) {
                *w -= STEP * (g + L2 * *w);
            }
            model.bias -= STEP * grad_b;
        }
        for (&j, w) in active.iter().zip(w) {
            model.weights[j] = w;
        }
        model
    }

    fn standardise(&self, row: &[f64]) -> Vec<f64> {
        row.iter()
            .zip(&self.mean)
            .zip(&self.scale)
            .map(|((v, m), s)| (v - m) / s)
            .collect()
    }

    fn linear(&self, z: &[f64]) -> f64 {
        self.bias + z.iter().zip(&self.weights).map(|(a, b)| a * b).sum::<f64>()
    }

    /// The chance that `row` is an aggregate with the target.
    pub fn score(&self, row: &[f64]) -> f64 {
        sigmoid(self.linear(&self.standardise(row)))
    }
}

/// A Laplace draw of scale `b`.
fn laplace(b: f64, s: &mut Stream) -> f64 {
    let u = s.uniform() - 0.5;
    -b * u.signum() * (1.0 - 2.0 * u.abs()).max(f64::MIN_POSITIVE).ln()
}

/// The counts of `members` (each a person's capped marks) over `features`, noised per `game`.
fn aggregate(members: &[&[u32]], features: usize, game: &Game, s: &mut Stream) -> Vec<f64> {
    let mut counts = vec![0.0; features];
    for marks in members {
        for &f in *marks {
            counts[f as usize] += 1.0;
        }
    }
    if let Some(e) = game.epsilon {
        let b = game.cap as f64 / e;
        for c in &mut counts {
            *c += laplace(b, s);
        }
    }
    counts
}

/// `marks` capped at `cap`: a random `cap` of each person's kept, from each person's own stream.
pub fn capped(marks: &[Vec<u32>], cap: usize, seed: u64) -> Vec<Vec<u32>> {
    marks
        .iter()
        .enumerate()
        .map(|(i, m)| {
            if m.len() <= cap {
                return m.clone();
            }
            let mut m = m.clone();
            Stream::new(seed, &format!("membership-cap-{i}")).shuffle(&mut m);
            m.truncate(cap);
            m.sort_unstable();
            m
        })
        .collect()
}

/// `count` aggregates of groups from `pool`, alternately with and without `target`: the rows
/// and whether the target is in each.
fn aggregates(
    pool: &[usize],
    marks: &[Vec<u32>],
    target: usize,
    features: usize,
    game: &Game,
    count: usize,
    s: &mut Stream,
) -> (Vec<Vec<f64>>, Vec<bool>) {
    let mut rows = Vec::with_capacity(count);
    let mut labels = Vec::with_capacity(count);
    let mut pool = pool.to_vec();
    for k in 0..count {
        let with = k % 2 == 0;
        let others = if with { game.group - 1 } else { game.group };
        // A partial Fisher–Yates shuffle: the first `others` of the pool are the group.
        for i in 0..others {
            let j = i + s.below((pool.len() - i) as u64) as usize;
            pool.swap(i, j);
        }
        let mut members: Vec<&[u32]> = pool[..others]
            .iter()
            .map(|&u| marks[u].as_slice())
            .collect();
        if with {
            members.push(&marks[target]);
        }
        rows.push(aggregate(&members, features, game, s));
        labels.push(with);
    }
    (rows, labels)
}

/// The adversary's AUC against `target` among `marks` (each person's sorted feature indices,
/// below `features`), from `seed`'s draws: who is the adversary's reference and who is
/// released, the groups, the noise.
pub fn play(
    game: &Game,
    marks: &[Vec<u32>],
    features: usize,
    target: usize,
    seed: u64,
) -> Result<f64, String> {
    game.validate(marks.len())?;
    if target >= marks.len() {
        return Err(format!(
            "membership: no person {target} (there are {})",
            marks.len()
        ));
    }
    if let Some(bad) = marks.iter().flatten().find(|&&f| f as usize >= features) {
        return Err(format!(
            "membership: feature {bad} is beyond the {features} features"
        ));
    }
    let marks = capped(marks, game.cap, seed);
    let mut s = Stream::new(seed, &format!("membership-{target}"));
    let mut others: Vec<usize> = (0..marks.len()).filter(|&u| u != target).collect();
    s.shuffle(&mut others);
    let (reference, released) = others.split_at(others.len() / 2);
    let (x, y) = aggregates(
        reference, &marks, target, features, game, game.train, &mut s,
    );
    let model = Logistic::fit(&x, &y);
    let (x, y) = aggregates(released, &marks, target, features, game, game.test, &mut s);
    let scores: Vec<f64> = x.iter().map(|row| model.score(row)).collect();
    auc(&scores, &y).ok_or_else(|| "internal: a test set without both labels".into())
}

#[cfg(test)]
mod tests;
