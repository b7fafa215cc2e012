//! The locally drawn metric basemap: grid, scale bar and north arrow.
//!
//! No tiles, ever: a tile request would tell a tile server the very area being protected. The
//! map is an honest metric plane (east/north metres, see `whereabouts_core::geo`), which is
//! also the space in which every error in the app is measured.

use whereabouts_core::geo::Metres;

/// Which part of the plane the canvas shows. Screen y grows downwards, north grows upwards.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Viewport {
    /// The plane point at the centre of the canvas.
    pub centre: Metres,
    /// Metres per CSS pixel (the zoom).
    pub m_per_px: f64,
    /// Canvas size in CSS pixels.
    pub width_px: f64,
    pub height_px: f64,
}

impl Viewport {
    pub fn to_screen(&self, p: Metres) -> (f64, f64) {
        (
            self.width_px / 2.0 + (p.east - self.centre.east) / self.m_per_px,
            self.height_px / 2.0 - (p.north - self.centre.north) / self.m_per_px,
        )
    }

    pub fn to_plane(&self, x: f64, y: f64) -> Metres {
        Metres::new(
            self.centre.east + (x - self.width_px / 2.0) * self.m_per_px,
            self.centre.north - (y - self.height_px / 2.0) * self.m_per_px,
        )
    }

    /// The largest "nice" length (1, 2 or 5 × 10ᵏ metres) whose bar fits in `max_px`.
    pub fn scale_bar_m(&self, max_px: f64) -> f64 {
        nice_floor(max_px * self.m_per_px)
    }

    /// Grid spacing in metres: a nice length at least `min_px` pixels apart on screen.
    pub fn grid_spacing_m(&self, min_px: f64) -> f64 {
        nice_ceil(min_px * self.m_per_px)
    }
}

/// The largest of 1, 2, 5 × 10ᵏ that is ≤ `x` (for `x` > 0).
pub fn nice_floor(x: f64) -> f64 {
    let k = x.log10().floor();
    let base = 10f64.powf(k);
    let f = x / base;
    let m = if f >= 5.0 {
        5.0
    } else if f >= 2.0 {
        2.0
    } else {
        1.0
    };
    m * base
}

/// The smallest of 1, 2, 5 × 10ᵏ that is ≥ `x` (for `x` > 0).
pub fn nice_ceil(x: f64) -> f64 {
    let floor = nice_floor(x);
    if floor >= x {
        return floor;
    }
    let k = floor.log10().floor();
    let base = 10f64.powf(k);
    match (floor / base).round() as u32 {
        1 => 2.0 * base,
        2 => 5.0 * base,
        _ => 10.0 * base,
    }
}

/// "250 m", "1 km", "2.5 km".
pub fn format_distance(m: f64) -> String {
    if m >= 1000.0 {
        let km = m / 1000.0;
        // Three significant digits at most (1.45 km, 12.3 km, 150 km), no trailing zeros.
        let decimals = if km < 10.0 {
            2
        } else if km < 100.0 {
            1
        } else {
            0
        };
        let text = format!("{km:.decimals$}");
        let text = if text.contains('.') {
            text.trim_end_matches('0').trim_end_matches('.')
        } else {
            &text
        };
        format!("{text} km")
    } else {
        format!("{m:.0} m")
    }
}

/// Draws the basemap. `ctx` is already scaled to CSS pixels.
/// Where [`draw`] puts the scale bar and the north arrow (labels keep off them).
pub fn reserved(view: &Viewport) -> [crate::ui::labels::Rect; 2] {
    use crate::ui::labels::Rect;
    let (w, h) = (view.width_px, view.height_px);
    let bar_px = view.scale_bar_m((w * 0.25).clamp(60.0, 180.0)) / view.m_per_px;
    [
        Rect::new(8.0, h - 42.0, bar_px + 16.0, 34.0),
        Rect::new(w - 36.0, 12.0, 24.0, 46.0),
    ]
}

