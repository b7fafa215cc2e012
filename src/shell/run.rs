//! What every lab's page state has in common, written once: its settings (an engine config,
//! edited through the lab's setting rows), the controls its link hides, its notices, its study's
//! view, the visitor's data, and the generation of its run (the worker's answers to an older run
//! are dropped). A lab's own state holds a [`RunState`] and adds what is its own (a map, a
//! scene, a path); it reaches these fields through `Deref`.

use super::data::DataState;
use super::engine::Engine;
use crate::protocol::{LabKind, Request, Response, RunRequest};
use crate::ui::settings::{query_pairs, setting_control};
use crate::ui::study::StudyView;
use leptos::prelude::*;
use wasm_bindgen::JsValue;
use whereabouts_core::setting::{Setting, apply, get, set};

/// How a lab's family carries its [`RunRequest`]s (its config `C`, its start `O`).
pub type Family<C, O> = fn(RunRequest<C, O>) -> Request;

/// A lab's run state on the page; `C` is its engine config, `S` its study's view.
pub struct RunState<C: 'static, S: 'static> {
    pub lab: LabKind,
    /// The lab's setting rows.
    pub table: &'static [Setting<C>],
    pub settings: RwSignal<C>,
    /// The controls and groups the link hides.
    pub hidden: RwSignal<Vec<String>>,
    /// Problems with the last attempted change or run (cleared by the next start).
    pub notice: RwSignal<Option<String>>,
    /// What the link the page was opened with asked for and did not get: shown until the
    /// visitor dismisses it (the address bar then shows what runs instead).
    pub link_notice: RwSignal<Option<String>>,
    pub study: RwSignal<S>,
    /// The visitor's imported file (the shell's, shared by every lab).
    pub data: DataState,
    engine: Engine,
    generation: StoredValue<u32>,
}

impl<C, S> RunState<C, S> {
    /// Hands this lab's messages ([`Response::Later`]), read by its family's `decode`, to
    /// `take`. A later lab listens when its views are made (src/shell/lab_views.rs), so that
    /// its decoder is in its chunk; what came before is handed over first. A message the page
    /// cannot read stops the page, as the bridge does with the others.
    pub fn listen<R: 'static>(
        &self,
        decode: fn(JsValue) -> Result<R, String>,
        take: impl Fn(R) + 'static,
    ) {
        let (lab, engine) = (self.lab, self.engine);
        engine.listen(move |response| match response {
            Response::Later { lab: kind, message } if kind == lab => {
                match decode(message) {
                    Ok(r) => take(r),
                    Err(reason) => engine.fail(format!(
                        "the engine sent a {} message the page cannot read: {reason}",
                        lab.title()
                    )),
                }
                None
            }
            other => Some(other),
        });
    }
}

impl<C, S> Clone for RunState<C, S> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<C, S> Copy for RunState<C, S> {}

/// A lab's problems with its link, then the keys nothing on the page reads (the Signal map
/// names those among its own; the other labs add them so that any tab on show says so).
pub fn with_unknown_keys(mut problems: Vec<String>) -> Vec<String> {
    let query = opening_query();
    problems.extend(
        super::tabs::unknown_plain_keys(&query)
            .into_iter()
            .map(|(_, key)| super::tabs::unknown_key_message(&key)),
    );
    problems
}

thread_local! {
    static OPENING_QUERY: std::cell::OnceCell<String> = const { std::cell::OnceCell::new() };
}

/// The query string the page was opened with: the labs rewrite the address bar as they read it
/// (a key nothing reads is dropped), so what the link said is kept from the first call, which
/// the app makes before any lab reads its link.
pub fn opening_query() -> String {
    OPENING_QUERY.with(|q| q.get_or_init(page_query).clone())
}

/// The page's query string (empty outside a browser).
pub fn page_query() -> String {
    web_sys::window()
        .and_then(|w| w.location().search().ok())
        .unwrap_or_default()
}

impl<C: Clone + Send + Sync + 'static, S: Default + Send + Sync + 'static> RunState<C, S> {
    /// The state a link opened: `config` and `hidden` as it read them, `problems` (what it
    /// refused) kept as the link's notice.
    pub fn new(
        lab: LabKind,
        table: &'static [Setting<C>],
        engine: Engine,
        data: DataState,
        config: C,
        hidden: Vec<String>,
        problems: &[String],
    ) -> Self {
        let notice = (!problems.is_empty()).then(|| {
            format!(
                "Some settings in the link were ignored: {}",
                problems.join("; ")
            )
        });
        RunState {
            lab,
            table,
            settings: RwSignal::new(config),
            hidden: RwSignal::new(hidden),
            notice: RwSignal::new(None),
            link_notice: RwSignal::new(notice),
            study: RwSignal::new(S::default()),
            data,
            engine,
            generation: StoredValue::new(0),
        }
    }

