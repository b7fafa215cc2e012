//! The Density lab on the shared map ([`crate::ui::map`]): the city, one of three surfaces under
//! the markers (the selected place's upload as the server sees it, the server's density, the
//! exact density), the server's candidate peaks and its guess with the error, and the visitor's
//! places, which they drag (or move from the keyboard).

use super::{DensityState, Layers, Show};
use crate::ui::basemap::{self, Viewport, format_distance};
use crate::ui::labels::{LABEL_FONT, Label, Rect, SMALL_FONT, boxes, draw_labels};
use crate::ui::map::{MapEditor, MapLayers, map_view, overlays, touch_first};
use crate::ui::marks::diamond;
use crate::ui::raster;
use leptos::prelude::*;
use std::cell::RefCell;
use std::rc::Rc;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};
use whereabouts_core::geo::Metres;
use whereabouts_core::secagg::Sees;
use whereabouts_engine::density::DensityConfig;

pub const GUESS_COLOUR: &str = "#d1242f";
const PLACE_COLOUR: &str = "#2563eb";
/// Arrow keys move the selected place this far (Shift: ten times).
const KEY_STEP_M: f64 = 50.0;

/// The city's corners.
pub fn city() -> (Metres, Metres) {
    let h = DensityConfig::default().city_half_m;
    (Metres::new(-h, -h), Metres::new(h, h))
}

fn clamp(p: Metres) -> Metres {
    let (lo, hi) = city();
    Metres::new(
        p.east.clamp(lo.east, hi.east),
        p.north.clamp(lo.north, hi.north),
    )
}

/// Dragging the visitor's places.
#[derive(Clone, Copy)]
struct PlaceTool {
    state: DensityState,
    /// The place being dragged.
    dragging: StoredValue<Option<usize>>,
    /// The page scrolls over the map (touch) until "Move places" is chosen.
    editing: RwSignal<bool>,
}

impl PlaceTool {
    fn can_edit(&self) -> bool {
        self.editing.get_untracked() && !self.state.has_data() && !self.state.hides("d.places")
    }
}

impl MapEditor for PlaceTool {
    fn down(&self, v: &Viewport, x: f64, y: f64, touch: bool) -> bool {
        if !self.can_edit() {
            return false;
        }
        let radius = if touch { 22.0 } else { 14.0 };
        let hit = self.state.places.with_untracked(|places| {
            places
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    let (px, py) = v.to_screen(*p);
                    (i, (px - x).hypot(py - y))
                })
                .filter(|(_, d)| *d <= radius)
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .map(|(i, _)| i)
        });
        match hit {
            Some(i) => {
                self.state.selected.set(i);
                self.dragging.set_value(Some(i));
                true
            }
            None => false,
        }
    }

    fn drag(&self, v: &Viewport, x: f64, y: f64) {
        let Some(i) = self.dragging.get_value() else {
            return;
        };
        let p = clamp(v.to_plane(x, y));
        self.state.places.update(|places| {
            if let Some(place) = places.get_mut(i) {
                *place = p;
            }
        });
        self.state.places_changed();
    }

    fn up(&self) {
        if self.dragging.get_value().is_some() {
            self.dragging.set_value(None);
            self.state.places_done();
        }
    }

    /// N / P select the next / previous place, the arrows move it, Delete removes it.
    fn key(&self, _v: &Viewport, key: &str, shift: bool) -> bool {
        if !self.can_edit() {
            return false;
        }
        let state = self.state;
        let n = state.places.with_untracked(|p| p.len());
        if n == 0 {
            return false;
        }
        let i = state.selected.get_untracked().min(n - 1);
        let step = if shift { 10.0 * KEY_STEP_M } else { KEY_STEP_M };
        let (de, dn) = match key {
            "n" | "N" => {
                state.selected.set((i + 1) % n);
                return true;
            }
            "p" | "P" => {
                state.selected.set((i + n - 1) % n);
                return true;
            }
            "Delete" | "Backspace" => {
                state.remove_place(i);
                return true;
            }
            "ArrowLeft" => (-step, 0.0),
            "ArrowRight" => (step, 0.0),
            "ArrowUp" => (0.0, step),
            "ArrowDown" => (0.0, -step),
            _ => return false,
        };
        state.places.update(|p| {
            p[i] = clamp(Metres::new(p[i].east + de, p[i].north + dn));
        });
        state.places_changed();
        state.places_done();
        true
    }

    fn pans(&self) -> bool {
        !self.editing.get() || self.state.has_data()
    }
}

