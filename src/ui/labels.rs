//! Labels on a map that stay legible: each goes to the first of a few places around its point
//! that covers no marker, no label placed before it and nothing the page lays over the map
//! (its toolbar, legend, notes, scale bar and north arrow); a label with no free place is left
//! out rather than drawn over another. Pure geometry, tested natively; labs draw the result.

/// A rectangle on the canvas, CSS pixels (x, y: top left).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

impl Rect {
    pub fn new(x: f64, y: f64, w: f64, h: f64) -> Self {
        Self { x, y, w, h }
    }

    /// The square of half-side `r` around a point (a marker's footprint).
    pub fn around(x: f64, y: f64, r: f64) -> Self {
        Self::new(x - r, y - r, 2.0 * r, 2.0 * r)
    }

    pub fn overlaps(&self, o: &Rect) -> bool {
        self.x < o.x + o.w && o.x < self.x + self.w && self.y < o.y + o.h && o.y < self.y + self.h
    }

    fn within(&self, bounds: &Rect) -> bool {
        self.x >= bounds.x
            && self.y >= bounds.y
            && self.x + self.w <= bounds.x + bounds.w
            && self.y + self.h <= bounds.y + bounds.h
    }
}

/// A label to place: its box's size and the point it names.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LabelBox {
    pub anchor: (f64, f64),
    pub w: f64,
    pub h: f64,
}

/// Gaps from the anchor tried in turn, px.
const GAPS: [f64; 3] = [6.0, 16.0, 30.0];

/// Places `labels` in order (the first ones are the most important): returns each one's box,
/// or `None` where every candidate place is taken or off `bounds`.
pub fn place(labels: &[LabelBox], obstacles: &[Rect], bounds: Rect) -> Vec<Option<Rect>> {
    let mut taken: Vec<Rect> = Vec::new();
    labels
        .iter()
        .map(|l| {
            let (ax, ay) = l.anchor;
            let spot = GAPS.iter().find_map(|&g| {
                // Above right first (where a reader looks), then round the point.
                [
                    (ax + g, ay - g - l.h),
                    (ax - g - l.w, ay - g - l.h),
                    (ax + g, ay + g),
                    (ax - g - l.w, ay + g),
                    (ax + g, ay - l.h / 2.0),
                    (ax - g - l.w, ay - l.h / 2.0),
                    (ax - l.w / 2.0, ay - g - l.h),
                    (ax - l.w / 2.0, ay + g),
                ]
                .into_iter()
                .map(|(x, y)| Rect::new(x, y, l.w, l.h))
                .find(|r| {
                    r.within(&bounds)
                        && !obstacles.iter().any(|o| o.overlaps(r))
                        && !taken.iter().any(|o| o.overlaps(r))
                })
            });
            if let Some(r) = spot {
                taken.push(r);
            }
            spot
        })
        .collect()
}

/// A text on the map, placed once every marker is drawn ([`place`]).
pub struct Label {
    pub text: String,
    pub anchor: (f64, f64),
    pub colour: &'static str,
    pub font: &'static str,
}

pub const LABEL_FONT: &str = "bold 12px system-ui, sans-serif";
pub const SMALL_FONT: &str = "bold 11px system-ui, sans-serif";
pub const AREA_FONT: &str = "12px system-ui, sans-serif";

/// Places the labels where they cover no marker, overlay or other label, and draws them on top;
/// returns the labels drawn and where (maps report them to the tests).
pub fn draw_labels(
    ctx: &web_sys::CanvasRenderingContext2d,
    size: (f64, f64),
    texts: &[Label],
    markers: &[Rect],
) -> Vec<(String, Rect)> {
    let boxes: Vec<LabelBox> = texts
        .iter()
        .map(|l| {
            ctx.set_font(l.font);
            let w = ctx.measure_text(&l.text).map_or(40.0, |m| m.width());
            LabelBox {
                anchor: l.anchor,
                w: w + 6.0,
                h: 16.0,
            }
        })
        .collect();
    let bounds = Rect::new(0.0, 0.0, size.0, size.1);
    let mut drawn = Vec::new();
    for (l, spot) in texts.iter().zip(place(&boxes, markers, bounds)) {
        let Some(r) = spot else { continue };
        drawn.push((l.text.clone(), r));
        ctx.set_fill_style_str("rgba(255,255,255,0.9)");
        ctx.fill_rect(r.x, r.y, r.w, r.h);
        ctx.set_font(l.font);
        ctx.set_fill_style_str(l.colour);
        let _ = ctx.fill_text(&l.text, r.x + 3.0, r.y + 12.5);
    }
    drawn
}

/// Boxes on the canvas as `text|x|y|w|h;…` (an attribute the tests read).
pub fn boxes<'a>(items: impl Iterator<Item = (&'a str, &'a Rect)>) -> String {
    items
        .map(|(t, r)| format!("{t}|{:.0}|{:.0}|{:.0}|{:.0}", r.x, r.y, r.w, r.h))
        .collect::<Vec<_>>()
        .join(";")
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCREEN: Rect = Rect {
        x: 0.0,
        y: 0.0,
        w: 400.0,
        h: 300.0,
    };

    fn label(x: f64, y: f64) -> LabelBox {
        LabelBox {
            anchor: (x, y),
            w: 40.0,
            h: 16.0,
        }
    }

    #[test]
    fn labels_at_one_point_do_not_pile_up() {
        let labels = [label(200.0, 150.0); 4];
        let placed = place(&labels, &[], SCREEN);
        let boxes: Vec<Rect> = placed.iter().map(|p| p.expect("room for four")).collect();
        for (i, a) in boxes.iter().enumerate() {
            for b in &boxes[i + 1..] {
                assert!(!a.overlaps(b), "{a:?} overlaps {b:?}");
            }
        }
        // The first goes where a reader looks first: above right.
        assert_eq!(boxes[0], Rect::new(206.0, 128.0, 40.0, 16.0));
    }

    #[test]
    fn labels_keep_off_markers_and_what_lies_over_the_map() {
        let marker = Rect::around(250.0, 120.0, 40.0);
        let legend = Rect::new(150.0, 150.0, 250.0, 150.0);
        let p = place(&[label(200.0, 150.0)], &[marker, legend], SCREEN)[0].unwrap();
        assert!(!p.overlaps(&marker) && !p.overlaps(&legend), "{p:?}");
        assert!(p.x + p.w <= 200.0, "{p:?}");
    }

    #[test]
    fn a_label_with_no_room_is_left_out_and_none_leaves_the_screen() {
        let everything = Rect::new(0.0, 0.0, 400.0, 300.0);
        assert_eq!(
            place(&[label(200.0, 150.0)], &[everything], SCREEN),
            vec![None]
        );
        let corner = place(&[label(2.0, 2.0)], &[], SCREEN)[0].unwrap();
        assert!(corner.x >= 0.0 && corner.y >= 0.0, "{corner:?}");
    }
}
