//! Gradient disaggregation (Lam, Wei, Brooks, Reddi and Mitzenmacher, *Gradient
//! Disaggregation: Breaking Privacy in Federated Learning by Reconstructing the User
//! Participant Matrix*, ICML 2021; the authors' code `gdisag/gradient_disaggregation`): a server
//! that sees only each round's sum S = P·U (P the rounds × users 0/1 participation matrix, U
//! the users' updates, the same every round) recovers U from many rounds.
//!
//! **P from summary statistics.** The server knows, for every user, how many times it took part
//! in each window of rounds (device analytics: the authors' `compute_P_constraints`). Every
//! column p of P is a 0/1 vector in the column space of S (S = P·U, U of full row rank), so the
//! authors solve, per user, min ‖N·p‖² over binary p with the user's window counts, N a basis of
//! the complement of S's column space after keeping its largest `users` singular values (their
//! `compute_space`, for noisy sums), with an integer-programming solver (Gurobi). Here the same
//! programme is solved by enumeration (our choice, docs/papers.md §3i): with Q an orthonormal
//! basis of that column space and r rows of Q that form an invertible block Q_R, every vector
//! of the space is Q·Q_R⁻¹·p_R, so the 2^r choices of p on those rows give every binary vector
//! in it; each is rounded to 0/1, scored by ‖p − QQᵀp‖², and each user takes the best-scoring
//! one that meets its counts. Exact for exact sums; 2^r candidates, so r ≤ [`MAX_USERS`].
//!
//! **U by least squares.** Û = argmin ‖P·U − S‖ (the authors' `np.linalg.lstsq`), which needs
//! P of full column rank: at least as many rounds as users, in different enough subsets.

use crate::error::ConfigError;

/// The most users the enumeration takes (2^r candidate vectors).
pub const MAX_USERS: usize = 16;

/// One user's summary statistic: how many of the rounds [start, end) it took part in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Count {
    pub start: usize,
    pub end: usize,
    pub count: usize,
}

/// Each user's counts over consecutive windows of `window` rounds (the authors'
/// `compute_P_constraints`); `p[t][u]` says whether user u took part in round t.
pub fn counts(p: &[Vec<bool>], users: usize, window: usize) -> Vec<Vec<Count>> {
    let rounds = p.len();
    let window = window.max(1);
    (0..users)
        .map(|u| {
            (0..rounds)
                .step_by(window)
                .map(|start| {
                    let end = (start + window).min(rounds);
                    Count {
                        start,
                        end,
                        count: (start..end).filter(|&t| p[t][u]).count(),
                    }
                })
                .collect()
        })
        .collect()
}

/// Why the server could not disaggregate.
#[derive(Clone, Debug, PartialEq)]
pub enum Failure {
    /// A user's counts fit no binary vector in the sums' column space.
    NoCandidate { user: usize },
    /// P has rank below the number of users: some updates cannot be told apart.
    RankDeficient { rank: usize, users: usize },
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::NoCandidate { user } => write!(
                f,
                "no 0/1 participation vector in the sums' column space fits user {user}'s counts"
            ),
            Failure::RankDeficient { rank, users } => write!(
                f,
                "the participation matrix has rank {rank} for {users} users: the sums cannot be disaggregated (more rounds, in more varied subsets, are needed)"
            ),
        }
    }
}

/// The sums of `rounds` rounds (row-major, `dim` each) and each user's counts.
pub fn check(sums: &[Vec<f64>], users: usize) -> Result<(), ConfigError> {
    if users == 0 || users > MAX_USERS {
        return Err(ConfigError::new(
            "disaggregation.users",
            format!("{users} users: must be from 1 to {MAX_USERS}"),
        ));
    }
    if sums.len() < users {
        return Err(ConfigError::new(
            "disaggregation.rounds",
            format!(
                "{} rounds for {users} users: at least as many rounds as users are needed",
                sums.len()
            ),
        ));
    }
    Ok(())
}

