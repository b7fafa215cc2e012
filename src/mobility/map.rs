//! The Mobility lab on the shared map ([`crate::ui::map`]): the city's streets, the target's
//! trajectory, the round's sliding window (8 positions and the next one), what the phone sent
//! instead under a location defence, the server's reconstruction with its optimisation trail,
//! and the calibrated estimate of every position so far. The visitor draws their route with the
//! shared path tool ([`crate::ui::path_tool`]).

use super::settings::{city, drawn};
use super::{Layers, MobState};
use crate::ui::basemap::{self, Viewport, format_distance};
use crate::ui::labels::{LABEL_FONT, Label, Rect, SMALL_FONT, boxes, draw_labels};
use crate::ui::map::{MapLayers, map_view, overlays};
use crate::ui::marks::{diamond, polyline};
use crate::ui::path_tool::{PathHost, PathTool};
use leptos::prelude::*;
use std::f64::consts::TAU;
use std::rc::Rc;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};
use whereabouts_core::geo::Metres;

pub const WINDOW_COLOUR: &str = "#2563eb";
pub const GUESS_COLOUR: &str = "#d1242f";
pub const ESTIMATE_COLOUR: &str = "#ea580c";
pub const SENT_COLOUR: &str = "#9333ea";
/// An arrow key moves the selected waypoint this far (Shift: ten times).
const KEY_STEP_M: f64 = 50.0;

impl PathHost for MobState {
    fn editor(&self) -> RwSignal<crate::ui::path_editor::PathEditor> {
        self.editor
    }

    /// While the target is the drawn route (and the link does not hide drawing).
    fn editable(&self) -> bool {
        self.settings.with(drawn) && !self.hidden.with(|h| h.iter().any(|k| k == "m.path"))
    }

    fn area(&self) -> (Metres, Metres) {
        city()
    }

    fn key_step_m(&self) -> f64 {
        KEY_STEP_M
    }

    fn changed(&self) {
        self.path_done();
    }
}

#[component]
pub fn MobMap(state: MobState) -> impl IntoView {
    let tool = PathTool::new(state);
    let active = tool.active;
    let paint = move |ctx: &CanvasRenderingContext2d, canvas: &HtmlCanvasElement, v: &Viewport| {
        let reserved = overlays(canvas);
        let drawn = draw(ctx, v, state, active.get_untracked(), &reserved);
        let _ = canvas.set_attribute(
            "data-labels",
            &boxes(drawn.iter().map(|(t, r)| (t.as_str(), r))),
        );
        let _ = canvas.set_attribute("data-overlays", &boxes(reserved.iter().map(|r| ("", r))));
    };
    let layers = MapLayers {
        area: Rc::new(city),
        track: Rc::new(move || {
            state.scene.track();
            state.editor.track();
            state.layers.track();
            state.viewed.track();
            state.settings.track();
            active.track();
        }),
        paint: Rc::new(paint),
        label: Rc::new(move || {
            "Map of the synthetic city's streets with your route, the window of 8 positions your phone trained on this round, the server's reconstruction of it (with the path its optimisation took) and its averaged estimate of every position so far. Click to add a waypoint to your route, drag one to move it, double-click one to remove it. Keyboard: N and P select a waypoint, the arrows move it (Shift: farther), A adds one after it, Delete removes it. Wheel or +/− to zoom.".into()
        }),
        summary_id: "mob-summary",
    };
    let tools = tool.buttons("mob-", move || !state.editable());
    map_view(
        "mob-map",
        layers,
        Rc::new(tool),
        tools,
        view! { <Legend state/> },
    )
}

#[component]
fn Legend(state: MobState) -> impl IntoView {
    let layer = move |f: fn(&Layers) -> bool| move || !state.layers.with(f);
    let sent = move || {
        state.scene.with(|s| {
            s.shown(state.viewed.get())
                .is_some_and(|r| r.sent.is_some())
        })
    };
    view! {
        <div class="legend" aria-hidden="true">
            <span><i class="sym window"></i>"your window"</span>
            <span><i class="sym next"></i>"next position"</span>
            <span><i class="sym dlg"></i>"server's reconstruction"</span>
            <span class:hidden=layer(|l| l.trail)><i class="sym trail"></i>"its optimisation"</span>
            <span class:hidden=layer(|l| l.estimates)><i class="sym estimate"></i>"averaged estimates"</span>
            <span class:hidden=move || !sent()><i class="sym sent"></i>"what your phone sent"</span>
        </div>
    }
}

