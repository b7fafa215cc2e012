//! The server's attacks on one user's upload ([003] §"Privacy Analysis").
//!
//! The poster's attacker picks peaks: the privacy metric is the distance of "the best inferred
//! position" from the true one, and its claims reason about the upload's local maxima
//! (claim 1: a local maximum sits at the user's location, indistinguishable from the others).
//! So the server's guess is the grid point of the largest value, ties broken at random, and the
//! list of local maxima is what it would have to choose among.

use super::grid::Grid;
use whereabouts_core::geo::Metres;
use whereabouts_core::rng::Stream;

/// Values this close to the maximum (relative to the surface's scale) count as tied.
const TIE: f64 = 1e-9;

/// The peak-picking guess: the centre of the cell with the largest value; among ties (a ridge
/// of equal cosines, or an upload of nothing) one is chosen at random from `stream`.
pub fn peak(surface: &[f64], grid: &Grid, stream: &mut Stream) -> Metres {
    let max = surface.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let scale = surface
        .iter()
        .fold(0.0_f64, |m, v| m.max(v.abs()))
        .max(1e-300);
    let tied: Vec<usize> = surface
        .iter()
        .enumerate()
        .filter(|(_, v)| **v >= max - TIE * scale)
        .map(|(k, _)| k)
        .collect();
    let k = if tied.len() == 1 {
        tied[0]
    } else {
        tied[stream.below(tied.len() as u64) as usize]
    };
    grid.point(k)
}

/// The cells no neighbour (of eight) exceeds, largest first: the candidates claim 1 says the
/// server cannot tell apart. A flat surface has none.
pub fn local_maxima(surface: &[f64], grid: &Grid) -> Vec<usize> {
    let (p, q) = (grid.p as i64, grid.q as i64);
    let min = surface.iter().copied().fold(f64::INFINITY, f64::min);
    let mut out: Vec<usize> = (0..surface.len())
        .filter(|&k| {
            let v = surface[k];
            if v <= min {
                return false;
            }
            let (i, j) = ((k as i64) % p, (k as i64) / p);
            (-1..=1).all(|dj| {
                (-1..=1).all(|di| {
                    let (a, b) = (i + di, j + dj);
                    (di == 0 && dj == 0)
                        || a < 0
                        || b < 0
                        || a >= p
                        || b >= q
                        || surface[(b * p + a) as usize] <= v
                })
            })
        })
        .collect();
    out.sort_by(|&a, &b| surface[b].total_cmp(&surface[a]).then(a.cmp(&b)));
    out
}

/// The mean of several answers of one user (repeated queries, [003] claim 3): with a fixed
/// basis they are all the same surface; with a basis redrawn per query the user's own peak
/// stays while the others move, so the mean sharpens around the user.
pub fn average(answers: &[Vec<f64>]) -> Vec<f64> {
    let mut out = vec![0.0; answers.first().map_or(0, Vec::len)];
    for a in answers {
        for (o, v) in out.iter_mut().zip(a) {
            *o += v / answers.len() as f64;
        }
    }
    out
}

/// The expected distance of a guess drawn uniformly from the grid's cells from `truth`: what
/// the server achieves with nothing shared ([003] "Baseline 2: 0 features").
pub fn random_guess_distance(grid: &Grid, truth: Metres) -> f64 {
    (0..grid.len())
        .map(|k| grid.point(k).distance(&truth))
        .sum::<f64>()
        / grid.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::density::{kde, rff::Basis};
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn peak_picking_finds_a_bump_to_the_cell_and_guesses_on_nothing() {
        let g = Grid::centred(2000.0, 2000.0, 64, 64);
        let mut s = Stream::new(1, "peak");
        let d = Metres::new(313.0, -707.0);
        let guess = peak(&kde::bump(&g, d, 150.0), &g, &mut s);
        let (dx, dy) = g.step();
        assert!(guess.distance(&d) <= 0.5 * (dx * dx + dy * dy).sqrt() + 1e-9);
        // Nothing shared: every cell ties, so the guesses scatter over the grid.
        let zeros = vec![0.0; g.len()];
        let guesses: Vec<Metres> = (0..50).map(|_| peak(&zeros, &g, &mut s)).collect();
        let spread = guesses
            .iter()
            .map(|m| m.distance(&guesses[0]))
            .fold(0.0, f64::max);
        assert!(spread > 1000.0);
    }

    #[test]
    fn the_user_is_one_of_the_local_maxima_and_more_features_leave_fewer_near_the_top() {
        let g = Grid::centred(2000.0, 2000.0, 80, 80);
        let d = g.point(40 * 80 + 23);
        let near_top = |b: usize| {
            let basis = Basis::of_user(9, 1, b, 300.0, None);
            let up = basis.upload(&g, d);
            let maxima = local_maxima(&up, &g);
            assert!(maxima.contains(&(40 * 80 + 23)), "B = {b}");
            // Candidates the server cannot tell from the truth: within 10% of the top value B.
            maxima.iter().filter(|&&k| up[k] >= 0.9 * b as f64).count()
        };
        // Claim 2, read as the peaks that compete with the truth (counting every local maximum,
        // more features give more of them, lower: docs/reproduce-density.md).
        let (two, ten) = (near_top(2), near_top(10));
        assert!(ten < two, "{ten} vs {two}");
    }

    #[test]
    fn the_random_guess_distance_is_the_mean_over_cells() {
        let g = Grid::centred(1.0, 1.0, 8, 8);
        let corner = random_guess_distance(&g, Metres::new(-1.0, -1.0));
        let centre = random_guess_distance(&g, Metres::new(0.0, 0.0));
        assert!(corner > centre);
        // A unit square's mean distance from its centre is ≈ 0.3826 of the side; here side 2.
        assert!((centre - 0.765).abs() < 0.02, "{centre}");
    }
}