/// Recovers P (rounds × users) from the sums and the users' counts.
pub fn participation(sums: &[Vec<f64>], counts: &[Vec<Count>]) -> Result<Vec<Vec<bool>>, Failure> {
    let m = sums.len();
    let r = counts.len();
    let q = top_left_singular_vectors(sums, r);
    let rows = pivot_rows(&q, r);
    let inverse = invert(&rows.iter().map(|&i| q[i].clone()).collect::<Vec<_>>())
        .ok_or(Failure::RankDeficient { rank: 0, users: r })?;
    // B = Q·Q_R⁻¹ (m × r): p = B·p_R.
    let b: Vec<Vec<f64>> = q
        .iter()
        .map(|row| {
            (0..r)
                .map(|j| (0..r).map(|k| row[k] * inverse[k][j]).sum())
                .collect()
        })
        .collect();
    let mut best: Vec<Option<(f64, Vec<bool>)>> = vec![None; r];
    let mut p = vec![false; m];
    for bits in 0u32..(1u32 << r) {
        for (t, row) in b.iter().enumerate() {
            let v: f64 = (0..r).filter(|&j| bits >> j & 1 == 1).map(|j| row[j]).sum();
            p[t] = v > 0.5;
        }
        // ‖p − QQᵀp‖² = ‖p‖² − ‖Qᵀp‖².
        let ones = p.iter().filter(|&&x| x).count() as f64;
        let proj: f64 = (0..r)
            .map(|k| {
                let c: f64 = (0..m).filter(|&t| p[t]).map(|t| q[t][k]).sum();
                c * c
            })
            .sum();
        let score = (ones - proj).max(0.0);
        for (u, user) in counts.iter().enumerate() {
            let fits = user
                .iter()
                .all(|c| (c.start..c.end).filter(|&t| p[t]).count() == c.count);
            if fits && best[u].as_ref().is_none_or(|(s, _)| score < *s) {
                best[u] = Some((score, p.clone()));
            }
        }
    }
    let columns = best
        .into_iter()
        .enumerate()
        .map(|(u, b)| b.map(|(_, p)| p).ok_or(Failure::NoCandidate { user: u }))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((0..m)
        .map(|t| columns.iter().map(|c| c[t]).collect())
        .collect())
}

/// Û = argmin ‖P·U − S‖ by the normal equations (PᵀP is users × users), refused when P is not
/// of full column rank.
pub fn updates(p: &[Vec<bool>], sums: &[Vec<f64>]) -> Result<Vec<Vec<f64>>, Failure> {
    let r = p.first().map_or(0, Vec::len);
    let dim = sums.first().map_or(0, Vec::len);
    let ptp: Vec<Vec<f64>> = (0..r)
        .map(|i| {
            (0..r)
                .map(|j| p.iter().filter(|row| row[i] && row[j]).count() as f64)
                .collect()
        })
        .collect();
    let rank = rank(&ptp);
    let inverse = (rank == r)
        .then(|| invert(&ptp))
        .flatten()
        .ok_or(Failure::RankDeficient { rank, users: r })?;
    let pts: Vec<Vec<f64>> = (0..r)
        .map(|i| {
            (0..dim)
                .map(|d| {
                    p.iter()
                        .zip(sums)
                        .filter(|(row, _)| row[i])
                        .map(|(_, s)| s[d])
                        .sum()
                })
                .collect()
        })
        .collect();
    Ok((0..r)
        .map(|i| {
            (0..dim)
                .map(|d| (0..r).map(|j| inverse[i][j] * pts[j][d]).sum())
                .collect()
        })
        .collect())
}

/// The `k` leading left singular vectors of S (rounds × dim) as rows of an m × k matrix: the
/// leading eigenvectors of S·Sᵀ (cyclic Jacobi).
fn top_left_singular_vectors(s: &[Vec<f64>], k: usize) -> Vec<Vec<f64>> {
    let m = s.len();
    let mut a: Vec<Vec<f64>> = (0..m)
        .map(|i| {
            (0..m)
                .map(|j| s[i].iter().zip(&s[j]).map(|(x, y)| x * y).sum())
                .collect()
        })
        .collect();
    let mut v: Vec<Vec<f64>> = (0..m)
        .map(|i| (0..m).map(|j| f64::from(u8::from(i == j))).collect())
        .collect();
    for _sweep in 0..100 {
        let off: f64 = (0..m)
            .flat_map(|i| (0..m).filter(move |&j| j != i).map(move |j| (i, j)))
            .map(|(i, j)| a[i][j] * a[i][j])
            .sum();
        let diag: f64 = (0..m).map(|i| a[i][i] * a[i][i]).sum();
        if off <= 1e-24 * diag.max(f64::MIN_POSITIVE) {
            break;
        }
        for p in 0..m {
            for q in p + 1..m {
                if a[p][q].abs() < f64::MIN_POSITIVE {
                    continue;
                }
                let theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let t = if theta == 0.0 { 1.0 } else { t };
                let c = 1.0 / (t * t + 1.0).sqrt();
                let sn = t * c;
                for row in a.iter_mut() {
                    let (x, y) = (row[p], row[q]);
                    row[p] = c * x - sn * y;
                    row[q] = sn * x + c * y;
                }
                let (row_p, row_q) = (a[p].clone(), a[q].clone());
                for (j, (x, y)) in row_p.into_iter().zip(row_q).enumerate() {
                    a[p][j] = c * x - sn * y;
                    a[q][j] = sn * x + c * y;
                }
                for row in v.iter_mut() {
                    let (x, y) = (row[p], row[q]);
                    row[p] = c * x - sn * y;
                    row[q] = sn * x + c * y;
                }
            }
        }
    }
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&i, &j| a[j][j].total_cmp(&a[i][i]));
    (0..m)
        .map(|t| order[..k.min(m)].iter().map(|&c| v[t][c]).collect())
        .collect()
}

