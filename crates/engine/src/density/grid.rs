//! The P × Q grid the server asks about ([003] §"Notation": grid points g_pq, p = 1..P,
//! q = 1..Q, "a grid of chosen range") and surfaces on it.

use serde::{Deserialize, Serialize};
use whereabouts_core::error::ConfigError;
use whereabouts_core::geo::Metres;

/// A regular grid of P columns (east) × Q rows (north) over a rectangle; g_pq is the centre of
/// cell (p, q).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Grid {
    /// South-west and north-east corners of the rectangle.
    pub lo: Metres,
    pub hi: Metres,
    /// Columns P and rows Q.
    pub p: usize,
    pub q: usize,
}

impl Grid {
    /// A grid of `p` × `q` cells over ±`half_w` × ±`half_h` metres.
    pub fn centred(half_w: f64, half_h: f64, p: usize, q: usize) -> Grid {
        Grid {
            lo: Metres::new(-half_w, -half_h),
            hi: Metres::new(half_w, half_h),
            p,
            q,
        }
    }

    /// Refuses a grid with no cells or no area (the sides' bounds are the lab's settings).
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.p == 0 || self.q == 0 {
            return Err(ConfigError::new("grid", "must have cells"));
        }
        let (w, h) = (self.hi.east - self.lo.east, self.hi.north - self.lo.north);
        if !(w.is_finite() && h.is_finite() && w > 0.0 && h > 0.0) {
            return Err(ConfigError::new("grid", "must span a positive area"));
        }
        Ok(())
    }

    /// Cell width and height, metres.
    pub fn step(&self) -> (f64, f64) {
        (
            (self.hi.east - self.lo.east) / self.p as f64,
            (self.hi.north - self.lo.north) / self.q as f64,
        )
    }

    /// Number of cells.
    pub fn len(&self) -> usize {
        self.p * self.q
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// East coordinate of column `i`'s centres.
    pub fn east(&self, i: usize) -> f64 {
        self.lo.east + (i as f64 + 0.5) * self.step().0
    }

    /// North coordinate of row `j`'s centres.
    pub fn north(&self, j: usize) -> f64 {
        self.lo.north + (j as f64 + 0.5) * self.step().1
    }

    /// The centre of the cell at flat index `k` (row-major from the south-west: k = j·P + i).
    pub fn point(&self, k: usize) -> Metres {
        Metres::new(self.east(k % self.p), self.north(k / self.p))
    }

    /// The flat index of the cell holding `m`, if it lies on the grid.
    pub fn cell_of(&self, m: Metres) -> Option<usize> {
        let (dx, dy) = self.step();
        let i = ((m.east - self.lo.east) / dx).floor();
        let j = ((m.north - self.lo.north) / dy).floor();
        (i >= 0.0 && j >= 0.0 && (i as usize) < self.p && (j as usize) < self.q)
            .then(|| j as usize * self.p + i as usize)
    }

    /// True if `m` lies in the rectangle.
    pub fn contains(&self, m: Metres) -> bool {
        m.east >= self.lo.east
            && m.east <= self.hi.east
            && m.north >= self.lo.north
            && m.north <= self.hi.north
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn cells_are_indexed_row_major_from_the_south_west() {
        let g = Grid::centred(100.0, 50.0, 10, 5);
        g.validate().unwrap();
        assert_eq!(g.step(), (20.0, 20.0));
        assert_eq!(g.point(0), Metres::new(-90.0, -40.0));
        assert_eq!(g.point(13), Metres::new(-30.0, -20.0));
        for k in 0..g.len() {
            assert_eq!(g.cell_of(g.point(k)), Some(k));
        }
        assert_eq!(g.cell_of(Metres::new(101.0, 0.0)), None);
        assert!(Grid::centred(1.0, 1.0, 0, 16).validate().is_err());
        assert!(Grid::centred(0.0, 1.0, 16, 16).validate().is_err());
    }
}
