//! The Signal map's layers and editing on the shared map ([`crate::ui::map`]): the path is
//! drawn freehand or by clicks, waypoints dragged, inserted at a leg's midpoint and deleted.

use super::LabState;
use super::draw::{self, Frame};
use super::editor::{KEY_STEP_M, MAX_WAYPOINTS, clamp_to};
use crate::shell::path_link;
use crate::ui::basemap::Viewport;
use crate::ui::labels::boxes;
use crate::ui::map::{MapEditor, MapLayers, map_view, overlays, touch_first};
use leptos::prelude::*;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::HtmlCanvasElement;
use whereabouts_core::geo::Metres;

/// Freehand drawing adds a waypoint every this many CSS pixels.
const DRAW_SPACING_PX: f64 = 26.0;

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

fn area_of(state: &LabState) -> (Metres, Metres) {
    state
        .scene
        .with_untracked(|s| s.world.as_ref().map(|w| w.area))
        .unwrap_or_else(|| {
            let (hw, hh) = super::campus_half();
            (Metres::new(-hw, -hh), Metres::new(hw, hh))
        })
}

/// The path editor on the map (all `Copy` handles).
#[derive(Clone, Copy)]
struct PathTool {
    state: LabState,
    tool: RwSignal<Tool>,
    active: RwSignal<Option<usize>>,
    gesture: StoredValue<Gesture>,
}

impl PathTool {
    fn editing(&self) -> bool {
        self.tool.get_untracked() == Tool::Draw
            && !self.state.has_data()
            && !self
                .state
                .hidden
                .with_untracked(|h| h.iter().any(|k| k == "draw"))
    }

    fn plane_at(&self, view: &Viewport, x: f64, y: f64) -> Metres {
        clamp_to(area_of(&self.state), view.to_plane(x, y))
    }
}