#[component]
pub fn DensityMap(state: DensityState) -> impl IntoView {
    let editing = RwSignal::new(!touch_first());
    let scratch = StoredValue::new_local(None::<HtmlCanvasElement>);
    let coloured = Rc::new(RefCell::new(Coloured::default()));
    let tool = PlaceTool {
        state,
        dragging: StoredValue::new(None),
        editing,
    };
    let paint = move |ctx: &CanvasRenderingContext2d, canvas: &HtmlCanvasElement, v: &Viewport| {
        if scratch.with_value(|c| c.is_none()) {
            scratch.set_value(raster::scratch());
        }
        let reserved = overlays(canvas);
        let drawn = scratch.with_value(|sc| {
            let Some(sc) = sc else { return Vec::new() };
            draw(ctx, sc, &mut coloured.borrow_mut(), v, state, &reserved)
        });
        let _ = canvas.set_attribute(
            "data-labels",
            &boxes(drawn.iter().map(|(t, r)| (t.as_str(), r))),
        );
        let _ = canvas.set_attribute("data-overlays", &boxes(reserved.iter().map(|r| ("", r))));
        // Where the places are on screen, for the tests that drag them.
        let places = state.places.with_untracked(|p| {
            p.iter()
                .map(|m| {
                    let (x, y) = v.to_screen(*m);
                    format!("{x:.1} {y:.1}")
                })
                .collect::<Vec<_>>()
                .join(";")
        });
        let _ = canvas.set_attribute("data-places", &places);
    };
    let layers = MapLayers {
        area: Rc::new(city),
        track: Rc::new(move || {
            state.scene.track();
            state.places.track();
            state.selected.track();
            state.show.track();
            state.layers.track();
            editing.track();
        }),
        paint: Rc::new(paint),
        label: Rc::new(move || {
            "Map of the synthetic city with your places and what the server sees. Drag a numbered place to move it. Keyboard: N and P select a place, the arrows move it (Shift: farther), Delete removes it. Wheel or +/− to zoom.".into()
        }),
        summary_id: "density-summary",
    };
    let tools = view! {
        <div class="seg" class:hidden=move || state.hides("d.places") || state.data.loaded()>
            <button type="button" data-testid="density-tool-move" aria-pressed=move || editing.get().to_string()
                on:click=move |_| editing.set(true) title="Drag your places">"✥ Move places"</button>
            <button type="button" data-testid="density-tool-pan" aria-pressed=move || (!editing.get()).to_string()
                on:click=move |_| editing.set(false) title="Drag the map around (on a touch screen: two fingers; one scrolls the page)">"Pan"</button>
        </div>
    };
    map_view(
        "density-map",
        layers,
        Rc::new(tool),
        tools,
        view! { <ShowPicker state/> <Legend state/> },
    )
}

/// Which surface lies under the markers.
#[component]
fn ShowPicker(state: DensityState) -> impl IntoView {
    view! {
        <div class="map-notes">
            <div class="seg show-picker" role="group" aria-label="What the map shows">
                {Show::ALL.iter().map(|&(show, key, label)| view! {
                    <button type="button" data-testid=format!("density-show-{key}")
                        aria-pressed=move || (state.show.get() == show).to_string()
                        on:click=move |_| state.show.set(show)>{label}</button>
                }).collect_view()}
            </div>
        </div>
    }
}

#[component]
fn Legend(state: DensityState) -> impl IntoView {
    let upload = move || state.show.get() == Show::Upload;
    // The colour scale's top, in the surface's own terms: the upload's largest magnitude, or
    // the density's peak in people per km² (the kernel k_h has k_h(x, x) = 1 and integrates to
    // 2πh², so a normalised KDE value v is N·v/(2πh²) people per m²).
    // Once per change of the surface, for both scales' texts (a drag updates the scene often).
    let top = Memo::new(move |_| {
        let show = state.show.get();
        let selected = state.selected.get();
        state.scene.with(|scene| {
            let values: &[f64] = match show {
                Show::Upload => scene
                    .answers
                    .get(selected)
                    .and_then(Option::as_ref)
                    .map_or(&[][..], |a| &a.surface),
                Show::Estimate => &scene.estimate,
                Show::Exact => &scene.exact,
            };
            values.iter().fold(0.0_f64, |m, v| {
                if show == Show::Upload {
                    m.max(v.abs())
                } else {
                    m.max(*v)
                }
            })
        })
    });
    let sees = move || state.settings.with(|c| c.sees);
    let sum = move || sees() != Sees::Updates;
    let upload_scale = move || {
        let what = match sees() {
            Sees::Updates => "your upload",
            Sees::Sum => "the sum the server saw",
            Sees::Dp => "the noised sum the server saw",
        };
        format!("{what}: high (+{0:.2}) · low (−{0:.2})", top.get())
    };
    let density_scale = move || {
        let (n, h) = state
            .settings
            .with(|c| (c.population as f64, c.bandwidth_m));
        let per_km2 = top.get() * n * 1e6 / (std::f64::consts::TAU * h * h);
        format!("people per km²: 0 · {per_km2:.0} (square-root scale)")
    };
    view! {
        <div class="legend" aria-hidden="true">
            <span><i class="sym place"></i>"your places"</span>
            <span class:hidden=move || !state.layers.with(|l| l.guess)><i class="sym dlg"></i>"server's guess"</span>
            <span class:hidden=move || !(upload() && state.layers.with(|l| l.candidates))><i class="sym candidate"></i>{move || if sum() { "peaks in the sum" } else { "peaks in your upload" }}</span>
            <span class:hidden=move || !upload() data-testid="density-scale-upload"><i class="sym ridge"></i>{upload_scale}</span>
            <span class:hidden=upload data-testid="density-scale-people"><i class="sym heat"></i>{density_scale}</span>
        </div>
    }
}

