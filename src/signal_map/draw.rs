//! Drawing the lab's layers on the map canvas (on top of [`crate::ui::basemap`]).

use super::scene::{RoundView, Scene};
use crate::ui::basemap::{self, Viewport, format_distance};
use crate::ui::labels::{LABEL_FONT, Label, Rect, SMALL_FONT, draw_labels};
use crate::ui::marks::{diamond, polyline};
use crate::ui::raster::{self, heat_rgb};
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};
use whereabouts_core::geo::Metres;
use whereabouts_engine::signal_map::lab::HeatMap;

/// Which layers are on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Layers {
    pub heat: bool,
    pub points: bool,
    pub centroids: bool,
    pub dlg: bool,
    pub analytic: bool,
    pub errors: bool,
    pub trail: bool,
    /// Under FedAvg: the focused round's mini-batch centroids, one per local step (I3).
    pub steps: bool,
}

impl Default for Layers {
    fn default() -> Self {
        Self {
            heat: true,
            points: true,
            centroids: true,
            dlg: true,
            analytic: true,
            errors: true,
            trail: true,
            steps: true,
        }
    }
}

/// Colours of rounds, cycled: distinct, readable on the light basemap.
pub const ROUND_COLOURS: [&str; 8] = [
    "#2563eb", "#16a34a", "#9333ea", "#0891b2", "#ca8a04", "#db2777", "#4f46e5", "#65a30d",
];
pub const DLG_COLOUR: &str = "#d1242f";
pub const ANALYTIC_COLOUR: &str = "#ea580c";
/// The FedAvg-aware attack's dummies and estimate.
pub const FEDAVG_COLOUR: &str = "#7c3aed";
/// Your fixes the malicious server's imprint module recovered exactly.
pub const IMPRINT_COLOUR: &str = "#be123c";

pub fn round_colour(t: usize) -> &'static str {
    ROUND_COLOURS[t % ROUND_COLOURS.len()]
}

/// The colour scale of a heat map: its own finite min and max, dBm (an untrained model predicts
/// values far from real RSRP, so a fixed scale would show one flat colour for most rounds).
pub fn heat_range(h: &HeatMap) -> (f32, f32) {
    let (lo, hi) = h
        .values_dbm
        .iter()
        .filter(|v| v.is_finite())
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(a, b), &v| {
            (a.min(v), b.max(v))
        });
    if lo.is_finite() && hi > lo {
        (lo, hi)
    } else if lo.is_finite() {
        (lo - 1.0, lo + 1.0)
    } else {
        (-120.0, -70.0)
    }
}

/// Everything one frame shows.
pub struct Frame<'a> {
    pub view: &'a Viewport,
    pub scene: &'a Scene,
    pub path: &'a [Metres],
    /// Rounds 0..visible are drawn.
    pub visible: usize,
    pub selected: Option<usize>,
    pub layers: Layers,
    /// Show the path's editing handles.
    pub editing: bool,
    pub active_waypoint: Option<usize>,
    /// What the page lays over the canvas (toolbar, legend, notes): labels keep off it.
    pub reserved: &'a [Rect],
}

