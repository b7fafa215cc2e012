//! A QR code drawn in the page (an SVG path, no image fetched): the instructor's link for the
//! students' phones. The encoding is Nayuki's `qrcodegen` (dependency-free, the reference
//! implementation of the standard); this file only draws its modules.

use leptos::prelude::*;
use qrcodegen::{QrCode, QrCodeEcc};

/// The SVG path of `text`'s QR code (one unit square per dark module, a 4-module quiet zone
/// included in the returned side), or why it cannot be encoded.
pub fn qr_path(text: &str) -> Result<(String, i32), String> {
    let qr = QrCode::encode_text(text, QrCodeEcc::Low).map_err(|_| {
        format!(
            "the link is too long for a QR code ({} characters; at most about 2,900): hide fewer settings or shorten the path",
            text.chars().count()
        )
    })?;
    let n = qr.size();
    let mut d = String::new();
    for y in 0..n {
        for x in 0..n {
            if qr.get_module(x, y) {
                d.push_str(&format!("M{} {}h1v1h-1z", x + 4, y + 4));
            }
        }
    }
    Ok((d, n + 8))
}

/// The QR code of `text` (reactive), or the reason it cannot be drawn.
#[component]
pub fn QrCodeView(#[prop(into)] text: Signal<String>, label: &'static str) -> impl IntoView {
    move || {
        match qr_path(&text.get()) {
        Ok((d, side)) => view! {
            <svg class="qr" data-testid="qr" viewBox=format!("0 0 {side} {side}") role="img" aria-label=label
                shape-rendering="crispEdges">
                <rect width=side.to_string() height=side.to_string() fill="#fff"/>
                <path d=d fill="#000"/>
            </svg>
        }
        .into_any(),
        Err(e) => view! { <p class="notice" data-testid="qr-error">{e}</p> }.into_any(),
    }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_becomes_a_square_of_modules_with_its_quiet_zone() {
        let (d, side) = qr_path("http://127.0.0.1:8080/?lesson=signal&step=2").unwrap();
        // Version 3 (29 modules) at low error correction for 45 bytes, plus 2 × 4 quiet.
        assert_eq!(side, 29 + 8);
        // The finder pattern's top-left module is dark, inside the quiet zone.
        assert!(d.starts_with("M4 4h1v1h-1z"), "{}", &d[..40]);
    }

    #[test]
    fn a_link_too_long_for_any_qr_code_says_so() {
        let e = qr_path(&"x".repeat(5000)).unwrap_err();
        assert!(e.contains("5000 characters"), "{e}");
    }
}
