//! Unicity: how many of a person's points single them out in a crowd (de Montjoye, Hidalgo,
//! Verleysen and Blondel, *Unique in the Crowd: The privacy bounds of human mobility*,
//! Scientific Reports 3:1376, 2013).
//!
//! A trace is the set of its spatio-temporal points at a [`Resolution`]: a square cell of the
//! plane and, if time is kept, a bin of the hour of the week. The paper's unicity ε_p is the
//! fraction of traces that p points drawn at random from the trace single out — no other trace
//! in the data holds all p — estimated over the traces that have at least p points (theirs: 1.5
//! million people's mobile-phone traces over 15 months, at the antennas' cells and hourly: four
//! points single out 95% of the people, two points half of them).
//!
//! Two choices are this project's (docs/papers.md §3j):
//! - **Time is the hour of the week**, not the absolute hour. The paper's people were all
//!   recorded over the same 15 months; the labs' people are not (each of the real check-ins'
//!   trajectories is a different week, and a visitor's drawn path has no date), so absolute
//!   hours would single everyone out at one point for a reason that has nothing to do with where
//!   they go. The hour of the week keeps what a routine repeats. [`Resolution::bin_s`] `None`
//!   keeps only the places.
//! - **Each trace gets [`Population::unicity`]'s `draws` draws**, and its share of draws that
//!   single it out is averaged over the traces: the expectation the paper's one draw per trace
//!   estimates, with less noise.

use crate::geo::Metres;
use crate::rng::Stream;
use std::collections::HashMap;

/// A week in seconds.
pub const WEEK_S: f64 = 604_800.0;
/// Unix time of a Monday midnight (1970-01-05): the hour of the week counts from it.
pub const MONDAY_UNIX: f64 = 345_600.0;

/// The resolution a trace is seen at.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Resolution {
    /// The side of a square cell of the plane, metres.
    pub cell_m: f64,
    /// The width of a bin of the hour of the week, seconds; `None`: places only.
    pub bin_s: Option<f64>,
}

impl Resolution {
    /// Checks the resolution and names what is wrong.
    pub fn validate(&self) -> Result<(), String> {
        if !(self.cell_m.is_finite() && self.cell_m > 0.0) {
            return Err(format!(
                "unicity: the cell must be a positive number of metres (not {})",
                self.cell_m
            ));
        }
        if let Some(b) = self.bin_s
            && !(b.is_finite() && b > 0.0 && b <= WEEK_S)
        {
            return Err(format!(
                "unicity: the time bin must be from 1 second to a week (not {b} s)"
            ));
        }
        Ok(())
    }

    /// How it reads in a table: "250 m, 1 h of the week" or "250 m, places only".
    pub fn label(&self) -> String {
        let cell = if self.cell_m >= 1000.0 {
            format!("{} km", self.cell_m / 1000.0)
        } else {
            format!("{} m", self.cell_m)
        };
        match self.bin_s {
            None => format!("{cell}, places only"),
            Some(b) => format!("{cell}, {} h of the week", b / 3600.0),
        }
    }
}

/// One spatio-temporal point: the cell's column and row, and the time bin (0 without time).
pub type Point = (i64, i64, i64);

/// The distinct points of `fixes` (a position on the plane and its Unix time, seconds) at
/// `resolution`, sorted.
pub fn points(
    fixes: impl IntoIterator<Item = (Metres, f64)>,
    resolution: &Resolution,
) -> Vec<Point> {
    let mut out: Vec<Point> = fixes
        .into_iter()
        .map(|(at, time)| {
            let bin = resolution.bin_s.map_or(0, |b| {
                ((time - MONDAY_UNIX).rem_euclid(WEEK_S) / b).floor() as i64
            });
            (
                (at.east / resolution.cell_m).floor() as i64,
                (at.north / resolution.cell_m).floor() as i64,
                bin,
            )
        })
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// ε_p of a population: the traces' mean share of draws of p points that single them out.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Unicity {
    pub p: usize,
    /// Each counted trace's share of its draws that singled it out, in the traces' order.
    pub shares: Vec<f64>,
    /// Traces left out: fewer than p distinct points.
    pub too_short: usize,
}

impl Unicity {
    /// ε_p, the mean share; `None` when no trace has p points.
    pub fn epsilon(&self) -> Option<f64> {
        (!self.shares.is_empty())
            .then(|| self.shares.iter().sum::<f64>() / self.shares.len() as f64)
    }
}

/// Traces at one resolution, with an index from each point to the traces that hold it.
pub struct Population {
    traces: Vec<Vec<Point>>,
    holders: HashMap<Point, Vec<u32>>,
}

impl Population {
    /// `traces[i]`: trace i's distinct points ([`points`]).
    pub fn new(traces: Vec<Vec<Point>>) -> Population {
        let mut holders: HashMap<Point, Vec<u32>> = HashMap::new();
        for (i, trace) in traces.iter().enumerate() {
            for point in trace {
                // Traces are visited in order, so every list is sorted and without repeats.
                holders.entry(*point).or_default().push(i as u32);
            }
        }
        Population { traces, holders }
    }

    pub fn len(&self) -> usize {
        self.traces.len()
    }

    pub fn is_empty(&self) -> bool {
        self.traces.is_empty()
    }

    /// Trace `i`'s distinct points.
    pub fn trace(&self, i: usize) -> &[Point] {
        &self.traces[i]
    }

    /// How many traces hold every one of `points` (all of them for none).
    pub fn holders_of(&self, points: &[Point]) -> usize {
        let mut lists: Vec<&[u32]> = Vec::with_capacity(points.len());
        for p in points {
            match self.holders.get(p) {
                Some(list) => lists.push(list),
                None => return 0,
            }
        }
        lists.sort_by_key(|l| l.len());
        let Some((first, rest)) = lists.split_first() else {
            return self.traces.len();
        };
        first
            .iter()
            .filter(|t| rest.iter().all(|l| l.binary_search(t).is_ok()))
            .count()
    }

    /// The share of `draws` draws of `p` distinct points of trace `who` that only `who` holds;
    /// `None` if the trace has fewer than `p` points (or `p` is 0).
    pub fn singled_out(&self, who: usize, p: usize, draws: usize, s: &mut Stream) -> Option<f64> {
        let trace = &self.traces[who];
        if p == 0 || trace.len() < p || draws == 0 {
            return None;
        }
        let mut pool = trace.clone();
        let mut unique = 0;
        for _ in 0..draws {
            // A partial Fisher–Yates shuffle: the first p of the pool are the draw.
            for k in 0..p {
                let j = k + s.below((pool.len() - k) as u64) as usize;
                pool.swap(k, j);
            }
            if self.holders_of(&pool[..p]) == 1 {
                unique += 1;
            }
        }
        Some(unique as f64 / draws as f64)
    }

    /// ε_p over every trace, each drawn `draws` times from its own stream of `seed`.
    pub fn unicity(&self, p: usize, draws: usize, seed: u64) -> Unicity {
        let mut out = Unicity {
            p,
            ..Unicity::default()
        };
        for who in 0..self.traces.len() {
            let mut s = Stream::new(seed, &format!("unicity-{p}-{who}"));
            match self.singled_out(who, p, draws, &mut s) {
                Some(share) => out.shares.push(share),
                None => out.too_short += 1,
            }
        }
        out
    }
}

#[cfg(test)]
mod tests;
