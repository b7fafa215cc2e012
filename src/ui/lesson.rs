//! A guided lesson beside a lab (`?lesson=signal&step=2`): prose in steps, each step setting the
//! real lab to a stated state through the lab's own settings (its URL keys, over its defaults:
//! no second implementation), with a "try this" and a "what to notice", and a last step that
//! leaves the student in the sandbox with the state they reached.
//!
//! The lessons themselves are each lab's (`src/<lab>/lesson.rs`); this file is their panel and
//! their place in the address bar. Steps move with the buttons, or with ← / → and Page Up /
//! Page Down (a presenter's clicker) anywhere on the page but in a text field.

use super::figures::{self, Prose};
use crate::protocol::LabKind;
use leptos::{ev, prelude::*};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::Duration;
use wasm_bindgen::JsCast;

/// One step of a lesson.
pub struct Step {
    pub title: &'static str,
    /// What the step is about.
    pub text: &'static str,
    /// Something to do in the lab.
    pub try_this: &'static str,
    /// What to look at, and which way it should move.
    pub notice: &'static str,
    /// The card the notice is about, as a CSS selector into the lab's results (its value or
    /// the card itself; `""`: the map). The step brings it into view on a laptop or projector,
    /// where it would start below the fold under the lesson and the map.
    pub card: &'static str,
    /// The lab's settings for the step (URL keys and values), over the lab's defaults.
    pub settings: Settings,
    /// Rounds to run before the step shows (labs with rounds); `None`: the lab's own pace.
    pub rounds: Option<usize>,
    /// The lab the step sets and shows; `None`: the lesson's own (a lesson that walks across
    /// the labs names each step's).
    pub lab: Option<LabKind>,
}

impl Step {
    /// The lab this step of `lesson` sets.
    pub fn lab_in(&self, lesson: &Lesson) -> LabKind {
        self.lab.unwrap_or(lesson.lab)
    }
}

/// A question for students at a lesson's end, and its answer for the instructor: what the
/// lab shows, and where (its numbers are figures read from the lab, like a step's).
pub struct Question {
    pub ask: &'static str,
    pub answer: &'static str,
}

/// A lesson: one lab's paper, told in steps.
pub struct Lesson {
    /// The value of `?lesson=`.
    pub key: &'static str,
    /// The lab the lesson opens on, and its steps' lab unless they name another.
    pub lab: LabKind,
    pub title: &'static str,
    /// Where the lab's synthetic world differs from the paper's data, said once.
    pub caveat: &'static str,
    /// Questions for the students after the last step (the answers are the instructor's).
    pub questions: &'static [Question],
    pub steps: &'static [Step],
}

impl Lesson {
    /// Whether its steps set more than one lab (the lecture across the labs).
    pub fn across_labs(&self) -> bool {
        self.steps.iter().any(|s| s.lab_in(self) != self.lab)
    }
}

/// The most steps a lesson has (an [`Entry`] holds each step's lab).
pub const MOST_STEPS: usize = 16;

/// What the page knows of a lesson before its prose has come: its key, lab, title and the lab
/// of each step, for the lessons menu, `?lesson=` and the tab a lesson opens on. Read from the
/// lesson itself when the page is compiled ([`Entry::of`]), so the page's first download holds
/// these and the lessons' prose comes with their panel, the first time one opens (issue 41 §1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Entry {
    /// The value of `?lesson=`.
    pub key: &'static str,
    pub lab: LabKind,
    pub title: &'static str,
    /// How many steps it has.
    pub steps: usize,
    /// The lab each step sets ([`Step::lab_in`]), in its first `steps` places.
    labs: [LabKind; MOST_STEPS],
}

impl Entry {
    /// The entry of `lesson`, at compile time.
    pub const fn of(lesson: &Lesson) -> Entry {
        assert!(
            lesson.steps.len() <= MOST_STEPS,
            "a lesson has more steps than MOST_STEPS"
        );
        let mut labs = [lesson.lab; MOST_STEPS];
        let mut i = 0;
        while i < lesson.steps.len() {
            if let Some(lab) = lesson.steps[i].lab {
                labs[i] = lab;
            }
            i += 1;
        }
        Entry {
            key: lesson.key,
            lab: lesson.lab,
            title: lesson.title,
            steps: lesson.steps.len(),
            labs,
        }
    }

