//! Instructor tools: a panel that builds the link students open (which lab, in the state the
//! page is in now; a lesson step; controls hidden; present mode) and shows it as text and as a
//! QR code drawn in the page; and present mode itself (`present=1`: large type, fewer panels,
//! ← / → step the lesson, Escape leaves it).

use crate::labs::spec;
use crate::shell::tabs::{LabKind, with_lab};
use crate::ui::lesson::with_step;
use crate::ui::qr::QrCodeView;
use leptos::{ev, prelude::*};

/// What a group of controls is, for the instructor (its key without the lab's prefix).
fn group_label(key: &str) -> &'static str {
    match key.rsplit('.').next().unwrap_or(key) {
        "playback" => "play, step and reset",
        "draw" | "path" => "the tools that draw the path",
        "presets" => "the ready-made paths",
        "export" => "the export buttons",
        "layers" => "the map's layers",
        "data" => "their own data file",
        "studies" | "study" => "the studies",
        "status" => "the engine's status line",
        "places" => "the tools that move their places",
        "map" => "the map of the updates",
        _ => "other controls",
    }
}

/// The query of the students' link: `query` (every lab's settings as they are now) showing
/// `lab`, with `hidden` as the lab's hidden controls, at `lesson`'s step and in present mode
/// if asked; the instructor's own lesson, step, present mode and hidden controls are dropped.
pub fn students_query(
    query: &str,
    lab: LabKind,
    param: &str,
    hidden: &[&str],
    lesson: Option<(&str, usize)>,
    present: bool,
) -> String {
    let kept: Vec<&str> = query
        .trim_start_matches('?')
        .split('&')
        .filter(|p| {
            let key = p.split('=').next().unwrap_or("");
            !p.is_empty() && key != "present" && key != param
        })
        .collect();
    let mut q = with_step(&with_lab(&kept.join("&"), lab), lesson);
    let mut add = |part: String| {
        if !q.is_empty() {
            q.push('&');
        }
        q.push_str(&part);
    };
    if !hidden.is_empty() {
        add(format!("{param}={}", hidden.join(",")));
    }
    if present {
        add("present=1".into());
    }
    q
}

/// True if the address asks for present mode.
pub fn present_from_query(query: &str) -> bool {
    query
        .trim_start_matches('?')
        .split('&')
        .any(|p| p == "present=1" || p == "present")
}

/// Present mode on the page: a `data-present` attribute on the root element (the style sheet
/// does the rest) and in the address bar, and Escape to leave it.
pub fn present_mode(on: RwSignal<bool>) {
    Effect::new(move |_| {
        let present = on.get();
        let Some(w) = web_sys::window() else { return };
        if let Some(root) = w.document().and_then(|d| d.document_element()) {
            let _ = if present {
                root.set_attribute("data-present", "")
            } else {
                root.remove_attribute("data-present")
            };
        }
        let query = w.location().search().unwrap_or_default();
        let mut parts: Vec<&str> = query
            .trim_start_matches('?')
            .split('&')
            .filter(|p| !p.is_empty() && !p.starts_with("present"))
            .collect();
        if present {
            parts.push("present=1");
        }
        if let Ok(history) = w.history() {
            let _ = history.replace_state_with_url(
                &wasm_bindgen::JsValue::NULL,
                "",
                Some(&format!("?{}", parts.join("&"))),
            );
        }
    });
    let keys = window_event_listener(ev::keydown, move |e| {
        if e.key() == "Escape" && on.get_untracked() {
            on.set(false);
        }
    });
    on_cleanup(move || keys.remove());
}

/// The address of the page (without its query).
fn page_address() -> String {
    web_sys::window()
        .and_then(|w| {
            let l = w.location();
            Some(format!("{}{}", l.origin().ok()?, l.pathname().ok()?))
        })
        .unwrap_or_default()
}