/// Paints one frame; the labels drawn and where.
fn draw(
    ctx: &CanvasRenderingContext2d,
    scratch: &HtmlCanvasElement,
    coloured: &mut Coloured,
    v: &Viewport,
    state: DensityState,
    reserved: &[Rect],
) -> Vec<(String, Rect)> {
    basemap::draw(ctx, v);
    let mut markers: Vec<Rect> = basemap::reserved(v).to_vec();
    markers.extend_from_slice(reserved);
    let mut texts: Vec<Label> = Vec::new();
    let show = state.show.get_untracked();
    let selected = state.selected.get_untracked();
    let Layers { candidates, guess } = state.layers.get_untracked();
    let places = state.places.get_untracked();
    let mut last: Option<whereabouts_core::driver::Guess> = None;
    state.scene.with_untracked(|scene| {
        let Some(grid) = &scene.grid else { return };
        let area = (grid.lo, grid.hi);
        let answer = scene.answers.get(selected).and_then(Option::as_ref);
        last = answer.filter(|_| guess).map(|a| a.guess.clone());
        let surface: Option<(&[f64], bool)> = match show {
            Show::Upload => answer.map(|a| (a.surface.as_slice(), true)),
            Show::Estimate => (!scene.estimate.is_empty()).then_some((&scene.estimate[..], false)),
            Show::Exact => (!scene.exact.is_empty()).then_some((&scene.exact[..], false)),
        };
        if let Some((values, signed)) = surface {
            let rgba = coloured.of(values, grid.p, grid.q, signed);
            raster::draw(ctx, scratch, v, area, (grid.p, grid.q), rgba, 0.7);
        }
        texts.push(basemap::draw_area(ctx, v, area, "city"));
        if let (true, true, Some(a)) = (candidates, show == Show::Upload, answer) {
            ctx.set_line_width(1.5);
            ctx.set_stroke_style_str("#1f2328");
            for c in &a.candidates {
                let (x, y) = v.to_screen(*c);
                ctx.begin_path();
                let _ = ctx.arc(x, y, 4.0, 0.0, std::f64::consts::TAU);
                ctx.stroke();
            }
        }
    });
    for (i, p) in places.iter().enumerate() {
        let (x, y) = v.to_screen(*p);
        let r = if i == selected { 11.0 } else { 9.0 };
        ctx.begin_path();
        let _ = ctx.arc(x, y, r, 0.0, std::f64::consts::TAU);
        ctx.set_fill_style_str(PLACE_COLOUR);
        ctx.fill();
        ctx.set_stroke_style_str(if i == selected { "#1f2328" } else { "#ffffff" });
        ctx.set_line_width(2.5);
        ctx.stroke();
        ctx.set_fill_style_str("#ffffff");
        ctx.set_font(SMALL_FONT);
        ctx.set_text_align("center");
        let _ = ctx.fill_text(&(i + 1).to_string(), x, y + 4.0);
        ctx.set_text_align("start");
        markers.push(Rect::around(x, y, r + 2.0));
        if i == selected {
            texts.insert(
                0,
                Label {
                    text: format!("you ({})", i + 1),
                    anchor: (x, y),
                    colour: PLACE_COLOUR,
                    font: LABEL_FONT,
                },
            );
        }
    }
    // The guess over the places: when it lands on one, it shows.
    if let Some(g) = &last {
        let (tx, ty) = v.to_screen(g.truth);
        let (gx, gy) = v.to_screen(g.guess);
        ctx.set_stroke_style_str(GUESS_COLOUR);
        ctx.set_line_width(2.0);
        let dash = js_sys::Array::of2(&5.0.into(), &4.0.into());
        let _ = ctx.set_line_dash(&dash);
        ctx.begin_path();
        ctx.move_to(tx, ty);
        ctx.line_to(gx, gy);
        ctx.stroke();
        let _ = ctx.set_line_dash(&js_sys::Array::new());
        diamond(ctx, gx, gy, 7.5, GUESS_COLOUR, "#ffffff");
        markers.push(Rect::around(gx, gy, 9.0));
        texts.push(Label {
            text: format!("server's guess · {} off", format_distance(g.error_m())),
            anchor: (gx, gy),
            colour: GUESS_COLOUR,
            font: LABEL_FONT,
        });
    }
    draw_labels(ctx, (v.width_px, v.height_px), &texts, &markers)
}