    /// The lab step `step` (from 0) sets.
    pub fn lab_at(&self, step: usize) -> LabKind {
        self.labs[step.min(self.steps.saturating_sub(1))]
    }

    /// Whether its steps set more than one lab (the lecture across the labs).
    pub fn across_labs(&self) -> bool {
        self.labs[..self.steps].iter().any(|&l| l != self.lab)
    }

    /// What the lessons menu names it by: its lab, or "All labs".
    pub fn lab_title(&self) -> &'static str {
        if self.across_labs() {
            "All labs"
        } else {
            self.lab.title()
        }
    }
}

/// A step's settings: URL keys and values.
pub type Settings = &'static [(&'static str, &'static str)];

/// What the App gives a lesson panel: how to put a lab into a step's state.
pub type Apply = Callback<(LabKind, Settings, Option<usize>), Result<(), String>>;

/// The lesson and step an address asks for (`lesson=KEY&step=N`, N from 1), if any.
pub fn from_query(query: &str, lessons: &'static [Entry]) -> Option<(&'static Entry, usize)> {
    let value = |key: &str| {
        query
            .trim_start_matches('?')
            .split('&')
            .find_map(|p| p.strip_prefix(key)?.strip_prefix('='))
    };
    let lesson = lessons.iter().find(|l| Some(l.key) == value("lesson"))?;
    let step = value("step")
        .and_then(|s| s.parse::<usize>().ok())
        .unwrap_or(1)
        .clamp(1, lesson.steps.max(1));
    Some((lesson, step - 1))
}

/// `query` with `lesson=` and `step=` set (or, with `None`, taken out), every other key kept.
pub fn with_step(query: &str, at: Option<(&str, usize)>) -> String {
    let rest = query
        .trim_start_matches('?')
        .split('&')
        .filter(|p| !p.is_empty() && !p.starts_with("lesson=") && !p.starts_with("step="))
        .map(str::to_string);
    let lesson = at
        .map(|(key, step)| [format!("lesson={key}"), format!("step={}", step + 1)])
        .into_iter()
        .flatten();
    rest.chain(lesson).collect::<Vec<_>>().join("&")
}

/// Writes the step into the address bar (replaceState, like every setting).
fn save_step(at: Option<(&str, usize)>) {
    let Some(w) = web_sys::window() else { return };
    let query = w.location().search().unwrap_or_default();
    if let Ok(history) = w.history() {
        let _ = history.replace_state_with_url(
            &wasm_bindgen::JsValue::NULL,
            "",
            Some(&format!("?{}", with_step(&query, at))),
        );
    }
}

/// How often, after a step is set, its card is checked to be in view: the cards exist from the
/// start and grow as the lab's results arrive (a Signal-map step may take a minute).
const FOLLOW_EVERY_MS: u64 = 400;
const FOLLOW_TRIES: u32 = 300;

/// Counts the steps shown, so that a step's follower stops when another step is set.
static STEP_SHOWN: AtomicU32 = AtomicU32::new(0);

/// Narrower than this (a phone), a step does not scroll by itself.
const REVEAL_MIN_WIDTH_PX: f64 = 900.0;

/// Set when the student scrolls the page themselves (the wheel, a touch, the scrollbar, a
/// scrolling key) since the step was set; the page moving under its growing cards (the browser's
/// scroll anchoring) is not the student.
static STUDENT_SCROLLED: AtomicBool = AtomicBool::new(false);

