//! The Signal map's layers and editing on the shared map ([`crate::ui::map`]): the path is
//! drawn with the shared path tool ([`crate::ui::path_tool`]).

use super::LabState;
use super::draw::{self, Frame};
use crate::shell::path_link;
use crate::ui::basemap::Viewport;
use crate::ui::labels::boxes;
use crate::ui::map::{MapLayers, map_view, overlays};
use crate::ui::path_editor::KEY_STEP_M;
use crate::ui::path_tool::{PathHost, PathTool, Tool};
use leptos::prelude::*;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::HtmlCanvasElement;
use whereabouts_core::geo::Metres;
use whereabouts_engine::signal_map::trajectory::MAX_WAYPOINTS;

fn area_of(state: &LabState) -> (Metres, Metres) {
    state
        .scene
        .with_untracked(|s| s.world.as_ref().map(|w| w.area))
        .unwrap_or_else(|| {
            let (hw, hh) = super::campus_half();
            (Metres::new(-hw, -hh), Metres::new(hw, hh))
        })
}

/// The Signal map's path on the shared path tool.
impl PathHost for LabState {
    fn editor(&self) -> RwSignal<crate::ui::path_editor::PathEditor> {
        self.editor
    }

    /// Not while a file is loaded, nor when the link hides drawing.
    fn editable(&self) -> bool {
        !self.data.loaded() && !self.hidden.with(|h| h.iter().any(|k| k == "draw"))
    }

    fn area(&self) -> (Metres, Metres) {
        area_of(self)
    }

    fn key_step_m(&self) -> f64 {
        KEY_STEP_M
    }

    fn dragged(&self) {
        self.drag_changed();
    }

    fn changed(&self) {
        self.path_changed();
    }
}

#[component]
pub fn LabMap(state: LabState) -> impl IntoView {
    let editor = PathTool::new(state);
    let (tool, active) = (editor.tool, editor.active);
    let heat_canvas = StoredValue::new_local(None::<HtmlCanvasElement>);

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
                    let _ = canvas
                        .set_attribute("data-imprint", &draw::imprint_rings(&frame).to_string());
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
        summary_id: "signal-summary",
    };
    let draw_hidden = move || state.hidden.with(|h| h.iter().any(|k| k == "draw"));
    let tools = editor.buttons("", move || draw_hidden() || state.data.loaded());
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
    let fedavg = move || {
        let focused = state
            .selected
            .get()
            .or_else(|| state.wanted.get().checked_sub(1));
        state.scene.with(|s| {
            focused
                .and_then(|t| s.round(t))
                .is_some_and(|r| r.simulated.is_some())
        })
    };
    view! {
        <div class="legend" aria-hidden="true">
            <span><i class="sym truth"></i>"true centroid"</span>
            <span><i class="sym dlg"></i>"DLG"</span>
            <span class:hidden=move || !fedavg()><i class="sym fedavg"></i>"FedAvg-aware (dots: its dummy per local step)"</span>
            <span><i class="sym analytic"></i>"analytic"</span>
            <span class:hidden=move || !steps()><i class="sym step"></i>"mini-batch centroid (one per local step)"</span>
            <span class:hidden=move || heat().is_none()><i class="sym heat"></i>{heat}</span>
        </div>
    }
}