/// Draws the frame; returns the labels drawn and where (the map reports them to tests).
pub fn draw(
    ctx: &CanvasRenderingContext2d,
    heat_canvas: &HtmlCanvasElement,
    f: &Frame,
) -> Vec<(String, Rect)> {
    basemap::draw(ctx, f.view);
    // Markers (labels keep off them) and labels, most important first.
    let mut markers: Vec<Rect> = basemap::reserved(f.view).to_vec();
    markers.extend_from_slice(f.reserved);
    let mut texts: Vec<Label> = Vec::new();
    let mut late: Vec<Label> = Vec::new();
    if let Some(world) = &f.scene.world {
        let shown = f.selected.or(f.visible.checked_sub(1));
        if let (true, Some(h)) = (f.layers.heat, f.scene.heat_for(shown)) {
            draw_heat(ctx, heat_canvas, f.view, world.area, h);
        }
        late.push(basemap::draw_area(
            ctx,
            f.view,
            world.area,
            "area of interest",
        ));
        draw_trace(ctx, f.view, &world.trace);
        for (i, t) in world.towers.iter().enumerate() {
            let (x, y) = f.view.to_screen(*t);
            markers.push(Rect::around(x, y, 8.0));
            if let Some(label) = draw_tower(ctx, f.view, *t, i == world.cell) {
                late.push(label);
            }
        }
    }
    let rounds: Vec<&RoundView> = f
        .scene
        .rounds
        .iter()
        .filter(|r| r.round < f.visible)
        .collect();
    let dim = |r: &RoundView| f.selected.is_some_and(|s| s != r.round) || r.stale;
    if f.layers.points {
        for r in &rounds {
            if let Some(t) = &r.target {
                ctx.set_global_alpha(if dim(r) { 0.25 } else { 0.75 });
                ctx.set_fill_style_str(round_colour(r.round));
                for p in &t.points {
                    let (x, y) = f.view.to_screen(*p);
                    ctx.fill_rect(x - 1.5, y - 1.5, 3.0, 3.0);
                }
            }
        }
        ctx.set_global_alpha(1.0);
    }
    if let Some(label) = draw_path(ctx, f) {
        late.push(label);
    }
    // Newest round first: its label gets the best place.
    for r in rounds.iter().rev() {
        let Some(t) = &r.target else { continue };
        ctx.set_global_alpha(if dim(r) { 0.35 } else { 1.0 });
        let selected = f.selected.is_none_or(|s| s == r.round);
        if f.layers.errors {
            if let (true, Some(p)) = (f.layers.dlg, r.dlg_position()) {
                let label = error_line(ctx, f.view, p, t.truth, DLG_COLOUR);
                if selected && r.record.is_some() {
                    texts.push(label);
                }
            }
            if let (true, Some(a)) = (f.layers.analytic, t.analytic) {
                let label = error_line(ctx, f.view, a, t.truth, ANALYTIC_COLOUR);
                if selected && !f.layers.dlg {
                    texts.push(label);
                }
            }
        }
        let focused = focused(f, r.round);
        if f.layers.trail && r.trail.len() > 1 && (focused || r.record.is_none()) {
            draw_trail(ctx, f.view, &r.trail);
        }
        if let (true, Some(found)) = (focused, r.record.as_ref().and_then(|c| c.imprint.as_ref())) {
            draw_imprint(ctx, f.view, found);
        }
        if f.layers.steps && focused {
            draw_steps(ctx, f.view, &t.steps, round_colour(r.round));
            if let Some((_, dummies)) = &r.simulated {
                draw_dummies(ctx, f.view, dummies);
            }
        }
        if let (true, true, Some((estimate, _))) = (f.layers.errors, f.layers.dlg, &r.simulated) {
            let label = error_line(ctx, f.view, *estimate, t.truth, FEDAVG_COLOUR);
            if selected && r.record.is_some() {
                texts.push(label);
            }
        }
    }
    // Markers over every line, the newest round's on top.
    for r in &rounds {
        let Some(t) = &r.target else { continue };
        ctx.set_global_alpha(if dim(r) { 0.35 } else { 1.0 });
        if f.layers.centroids {
            let (x, y) = f.view.to_screen(t.truth);
            circle(ctx, x, y, 6.5, round_colour(r.round), "#ffffff", 2.0);
            markers.push(Rect::around(x, y, 8.0));
        }
        if let (true, Some(a)) = (f.layers.analytic, t.analytic) {
            let (x, y) = f.view.to_screen(a);
            ctx.set_stroke_style_str(ANALYTIC_COLOUR);
            ctx.set_line_width(2.5);
            ctx.stroke_rect(x - 5.0, y - 5.0, 10.0, 10.0);
            markers.push(Rect::around(x, y, 7.0));
        }
        if let (true, Some(p)) = (f.layers.dlg, r.dlg_position()) {
            let (x, y) = f.view.to_screen(p);
            let size = if r.record.is_some() { 7.5 } else { 5.5 };
            diamond(ctx, x, y, size, DLG_COLOUR, "#ffffff");
            markers.push(Rect::around(x, y, size + 1.0));
        }
        if let (true, Some((estimate, _))) = (f.layers.dlg, &r.simulated) {
            let (x, y) = f.view.to_screen(*estimate);
            triangle(ctx, x, y, 7.0);
            markers.push(Rect::around(x, y, 8.0));
        }
    }
    ctx.set_global_alpha(1.0);
    texts.extend(late);
    draw_labels(ctx, (f.view.width_px, f.view.height_px), &texts, &markers)
}