/// Keeps step `step`'s card in view while its results arrive, until another step is set or
/// the student scrolls (a student who moved the page is reading something else, and the lesson
/// does not pull them back). It scrolls only when the card has grown, shrunk or moved in the
/// page since it last looked (`seen`, the card's top in the page and its height): a card that
/// stands still stays where the student, a Tab to a button or a screen reader put the page.
fn follow(card: &'static str, step: u32, tries: u32, seen: Option<(f64, f64)>) {
    if STEP_SHOWN.load(Ordering::Relaxed) != step
        || STUDENT_SCROLLED.load(Ordering::Relaxed)
        || !wide()
    {
        return;
    }
    let now = card_of(card).map(|c| {
        let r = c.get_bounding_client_rect();
        let scrolled = web_sys::window()
            .and_then(|w| w.scroll_y().ok())
            .unwrap_or(0.0);
        (r.top() + scrolled, r.height())
    });
    let changed = match (seen, now) {
        (Some(a), Some(b)) => (a.0 - b.0).abs() > 0.5 || (a.1 - b.1).abs() > 0.5,
        _ => true,
    };
    if changed {
        reveal(card);
    }
    if tries > 0 {
        set_timeout(
            move || follow(card, step, tries - 1, now),
            Duration::from_millis(FOLLOW_EVERY_MS),
        );
    }
}

/// Whether a key press scrolls the page (outside a text field).
fn scrolls(key: &str) -> bool {
    matches!(key, "ArrowUp" | "ArrowDown" | " " | "Home" | "End")
}

fn wide() -> bool {
    web_sys::window()
        .and_then(|w| w.inner_width().ok())
        .and_then(|w| w.as_f64())
        .is_some_and(|w| w >= REVEAL_MIN_WIDTH_PX)
}

/// The card `selector` names (the `.card` around it), or the element itself if it is not in a
/// card.
fn card_of(selector: &str) -> Option<web_sys::Element> {
    if selector.is_empty() {
        return None;
    }
    let el = web_sys::window()?
        .document()?
        .query_selector(selector)
        .ok()
        .flatten()?;
    Some(el.closest(".card").ok().flatten().unwrap_or(el))
}

/// Scrolls the least that shows the card `selector` names (or the element, if it is not in a
/// card) whole: its bottom to the window's bottom when it is below, its top to the top when above.
fn reveal(selector: &str) {
    let (Some(w), Some(card)) = (web_sys::window(), card_of(selector)) else {
        return;
    };
    let height = w
        .inner_height()
        .ok()
        .and_then(|h| h.as_f64())
        .unwrap_or(0.0);
    let r = card.get_bounding_client_rect();
    if r.bottom() > height {
        card.scroll_into_view_with_bool(r.height() > height);
    } else if r.top() < 0.0 {
        card.scroll_into_view_with_bool(true);
    }
}

/// True when a key press belongs to a field the user is typing in.
fn typing(e: &web_sys::KeyboardEvent) -> bool {
    e.target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .is_some_and(|el| {
            matches!(el.tag_name().as_str(), "INPUT" | "SELECT" | "TEXTAREA")
                || el.closest("[contenteditable]").ok().flatten().is_some()
        })
}

/// The lesson and step showing (`None` once the student has gone on to the sandbox).
pub type Open = RwSignal<Option<(&'static Entry, usize)>>;

/// The lesson's panel, as the page's [`Later`](crate::shell::lab_views::Later) makes it: in the
/// site's build this function is a split point's, so the lessons' prose and the panel come in a
/// chunk of their own the first time a lesson opens.
pub fn panel(open: Open, apply: Apply) -> AnyView {
    view! { <LessonPanel open apply/> }.into_any()
}

/// The lesson of `entry`.
fn lesson_of(entry: &Entry) -> &'static Lesson {
    crate::labs::LESSONS
        .iter()
        .copied()
        .find(|l| l.key == entry.key)
        .expect("every entry is a lesson's")
}

