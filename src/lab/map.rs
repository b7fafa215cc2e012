//! The lab's map: drawing on request-animation-frame, and pointer, wheel, touch and keyboard
//! input turned into path edits and view changes.

use super::LabState;
use super::draw::{self, Frame};
use super::editor::clamp_to;
use crate::basemap::Viewport;
use leptos::{ev, html, prelude::*};
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, PointerEvent, WheelEvent};
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
    Pan {
        last: (f64, f64),
    },
    Waypoint {
        index: usize,
        before: Vec<Metres>,
        moved: bool,
    },
    Draw {
        before: Vec<Metres>,
        last: (f64, f64),
    },
    Pinch {
        distance: f64,
        mid: (f64, f64),
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

/// The viewport that shows the whole area with a margin.
fn fitted(area: (Metres, Metres), width: f64, height: f64) -> Viewport {
    let (w, h) = (area.1.east - area.0.east, area.1.north - area.0.north);
    let m_per_px = (w / (width - 40.0).max(50.0)).max(h / (height - 40.0).max(50.0));
    Viewport {
        centre: Metres::new(
            (area.0.east + area.1.east) / 2.0,
            (area.0.north + area.1.north) / 2.0,
        ),
        m_per_px,
        width_px: width,
        height_px: height,
    }
}

#[component]
pub fn LabMap(state: LabState) -> impl IntoView {
    let canvas_ref = NodeRef::<html::Canvas>::new();
    let tool = RwSignal::new(Tool::Draw);
    let view = StoredValue::new(None::<Viewport>);
    let gesture = StoredValue::new(Gesture::None);
    let pointers = StoredValue::new(Vec::<(i32, f64, f64)>::new());
    let active = RwSignal::new(None::<usize>);
    let frame_pending = StoredValue::new(false);
    let heat_canvas = StoredValue::new_local(None::<HtmlCanvasElement>);

    let paint = move || {
        frame_pending.set_value(false);
        let Some(canvas) = canvas_ref.get_untracked() else {
            return;
        };
        let dpr = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio());
        let (w, h) = (canvas.client_width() as f64, canvas.client_height() as f64);
        if w <= 0.0 || h <= 0.0 {
            return;
        }
        let (pw, ph) = ((w * dpr).round() as u32, (h * dpr).round() as u32);
        if canvas.width() != pw || canvas.height() != ph {
            canvas.set_width(pw);
            canvas.set_height(ph);
        }
        let Ok(Some(ctx)) = canvas.get_context("2d") else {
            return;
        };
        let Ok(ctx) = ctx.dyn_into::<CanvasRenderingContext2d>() else {
            return;
        };
        let _ = ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0);
        let mut v = view
            .get_value()
            .unwrap_or_else(|| fitted(area_of(&state), w, h));
        v.width_px = w;
        v.height_px = h;
        view.set_value(Some(v));
        // The plane under the canvas, for tests and benchmarks that aim at map features.
        let _ = canvas.set_attribute(
            "data-view",
            &format!("{} {} {}", v.centre.east, v.centre.north, v.m_per_px),
        );
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
                    let frame = Frame {
                        view: &v,
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
                    };
                    draw::draw(&ctx, hc, &frame);
                })
            })
        });
    };
    let redraw = move || {
        if !frame_pending.get_value() {
            frame_pending.set_value(true);
            request_animation_frame(paint);
        }
    };

    // Redraw whenever anything drawn changes.
    Effect::new(move |_| {
        state.scene.track();
        state.editor.track();
        state.layers.track();
        state.selected.track();
        state.wanted.track();
        tool.track();
        active.track();
        if canvas_ref.get().is_some() {
            redraw();
        }
    });
    let resize = window_event_listener(ev::resize, move |_| redraw());
    on_cleanup(move || resize.remove());

    let plane_at = move |x: f64, y: f64| {
        view.get_value()
            .map(|v| clamp_to(area_of(&state), v.to_plane(x, y)))
    };

    let on_down = move |e: PointerEvent| {
        let Some(v) = view.get_value() else { return };
        let (x, y) = (e.offset_x() as f64, e.offset_y() as f64);
        if let Some(c) = canvas_ref.get_untracked() {
            let _ = c.set_pointer_capture(e.pointer_id());
            let _ = c.focus();
        }
        pointers.update_value(|p| {
            p.retain(|(id, ..)| *id != e.pointer_id());
            p.push((e.pointer_id(), x, y));
        });
        let touch = e.pointer_type() == "touch";
        let radius = if touch { 18.0 } else { 10.0 };
        if pointers.with_value(|p| p.len()) == 2 {
            finish_gesture(state, gesture, active);
            let (a, b) = pointers.with_value(|p| ((p[0].1, p[0].2), (p[1].1, p[1].2)));
            gesture.set_value(Gesture::Pinch {
                distance: (a.0 - b.0).hypot(a.1 - b.1).max(1.0),
                mid: ((a.0 + b.0) / 2.0, (a.1 + b.1) / 2.0),
            });
            return;
        }
        let editing = tool.get_untracked() == Tool::Draw
            && !state.has_data()
            && !state
                .hidden
                .with_untracked(|h| h.iter().any(|k| k == "draw"));
        let hit = state
            .editor
            .with_untracked(|ed| ed.hit_waypoint(&v, x, y, radius));
        let before = state.editor.with_untracked(|ed| ed.waypoints.clone());
        if let (true, Some(index)) = (editing, hit) {
            active.set(Some(index));
            gesture.set_value(Gesture::Waypoint {
                index,
                before,
                moved: false,
            });
            return;
        }
        if editing {
            if let Some(k) = state
                .editor
                .with_untracked(|ed| ed.hit_midpoint(&v, x, y, radius))
            {
                let mut index = 0;
                state.editor.update(|ed| index = ed.insert_mid(k));
                active.set(Some(index));
                gesture.set_value(Gesture::Waypoint {
                    index,
                    before,
                    moved: true,
                });
                return;
            }
            if let Some(p) = plane_at(x, y) {
                state.editor.update(|ed| ed.waypoints.push(p));
                active.set(None);
                gesture.set_value(Gesture::Draw {
                    before,
                    last: (x, y),
                });
            }
            return;
        }
        gesture.set_value(Gesture::Pan { last: (x, y) });
    };

    let on_move = move |e: PointerEvent| {
        let (x, y) = (e.offset_x() as f64, e.offset_y() as f64);
        pointers.update_value(|p| {
            if let Some(q) = p.iter_mut().find(|q| q.0 == e.pointer_id()) {
                q.1 = x;
                q.2 = y;
            }
        });
        let Some(mut v) = view.get_value() else {
            return;
        };
        let mut g = gesture.get_value();
        match &mut g {
            Gesture::None => return,
            Gesture::Pan { last } => {
                v.centre = Metres::new(
                    v.centre.east - (x - last.0) * v.m_per_px,
                    v.centre.north + (y - last.1) * v.m_per_px,
                );
                *last = (x, y);
                view.set_value(Some(v));
                redraw();
            }
            Gesture::Waypoint { index, moved, .. } => {
                if let Some(p) = plane_at(x, y) {
                    let i = *index;
                    state.editor.update(|ed| {
                        if let Some(w) = ed.waypoints.get_mut(i) {
                            *w = p;
                        }
                    });
                    *moved = true;
                    state.drag_changed();
                }
            }
            Gesture::Draw { last, .. } => {
                if let (true, Some(p)) = (
                    (x - last.0).hypot(y - last.1) >= DRAW_SPACING_PX,
                    plane_at(x, y),
                ) {
                    state.editor.update(|ed| ed.waypoints.push(p));
                    *last = (x, y);
                }
            }
            Gesture::Pinch { distance, mid } => {
                let Some((a, b)) = pointers
                    .with_value(|p| (p.len() == 2).then(|| ((p[0].1, p[0].2), (p[1].1, p[1].2))))
                else {
                    return;
                };
                let d = (a.0 - b.0).hypot(a.1 - b.1).max(1.0);
                let m = ((a.0 + b.0) / 2.0, (a.1 + b.1) / 2.0);
                let anchor = v.to_plane(mid.0, mid.1);
                v.m_per_px = (v.m_per_px * *distance / d).clamp(0.05, 500.0);
                // Keep the plane point under the fingers' midpoint under it.
                let now = v.to_plane(m.0, m.1);
                v.centre = Metres::new(
                    v.centre.east + anchor.east - now.east,
                    v.centre.north + anchor.north - now.north,
                );
                *distance = d;
                *mid = m;
                view.set_value(Some(v));
                redraw();
            }
        }
        gesture.set_value(g);
    };

    let on_up = move |e: PointerEvent| {
        pointers.update_value(|p| p.retain(|(id, ..)| *id != e.pointer_id()));
        if matches!(gesture.get_value(), Gesture::Pinch { .. }) {
            if pointers.with_value(|p| p.is_empty()) {
                gesture.set_value(Gesture::None);
            }
            return;
        }
        finish_gesture(state, gesture, active);
    };

    let on_dblclick = move |e: ev::MouseEvent| {
        let Some(v) = view.get_value() else { return };
        if tool.get_untracked() != Tool::Draw || state.has_data() {
            return;
        }
        let (x, y) = (e.offset_x() as f64, e.offset_y() as f64);
        if let Some(i) = state
            .editor
            .with_untracked(|ed| ed.hit_waypoint(&v, x, y, 12.0))
        {
            state.editor.update(|ed| ed.delete(i));
            active.set(None);
            state.path_changed();
        }
    };

    let zoom_at = move |factor: f64, x: f64, y: f64| {
        let Some(mut v) = view.get_value() else {
            return;
        };
        let anchor = v.to_plane(x, y);
        v.m_per_px = (v.m_per_px * factor).clamp(0.05, 500.0);
        let now = v.to_plane(x, y);
        v.centre = Metres::new(
            v.centre.east + anchor.east - now.east,
            v.centre.north + anchor.north - now.north,
        );
        view.set_value(Some(v));
        redraw();
    };

    let on_wheel = move |e: WheelEvent| {
        e.prevent_default();
        let factor = (e.delta_y() * 0.0015).exp();
        zoom_at(factor, e.offset_x() as f64, e.offset_y() as f64);
    };

    let centre_zoom = move |factor: f64| {
        if let Some(v) = view.get_value() {
            zoom_at(factor, v.width_px / 2.0, v.height_px / 2.0);
        }
    };
    let fit = move || {
        if let Some(v) = view.get_value() {
            view.set_value(Some(fitted(area_of(&state), v.width_px, v.height_px)));
            redraw();
        }
    };

    let on_key = move |e: ev::KeyboardEvent| {
        let pan = |dx: f64, dy: f64| {
            if let Some(mut v) = view.get_value() {
                v.centre = Metres::new(
                    v.centre.east + dx * v.m_per_px * 60.0,
                    v.centre.north + dy * v.m_per_px * 60.0,
                );
                view.set_value(Some(v));
                redraw();
            }
        };
        match e.key().as_str() {
            "Delete" | "Backspace" => {
                if let (Some(i), false) = (active.get_untracked(), state.has_data()) {
                    e.prevent_default();
                    state.editor.update(|ed| ed.delete(i));
                    active.set(None);
                    state.path_changed();
                }
            }
            "+" | "=" => centre_zoom(1.0 / 1.25),
            "-" => centre_zoom(1.25),
            "ArrowLeft" => pan(-1.0, 0.0),
            "ArrowRight" => pan(1.0, 0.0),
            "ArrowUp" => pan(0.0, 1.0),
            "ArrowDown" => pan(0.0, -1.0),
            _ => return,
        }
        e.prevent_default();
    };

    // Fit the view to the world when it is first known, and whenever its area changes (an
    // imported file places the world elsewhere, at another scale).
    Effect::new(move |fitted: Option<Option<(Metres, Metres)>>| {
        let area = state.scene.with(|s| s.world.as_ref().map(|w| w.area));
        if area.is_some() && fitted.flatten() != area {
            fit();
            return area;
        }
        fitted.flatten()
    });

    let draw_hidden = move || state.hidden.with(|h| h.iter().any(|k| k == "draw"));

    view! {
        <canvas node_ref=canvas_ref class="map" data-testid="map-canvas" tabindex="0"
            role="application"
            aria-label=move || if state.data.with(|d| d.active.is_some()) {
                "Map of your imported data and the world placed around it. Drag to pan; wheel or +/− to zoom, arrows to pan."
            } else {
                "Map of the synthetic campus. Click or drag to draw your path; drag a waypoint to move it; double-click a waypoint (or select it and press Delete) to remove it. Wheel or +/− to zoom, arrows to pan."
            }
            class:panning=move || tool.get() == Tool::Pan
            on:pointerdown=on_down on:pointermove=on_move on:pointerup=on_up
            on:pointercancel=on_up on:dblclick=on_dblclick on:wheel=on_wheel
            on:keydown=on_key
            on:contextmenu=|e: ev::MouseEvent| e.prevent_default()></canvas>
        <div class="map-tools" role="toolbar" aria-label="Map tools">
            <div class="seg" class:hidden=move || draw_hidden() || state.data.with(|d| d.active.is_some())>
                <button type="button" data-testid="tool-draw" aria-pressed=move || (tool.get() == Tool::Draw).to_string()
                    on:click=move |_| tool.set(Tool::Draw) title="Draw and edit your path">"✎ Draw"</button>
                <button type="button" data-testid="tool-pan" aria-pressed=move || (tool.get() == Tool::Pan).to_string()
                    on:click=move |_| tool.set(Tool::Pan) title="Drag the map around">"✥ Pan"</button>
            </div>
            <div class="seg">
                <button type="button" aria-label="Zoom in" on:click=move |_| centre_zoom(1.0 / 1.4)>"+"</button>
                <button type="button" aria-label="Zoom out" on:click=move |_| centre_zoom(1.4)>"−"</button>
                <button type="button" aria-label="Fit the area" on:click=move |_| fit()>"Fit"</button>
            </div>
        </div>
        <MapLegend state/>
    }
}

/// Ends a waypoint drag or a freehand stroke: one undo step, and the engine hears of it.
fn finish_gesture(state: LabState, gesture: StoredValue<Gesture>, active: RwSignal<Option<usize>>) {
    match gesture.get_value() {
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
            active.set(None);
            state.path_changed();
        }
        _ => {}
    }
    gesture.set_value(Gesture::None);
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