/// The panel. `lab` is the tab showing (its lesson, settings and groups from the registry).
#[component]
pub fn InstructorPanel(open: RwSignal<bool>, lab: RwSignal<LabKind>) -> impl IntoView {
    // The students start at: 0 = the lab as it is now, k = the lesson's step k.
    let start = RwSignal::new(0usize);
    let present = RwSignal::new(false);
    let hide_all = RwSignal::new(false);
    let groups = RwSignal::new(Vec::<&'static str>::new());
    // The address bar changes without events (replaceState): read it again while open.
    let tick = RwSignal::new(0u32);
    let timer = set_interval_with_handle(
        move || {
            if open.get_untracked() {
                tick.update(|t| *t += 1);
            }
        },
        std::time::Duration::from_millis(1000),
    )
    .ok();
    on_cleanup(move || {
        if let Some(t) = timer {
            t.clear();
        }
    });
    // Another tab: its own lesson and controls.
    Effect::new(move |_| {
        lab.track();
        start.set(0);
        groups.set(Vec::new());
        hide_all.set(false);
    });
    let lesson = move || Some(spec(lab.get()).lesson);
    let link = Memo::new(move |_| {
        tick.track();
        open.track();
        let l = lab.get();
        let h = spec(l);
        let mut hidden: Vec<&str> = groups.get();
        if hide_all.get() {
            hidden.extend((h.settings)());
        }
        let at = lesson()
            .filter(|_| start.get() > 0)
            .map(|ls| (ls.key, start.get() - 1));
        let query = web_sys::window()
            .and_then(|w| w.location().search().ok())
            .unwrap_or_default();
        let q = students_query(&query, l, h.hide_key, &hidden, at, present.get());
        format!("{}?{q}", page_address())
    });
    view! {
        <section class="panel instructor" data-testid="instructor" aria-labelledby="instructor-title"
            class:hidden=move || !open.get()>
            <div class="instructor-head">
                <h2 id="instructor-title">"A link for your students"</h2>
                <button type="button" class="link" on:click=move |_| open.set(false)>"Close"</button>
            </div>
            <p class="hint">"The link opens this lab exactly as it is now (every setting, your drawn path), or a step of its lesson. Students' changes stay on their own device."</p>
            <div class="instructor-grid">
                <div class="instructor-options">
                    <label>"Students open "
                        <select data-testid="instructor-start" on:change=move |e| {
                            start.set(event_target_value(&e).parse().unwrap_or(0));
                        }>
                            <option value="0" selected=move || start.get() == 0>{move || format!("the {} lab as it is now", lab.get().title())}</option>
                            {move || lesson().map(|ls| ls.steps.iter().enumerate().map(|(i, s)| view! {
                                <option value=(i + 1).to_string() selected=move || start.get() == i + 1>
                                    {format!("lesson step {}: {}", i + 1, s.title)}
                                </option>
                            }).collect_view())}
                        </select>
                    </label>
                    <label class="toggle">
                        <input type="checkbox" data-testid="instructor-present" prop:checked=move || present.get()
                            on:change=move |e| present.set(event_target_checked(&e))/>
                        "Present mode: large type, fewer panels, ← → step the lesson"
                    </label>
                    <fieldset>
                        <legend>"Hide from the students (the results always stay)"</legend>
                        <label class="toggle">
                            <input type="checkbox" data-testid="instructor-hide-all" prop:checked=move || hide_all.get()
                                on:change=move |e| hide_all.set(event_target_checked(&e))/>
                            "every setting"
                        </label>
                        {move || spec(lab.get()).groups.iter().map(|&key| view! {
                            <label class="toggle">
                                <input type="checkbox" data-hide=key prop:checked=move || groups.with(|g| g.contains(&key))
                                    on:change=move |e| {
                                        let on = event_target_checked(&e);
                                        groups.update(|g| {
                                            g.retain(|k| *k != key);
                                            if on {
                                                g.push(key);
                                            }
                                        });
                                    }/>
                                {group_label(key)}
                            </label>
                        }).collect_view()}
                    </fieldset>
                </div>
                <div class="instructor-link">
                    <label for="instructor-url">"The link"</label>
                    <input id="instructor-url" data-testid="instructor-url" type="text" readonly prop:value=move || link.get()
                        on:focus=move |e| {
                            if let Some(input) = wasm_bindgen::JsCast::dyn_ref::<web_sys::HtmlInputElement>(&event_target::<web_sys::EventTarget>(&e)) {
                                input.select();
                            }
                        }/>
                    <a data-testid="instructor-open" href=move || link.get() target="_blank" rel="noopener">"Open it in a new tab"</a>
                    <QrCodeView text=Signal::derive(move || link.get()) label="QR code of the link"/>
                </div>
            </div>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_students_link_keeps_every_setting_and_says_lab_step_hidden_and_present() {
        let q = "lab=density&T=6&d.B=5&d.hide=d.seed&lesson=signal&step=3&present=1";
        assert_eq!(
            students_query(
                q,
                LabKind::Density,
                "d.hide",
                &["d.study", "d.B"],
                Some(("density", 1)),
                true
            ),
            "lab=density&T=6&d.B=5&lesson=density&step=2&d.hide=d.study,d.B&present=1"
        );
        assert_eq!(
            students_query(q, LabKind::Signal, "hide", &[], None, false),
            "T=6&d.B=5&d.hide=d.seed"
        );
    }

    #[test]
    fn present_mode_is_asked_by_present_1() {
        assert!(present_from_query("?lab=density&present=1"));
        assert!(present_from_query("present"));
        assert!(!present_from_query("presents=1&lab=density"));
    }
}