/// The lesson's panel: the step's prose and its buttons. `open` is the lesson and step showing;
/// `apply` sets the lab.
#[component]
pub fn LessonPanel(open: Open, apply: Apply) -> impl IntoView {
    let problem = RwSignal::new(None::<String>);
    // Every change of step sets the lab and the address bar.
    Effect::new(move |_| {
        let Some((entry, step)) = open.get() else {
            save_step(None);
            return;
        };
        save_step(Some((entry.key, step)));
        let lesson = lesson_of(entry);
        let s = &lesson.steps[step];
        problem.set(apply.run((s.lab_in(lesson), s.settings, s.rounds)).err());
        // The step's card comes into view, and stays in view as the lab's results fill it (not
        // on a phone, where the lesson's own text would scroll away: there the notice's button
        // does it).
        let card = s.card;
        let step_now = STEP_SHOWN.fetch_add(1, Ordering::Relaxed) + 1;
        STUDENT_SCROLLED.store(false, Ordering::Relaxed);
        set_timeout(
            move || follow(card, step_now, FOLLOW_TRIES, None),
            Duration::from_millis(FOLLOW_EVERY_MS),
        );
    });
    let go = move |delta: isize| {
        open.update(|o| {
            if let Some((entry, step)) = o {
                let next = step.saturating_add_signed(delta);
                if next < entry.steps {
                    *step = next;
                }
            }
        })
    };
    let keys = window_event_listener(ev::keydown, move |e| {
        if open.get_untracked().is_none()
            || typing(&e)
            || e.alt_key()
            || e.ctrl_key()
            || e.meta_key()
        {
            return;
        }
        match e.key().as_str() {
            "ArrowRight" | "PageDown" => {
                e.prevent_default();
                go(1);
            }
            "ArrowLeft" | "PageUp" => {
                e.prevent_default();
                go(-1);
            }
            _ => {}
        }
    });
    on_cleanup(move || keys.remove());
    // The student's own scrolling lets the step's card go (see `follow`).
    let scrolled = move || STUDENT_SCROLLED.store(true, Ordering::Relaxed);
    let wheel = window_event_listener(ev::wheel, move |_| scrolled());
    let touch = window_event_listener(ev::touchmove, move |_| scrolled());
    // A press on the page's scrollbar (outside the document's elements).
    let bar = window_event_listener(ev::mousedown, move |e| {
        let on_bar = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.document_element())
            .is_some_and(|root| f64::from(e.client_x()) >= f64::from(root.client_width()));
        if on_bar {
            scrolled();
        }
    });
    let scroll_keys = window_event_listener(ev::keydown, move |e| {
        if !typing(&e) && scrolls(&e.key()) {
            scrolled();
        }
    });
    on_cleanup(move || {
        wheel.remove();
        touch.remove();
        bar.remove();
        scroll_keys.remove();
    });
    // The figures the prose names are read from the lab again a few times a second.
    let tick = RwSignal::new(0u32);
    if let Ok(reader) = set_interval_with_handle(
        move || {
            if open.with_untracked(Option::is_some) {
                tick.update(|t| *t = t.wrapping_add(1));
            }
        },
        Duration::from_millis(figures::READ_EVERY_MS),
    ) {
        on_cleanup(move || reader.clear());
    }
    let tick = tick.read_only();
    let current = move || open.get();
    view! {
        {move || current().map(|(entry, step)| {
            let lesson = lesson_of(entry);
            let s = &lesson.steps[step];
            let total = lesson.steps.len();
            let last = step + 1 == total;
            view! {
                <section class="panel lesson" data-testid="lesson" data-lesson=lesson.key
                    data-step=(step + 1).to_string() data-card=s.card aria-labelledby="lesson-title">
                    <p class="lesson-kicker">
                        <span>{format!("Lesson · {}", s.lab_in(lesson).title())}</span>
                        <span data-testid="lesson-count">{format!("Step {} of {total}", step + 1)}</span>
                    </p>
                    <h2 id="lesson-title">{lesson.title}</h2>
                    <ol class="lesson-steps" aria-label="Steps">
                        {lesson.steps.iter().enumerate().map(|(i, st)| view! {
                            <li class:done=move || i < step class:current=move || i == step>
                                <button type="button" class="link" aria-current=move || (i == step).then_some("step")
                                    on:click=move |_| open.update(|o| if let Some((_, at)) = o { *at = i })>
                                    {st.title}
                                </button>
                            </li>
                        }).collect_view()}
                    </ol>
                    <div class="lesson-body">
                        <div>
                            <h3 data-testid="lesson-step-title">{s.title}</h3>
                            <p class="lesson-text"><Prose text=s.text tick/></p>
                        </div>
                        <div>
                            <p class="lesson-try"><strong>"Try this. "</strong><Prose text=s.try_this tick/></p>
                            <p class="lesson-notice"><strong>"What to notice. "</strong><Prose text=s.notice tick/>
                                {(!s.card.is_empty()).then(|| {
                                    let card = s.card;
                                    view! {
                                        " "<button type="button" class="link" data-testid="lesson-show-card"
                                            on:click=move |_| reveal(card)>"Show it"</button>
                                    }
                                })}
                            </p>
                        </div>
                    </div>
                    <p class="notice" role="alert" class:hidden=move || problem.with(|p| p.is_none())>
                        {move || problem.get().map(|p| format!("This step could not set the lab: {p}")).unwrap_or_default()}
                    </p>
                    {(last && !lesson.questions.is_empty()).then(|| view! {
                        <div class="lesson-questions" data-testid="lesson-questions">
                            <h3>"Questions for you"</h3>
                            <ol>
                                {lesson.questions.iter().map(|q| view! { <li><Prose text=q.ask tick/></li> }).collect_view()}
                            </ol>
                            <p class="hint">"The lab shows every answer: change its settings and read the cards. (An instructor finds the answers under For instructors.)"</p>
                        </div>
                    })}
                    {last.then(|| view! { <p class="hint lesson-caveat">{lesson.caveat}</p> })}
                    <div class="lesson-nav">
                        <button type="button" data-testid="lesson-back" prop:disabled=step == 0
                            on:click=move |_| go(-1)>"← Back"</button>
                        <button type="button" data-testid="lesson-again"
                            on:click=move |_| open.update(|_| {})>"Set this step again"</button>
                        {if last {
                            view! {
                                <button type="button" class="primary" data-testid="lesson-sandbox"
                                    on:click=move |_| open.set(None)>"Open the sandbox →"</button>
                            }.into_any()
                        } else {
                            view! {
                                <button type="button" class="primary" data-testid="lesson-next"
                                    on:click=move |_| go(1)>"Next →"</button>
                            }.into_any()
                        }}
                    </div>
                    <p class="hint lesson-keys">"Keys: ← and → (or a clicker's Page Up / Page Down) move between steps."</p>
                </section>
            }
        })}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static TWO: Lesson = Lesson {
        key: "two",
        lab: LabKind::Density,
        title: "Two steps",
        caveat: "",
        questions: &[],
        steps: &[
            Step {
                title: "a",
                text: "",
                try_this: "",
                notice: "",
                card: "",
                settings: &[],
                rounds: None,
                lab: None,
            },
            Step {
                title: "b",
                text: "",
                try_this: "",
                notice: "",
                card: "",
                settings: &[("d.B", "3")],
                rounds: None,
                lab: None,
            },
        ],
    };

    static ENTRIES: [Entry; 1] = [Entry::of(&TWO)];

    #[test]
    fn the_address_names_a_lesson_and_a_step_within_it() {
        let at = |q: &str| from_query(q, &ENTRIES).map(|(l, s)| (l.key, s));
        assert_eq!(at("?lesson=two"), Some(("two", 0)));
        assert_eq!(at("lab=density&lesson=two&step=2"), Some(("two", 1)));
        assert_eq!(
            at("lesson=two&step=9"),
            Some(("two", 1)),
            "past the end: the last"
        );
        assert_eq!(at("lesson=two&step=x"), Some(("two", 0)));
        assert_eq!(at("lesson=three"), None);
        assert_eq!(at("lessons=two"), None);
    }

    #[test]
    fn an_entry_is_read_from_its_lesson() {
        let e = ENTRIES[0];
        assert_eq!(
            (e.key, e.lab, e.title, e.steps),
            ("two", LabKind::Density, "Two steps", 2)
        );
        assert_eq!(e.lab_at(1), LabKind::Density);
        assert!(!e.across_labs());
        assert_eq!(e.lab_title(), "Density");
    }

    #[test]
    fn a_step_is_written_beside_the_labs_settings_and_taken_out_for_the_sandbox() {
        let q = "lab=density&d.B=3&lesson=two&step=1";
        assert_eq!(
            with_step(q, Some(("two", 1))),
            "lab=density&d.B=3&lesson=two&step=2"
        );
        assert_eq!(with_step(q, None), "lab=density&d.B=3");
        assert_eq!(with_step("", Some(("two", 0))), "lesson=two&step=1");
    }
}