    /// Sends a request to the engine worker; a failure to send is the lab's notice.
    pub fn send(&self, request: &Request) {
        if let Err(e) = self.engine.send(request) {
            self.notice.set(Some(e));
        }
    }

    /// Whether the link hides the control or group `key` (tracked).
    pub fn hides(&self, key: &str) -> bool {
        self.hidden.with(|h| h.iter().any(|k| k == key))
    }

    /// The current run's generation.
    pub fn generation(&self) -> u32 {
        self.generation.get_value()
    }

    /// A new run's generation (answers to older ones are dropped from now on).
    pub fn next_generation(&self) -> u32 {
        let generation = self.generation.get_value() + 1;
        self.generation.set_value(generation);
        generation
    }

    /// The settings with `key` set to `value` by its row, or what is wrong (nothing changes).
    pub fn edited(&self, key: &str, value: &str) -> Result<C, String> {
        let mut next = self.settings.get_untracked();
        set(self.table, &mut next, key, value)?;
        Ok(next)
    }

    /// A lesson step's settings: `pairs` over the lab's `default`, or the first problem.
    pub fn stepped(&self, mut default: C, pairs: &[(&str, &str)]) -> Result<C, String> {
        match apply(self.table, &mut default, pairs).into_iter().next() {
            Some(problem) => Err(problem),
            None => Ok(default),
        }
    }

    /// The controls of the rows in the panel's section `heading`, in the table's order: each
    /// shows unless the link hides it or the others make it irrelevant; `set` tries a value
    /// (the lab's own `set_field`, which runs it), `error` holds the section's refusal.
    pub fn section<F>(
        &self,
        heading: &'static str,
        set: F,
        error: RwSignal<Option<(&'static str, String)>>,
    ) -> impl IntoView + use<C, S, F>
    where
        F: Fn(&'static str, &str) -> Result<(), String> + Copy + Send + Sync + 'static,
    {
        let run = *self;
        self.table
            .iter()
            .filter(move |s| s.section == heading)
            .map(move |s| {
                let (key, relevant) = (s.key, s.relevant);
                setting_control(
                    s,
                    move || run.settings.with(|c| get(run.table, c, key)),
                    move |v| set(key, v),
                    move || !run.hides(key) && run.settings.with(relevant),
                    error,
                )
            })
            .collect_view()
    }

    /// Starts the lab's first run when its tab first shows (a visitor who never opens it costs
    /// nothing), and a new one when the visitor's file comes or goes: `file_changed` (told
    /// whether a file is held now) first puts it in the settings or takes it out. `restart`
    /// saves the link and runs.
    pub fn run_when_shown(
        &self,
        active: RwSignal<LabKind>,
        file_changed: impl Fn(bool) + 'static,
        restart: impl Fn() + 'static,
    ) {
        let (lab, data) = (self.lab, self.data);
        Effect::new(move |seen: Option<(bool, u32)>| {
            let shown = active.get() == lab;
            let revision = data.view.with(|d| d.revision);
            let started = seen.is_some_and(|(s, _)| s);
            match seen {
                _ if !shown && !started => return (false, revision),
                Some((true, r)) if r == revision => return (true, revision),
                _ => {}
            }
            if seen.is_some_and(|(_, r)| r != revision) {
                file_changed(data.has_data());
            }
            restart();
            (true, revision)
        });
    }

    /// Writes the lab's part of the address bar (`own`, without `?`) beside the other labs';
    /// the link's length.
    pub fn save(&self, own: &str) -> Option<usize> {
        super::tabs::save_lab_query(self.lab, own)
    }
}

impl<C: Clone + Send + Sync + 'static, P: Send + Sync + 'static> RunState<C, StudyView<P>> {
    /// Starts the next study on `run` (the config, and whether the worker puts the visitor's
    /// file in), sent in the lab's family by `family`; a run that cannot be made is the study's
    /// refusal.
    pub fn start_study<O>(&self, run: Result<(C, bool), String>, family: Family<C, O>) {
        let id = self.study.with_untracked(|s| s.id) + 1;
        match run {
            Ok((config, use_data)) => {
                self.study.set(StudyView::started(id));
                self.send(&family(RunRequest::StudyStart {
                    id,
                    config: Box::new(config),
                    use_data,
                }));
            }
            Err(error) => self.study.set(StudyView::refused(id, error)),
        }
    }

    /// Cancels the study shown.
    pub fn cancel_study<O>(&self, family: Family<C, O>) {
        let id = self.study.with_untracked(|s| s.id);
        self.send(&family(RunRequest::StudyCancel { id }));
    }
}

/// The value of `key` in the page's query string, if it has one.
pub fn query_value(key: &str) -> Option<String> {
    let query = page_query();
    query_pairs(&query)
        .find(|(k, _)| *k == key)
        .map(|(_, value)| value)
}