impl MapEditor for PathTool {
    fn down(&self, v: &Viewport, x: f64, y: f64, touch: bool) -> bool {
        if !self.editing() {
            return false;
        }
        let (state, radius) = (self.state, if touch { 18.0 } else { 10.0 });
        let before = state.editor.with_untracked(|ed| ed.waypoints.clone());
        if let Some(index) = state
            .editor
            .with_untracked(|ed| ed.hit_waypoint(v, x, y, radius))
        {
            self.active.set(Some(index));
            self.gesture.set_value(Gesture::Waypoint {
                index,
                before,
                moved: false,
            });
        } else if let Some(k) = state
            .editor
            .with_untracked(|ed| ed.hit_midpoint(v, x, y, radius))
        {
            // A full path takes no new waypoint (the note under the map says so).
            let mut inserted = None;
            state.editor.update(|ed| inserted = ed.insert_mid(k));
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
            state.editor.update(|ed| {
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
                self.state.editor.update(|ed| {
                    if let Some(w) = ed.waypoints.get_mut(i) {
                        *w = p;
                    }
                });
                *moved = true;
                self.state.drag_changed();
            }
            Gesture::Draw { last, .. } => {
                if (x - last.0).hypot(y - last.1) >= DRAW_SPACING_PX {
                    let p = self.plane_at(v, x, y);
                    self.state.editor.update(|ed| {
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
        let state = self.state;
        match self.gesture.get_value() {
            Gesture::Waypoint {
                before,
                moved: true,
                ..
            } => {
                state.editor.update(|ed| ed.commit(before));
                state.path_changed();
            }
            Gesture::Draw { before, .. } => {
                state.editor.update(|ed| ed.commit(before));
                self.active.set(None);
                state.path_changed();
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
            .state
            .editor
            .with_untracked(|ed| ed.hit_waypoint(v, x, y, 12.0))
        {
            self.state.editor.update(|ed| ed.delete(i));
            self.active.set(None);
            self.state.path_changed();
        }
    }

    /// Drawing without a pointer: N / P select the next / previous waypoint, the arrows move
    /// it ([`KEY_STEP_M`], Shift ten times that), A adds one after it, Delete removes it,
    /// Escape ends the selection (the arrows pan again). Each change is one undo step.
    fn key(&self, v: &Viewport, key: &str, shift: bool) -> bool {
        if !self.editing() {
            return false;
        }
        let state = self.state;
        let active = self.active.get_untracked();
        let before = state.editor.with_untracked(|ed| ed.waypoints.clone());
        let area = area_of(&state);
        let keep = move |p| clamp_to(area, p);
        let step = if shift { 10.0 * KEY_STEP_M } else { KEY_STEP_M };
        let edited = move || {
            state.editor.update(|ed| ed.commit(before.clone()));
            state.path_changed();
        };
        match (key, active) {
            ("n" | "N" | "p" | "P", _) => {
                let forward = key.eq_ignore_ascii_case("n");
                let next = state
                    .editor
                    .with_untracked(|ed| ed.step_selection(active, forward));
                self.active.set(next);
            }
            ("Escape", Some(_)) => self.active.set(None),
            ("a" | "A", _) => {
                let mut added = None;
                state
                    .editor
                    .update(|ed| added = ed.add_after(active, v.centre, keep));
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
                state.editor.update(|ed| ed.nudge(i, east, north, keep));
                edited();
            }
            ("Delete" | "Backspace", Some(i)) => {
                state.editor.update(|ed| ed.delete(i));
                self.active.set(None);
                state.path_changed();
            }
            _ => return false,
        }
        true
    }

    /// Tracked: the Pan tool, or nothing to edit (a file is loaded, or drawing is hidden).
    fn pans(&self) -> bool {
        self.tool.get() == Tool::Pan
            || self.state.data.loaded()
            || self.state.hidden.with(|h| h.iter().any(|k| k == "draw"))
    }
}

#[component]
pub fn LabMap(state: LabState) -> impl IntoView {
    // On a phone the page scrolls over the map until the visitor picks ✎ Draw.
    let tool = RwSignal::new(if touch_first() { Tool::Pan } else { Tool::Draw });
    let active = RwSignal::new(None::<usize>);
    let heat_canvas = StoredValue::new_local(None::<HtmlCanvasElement>);
    let editor = PathTool {
        state,
        tool,
        active,
        gesture: StoredValue::new(Gesture::None),
    };

    let paint = move |ctx: &web_sys::CanvasRenderingContext2d,
                      canvas: &HtmlCanvasElement,
                      v: &Viewport| {
        // Where the world is, and how many imported fixes are drawn (tests read these).
        state.scene.with_untracked(|s| {
            if let Some(w) = &s.world {
                let _ = canvas.set_attribute(
                    "data-origin",
                    &format!("{:.5} {:.5}", w.origin.lat, w.origin.lon),
                );
                let _ = canvas.set_attribute("data-trace", &w.trace.len().to_string());
            }
        });
        if heat_canvas.with_value(|c| c.is_none()) {
            let c = web_sys::window()
                .and_then(|w| w.document())
                .and_then(|d| d.create_element("canvas").ok())
                .and_then(|e| e.dyn_into::<HtmlCanvasElement>().ok());
            heat_canvas.set_value(c);
        }
        heat_canvas.with_value(|hc| {
            let Some(hc) = hc else { return };
            state.scene.with_untracked(|scene| {
                state.editor.with_untracked(|editor| {
                    let reserved = overlays(canvas);
                    let frame = Frame {
                        view: v,
                        scene,
                        path: if state.has_data() {
                            &[]
                        } else {
                            &editor.waypoints
                        },
                        visible: state.wanted.get_untracked(),
                        selected: state.selected.get_untracked(),
                        layers: state.layers.get_untracked(),
                        editing: tool.get_untracked() == Tool::Draw,
                        active_waypoint: active.get_untracked(),
                        reserved: &reserved,
                    };
                    let drawn = draw::draw(ctx, hc, &frame);
                    // The labels and what they keep off, for the tests.
                    let _ = canvas.set_attribute(
                        "data-labels",
                        &boxes(drawn.iter().map(|(t, r)| (t.as_str(), r))),
                    );
                    let _ = canvas
                        .set_attribute("data-overlays", &boxes(reserved.iter().map(|r| ("", r))));
                })
            })
        });
    };
    let layers = MapLayers {
        area: Rc::new(move || area_of(&state)),
        track: Rc::new(move || {
            state.scene.track();
            state.editor.track();
            state.layers.track();
            state.selected.track();
            state.wanted.track();
            tool.track();
            active.track();
        }),
        paint: Rc::new(paint),
        label: Rc::new(move || {
            if state.data.loaded() {
                "Map of your imported data and the world placed around it. Drag to pan; wheel or +/− to zoom, arrows to pan."
            } else {
                "Map of the synthetic campus. Click or drag to draw your path; drag a waypoint to move it; double-click a waypoint (or select it and press Delete) to remove it. Wheel or +/− to zoom, arrows to pan. Keyboard: N and P select the next and previous waypoint, the arrows move it (Shift: farther), A adds one after it, Delete removes it, Escape lets the arrows pan again."
            }
            .into()
        }),
    };
    let draw_hidden = move || state.hidden.with(|h| h.iter().any(|k| k == "draw"));
    let tools = view! {
        <div class="seg" class:hidden=move || draw_hidden() || state.data.loaded()>
            <button type="button" data-testid="tool-draw" aria-pressed=move || (tool.get() == Tool::Draw).to_string()
                on:click=move |_| tool.set(Tool::Draw) title="Draw and edit your path">"✎ Draw"</button>
            <button type="button" data-testid="tool-pan" aria-pressed=move || (tool.get() == Tool::Pan).to_string()
                on:click=move |_| tool.set(Tool::Pan) title="Drag the map around (on a touch screen: two fingers; one scrolls the page)">"✥ Pan"</button>
        </div>
    };
    map_view(
        "map-canvas",
        layers,
        Rc::new(editor),
        tools,
        view! { <MapLegend state/> <PathNotes state active/> },
    )
}

/// What the visitor should know about the path they draw: the editor is full, or the link
/// it makes has grown too long to share.
#[component]
fn PathNotes(state: LabState, active: RwSignal<Option<usize>>) -> impl IntoView {
    // Where the selected waypoint is, for a screen reader (keyboard editing).
    let selected = move || {
        let i = active.get()?;
        state.editor.with(|e| {
            let p = e.waypoints.get(i)?;
            Some(format!(
                "Waypoint {} of {}: {:.0} m east, {:.0} m north of the campus centre.",
                i + 1,
                e.waypoints.len(),
                p.east,
                p.north
            ))
        })
    };
    let full = move || !state.has_data() && state.editor.with(|e| e.is_full());
    let long = move || path_link::link_warning(state.link_chars.get());
    view! {
        <p class="sr-only" role="status" data-testid="waypoint-status">{selected}</p>
        <div class="map-notes">
        <p class="map-note" role="status" data-testid="path-full" class:hidden=move || !full()>
            {format!(
                "Your path has {MAX_WAYPOINTS} waypoints, the most a run takes: delete some (or \
                 Undo) to draw more."
            )}
        </p>
        <p class="map-note" role="status" data-testid="link-length" class:hidden=move || long().is_none()>
            {move || long().unwrap_or_default()}
        </p>
        </div>
    }
}

#[component]
fn MapLegend(state: LabState) -> impl IntoView {
    let heat = move || {
        let on = state.layers.with(|l| l.heat);
        let selected = state
            .selected
            .get()
            .or_else(|| state.wanted.get().checked_sub(1));
        state.scene.with(|s| {
            s.heat_for(selected).filter(|_| on).map(|h| {
                let (lo, hi) = draw::heat_range(h);
                format!("predicted RSRP {lo:.0} … {hi:.0} dBm")
            })
        })
    };
    // Shown when the focused round's update took several local steps (FedAvg).
    let steps = move || {
        let on = state.layers.with(|l| l.steps);
        let focused = state
            .selected
            .get()
            .or_else(|| state.wanted.get().checked_sub(1));
        on && state.scene.with(|s| {
            focused
                .and_then(|t| s.round(t))
                .and_then(|r| r.target.as_ref())
                .is_some_and(|t| !t.steps.is_empty())
        })
    };
    view! {
        <div class="legend" aria-hidden="true">
            <span><i class="sym truth"></i>"true centroid"</span>
            <span><i class="sym dlg"></i>"DLG"</span>
            <span><i class="sym analytic"></i>"analytic"</span>
            <span class:hidden=move || !steps()><i class="sym step"></i>"mini-batch centroid (one per local step)"</span>
            <span class:hidden=move || heat().is_none()><i class="sym heat"></i>{heat}</span>
        </div>
    }
}