pub fn draw(ctx: &web_sys::CanvasRenderingContext2d, view: &Viewport) {
    let (w, h) = (view.width_px, view.height_px);
    ctx.set_fill_style_str("#f4f1ea");
    ctx.fill_rect(0.0, 0.0, w, h);

    // Grid: minor lines every spacing, major every 5.
    let spacing = view.grid_spacing_m(48.0);
    let top_left = view.to_plane(0.0, 0.0);
    let bottom_right = view.to_plane(w, h);
    let first_e = (top_left.east / spacing).floor() as i64;
    let last_e = (bottom_right.east / spacing).ceil() as i64;
    let first_n = (bottom_right.north / spacing).floor() as i64;
    let last_n = (top_left.north / spacing).ceil() as i64;
    ctx.set_line_width(1.0);
    for i in first_e..=last_e {
        let (x, _) = view.to_screen(Metres::new(i as f64 * spacing, 0.0));
        ctx.set_stroke_style_str(if i % 5 == 0 { "#d9d2c3" } else { "#e9e4d8" });
        ctx.begin_path();
        ctx.move_to(x.round() + 0.5, 0.0);
        ctx.line_to(x.round() + 0.5, h);
        ctx.stroke();
    }
    for j in first_n..=last_n {
        let (_, y) = view.to_screen(Metres::new(0.0, j as f64 * spacing));
        ctx.set_stroke_style_str(if j % 5 == 0 { "#d9d2c3" } else { "#e9e4d8" });
        ctx.begin_path();
        ctx.move_to(0.0, y.round() + 0.5);
        ctx.line_to(w, y.round() + 0.5);
        ctx.stroke();
    }

    // Scale bar, bottom left.
    let bar_m = view.scale_bar_m((w * 0.25).clamp(60.0, 180.0));
    let bar_px = bar_m / view.m_per_px;
    let (x0, y0) = (16.0, h - 18.0);
    ctx.set_fill_style_str("rgba(255,255,255,0.85)");
    ctx.fill_rect(x0 - 8.0, y0 - 24.0, bar_px + 16.0, 34.0);
    ctx.set_stroke_style_str("#333");
    ctx.set_line_width(2.0);
    ctx.begin_path();
    ctx.move_to(x0, y0 - 6.0);
    ctx.line_to(x0, y0);
    ctx.line_to(x0 + bar_px, y0);
    ctx.line_to(x0 + bar_px, y0 - 6.0);
    ctx.stroke();
    ctx.set_fill_style_str("#333");
    ctx.set_font("12px system-ui, sans-serif");
    let _ = ctx.fill_text(&format_distance(bar_m), x0, y0 - 10.0);

    // North arrow, top right.
    let (cx, cy) = (w - 24.0, 30.0);
    ctx.begin_path();
    ctx.move_to(cx, cy - 14.0);
    ctx.line_to(cx + 7.0, cy + 8.0);
    ctx.line_to(cx, cy + 3.0);
    ctx.line_to(cx - 7.0, cy + 8.0);
    ctx.close_path();
    ctx.fill();
    ctx.set_font("bold 11px system-ui, sans-serif");
    let _ = ctx.fill_text("N", cx - 4.0, cy + 22.0);
}

/// A dashed outline of `area` (south-west, north-east corners), and its label `text` at the top
/// left corner (placed later with the lab's other labels).
pub fn draw_area(
    ctx: &web_sys::CanvasRenderingContext2d,
    view: &Viewport,
    area: (Metres, Metres),
    text: &str,
) -> crate::ui::labels::Label {
    let (x0, y0) = view.to_screen(Metres::new(area.0.east, area.1.north));
    let (x1, y1) = view.to_screen(Metres::new(area.1.east, area.0.north));
    ctx.set_stroke_style_str("#8a7f6a");
    ctx.set_line_width(1.5);
    let dash = js_sys::Array::of2(&6.0.into(), &4.0.into());
    let _ = ctx.set_line_dash(&dash);
    ctx.stroke_rect(x0, y0, x1 - x0, y1 - y0);
    let _ = ctx.set_line_dash(&js_sys::Array::new());
    crate::ui::labels::Label {
        text: text.into(),
        anchor: (x0, y0),
        colour: "#6b604c",
        font: crate::ui::labels::AREA_FONT,
    }
}

/// The page's clock, milliseconds (what latencies are measured with).
pub fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or_else(js_sys::Date::now, |p| p.now())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_numbers() {
        assert_eq!(nice_floor(7.3), 5.0);
        assert_eq!(nice_floor(230.0), 200.0);
        assert_eq!(nice_floor(1000.0), 1000.0);
        assert_eq!(nice_ceil(7.3), 10.0);
        assert_eq!(nice_ceil(130.0), 200.0);
        assert_eq!(nice_ceil(200.0), 200.0);
        assert_eq!(nice_ceil(201.0), 500.0);
    }

    #[test]
    fn screen_and_plane_round_trip() {
        let v = Viewport {
            centre: Metres::new(100.0, -50.0),
            m_per_px: 2.5,
            width_px: 800.0,
            height_px: 600.0,
        };
        assert_eq!(v.to_screen(v.centre), (400.0, 300.0));
        let p = Metres::new(321.0, 123.0);
        let (x, y) = v.to_screen(p);
        let back = v.to_plane(x, y);
        assert!((back.east - p.east).abs() < 1e-9 && (back.north - p.north).abs() < 1e-9);
        // North is up: a point north of the centre is above it on screen.
        assert!(v.to_screen(Metres::new(100.0, 0.0)).1 < 300.0);
        // At 2.5 m/px a 180 px bar is 450 m, so the nice bar is 200 m.
        assert_eq!(v.scale_bar_m(180.0), 200.0);
    }

    #[test]
    fn distances_read_naturally() {
        assert_eq!(format_distance(250.0), "250 m");
        assert_eq!(format_distance(1000.0), "1 km");
        assert_eq!(format_distance(2500.0), "2.5 km");
        // An error line of any length: three significant digits, not the full float.
        assert_eq!(format_distance(1_447.234_688_449_249_5), "1.45 km");
        assert_eq!(format_distance(12_345.0), "12.3 km");
        assert_eq!(format_distance(150_000.0), "150 km");
    }
}
