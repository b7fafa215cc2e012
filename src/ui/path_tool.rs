//! Drawing a path on a lab's map ([`crate::ui::map`]): freehand or by clicks, waypoints dragged,
//! inserted at a leg's midpoint, deleted, and edited from the keyboard, each finished change one
//! undo step of the lab's [`PathEditor`]. The Signal map's trajectory and the Mobility lab's
//! route are drawn with it; a lab says what its path is and what a change does ([`PathHost`]).

use crate::ui::basemap::Viewport;
use crate::ui::map::{MapEditor, touch_first};
use crate::ui::path_editor::{PathEditor, clamp_to};
use leptos::prelude::*;
use whereabouts_core::geo::Metres;

/// Freehand drawing adds a waypoint every this many CSS pixels.
const DRAW_SPACING_PX: f64 = 26.0;

/// Which tool the map's pointer is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    Draw,
    Pan,
}

#[derive(Clone, Debug, Default)]
enum Gesture {
    #[default]
    None,
    Waypoint {
        index: usize,
        before: Vec<Metres>,
        moved: bool,
    },
    Draw {
        before: Vec<Metres>,
        last: (f64, f64),
    },
}

/// What a lab gives the path tool: its path, whether it may be edited, where, and what to do
/// when it changes.
pub trait PathHost: Copy + 'static {
    fn editor(&self) -> RwSignal<PathEditor>;
    /// True while the path may be edited (tracked: the map's cursor follows it).
    fn editable(&self) -> bool;
    /// The area the waypoints are kept in.
    fn area(&self) -> (Metres, Metres);
    /// An arrow key moves the selected waypoint this far, metres (Shift: ten times).
    fn key_step_m(&self) -> f64;
    /// A dragged waypoint moved (a lab that answers at once hears every step).
    fn dragged(&self) {}
    /// A gesture or a key changed the path (one undo step is recorded).
    fn changed(&self);
}

/// The path editor on a lab's map (all `Copy` handles).
pub struct PathTool<H: PathHost> {
    pub host: H,
    pub tool: RwSignal<Tool>,
    /// The selected waypoint (keyboard editing, and the one drawn larger).
    pub active: RwSignal<Option<usize>>,
    gesture: StoredValue<Gesture>,
}

impl<H: PathHost> Clone for PathTool<H> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<H: PathHost> Copy for PathTool<H> {}

impl<H: PathHost> PathTool<H> {
    /// On a phone the page scrolls over the map until the visitor picks Draw.
    pub fn new(host: H) -> Self {
        PathTool {
            host,
            tool: RwSignal::new(if touch_first() { Tool::Pan } else { Tool::Draw }),
            active: RwSignal::new(None),
            gesture: StoredValue::new(Gesture::None),
        }
    }

    fn editing(&self) -> bool {
        self.tool.get_untracked() == Tool::Draw && untrack(|| self.host.editable())
    }

    fn plane_at(&self, view: &Viewport, x: f64, y: f64) -> Metres {
        clamp_to(self.host.area(), view.to_plane(x, y))
    }

    /// The Draw and Pan buttons (`prefix` for their test ids: `{prefix}tool-draw`), hidden with
    /// `hidden` (tracked).
    pub fn buttons(
        self,
        prefix: &'static str,
        hidden: impl Fn() -> bool + Send + Sync + 'static,
    ) -> impl IntoView {
        let tool = self.tool;
        view! {
            <div class="seg" class:hidden=hidden>
                <button type="button" data-testid=format!("{prefix}tool-draw") aria-pressed=move || (tool.get() == Tool::Draw).to_string()
                    on:click=move |_| tool.set(Tool::Draw) title="Draw and edit your path">"✎ Draw"</button>
                <button type="button" data-testid=format!("{prefix}tool-pan") aria-pressed=move || (tool.get() == Tool::Pan).to_string()
                    on:click=move |_| tool.set(Tool::Pan) title="Drag the map around (on a touch screen: two fingers; one scrolls the page)">"✥ Pan"</button>
            </div>
        }
    }
}