/// r rows of Q (m × r) whose block is well conditioned: greedy pivoting (the row with the most
/// left after projecting out the rows taken).
fn pivot_rows(q: &[Vec<f64>], r: usize) -> Vec<usize> {
    let mut rest: Vec<Vec<f64>> = q.to_vec();
    let mut taken = Vec::with_capacity(r);
    for _ in 0..r {
        let (i, _) = rest
            .iter()
            .enumerate()
            .filter(|(i, _)| !taken.contains(i))
            .map(|(i, row)| (i, row.iter().map(|x| x * x).sum::<f64>()))
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .expect("r ≤ rounds");
        taken.push(i);
        let norm = rest[i].iter().map(|x| x * x).sum::<f64>().sqrt();
        if norm == 0.0 {
            continue;
        }
        let dir: Vec<f64> = rest[i].iter().map(|x| x / norm).collect();
        for row in rest.iter_mut() {
            let d: f64 = row.iter().zip(&dir).map(|(a, b)| a * b).sum();
            for (x, y) in row.iter_mut().zip(&dir) {
                *x -= d * y;
            }
        }
    }
    taken
}

/// The inverse of a square matrix by Gauss–Jordan with partial pivoting (`None`: singular).
fn invert(a: &[Vec<f64>]) -> Option<Vec<Vec<f64>>> {
    let n = a.len();
    let mut m: Vec<Vec<f64>> = a
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let mut r = row.clone();
            r.extend((0..n).map(|j| f64::from(u8::from(i == j))));
            r
        })
        .collect();
    let scale = a
        .iter()
        .flatten()
        .fold(0.0f64, |s, x| s.max(x.abs()))
        .max(f64::MIN_POSITIVE);
    for c in 0..n {
        let p = (c..n).max_by(|&i, &j| m[i][c].abs().total_cmp(&m[j][c].abs()))?;
        if m[p][c].abs() <= 1e-12 * scale {
            return None;
        }
        m.swap(c, p);
        let d = m[c][c];
        for x in m[c].iter_mut() {
            *x /= d;
        }
        for i in 0..n {
            if i != c {
                let f = m[i][c];
                if f != 0.0 {
                    let pivot = m[c].clone();
                    for (x, y) in m[i].iter_mut().zip(&pivot) {
                        *x -= f * y;
                    }
                }
            }
        }
    }
    Some(m.into_iter().map(|row| row[n..].to_vec()).collect())
}

/// The rank of a small square matrix (Gaussian elimination, relative tolerance 1e-9).
fn rank(a: &[Vec<f64>]) -> usize {
    let mut m = a.to_vec();
    let n = m.len();
    let cols = m.first().map_or(0, Vec::len);
    let scale = a
        .iter()
        .flatten()
        .fold(0.0f64, |s, x| s.max(x.abs()))
        .max(f64::MIN_POSITIVE);
    let mut rank = 0;
    for c in 0..cols {
        let Some(p) = (rank..n).max_by(|&i, &j| m[i][c].abs().total_cmp(&m[j][c].abs())) else {
            break;
        };
        if m[p][c].abs() <= 1e-9 * scale {
            continue;
        }
        m.swap(rank, p);
        for i in rank + 1..n {
            let f = m[i][c] / m[rank][c];
            let pivot = m[rank].clone();
            for (x, y) in m[i].iter_mut().zip(&pivot) {
                *x -= f * y;
            }
        }
        rank += 1;
    }
    rank
}

#[cfg(test)]
mod tests;
