//! A visible error banner instead of a dead page.
//!
//! After a panic the reactive UI can no longer be trusted, so the banner is written with plain
//! DOM calls. It says what happened and offers a reload; nothing the user entered is lost,
//! because the trajectory and settings live in the URL.

use wasm_bindgen::JsCast;

/// The banner's element id (also its `data-testid`).
pub const BANNER_ID: &str = "fatal-banner";

/// Routes panics to the console (with a stack) and to the banner.
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        show_fatal(&info.to_string());
    }));
}

/// Shows (or extends) the error banner at the top of the page.
pub fn show_fatal(message: &str) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Some(body) = document.body() else { return };
    let banner = match document.get_element_by_id(BANNER_ID) {
        Some(existing) => existing,
        None => {
            let Ok(banner) = document.create_element("div") else {
                return;
            };
            banner.set_id(BANNER_ID);
            let _ = banner.set_attribute("data-testid", BANNER_ID);
            let _ = banner.set_attribute("role", "alert");
            banner.set_class_name("fatal-banner");
            let title = document.create_element("strong").ok();
            if let Some(title) = title {
                title.set_text_content(Some("Something broke inside Whereabouts. "));
                let _ = banner.append_child(&title);
            }
            if let Ok(reload) = document.create_element("button") {
                reload.set_text_content(Some("Reload (your settings are in the URL)"));
                let _ = reload.set_attribute("data-testid", "fatal-reload");
                if let Ok(button) = reload.dyn_into::<web_sys::HtmlElement>() {
                    let on_click = wasm_bindgen::closure::Closure::<dyn FnMut()>::new(|| {
                        if let Some(w) = web_sys::window() {
                            let _ = w.location().reload();
                        }
                    });
                    button.set_onclick(Some(on_click.as_ref().unchecked_ref()));
                    on_click.forget();
                    let _ = banner.append_child(&button);
                }
            }
            let _ = body.insert_before(&banner, body.first_child().as_ref());
            banner
        }
    };
    if let Ok(line) = document.create_element("pre") {
        line.set_text_content(Some(message));
        let _ = banner.append_child(&line);
    }
}