fn draw_heat(
    ctx: &CanvasRenderingContext2d,
    heat_canvas: &HtmlCanvasElement,
    view: &Viewport,
    area: (Metres, Metres),
    h: &HeatMap,
) {
    if h.cols == 0 || h.rows == 0 || h.values_dbm.len() != h.cols * h.rows {
        return;
    }
    let (lo, hi) = heat_range(h);
    let mut rgba = Vec::with_capacity(h.cols * h.rows * 4);
    for v in &h.values_dbm {
        let [r, g, b] = heat_rgb((v - lo) / (hi - lo));
        rgba.extend([r, g, b, 255]);
    }
    raster::draw(ctx, heat_canvas, view, area, (h.cols, h.rows), &rgba, 0.5);
}

/// A tower; the learnt cell's label.
fn draw_tower(
    ctx: &CanvasRenderingContext2d,
    view: &Viewport,
    p: Metres,
    learned: bool,
) -> Option<Label> {
    let (x, y) = view.to_screen(p);
    ctx.begin_path();
    ctx.move_to(x, y - 9.0);
    ctx.line_to(x + 7.0, y + 5.0);
    ctx.line_to(x - 7.0, y + 5.0);
    ctx.close_path();
    ctx.set_fill_style_str(if learned { "#1f2328" } else { "#a39a88" });
    ctx.fill();
    learned.then(|| Label {
        text: "cell".into(),
        anchor: (x, y),
        colour: "#1f2328",
        font: SMALL_FONT,
    })
}

/// An imported trace: a thin line through the fixes in time order, with a dot at each.
fn draw_trace(ctx: &CanvasRenderingContext2d, view: &Viewport, trace: &[Metres]) {
    if trace.is_empty() {
        return;
    }
    ctx.set_stroke_style_str("rgba(31,35,40,0.35)");
    ctx.set_line_width(1.0);
    polyline(ctx, view, trace);
    ctx.set_fill_style_str("rgba(31,35,40,0.55)");
    for p in trace {
        let (x, y) = view.to_screen(*p);
        ctx.fill_rect(x - 1.0, y - 1.0, 2.0, 2.0);
    }
}

/// The drawn path, its waypoints and leg handles; the label of its start.
fn draw_path(ctx: &CanvasRenderingContext2d, f: &Frame) -> Option<Label> {
    if f.path.is_empty() {
        return None;
    }
    ctx.set_stroke_style_str("rgba(31,35,40,0.7)");
    ctx.set_line_width(2.0);
    ctx.set_line_join("round");
    polyline(ctx, f.view, f.path);
    if f.editing {
        for w in f.path.windows(2) {
            let m = Metres::new(
                (w[0].east + w[1].east) / 2.0,
                (w[0].north + w[1].north) / 2.0,
            );
            if w[0].distance(&w[1]) / f.view.m_per_px >= 24.0 {
                let (x, y) = f.view.to_screen(m);
                circle(
                    ctx,
                    x,
                    y,
                    3.5,
                    "rgba(255,255,255,0.8)",
                    "rgba(31,35,40,0.45)",
                    1.0,
                );
            }
        }
    }
    for (i, p) in f.path.iter().enumerate() {
        let (x, y) = f.view.to_screen(*p);
        let active = f.active_waypoint == Some(i);
        let r = if active { 7.0 } else { 4.5 };
        circle(
            ctx,
            x,
            y,
            r,
            "#ffffff",
            "#1f2328",
            if active { 2.5 } else { 1.5 },
        );
    }
    f.path.first().map(|first| Label {
        text: "start".into(),
        anchor: f.view.to_screen(*first),
        colour: "#1f2328",
        font: SMALL_FONT,
    })
}

/// A local update's mini-batch centroids: small rings in the round's colour.
fn draw_steps(ctx: &CanvasRenderingContext2d, view: &Viewport, steps: &[Metres], colour: &str) {
    ctx.set_stroke_style_str(colour);
    ctx.set_line_width(1.0);
    for p in steps {
        let (x, y) = view.to_screen(*p);
        ctx.begin_path();
        let _ = ctx.arc(x, y, 3.0, 0.0, std::f64::consts::TAU);
        ctx.stroke();
    }
}

/// Whether round `round` is the one whose trail (and imprint readout) is drawn: one at a time,
/// the selected round's, else the newest round's.
fn focused(f: &Frame, round: usize) -> bool {
    f.selected.map_or(round + 1 == f.visible, |s| s == round)
}

