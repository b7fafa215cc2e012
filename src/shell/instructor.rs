//! Instructor tools: a panel that builds the link students open (which lab, in the state the
//! page is in now; a lesson step; controls hidden; present mode) and shows it as text and as a
//! QR code drawn in the page, with the lessons' questions and their answers; and present mode itself (`present=1`: large type, fewer panels,
//! ← / → step the lesson, Escape leaves it).

use crate::labs::{LESSONS, spec};
use crate::shell::tabs::{LabKind, with_lab};
use crate::ui::figures::Prose;
use crate::ui::lesson::{Lesson, with_step};
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

/// The start an option of the panel's menu names: `KEY:N` is lesson KEY's step N (from 1);
/// anything else, the lab as it is now.
fn start_from(value: &str) -> Option<(&'static Lesson, usize)> {
    let (key, step) = value.split_once(':')?;
    let lesson = LESSONS.iter().copied().find(|l| l.key == key)?;
    let step = step.parse::<usize>().ok()?.checked_sub(1)?;
    (step < lesson.steps.len()).then_some((lesson, step))
}

/// The lessons whose questions and answers the panel shows beside `lab`'s tab: its own lesson,
/// and every lesson that walks across the labs.
fn answered(lab: LabKind) -> Vec<&'static Lesson> {
    beside(lab)
        .into_iter()
        .filter(|l| !l.questions.is_empty())
        .collect()
}

/// The lessons the panel offers beside `lab`'s tab: its own, and those across the labs.
fn beside(lab: LabKind) -> Vec<&'static Lesson> {
    let across = |l: &&Lesson| l.across_labs();
    let own = LESSONS
        .iter()
        .copied()
        .filter(|l| l.lab == lab && !across(l));
    own.chain(LESSONS.iter().copied().filter(across)).collect()
}

/// The panel, as the page's [`Later`](crate::shell::lab_views::Later) makes it: in the site's
/// build this function is a split point's, so the panel (and the lessons' answers, which only
/// it shows) come in a chunk of their own.
pub fn panel(open: RwSignal<bool>, lab: RwSignal<LabKind>) -> AnyView {
    view! { <InstructorPanel open lab/> }.into_any()
}

/// The panel. `lab` is the tab showing (its lesson, settings and groups from the registry).
#[component]
pub fn InstructorPanel(open: RwSignal<bool>, lab: RwSignal<LabKind>) -> impl IntoView {
    // The students start at: None = the lab as it is now, Some((lesson, k)) = its step k (from 0):
    // the showing lab's lesson, or the lesson across the labs.
    let start = RwSignal::new(None::<(&'static Lesson, usize)>);
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
        start.set(None);
        groups.set(Vec::new());
        hide_all.set(false);
    });
    // The lessons whose steps the students may start at.
    let lessons = move || beside(lab.get());
    let link = Memo::new(move |_| {
        tick.track();
        open.track();
        let l = lab.get();
        let h = spec(l);
        let mut hidden: Vec<&str> = groups.get();
        if hide_all.get() {
            hidden.extend((h.settings)());
        }
        let at = start.get().map(|(ls, step)| (ls.key, step));
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
                            start.set(start_from(&event_target_value(&e)));
                        }>
                            <option value="0" selected=move || start.get().is_none()>{move || format!("the {} lab as it is now", lab.get().title())}</option>
                            {move || lessons().into_iter().map(|ls| {
                                let across = ls.across_labs();
                                ls.steps.iter().enumerate().map(move |(i, s)| {
                                    let here = Some((ls.key, i));
                                    let label = if across {
                                        format!("{} step {}: {} ({})", ls.title, i + 1, s.title, s.lab_in(ls).title())
                                    } else {
                                        format!("lesson step {}: {}", i + 1, s.title)
                                    };
                                    view! {
                                        <option value=format!("{}:{}", ls.key, i + 1)
                                            selected=move || start.get().map(|(l, k)| (l.key, k)) == here>
                                            {label}
                                        </option>
                                    }
                                }).collect_view()
                            }).collect_view()}
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
            {move || {
                let tick = tick.read_only();
                answered(lab.get()).into_iter().map(|ls| view! {
                    <details class="instructor-answers" data-testid="instructor-answers" data-lesson=ls.key>
                        <summary>{format!("Questions and answers: {}", ls.title)}</summary>
                        <p class="hint">"The questions end the lesson on the students' screens; the answers are only here. Each is what the lab shows: the figures below are read from the lab as it is now."</p>
                        <ol>
                            {ls.questions.iter().map(|q| view! {
                                <li>
                                    <p><strong><Prose text=q.ask tick/></strong></p>
                                    <p data-testid="instructor-answer"><Prose text=q.answer tick/></p>
                                </li>
                            }).collect_view()}
                        </ol>
                    </details>
                }).collect_view()
            }}
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
    fn the_menu_starts_students_at_a_step_of_any_lesson_or_at_the_lab() {
        let at = |v: &str| start_from(v).map(|(l, k)| (l.key, k));
        assert_eq!(at("density:2"), Some(("density", 1)));
        assert_eq!(at("one-hour:1"), Some(("one-hour", 0)));
        assert_eq!(at("0"), None);
        assert_eq!(at("density:0"), None);
        assert_eq!(at("density:99"), None);
        assert_eq!(at("nowhere:1"), None);
        // Beside a lab's tab: its own lesson's answers, then the lecture across the labs'.
        let keys: Vec<&str> = answered(LabKind::Density).iter().map(|l| l.key).collect();
        assert_eq!(keys, ["density", "one-hour"]);
    }

    #[test]
    fn present_mode_is_asked_by_present_1() {
        assert!(present_from_query("?lab=density&present=1"));
        assert!(present_from_query("present"));
        assert!(!present_from_query("presents=1&lab=density"));
    }
}