impl<H: PathHost> MapEditor for PathTool<H> {
    fn down(&self, v: &Viewport, x: f64, y: f64, touch: bool) -> bool {
        if !self.editing() {
            return false;
        }
        let (editor, radius) = (self.host.editor(), if touch { 18.0 } else { 10.0 });
        let before = editor.with_untracked(|ed| ed.waypoints.clone());
        if let Some(index) = editor.with_untracked(|ed| ed.hit_waypoint(v, x, y, radius)) {
            self.active.set(Some(index));
            self.gesture.set_value(Gesture::Waypoint {
                index,
                before,
                moved: false,
            });
        } else if let Some(k) = editor.with_untracked(|ed| ed.hit_midpoint(v, x, y, radius)) {
            // A full path takes no new waypoint (the note under the map says so).
            let mut inserted = None;
            editor.update(|ed| inserted = ed.insert_mid(k));
            let Some(index) = inserted else {
                return true;
            };
            self.active.set(Some(index));
            self.gesture.set_value(Gesture::Waypoint {
                index,
                before,
                moved: true,
            });
        } else {
            let p = self.plane_at(v, x, y);
            editor.update(|ed| {
                ed.add(p);
            });
            self.active.set(None);
            self.gesture.set_value(Gesture::Draw {
                before,
                last: (x, y),
            });
        }
        true
    }

    fn drag(&self, v: &Viewport, x: f64, y: f64) {
        let mut g = self.gesture.get_value();
        match &mut g {
            Gesture::None => return,
            Gesture::Waypoint { index, moved, .. } => {
                let (i, p) = (*index, self.plane_at(v, x, y));
                self.host.editor().update(|ed| {
                    if let Some(w) = ed.waypoints.get_mut(i) {
                        *w = p;
                    }
                });
                *moved = true;
                self.host.dragged();
            }
            Gesture::Draw { last, .. } => {
                if (x - last.0).hypot(y - last.1) >= DRAW_SPACING_PX {
                    let p = self.plane_at(v, x, y);
                    self.host.editor().update(|ed| {
                        ed.add(p);
                    });
                    *last = (x, y);
                }
            }
        }
        self.gesture.set_value(g);
    }

    /// Ends a waypoint drag or a freehand stroke: one undo step, and the engine hears of it.
    fn up(&self) {
        let editor = self.host.editor();
        match self.gesture.get_value() {
            Gesture::Waypoint {
                before,
                moved: true,
                ..
            } => {
                editor.update(|ed| ed.commit(before));
                self.host.changed();
            }
            Gesture::Draw { before, .. } => {
                editor.update(|ed| ed.commit(before));
                self.active.set(None);
                self.host.changed();
            }
            _ => {}
        }
        self.gesture.set_value(Gesture::None);
    }

    fn double_click(&self, v: &Viewport, x: f64, y: f64) {
        if !self.editing() {
            return;
        }
        if let Some(i) = self
            .host
            .editor()
            .with_untracked(|ed| ed.hit_waypoint(v, x, y, 12.0))
        {
            self.host.editor().update(|ed| ed.delete(i));
            self.active.set(None);
            self.host.changed();
        }
    }

    /// Drawing without a pointer: N / P select the next / previous waypoint, the arrows move
    /// it ([`PathHost::key_step_m`], Shift ten times that), A adds one after it, Delete removes it,
    /// Escape ends the selection (the arrows pan again). Each change is one undo step.
    fn key(&self, v: &Viewport, key: &str, shift: bool) -> bool {
        if !self.editing() {
            return false;
        }
        let (host, editor) = (self.host, self.host.editor());
        let active = self.active.get_untracked();
        let before = editor.with_untracked(|ed| ed.waypoints.clone());
        let area = host.area();
        let keep = move |p| clamp_to(area, p);
        let step = host.key_step_m() * if shift { 10.0 } else { 1.0 };
        let edited = move || {
            editor.update(|ed| ed.commit(before.clone()));
            host.changed();
        };
        match (key, active) {
            ("n" | "N" | "p" | "P", _) => {
                let forward = key.eq_ignore_ascii_case("n");
                let next = editor.with_untracked(|ed| ed.step_selection(active, forward));
                self.active.set(next);
            }
            ("Escape", Some(_)) => self.active.set(None),
            ("a" | "A", _) => {
                let mut added = None;
                editor.update(|ed| added = ed.add_after(active, v.centre, keep));
                if added.is_some() {
                    self.active.set(added);
                    edited();
                }
            }
            ("ArrowLeft" | "ArrowRight" | "ArrowUp" | "ArrowDown", Some(i)) => {
                let (east, north) = match key {
                    "ArrowLeft" => (-step, 0.0),
                    "ArrowRight" => (step, 0.0),
                    "ArrowUp" => (0.0, step),
                    _ => (0.0, -step),
                };
                editor.update(|ed| ed.nudge(i, east, north, keep));
                edited();
            }
            ("Delete" | "Backspace", Some(i)) => {
                editor.update(|ed| ed.delete(i));
                self.active.set(None);
                self.host.changed();
            }
            _ => return false,
        }
        true
    }

    /// Tracked: the Pan tool, or nothing to edit.
    fn pans(&self) -> bool {
        self.tool.get() == Tool::Pan || !self.host.editable()
    }
}