/// The surface last coloured and its pixels: most frames (a marker dragged, the map panned)
/// draw the same surface again, and its P × Q colours need not be made again.
#[derive(Default)]
struct Coloured {
    values: Vec<f64>,
    signed: bool,
    rgba: Vec<u8>,
}

impl Coloured {
    /// The pixels of `values` ([`colours`]), made again only if the surface changed.
    fn of(&mut self, values: &[f64], p: usize, q: usize, signed: bool) -> &[u8] {
        let size = p * q * 4;
        if self.values != values || self.signed != signed || self.rgba.len() != size {
            self.rgba = colours(values, p, q, signed);
            self.values = values.to_vec();
            self.signed = signed;
        }
        &self.rgba
    }
}

/// RGBA for a surface (row 0 of the image is the grid's northernmost row). A signed surface
/// (an upload) on the diverging ramp scaled by its largest magnitude; a density on the
/// sequential ramp from 0 to its maximum (an estimate's negative noise shows as 0), transparent
/// where it is below 2% of the maximum so the basemap shows through the empty country.
pub fn colours(values: &[f64], p: usize, q: usize, signed: bool) -> Vec<u8> {
    let mut rgba = vec![0u8; p * q * 4];
    if values.len() != p * q {
        return rgba;
    }
    let top = values.iter().fold(
        0.0_f64,
        |m, v| if signed { m.max(v.abs()) } else { m.max(*v) },
    );
    if top.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
        return rgba;
    }
    for row in 0..q {
        let j = q - 1 - row;
        for i in 0..p {
            let v = values[j * p + i] / top;
            let k = (row * p + i) * 4;
            let (rgb, alpha) = if signed {
                (raster::diverging_rgb(v as f32), 255)
            } else if v < 0.02 {
                ([0, 0, 0], 0)
            } else {
                (raster::heat_rgb(v.sqrt() as f32), 255)
            };
            rgba[k..k + 4].copy_from_slice(&[rgb[0], rgb[1], rgb[2], alpha]);
        }
    }
    rgba
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn surfaces_are_coloured_north_up_and_empty_country_is_clear() {
        // 2 × 2, south row first: the image's first row is the north one.
        let rgba = colours(&[0.0, 1.0, 0.5, 0.0], 2, 2, false);
        assert_eq!(rgba[3], 255, "north-west: 0.5 of the top");
        assert_eq!(rgba[7], 0, "north-east: 0, transparent");
        assert_eq!(&rgba[12..16], &[253, 231, 37, 255], "south-east: the top");
        let signed = colours(&[-2.0, 2.0, 0.0, 0.0], 2, 2, true);
        assert_eq!(
            &signed[8..12],
            &[33, 102, 172, 255],
            "south-west: the lowest"
        );
        assert_eq!(&signed[0..4], &[247, 247, 247, 255], "north-west: zero");
        assert!(
            colours(&[1.0], 2, 2, false).iter().all(|&b| b == 0),
            "wrong size"
        );
    }

    #[test]
    fn the_kept_pixels_follow_the_surface() {
        let mut coloured = Coloured::default();
        let a = [0.0, 1.0, 0.5, 0.0];
        assert_eq!(coloured.of(&a, 2, 2, false), colours(&a, 2, 2, false));
        let b = [1.0, 0.0, 0.5, 0.0];
        assert_eq!(coloured.of(&b, 2, 2, false), colours(&b, 2, 2, false));
        assert_eq!(coloured.of(&b, 2, 2, true), colours(&b, 2, 2, true));
    }
}