/// How many of your fixes the map rings as read out exactly by the malicious server (the
/// focused round's; the map reports it to tests).
pub fn imprint_rings(f: &Frame) -> usize {
    f.scene
        .rounds
        .iter()
        .filter(|r| r.round < f.visible && focused(f, r.round))
        .filter_map(|r| r.record.as_ref().and_then(|c| c.imprint.as_ref()))
        .map(|i| i.yours.len())
        .sum()
}

/// The malicious server's readout of a round: every bin it read (a fix alone in its bin, or a
/// blend) as a small grey cross, your fixes it recovered exactly as red rings over them.
fn draw_imprint(
    ctx: &CanvasRenderingContext2d,
    view: &Viewport,
    found: &whereabouts_engine::signal_map::imprint::ImprintRecord,
) {
    ctx.set_stroke_style_str("#555555");
    ctx.set_line_width(1.0);
    for p in &found.recovered {
        let (x, y) = view.to_screen(*p);
        ctx.begin_path();
        ctx.move_to(x - 3.0, y - 3.0);
        ctx.line_to(x + 3.0, y + 3.0);
        ctx.move_to(x - 3.0, y + 3.0);
        ctx.line_to(x + 3.0, y - 3.0);
        ctx.stroke();
    }
    ctx.set_stroke_style_str(IMPRINT_COLOUR);
    ctx.set_line_width(2.0);
    for p in &found.yours {
        let (x, y) = view.to_screen(*p);
        ctx.begin_path();
        let _ = ctx.arc(x, y, 5.0, 0.0, std::f64::consts::TAU);
        ctx.stroke();
    }
}

/// The FedAvg-aware server's dummies, one per local step: small filled dots.
fn draw_dummies(ctx: &CanvasRenderingContext2d, view: &Viewport, dummies: &[Metres]) {
    ctx.set_fill_style_str(FEDAVG_COLOUR);
    for p in dummies {
        let (x, y) = view.to_screen(*p);
        ctx.begin_path();
        let _ = ctx.arc(x, y, 2.5, 0.0, std::f64::consts::TAU);
        ctx.fill();
    }
}

/// The FedAvg-aware estimate: an upward triangle.
fn triangle(ctx: &CanvasRenderingContext2d, x: f64, y: f64, r: f64) {
    ctx.begin_path();
    ctx.move_to(x, y - r);
    ctx.line_to(x + r, y + r * 0.8);
    ctx.line_to(x - r, y + r * 0.8);
    ctx.close_path();
    ctx.set_fill_style_str(FEDAVG_COLOUR);
    ctx.fill();
    ctx.set_stroke_style_str("#ffffff");
    ctx.set_line_width(1.5);
    ctx.stroke();
}

fn draw_trail(ctx: &CanvasRenderingContext2d, view: &Viewport, trail: &[Metres]) {
    ctx.set_stroke_style_str(DLG_COLOUR);
    ctx.set_line_width(1.5);
    polyline(ctx, view, trail);
    let (x, y) = view.to_screen(trail[0]);
    circle(ctx, x, y, 4.0, "#ffffff", DLG_COLOUR, 1.5);
}

/// The dashed line from a reconstruction to the truth; the label of its length (at the
/// line's middle).
fn error_line(
    ctx: &CanvasRenderingContext2d,
    view: &Viewport,
    from: Metres,
    to: Metres,
    colour: &'static str,
) -> Label {
    let (x0, y0) = view.to_screen(from);
    let (x1, y1) = view.to_screen(to);
    ctx.set_stroke_style_str(colour);
    ctx.set_line_width(1.5);
    let _ = ctx.set_line_dash(&js_sys::Array::of2(&4.0.into(), &3.0.into()));
    ctx.begin_path();
    ctx.move_to(x0, y0);
    ctx.line_to(x1, y1);
    ctx.stroke();
    let _ = ctx.set_line_dash(&js_sys::Array::new());
    Label {
        text: format_distance(from.distance(&to).max(1.0)),
        anchor: ((x0 + x1) / 2.0, (y0 + y1) / 2.0),
        colour,
        font: LABEL_FONT,
    }
}

fn circle(
    ctx: &CanvasRenderingContext2d,
    x: f64,
    y: f64,
    r: f64,
    fill: &str,
    stroke: &str,
    width: f64,
) {
    ctx.begin_path();
    let _ = ctx.arc(x, y, r, 0.0, std::f64::consts::TAU);
    ctx.set_fill_style_str(fill);
    ctx.fill();
    ctx.set_stroke_style_str(stroke);
    ctx.set_line_width(width);
    ctx.stroke();
}
