//! Editing a path the visitor draws on a lab's map: waypoints, hit tests on screen, undo and
//! redo. The Signal map's trajectory and the Mobility lab's route are both drawn with it.
//!
//! Pure logic (no DOM), so it is tested natively; a lab's map turns pointer events into these
//! calls.

use crate::ui::basemap::Viewport;
use whereabouts_core::geo::Metres;

/// Undo steps kept.
const HISTORY: usize = 100;

/// An arrow key moves the selected waypoint this far, metres (ten times with Shift).
pub const KEY_STEP_M: f64 = 10.0;

/// The path being drawn, with its history.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PathEditor {
    pub waypoints: Vec<Metres>,
    /// The most waypoints the lab's runs take.
    pub max: usize,
    undo: Vec<Vec<Metres>>,
    redo: Vec<Vec<Metres>>,
}

impl PathEditor {
    pub fn new(waypoints: Vec<Metres>, max: usize) -> Self {
        Self {
            waypoints,
            max,
            ..Self::default()
        }
    }

    /// Records `before` (the path before a finished gesture) as an undo step.
    pub fn commit(&mut self, before: Vec<Metres>) {
        if before == self.waypoints {
            return;
        }
        self.undo.push(before);
        if self.undo.len() > HISTORY {
            self.undo.remove(0);
        }
        self.redo.clear();
    }

    /// Replaces the whole path as one undoable step.
    pub fn replace(&mut self, waypoints: Vec<Metres>) {
        let before = std::mem::replace(&mut self.waypoints, waypoints);
        self.commit(before);
    }

    pub fn can_undo(&self) -> bool {
        !self.undo.is_empty()
    }

    pub fn can_redo(&self) -> bool {
        !self.redo.is_empty()
    }

    pub fn undo(&mut self) -> bool {
        match self.undo.pop() {
            Some(previous) => {
                self.redo
                    .push(std::mem::replace(&mut self.waypoints, previous));
                true
            }
            None => false,
        }
    }

    pub fn redo(&mut self) -> bool {
        match self.redo.pop() {
            Some(next) => {
                self.undo.push(std::mem::replace(&mut self.waypoints, next));
                true
            }
            None => false,
        }
    }

    /// The waypoint under the screen point (the topmost, i.e. last drawn, wins).
    pub fn hit_waypoint(&self, view: &Viewport, x: f64, y: f64, radius_px: f64) -> Option<usize> {
        self.waypoints.iter().enumerate().rev().find_map(|(i, p)| {
            let (px, py) = view.to_screen(*p);
            ((px - x).hypot(py - y) <= radius_px).then_some(i)
        })
    }

    /// The midpoints of the legs, where a new waypoint can be pulled out.
    pub fn midpoints(&self) -> Vec<Metres> {
        self.waypoints
            .windows(2)
            .map(|w| {
                Metres::new(
                    (w[0].east + w[1].east) / 2.0,
                    (w[0].north + w[1].north) / 2.0,
                )
            })
            .collect()
    }

    /// The leg whose midpoint handle is under the screen point (legs shorter than 3 handle
    /// radii on screen have no handle).
    pub fn hit_midpoint(&self, view: &Viewport, x: f64, y: f64, radius_px: f64) -> Option<usize> {
        self.midpoints().iter().enumerate().find_map(|(k, m)| {
            let (a, b) = (self.waypoints[k], self.waypoints[k + 1]);
            if a.distance(&b) / view.m_per_px < 3.0 * radius_px {
                return None;
            }
            let (px, py) = view.to_screen(*m);
            ((px - x).hypot(py - y) <= radius_px).then_some(k)
        })
    }

    /// True when the path has as many waypoints as a run takes ([`PathEditor::max`]): the
    /// editor adds no more.
    pub fn is_full(&self) -> bool {
        self.waypoints.len() >= self.max
    }

    /// Appends a waypoint, unless the path is full.
    pub fn add(&mut self, p: Metres) -> bool {
        let room = !self.is_full();
        if room {
            self.waypoints.push(p);
        }
        room
    }

    /// Inserts a waypoint in the middle of leg `k` and returns its index, unless the path is
    /// full.
    pub fn insert_mid(&mut self, k: usize) -> Option<usize> {
        if self.is_full() {
            return None;
        }
        let m = self.midpoints()[k];
        self.waypoints.insert(k + 1, m);
        Some(k + 1)
    }

    /// The waypoint a keyboard selection moves to: the next (or previous) one after `from`,
    /// round the path; the first (or last) when nothing is selected.
    pub fn step_selection(&self, from: Option<usize>, forward: bool) -> Option<usize> {
        let n = self.waypoints.len();
        if n == 0 {
            return None;
        }
        Some(match (from, forward) {
            (None, true) => 0,
            (None, false) => n - 1,
            (Some(i), true) => (i + 1) % n,
            (Some(i), false) => (i + n - 1) % n,
        })
    }

    /// Adds a waypoint from the keyboard after `after`: halfway to the next waypoint, or
    /// [`KEY_STEP_M`] × 5 east of the last; at `at` when nothing is selected (at the end).
    /// `keep` keeps the point in the area. Its index, unless the path is full.
    pub fn add_after(
        &mut self,
        after: Option<usize>,
        at: Metres,
        keep: impl Fn(Metres) -> Metres,
    ) -> Option<usize> {
        if self.is_full() {
            return None;
        }
        let (index, p) = match after.filter(|&i| i < self.waypoints.len()) {
            None => (self.waypoints.len(), at),
            Some(i) => match self.midpoints().get(i) {
                Some(&mid) => (i + 1, mid),
                None => {
                    let w = self.waypoints[i];
                    (i + 1, Metres::new(w.east + 5.0 * KEY_STEP_M, w.north))
                }
            },
        };
        self.waypoints.insert(index, keep(p));
        Some(index)
    }

