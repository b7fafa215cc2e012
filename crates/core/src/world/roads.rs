//! The streets of the synthetic world: a road network as a graph (junctions and the street
//! segments between them), with the shortest-path distances, routes and nearest-point snapping
//! that people, vehicles and attacks need.
//!
//! The layout is a jittered grid, as many cities' are: every `ARTERIAL_EVERY`-th street is an
//! arterial (straighter, faster, never closed); about a fifth of the side streets are closed
//! (a block merged with its neighbour), but never so as to cut the network in two. Paper [002]
//! assumes the attacker knows the road network and that every true location lies on it (§3.2,
//! "road network mapping"); here every point of a vehicle's trace does, and people's stays are
//! at the roadside.

use crate::geo::Metres;
use crate::rng::Stream;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Every how many grid lines a street is an arterial.
pub const ARTERIAL_EVERY: usize = 4;
/// How much faster an arterial is to travel than a side street (routes prefer them).
pub const ARTERIAL_SPEEDUP: f64 = 1.6;
/// The share of side-street segments closed.
const CLOSED_SHARE: f64 = 0.2;
/// Junctions stray from the grid by up to this share of a block (arterials by a fifth of it).
const JITTER: f64 = 0.22;

/// A street segment between two junctions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Road {
    pub a: usize,
    pub b: usize,
    pub arterial: bool,
    /// Metres.
    pub length: f64,
}

/// A road network over the area ±`half_w` × ±`half_h` around the origin.
#[derive(Clone, Debug, PartialEq)]
pub struct RoadNetwork {
    /// Junction positions; junction (i, j) of the grid is `j * cols + i`.
    pub junctions: Vec<Metres>,
    pub roads: Vec<Road>,
    /// For each junction, its (neighbour, road) pairs.
    adjacency: Vec<Vec<(usize, usize)>>,
    cols: usize,
    rows: usize,
    block_m: f64,
    half_w: f64,
    half_h: f64,
}

/// A point on the network: on road `road`, a share `along` of the way from its `a` to its `b`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OnRoad {
    pub road: usize,
    pub along: f64,
    pub position: Metres,
}

#[derive(Clone, Copy, PartialEq)]
struct Queued(f64, usize);

impl Eq for Queued {}

impl Ord for Queued {
    fn cmp(&self, other: &Self) -> Ordering {
        other.0.total_cmp(&self.0).then(other.1.cmp(&self.1))
    }
}