fn dot(ctx: &CanvasRenderingContext2d, x: f64, y: f64, r: f64, fill: &str, stroke: Option<&str>) {
    ctx.begin_path();
    let _ = ctx.arc(x, y, r, 0.0, TAU);
    ctx.set_fill_style_str(fill);
    ctx.fill();
    if let Some(s) = stroke {
        ctx.set_stroke_style_str(s);
        ctx.set_line_width(1.5);
        ctx.stroke();
    }
}

fn dashed(ctx: &CanvasRenderingContext2d, on: bool) {
    let dash = if on {
        js_sys::Array::of2(&4.0.into(), &3.0.into())
    } else {
        js_sys::Array::new()
    };
    let _ = ctx.set_line_dash(&dash);
}

/// Paints one frame; the labels drawn and where.
fn draw(
    ctx: &CanvasRenderingContext2d,
    v: &Viewport,
    state: MobState,
    active: Option<usize>,
    reserved: &[Rect],
) -> Vec<(String, Rect)> {
    basemap::draw(ctx, v);
    let mut markers: Vec<Rect> = basemap::reserved(v).to_vec();
    markers.extend_from_slice(reserved);
    let mut texts: Vec<Label> = Vec::new();
    let layers = state.layers.get_untracked();
    let viewed = state.viewed.get_untracked();
    let drawn_route = state.settings.with_untracked(drawn);
    state.scene.with_untracked(|scene| {
        if let (true, Some(roads)) = (layers.streets, &scene.roads) {
            // Side streets thin, arterials wider: two strokes in all.
            for (arterial, width, colour) in [(false, 1.0, "#ddd6c8"), (true, 2.5, "#d3c8b2")] {
                ctx.begin_path();
                for r in roads.roads.iter().filter(|r| r.arterial == arterial) {
                    let (ax, ay) = v.to_screen(roads.junctions[r.a]);
                    let (bx, by) = v.to_screen(roads.junctions[r.b]);
                    ctx.move_to(ax, ay);
                    ctx.line_to(bx, by);
                }
                ctx.set_line_width(width);
                ctx.set_stroke_style_str(colour);
                ctx.stroke();
            }
        }
        texts.push(basemap::draw_area(ctx, v, city(), "city"));
        // The target's trajectory, as the phone recorded it.
        if !scene.target.is_empty() {
            ctx.set_line_width(1.5);
            ctx.set_stroke_style_str("rgba(37,99,235,0.35)");
            polyline(ctx, v, &scene.target);
        }
        let Some(record) = scene.shown(viewed) else {
            return;
        };
        let upto = record.round;
        if layers.estimates {
            ctx.set_line_width(1.0);
            ctx.set_stroke_style_str("rgba(234,88,12,0.55)");
            for (_, guess, truth) in scene.estimates(upto) {
                let (gx, gy) = v.to_screen(guess);
                let (tx, ty) = v.to_screen(truth);
                ctx.begin_path();
                ctx.move_to(tx, ty);
                ctx.line_to(gx, gy);
                ctx.stroke();
                dot(ctx, gx, gy, 3.5, ESTIMATE_COLOUR, None);
            }
        }
        if let Some(sent) = &record.sent {
            ctx.set_stroke_style_str(SENT_COLOUR);
            ctx.set_line_width(1.0);
            dashed(ctx, true);
            let truths = record
                .truth
                .iter()
                .chain(std::iter::once(&record.truth_label));
            for (s, t) in sent.iter().zip(truths) {
                let (sx, sy) = v.to_screen(*s);
                let (tx, ty) = v.to_screen(*t);
                ctx.begin_path();
                ctx.move_to(tx, ty);
                ctx.line_to(sx, sy);
                ctx.stroke();
            }
            dashed(ctx, false);
            ctx.set_fill_style_str(SENT_COLOUR);
            for s in sent {
                let (sx, sy) = v.to_screen(*s);
                ctx.fill_rect(sx - 3.5, sy - 3.5, 7.0, 7.0);
            }
        }
        // A diverged attack's trail and guess may lie millions of kilometres out: not drawn.
        if layers.trail
            && !record.diverged
            && let Some(trail) = scene.trails.get(upto)
        {
            ctx.set_line_width(1.2);
            ctx.set_stroke_style_str("rgba(209,36,47,0.35)");
            for path in trail {
                polyline(ctx, v, path);
            }
        }
        // The window: its 8 positions numbered, the next one a ring.
        ctx.set_stroke_style_str("rgba(37,99,235,0.8)");
        ctx.set_line_width(2.5);
        polyline(ctx, v, &record.truth);
        for (k, p) in record.truth.iter().enumerate() {
            let (x, y) = v.to_screen(*p);
            dot(ctx, x, y, 6.0, WINDOW_COLOUR, Some("#ffffff"));
            ctx.set_fill_style_str("#ffffff");
            ctx.set_font(SMALL_FONT);
            ctx.set_text_align("center");
            let _ = ctx.fill_text(&(k + 1).to_string(), x, y + 3.5);
            ctx.set_text_align("start");
            markers.push(Rect::around(x, y, 7.0));
        }
        let (nx, ny) = v.to_screen(record.truth_label);
        ctx.begin_path();
        let _ = ctx.arc(nx, ny, 6.5, 0.0, TAU);
        ctx.set_stroke_style_str(WINDOW_COLOUR);
        ctx.set_line_width(2.5);
        ctx.stroke();
        markers.push(Rect::around(nx, ny, 8.0));
        let last = record.truth[record.truth.len() - 1];
        let (wx, wy) = v.to_screen(last);
        texts.insert(
            0,
            Label {
                text: format!("your window, round {}", record.round + 1),
                anchor: (wx, wy),
                colour: WINDOW_COLOUR,
                font: LABEL_FONT,
            },
        );
        if record.diverged {
            texts.insert(
                1,
                Label {
                    text: "the server's attack diverged: no guess this round".into(),
                    anchor: (wx, wy + 16.0),
                    colour: GUESS_COLOUR,
                    font: LABEL_FONT,
                },
            );
            return;
        }
        // The server's reconstruction, with a line to each truth.
        ctx.set_stroke_style_str("rgba(209,36,47,0.6)");
        ctx.set_line_width(1.0);
        dashed(ctx, true);
        for (g, t) in record.reconstruction.iter().zip(&record.truth) {
            let (gx, gy) = v.to_screen(*g);
            let (tx, ty) = v.to_screen(*t);
            ctx.begin_path();
            ctx.move_to(tx, ty);
            ctx.line_to(gx, gy);
            ctx.stroke();
        }
        dashed(ctx, false);
        for g in &record.reconstruction {
            let (gx, gy) = v.to_screen(*g);
            diamond(ctx, gx, gy, 5.5, GUESS_COLOUR, "#ffffff");
            markers.push(Rect::around(gx, gy, 7.0));
        }
        let (lx, ly) = v.to_screen(record.reconstructed_label);
        diamond(ctx, lx, ly, 6.0, "#ffffff", GUESS_COLOUR);
        markers.push(Rect::around(lx, ly, 8.0));
        let mean = record.calibrated_errors_m.iter().sum::<f64>()
            / record.calibrated_errors_m.len() as f64;
        let (gx, gy) = v.to_screen(record.reconstruction[record.reconstruction.len() - 1]);
        texts.insert(
            1,
            Label {
                text: format!("server's guess · {} off on average", format_distance(mean)),
                anchor: (gx, gy),
                colour: GUESS_COLOUR,
                font: LABEL_FONT,
            },
        );
    });
    // The drawn route's waypoints, over everything (they are what the visitor edits).
    if drawn_route {
        state.editor.with_untracked(|e| {
            ctx.set_stroke_style_str("rgba(31,35,40,0.55)");
            ctx.set_line_width(1.5);
            dashed(ctx, true);
            polyline(ctx, v, &e.waypoints);
            dashed(ctx, false);
            for (i, w) in e.waypoints.iter().enumerate() {
                let (x, y) = v.to_screen(*w);
                let r = if active == Some(i) { 7.0 } else { 5.0 };
                dot(ctx, x, y, r, "#ffffff", Some("#1f2328"));
                markers.push(Rect::around(x, y, r + 2.0));
            }
        });
    }
    draw_labels(ctx, (v.width_px, v.height_px), &texts, &markers)
}