    /// Moves waypoint `i` by (east, north) metres, kept in the area by `keep`.
    pub fn nudge(&mut self, i: usize, east: f64, north: f64, keep: impl Fn(Metres) -> Metres) {
        if let Some(w) = self.waypoints.get_mut(i) {
            *w = keep(Metres::new(w.east + east, w.north + north));
        }
    }

    pub fn delete(&mut self, i: usize) {
        if i < self.waypoints.len() {
            let before = self.waypoints.clone();
            self.waypoints.remove(i);
            self.commit(before);
        }
    }
}

/// Keeps a point inside the area of interest (the visitor's path must stay in the cell).
pub fn clamp_to(area: (Metres, Metres), p: Metres) -> Metres {
    let (lo, hi) = area;
    Metres::new(
        p.east.clamp(lo.east, hi.east),
        p.north.clamp(lo.north, hi.north),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAX: usize = 50;

    fn view() -> Viewport {
        Viewport {
            centre: Metres::new(0.0, 0.0),
            m_per_px: 2.0,
            width_px: 400.0,
            height_px: 300.0,
        }
    }

    #[test]
    fn hits_find_waypoints_and_leg_handles() {
        let e = PathEditor::new(vec![Metres::new(0.0, 0.0), Metres::new(200.0, 0.0)], MAX);
        // (0,0) is at the centre of the screen; 200 m east is 100 px right.
        assert_eq!(e.hit_waypoint(&view(), 203.0, 151.0, 8.0), Some(0));
        assert_eq!(e.hit_waypoint(&view(), 300.0, 150.0, 8.0), Some(1));
        assert_eq!(e.hit_waypoint(&view(), 250.0, 150.0, 8.0), None);
        assert_eq!(e.hit_midpoint(&view(), 250.0, 152.0, 8.0), Some(0));
    }

    #[test]
    fn undo_and_redo_walk_the_history() {
        let mut e = PathEditor::new(vec![Metres::new(0.0, 0.0)], MAX);
        e.replace(vec![Metres::new(1.0, 1.0), Metres::new(2.0, 2.0)]);
        let i = e.insert_mid(0).unwrap();
        assert_eq!(e.waypoints[i], Metres::new(1.5, 1.5));
        e.commit(vec![Metres::new(1.0, 1.0), Metres::new(2.0, 2.0)]);
        e.delete(0);
        assert_eq!(e.waypoints.len(), 2);
        assert!(e.undo());
        assert_eq!(e.waypoints.len(), 3);
        assert!(e.undo());
        assert_eq!(e.waypoints.len(), 2);
        assert!(e.undo());
        assert_eq!(e.waypoints, vec![Metres::new(0.0, 0.0)]);
        assert!(!e.undo());
        assert!(e.redo() && e.redo());
        assert_eq!(e.waypoints.len(), 3);
        // A new edit drops the redo branch.
        e.replace(vec![]);
        assert!(!e.can_redo());
    }

    /// The editor stops where a run does: past the limit nothing is added or inserted.
    #[test]
    fn the_editor_stops_at_the_limit_a_run_takes() {
        let mut e = PathEditor::new(vec![Metres::new(0.0, 0.0); MAX - 1], MAX);
        assert!(!e.is_full());
        assert!(e.add(Metres::new(5.0, 5.0)));
        assert!(e.is_full());
        assert!(!e.add(Metres::new(6.0, 6.0)));
        assert_eq!(e.insert_mid(0), None);
        assert_eq!(e.waypoints.len(), MAX);
        e.delete(0);
        assert_eq!(e.insert_mid(0), Some(1));
    }

    /// Editing without a pointer: select round the path, add after the selection, nudge.
    #[test]
    fn the_keyboard_selects_adds_and_moves_waypoints() {
        let mut e = PathEditor::new(vec![Metres::new(0.0, 0.0), Metres::new(100.0, 0.0)], MAX);
        assert_eq!(e.step_selection(None, true), Some(0));
        assert_eq!(e.step_selection(None, false), Some(1));
        assert_eq!(e.step_selection(Some(1), true), Some(0));
        assert_eq!(e.step_selection(Some(0), false), Some(1));
        let same = |p| p;
        assert_eq!(e.add_after(Some(0), Metres::new(9.0, 9.0), same), Some(1));
        assert_eq!(e.waypoints[1], Metres::new(50.0, 0.0));
        assert_eq!(e.add_after(Some(2), Metres::new(9.0, 9.0), same), Some(3));
        assert_eq!(e.waypoints[3], Metres::new(150.0, 0.0));
        assert_eq!(e.add_after(None, Metres::new(9.0, 9.0), same), Some(4));
        assert_eq!(e.waypoints[4], Metres::new(9.0, 9.0));
        let area = (Metres::new(-20.0, -20.0), Metres::new(20.0, 20.0));
        e.nudge(4, KEY_STEP_M, -100.0, |p| clamp_to(area, p));
        assert_eq!(e.waypoints[4], Metres::new(19.0, -20.0));
        assert_eq!(PathEditor::default().step_selection(None, true), None);
    }

    #[test]
    fn points_are_kept_inside_the_area() {
        let area = (Metres::new(-900.0, -850.0), Metres::new(900.0, 850.0));
        assert_eq!(
            clamp_to(area, Metres::new(1000.0, -2000.0)),
            Metres::new(900.0, -850.0)
        );
    }
}