impl PartialOrd for Queued {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

fn find(parent: &mut [usize], mut x: usize) -> usize {
    while parent[x] != x {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    x
}

impl RoadNetwork {
    /// Builds the network for an area with blocks about `block_m` metres on a side.
    pub fn new(half_w: f64, half_h: f64, block_m: f64, s: &mut Stream) -> RoadNetwork {
        let block_m = block_m.max(1.0);
        let cols = ((2.0 * half_w / block_m).floor() as usize).max(1) + 1;
        let rows = ((2.0 * half_h / block_m).floor() as usize).max(1) + 1;
        let (step_x, step_y) = (
            2.0 * half_w / (cols - 1) as f64,
            2.0 * half_h / (rows - 1) as f64,
        );
        let arterial_col = |i: usize| i % ARTERIAL_EVERY == ARTERIAL_EVERY / 2;
        let arterial_row = |j: usize| j % ARTERIAL_EVERY == ARTERIAL_EVERY / 2;
        let mut junctions = Vec::with_capacity(cols * rows);
        for j in 0..rows {
            for i in 0..cols {
                // A junction on an arterial keeps to its line (it moves along it only).
                let jx = if arterial_col(i) { 0.2 } else { 1.0 } * JITTER;
                let jy = if arterial_row(j) { 0.2 } else { 1.0 } * JITTER;
                let east = -half_w + i as f64 * step_x + s.range(-jx, jx) * step_x;
                let north = -half_h + j as f64 * step_y + s.range(-jy, jy) * step_y;
                junctions.push(Metres::new(
                    east.clamp(-half_w, half_w),
                    north.clamp(-half_h, half_h),
                ));
            }
        }
        let mut candidates = Vec::new();
        for j in 0..rows {
            for i in 0..cols {
                let k = j * cols + i;
                if i + 1 < cols {
                    candidates.push((k, k + 1, arterial_row(j)));
                }
                if j + 1 < rows {
                    candidates.push((k, k + cols, arterial_col(i)));
                }
            }
        }
        // Close some side streets, then reopen any closure that cut the network.
        let mut parent: Vec<usize> = (0..junctions.len()).collect();
        let mut open = vec![true; candidates.len()];
        for (e, &(_, _, arterial)) in candidates.iter().enumerate() {
            if !arterial && s.chance(CLOSED_SHARE) {
                open[e] = false;
            }
        }
        for (e, &(a, b, _)) in candidates.iter().enumerate() {
            if open[e] {
                let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
                parent[ra] = rb;
            }
        }
        for (e, &(a, b, _)) in candidates.iter().enumerate() {
            let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
            if !open[e] && ra != rb {
                open[e] = true;
                parent[ra] = rb;
            }
        }
        let mut roads = Vec::new();
        let mut adjacency = vec![Vec::new(); junctions.len()];
        for (e, &(a, b, arterial)) in candidates.iter().enumerate() {
            if open[e] {
                adjacency[a].push((b, roads.len()));
                adjacency[b].push((a, roads.len()));
                roads.push(Road {
                    a,
                    b,
                    arterial,
                    length: junctions[a].distance(&junctions[b]),
                });
            }
        }
        RoadNetwork {
            junctions,
            roads,
            adjacency,
            cols,
            rows,
            block_m: step_x.max(step_y),
            half_w,
            half_h,
        }
    }

    /// The network of an area, with blocks scaled to it (about 32 across, at least 100 m):
    /// a campus's paths, a city's streets, a region's main roads. Seeded by `seed` alone.
    pub fn for_area(half_w: f64, half_h: f64, seed: u64) -> RoadNetwork {
        let block = (2.0 * half_w.max(half_h) / 32.0).max(100.0);
        RoadNetwork::new(half_w, half_h, block, &mut Stream::new(seed, "roads"))
    }

    /// The area's half-width and half-height, metres.
    pub fn half_extent(&self) -> (f64, f64) {
        (self.half_w, self.half_h)
    }

    /// Blocks' size, metres.
    pub fn block_m(&self) -> f64 {
        self.block_m
    }

    /// The grid cell nearest `p` (clamped to the grid).
    fn cell(&self, p: Metres) -> (usize, usize) {
        let fx = (p.east + self.half_w) / (2.0 * self.half_w) * (self.cols - 1) as f64;
        let fy = (p.north + self.half_h) / (2.0 * self.half_h) * (self.rows - 1) as f64;
        (
            fx.round().clamp(0.0, (self.cols - 1) as f64) as usize,
            fy.round().clamp(0.0, (self.rows - 1) as f64) as usize,
        )
    }

    /// Junctions within `reach` grid steps of `p`'s cell.
    fn near(&self, p: Metres, reach: usize) -> impl Iterator<Item = usize> + '_ {
        let (ci, cj) = self.cell(p);
        let (i0, i1) = (ci.saturating_sub(reach), (ci + reach).min(self.cols - 1));
        let (j0, j1) = (cj.saturating_sub(reach), (cj + reach).min(self.rows - 1));
        (j0..=j1).flat_map(move |j| (i0..=i1).map(move |i| j * self.cols + i))
    }

    /// The junction nearest `p`. Junctions stray less than a quarter block from the grid, so
    /// the nearest one is within two grid steps of `p`'s cell (outside the area: of its edge).
    pub fn nearest_junction(&self, p: Metres) -> usize {
        let mut best = (f64::INFINITY, 0);
        for k in self.near(p, 2) {
            let d = self.junctions[k].distance(&p);
            if d < best.0 {
                best = (d, k);
            }
        }
        best.1
    }

    /// The nearest point to `p` on any road (the attack's road mapping, [002] §3.2). The road
    /// holding it has an end within three grid steps of `p`'s cell.
    pub fn snap(&self, p: Metres) -> OnRoad {
        let mut best = (
            f64::INFINITY,
            OnRoad {
                road: 0,
                along: 0.0,
                position: self.junctions[self.roads[0].a],
            },
        );
        for k in self.near(p, 3) {
            for &(_, r) in &self.adjacency[k] {
                let road = self.roads[r];
                let (a, b) = (self.junctions[road.a], self.junctions[road.b]);
                let (dx, dy) = (b.east - a.east, b.north - a.north);
                let len2 = (dx * dx + dy * dy).max(1e-12);
                let t =
                    (((p.east - a.east) * dx + (p.north - a.north) * dy) / len2).clamp(0.0, 1.0);
                let q = Metres::new(a.east + t * dx, a.north + t * dy);
                let d = q.distance(&p);
                if d < best.0 {
                    best = (
                        d,
                        OnRoad {
                            road: r,
                            along: t,
                            position: q,
                        },
                    );
                }
            }
        }
        best.1
    }

    /// Dijkstra from `source`: every junction's cost, and the junction it is reached from. The
    /// cost is the length, arterials divided by `ARTERIAL_SPEEDUP` when `by_time`.
    fn dijkstra(
        &self,
        source: usize,
        target: Option<usize>,
        by_time: bool,
    ) -> (Vec<f64>, Vec<usize>) {
        let n = self.junctions.len();
        let mut cost = vec![f64::INFINITY; n];
        let mut from = vec![usize::MAX; n];
        let mut heap = BinaryHeap::new();
        cost[source] = 0.0;
        heap.push(Queued(0.0, source));
        while let Some(Queued(c, k)) = heap.pop() {
            if c > cost[k] {
                continue;
            }
            if Some(k) == target {
                break;
            }
            for &(m, r) in &self.adjacency[k] {
                let road = &self.roads[r];
                let w = if by_time && road.arterial {
                    road.length / ARTERIAL_SPEEDUP
                } else {
                    road.length
                };
                if c + w < cost[m] {
                    cost[m] = c + w;
                    from[m] = k;
                    heap.push(Queued(c + w, m));
                }
            }
        }
        (cost, from)
    }

    /// Shortest-path length (metres) from junction `source` to every junction.
    pub fn distances_from(&self, source: usize) -> Vec<f64> {
        self.dijkstra(source, None, false).0
    }

    /// The quickest route from junction `from` to junction `to` (arterials preferred), as the
    /// junctions passed, both ends included.
    pub fn route(&self, from: usize, to: usize) -> Vec<usize> {
        let (_, prev) = self.dijkstra(from, Some(to), true);
        let mut path = vec![to];
        let mut k = to;
        while k != from {
            k = prev[k];
            if k == usize::MAX {
                // Unreachable cannot happen (the network is connected); go straight.
                return vec![from, to];
            }
            path.push(k);
        }
        path.reverse();
        path
    }

    /// The way from `a` to `b` along the streets: `a`, the junctions of the quickest route
    /// between their nearest junctions, `b`.
    pub fn path(&self, a: Metres, b: Metres) -> Vec<Metres> {
        let (ja, jb) = (self.nearest_junction(a), self.nearest_junction(b));
        let mut out = vec![a];
        if ja != jb {
            out.extend(self.route(ja, jb).into_iter().map(|k| self.junctions[k]));
        } else {
            out.push(self.junctions[ja]);
        }
        out.push(b);
        out
    }
}

/// The length of a polyline, metres.
pub fn length(path: &[Metres]) -> f64 {
    path.windows(2).map(|w| w[0].distance(&w[1])).sum()
}

/// The point a distance `along` (metres) into a polyline (clamped to its ends).
pub fn point_along(path: &[Metres], along: f64) -> Metres {
    let mut left = along.max(0.0);
    for w in path.windows(2) {
        let d = w[0].distance(&w[1]);
        if left <= d {
            let f = if d > 0.0 { left / d } else { 0.0 };
            return Metres::new(
                w[0].east + (w[1].east - w[0].east) * f,
                w[0].north + (w[1].north - w[0].north) * f,
            );
        }
        left -= d;
    }
    *path.last().expect("a path has points")
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn city() -> RoadNetwork {
        RoadNetwork::new(2000.0, 1500.0, 200.0, &mut Stream::new(3, "roads"))
    }

    #[test]
    fn the_network_is_connected_and_has_arterials_and_closures() {
        let net = city();
        let d = net.distances_from(0);
        assert!(d.iter().all(|x| x.is_finite()), "every junction reachable");
        let grid_edges = {
            let (c, r) = (net.cols, net.rows);
            (c - 1) * r + c * (r - 1)
        };
        assert!(net.roads.len() < grid_edges, "some side streets closed");
        assert!(net.roads.len() > grid_edges * 7 / 10);
        assert!(net.roads.iter().any(|r| r.arterial));
        // Shortest paths are no shorter than straight lines.
        for k in [5, 50, 200] {
            assert!(d[k] + 1e-9 >= net.junctions[0].distance(&net.junctions[k]));
        }
    }

    #[test]
    fn the_nearest_junction_and_the_snap_are_the_nearest_by_brute_force() {
        let net = city();
        let mut s = Stream::new(9, "points");
        for _ in 0..300 {
            let p = Metres::new(s.range(-2300.0, 2300.0), s.range(-1800.0, 1800.0));
            let brute_j = (0..net.junctions.len())
                .min_by(|&a, &b| {
                    net.junctions[a]
                        .distance(&p)
                        .total_cmp(&net.junctions[b].distance(&p))
                })
                .unwrap();
            assert_eq!(net.nearest_junction(p), brute_j);
            let brute_snap = net
                .roads
                .iter()
                .map(|r| {
                    let (a, b) = (net.junctions[r.a], net.junctions[r.b]);
                    let (dx, dy) = (b.east - a.east, b.north - a.north);
                    let t = (((p.east - a.east) * dx + (p.north - a.north) * dy)
                        / (dx * dx + dy * dy))
                        .clamp(0.0, 1.0);
                    Metres::new(a.east + t * dx, a.north + t * dy).distance(&p)
                })
                .fold(f64::INFINITY, f64::min);
            let snap = net.snap(p);
            assert!((snap.position.distance(&p) - brute_snap).abs() < 1e-9);
        }
    }

    #[test]
    fn a_route_follows_roads_and_its_length_is_at_least_the_shortest_path() {
        let net = city();
        let (a, b) = (3, net.junctions.len() - 7);
        let route = net.route(a, b);
        assert_eq!((route[0], *route.last().unwrap()), (a, b));
        let mut len = 0.0;
        for w in route.windows(2) {
            let road = net.adjacency[w[0]]
                .iter()
                .find(|&&(m, _)| m == w[1])
                .expect("consecutive junctions are joined by a road");
            len += net.roads[road.1].length;
        }
        assert!(len + 1e-9 >= net.distances_from(a)[b]);
        let path: Vec<Metres> = route.iter().map(|&k| net.junctions[k]).collect();
        assert!((length(&path) - len).abs() < 1e-6);
        assert_eq!(point_along(&path, 0.0), path[0]);
        assert_eq!(point_along(&path, len + 5.0), *path.last().unwrap());
    }
}
