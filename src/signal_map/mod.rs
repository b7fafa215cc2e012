//! The Signal-map lab: draw a trajectory, watch the server reconstruct it round by round.
//!
//! State lives here as signals; the engine runs in the worker ([`crate::worker`]) and reports
//! events that [`scene::Scene`] accumulates. The map ([`map`]), controls ([`controls`]) and
//! results ([`results`]) only read and edit that state.

pub mod controls;
pub mod draw;
pub mod export;
pub mod lesson;
pub mod map;
pub mod results;
pub mod scene;
pub mod settings;
pub mod study;

/// The lab in the registry ([`crate::labs`]).
pub static SPEC: crate::lab_spec::LabSpec = crate::lab_spec::LabSpec {
    kind: crate::protocol::LabKind::Signal,
    hide_key: whereabouts_engine::signal_map::settings::HIDE_KEY,
    groups: whereabouts_engine::signal_map::settings::CONTROL_GROUPS,
    settings: || {
        whereabouts_engine::signal_map::settings::SETTINGS
            .iter()
            .map(|s| s.key)
            .collect()
    },
    figures: &[
        "signal.closest",
        "signal.undefended",
        "signal.dlg",
        "signal.aware",
        "signal.analytic",
        "signal.emd",
        "signal.random",
        "signal.diverged",
        "signal.epsilon",
        "signal.user_epsilon",
        "signal.round_epsilon",
        "signal.recovered",
        "signal.rmse",
        "signal.mean",
        "signal.centralised",
    ],
};

use crate::protocol::{LabKind, Request, Response, SignalRequest, SignalResponse};
use crate::shell::run::{RunState, page_query};
use crate::shell::{data::DataState, engine::Engine};
pub use crate::ui::basemap::now_ms;
use crate::ui::path_editor::PathEditor;
use draw::Layers;
use leptos::prelude::*;
use scene::Scene;
pub use settings::config_to_run;
use std::time::Duration;
use whereabouts_engine::signal_map::scenario::ScenarioConfig;
pub use whereabouts_engine::signal_map::settings::campus_half;
use whereabouts_engine::signal_map::settings::{SETTINGS, default_path, lab_default, with_path};
use whereabouts_engine::signal_map::trajectory::MAX_WAYPOINTS;
use whereabouts_engine::signal_map::trajectory::TrajectoryPreset;

/// Pause between rounds while playing, so each round can be seen.
const PLAY_PAUSE: Duration = Duration::from_millis(350);

/// Interaction latency of the last edit, milliseconds (shown, and read by the benchmark).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Latency {
    pub edit: u32,
    /// Edit sent → the edited round's Lemma 1 reconstruction received.
    pub analytic_ms: Option<f64>,
    /// Edit sent → the edited round's DLG finished.
    pub dlg_ms: Option<f64>,
    /// The worker's share of the analytic latency.
    pub worker_ms: Option<f64>,
}

/// Everything the lab's parts share (all `Copy` handles): the run state every lab has, and
/// the lab's own.
#[derive(Clone, Copy)]
pub struct LabState {
    pub run: RunState<ScenarioConfig, study::StudyView>,
    pub editor: RwSignal<PathEditor>,
    pub scene: RwSignal<Scene>,
    /// Rounds 0..wanted are requested (and drawn).
    pub wanted: RwSignal<usize>,
    pub playing: RwSignal<bool>,
    /// The round the timeline shows; `None` follows the latest.
    pub selected: RwSignal<Option<usize>>,
    pub layers: RwSignal<Layers>,
    /// The length of the page's link (the address bar's, written by `save_url`).
    pub link_chars: RwSignal<usize>,
    pub latency: RwSignal<Latency>,
    edit: StoredValue<(u32, f64, Option<usize>)>,
    /// An edit is with the worker; `dirty`: the path changed again meanwhile.
    in_flight: StoredValue<bool>,
    dirty: StoredValue<bool>,
    /// The path the worker has (the last edit sent or started).
    last_sent: StoredValue<Vec<whereabouts_core::geo::Metres>>,
    play_timer: StoredValue<bool>,
}

impl std::ops::Deref for LabState {
    type Target = RunState<ScenarioConfig, study::StudyView>;
    fn deref(&self) -> &Self::Target {
        &self.run
    }
}

impl LabState {
    pub(crate) fn send(&self, request: Request) {
        self.run.send(&request);
    }

    /// True while the visitor's file is loaded: the lab runs on it instead of the path.
    pub fn has_data(&self) -> bool {
        self.data.has_data()
    }

    /// The configuration of a run on the current settings, and on the imported data if there
    /// is some (else on the drawn path).
    pub(crate) fn run_config(
        &self,
    ) -> (
        whereabouts_engine::signal_map::scenario::ScenarioConfig,
        bool,
    ) {
        let path = self.editor.with_untracked(|e| e.waypoints.clone());
        let use_data = self.has_data();
        let config = self
            .settings
            .with_untracked(|s| config_to_run(s, &path, use_data));
        (config, use_data)
    }

    /// Starts a fresh lab with the current settings and path (keeps `wanted` rounds).
    pub fn restart(&self) {
        let path = self.editor.with_untracked(|e| e.waypoints.clone());
        let generation = self.next_generation();
        self.in_flight.set_value(false);
        self.dirty.set_value(false);
        self.last_sent.set_value(path.clone());
        if path.is_empty() && !self.has_data() {
            self.scene.update(|s| {
                *s = Scene {
                    world: s.world.clone(),
                    ..Scene::default()
                }
            });
            return;
        }
        let (config, use_data) = self.run_config();
        self.send(Request::Signal(SignalRequest::Start {
            generation,
            config: Box::new(config),
            want: self.wanted.get_untracked(),
            use_data,
        }));
    }

    /// The path changed at the end of a gesture (or by undo, redo, delete): send it and keep
    /// it in the URL.
    pub fn path_changed(&self) {
        self.drag_changed();
        self.save_url();
    }

    /// The path changed during a drag. The edit is sent at once unless one is still being
    /// applied by the worker; then the latest path is sent as soon as it is (latest wins, so
    /// a fast drag never queues stale work).
    pub fn drag_changed(&self) {
        if self.has_data() {
            // The imported file is the visitor's data; the path waits until it is forgotten.
            return;
        }
        let path = self.editor.with_untracked(|e| e.waypoints.clone());
        if path.is_empty() || self.scene.with_untracked(|s| s.total_rounds == 0) {
            self.restart();
            return;
        }
        if self.in_flight.get_value() {
            self.dirty.set_value(true);
            return;
        }
        if self.last_sent.with_value(|p| *p == path) {
            return;
        }
        self.last_sent.set_value(path.clone());
        let (edit, ..) = self.edit.get_value();
        let edit = edit + 1;
        self.edit.set_value((edit, now_ms(), None));
        let trajectory = self
            .settings
            .with_untracked(|c| with_path(c, &path))
            .trajectory
            .expect("the lab config has a trajectory");
        self.in_flight.set_value(true);
        self.send(Request::Signal(SignalRequest::Trajectory {
            generation: self.generation(),
            edit,
            trajectory,
        }));
    }

    /// The worker has applied an edit (or failed to): send the newest path if there is one.
    fn edit_done(&self) {
        self.in_flight.set_value(false);
        if self.dirty.get_value() {
            self.dirty.set_value(false);
            self.drag_changed();
        }
    }

    pub fn want(&self, rounds: usize) {
        self.wanted.set(rounds);
        self.send(Request::Signal(SignalRequest::Want {
            generation: self.generation(),
            rounds,
        }));
    }

    /// Play / pause.
    pub fn toggle_play(&self) {
        let playing = !self.playing.get_untracked();
        self.playing.set(playing);
        if playing {
            self.selected.set(None);
            let total = self.scene.with_untracked(|s| s.total_rounds);
            if self.wanted.get_untracked() >= total && total > 0 {
                // At the end: play again from the start.
                self.reset();
                self.playing.set(true);
            }
            self.advance_if_ready();
        }
    }

    /// Runs the chosen study on the current configuration and path.
    pub fn start_study(&self) {
        let path = self.editor.with_untracked(|e| e.waypoints.clone());
        if path.is_empty() && !self.has_data() {
            self.notice.set(Some(
                "Draw a path first: the study runs on your trajectory.".into(),
            ));
            return;
        }
        let (config, use_data) = self.run_config();
        let id = self.study.with_untracked(|s| s.id) + 1;
        let kind = self.study.with_untracked(|s| s.kind);
        self.study.set(study::StudyView {
            id,
            kind,
            running: true,
            ..study::StudyView::default()
        });
        self.send(Request::Signal(SignalRequest::StudyStart {
            id,
            config: Box::new(config),
            use_data,
            kind,
        }));
    }

    pub fn cancel_study(&self) {
        let id = self.study.with_untracked(|s| s.id);
        self.send(Request::Signal(SignalRequest::StudyCancel { id }));
    }

    /// One more round, paused.
    pub fn step(&self) {
        self.playing.set(false);
        self.selected.set(None);
        let total = self.scene.with_untracked(|s| s.total_rounds);
        let wanted = self.wanted.get_untracked();
        if wanted < total {
            self.want(wanted + 1);
        }
    }

    /// Back to round 0: a fresh run of the same configuration.
    pub fn reset(&self) {
        self.playing.set(false);
        self.selected.set(None);
        self.wanted.set(0);
        self.restart();
    }

    /// While playing: ask for the next round once the current one is done.
    pub(crate) fn advance_if_ready(&self) {
        if !self.playing.get_untracked() || self.play_timer.get_value() {
            return;
        }
        let (done, total) = self
            .scene
            .with_untracked(|s| (s.finished_through(), s.total_rounds));
        let wanted = self.wanted.get_untracked();
        if total == 0 || done < wanted {
            return;
        }
        if wanted >= total {
            self.playing.set(false);
            return;
        }
        let state = *self;
        let first = wanted == 0;
        self.play_timer.set_value(true);
        set_timeout(
            move || {
                state.play_timer.set_value(false);
                if state.playing.get_untracked() {
                    state.want(state.wanted.get_untracked() + 1);
                }
            },
            if first { Duration::ZERO } else { PLAY_PAUSE },
        );
    }

    /// Writes the configuration, seed and path into the address bar (replaceState: no
    /// history spam, and a reload keeps the drawing).
    pub fn save_url(&self) {
        let own = self.query();
        if let Some(chars) = self.save(&own) {
            self.link_chars.set(chars);
        }
    }

    pub fn query(&self) -> String {
        let path = self.editor.with_untracked(|e| e.waypoints.clone());
        let hidden = self.hidden.get_untracked();
        self.settings
            .with_untracked(|c| settings::to_query(c, &path, &hidden))
    }

    /// Applies a control's new value, or explains why not (the old value stays).
    pub fn set_field(&self, key: &str, value: &str) -> Result<(), String> {
        self.apply(self.edited(key, value)?)
    }

    /// A lesson step's state: `pairs` (URL keys and values) over the lab's defaults, the path
    /// and the hidden controls kept; then `rounds` rounds, or playing from the start.
    pub fn set_state(&self, pairs: &[(&str, &str)], rounds: Option<usize>) -> Result<(), String> {
        let next = self.stepped(lab_default(), pairs)?;
        self.selected.set(None);
        self.playing.set(rounds.is_none());
        self.wanted.set(rounds.unwrap_or(0));
        self.apply(next)
    }

    /// Runs `next` if it is valid for the path (else the old settings stay), and keeps it in
    /// the link.
    fn apply(&self, next: ScenarioConfig) -> Result<(), String> {
        let path = self.editor.with_untracked(|e| e.waypoints.clone());
        if !path.is_empty() {
            with_path(&next, &path)
                .validate()
                .map_err(|e| e.to_string())?;
        }
        self.settings.set(next);
        self.save_url();
        self.restart();
        Ok(())
    }

    pub fn load_preset(&self, preset: TrajectoryPreset) {
        let t = {
            let (hw, hh) = campus_half();
            preset.trajectory(hw, hh)
        };
        self.settings.update(|c| {
            c.trajectory = Some(t.clone());
            *c = with_path(c, &t.waypoints);
        });
        self.editor.update(|e| e.replace(t.waypoints));
        self.save_url();
        self.restart();
    }

    fn on_response(&self, response: Response) {
        let current = self.generation();
        match response {
            Response::Signal(SignalResponse::Started {
                generation,
                world,
                total_rounds,
                initial_rmse_db,
                heat,
                ..
            }) if generation == current => {
                self.scene
                    .set(Scene::started(world, total_rounds, initial_rmse_db, heat));
                self.notice.set(None);
                if self.wanted.get_untracked() > total_rounds {
                    self.wanted.set(total_rounds);
                }
                self.advance_if_ready();
            }
            Response::Signal(SignalResponse::Event { generation, event })
                if generation == current =>
            {
                let (edit, sent, focus) = self.edit.get_value();
                match &event {
                    whereabouts_engine::signal_map::lab::LabEvent::Trained {
                        round,
                        target,
                        ..
                    } if focus.is_none() && target.is_some() && sent > 0.0 => {
                        self.edit.set_value((edit, sent, Some(*round)));
                        // "On screen": the frame that draws it (the map paints in an earlier
                        // callback of the same animation frame).
                        let latency = self.latency;
                        request_animation_frame(move || {
                            latency.update(|l| {
                                l.edit = edit;
                                l.analytic_ms = Some(now_ms() - sent);
                                l.dlg_ms = None;
                            })
                        });
                    }
                    whereabouts_engine::signal_map::lab::LabEvent::Reconstructed {
                        round, ..
                    } if focus == Some(*round) => {
                        let latency = self.latency;
                        request_animation_frame(move || {
                            latency.update(|l| l.dlg_ms = Some(now_ms() - sent))
                        });
                        self.edit.set_value((edit, 0.0, None));
                    }
                    _ => {}
                }
                let attacked = matches!(
                    event,
                    whereabouts_engine::signal_map::lab::LabEvent::Attacked(_)
                );
                self.scene.update(|s| s.apply(event));
                if attacked {
                    self.advance_if_ready();
                }
            }
            Response::Signal(SignalResponse::Edited {
                generation,
                edit,
                first_changed,
                worker_ms,
            }) if generation == current => {
                self.latency.update(|l| l.worker_ms = Some(worker_ms));
                if first_changed.is_none() && self.edit.get_value().0 == edit {
                    // Nothing changed: no latency to measure.
                    self.edit.set_value((edit, 0.0, None));
                }
                self.edit_done();
            }
            Response::Signal(SignalResponse::Heat { generation, heat })
                if generation == current =>
            {
                self.scene.update(|s| s.set_heat(heat));
            }
            Response::Signal(SignalResponse::Idle {
                generation,
                summary,
            }) if generation == current => {
                self.scene.update(|s| {
                    // A comparison of fewer rounds is out of date; the worker sends the new one.
                    if s.undefended
                        .as_ref()
                        .is_some_and(|c| c.defended.rounds != summary.rounds)
                    {
                        s.undefended = None;
                    }
                    s.summary = Some(summary);
                });
                self.advance_if_ready();
            }
            Response::Signal(SignalResponse::Undefended {
                generation,
                comparison,
            }) if generation == current => {
                self.scene.update(|s| s.undefended = Some(*comparison));
            }
            Response::Signal(SignalResponse::References {
                generation,
                references,
            }) if generation == current => {
                self.scene.update(|s| {
                    if let Some(summary) = s.summary.as_mut() {
                        summary.references = Some(references);
                    }
                });
            }
            Response::Signal(SignalResponse::Error {
                generation,
                message,
            }) if generation == current => {
                self.playing.set(false);
                self.in_flight.set_value(false);
                self.dirty.set_value(false);
                self.notice.set(Some(message));
            }
            _ => {}
        }
    }
}

/// Creates the lab's state from the URL, listens for its responses and starts its first run;
/// it restarts whenever the visitor's data changes.
pub fn create(engine: Engine, data: DataState) -> LabState {
    let parsed = settings::from_query(&page_query());
    let path = parsed.path.clone().unwrap_or_else(default_path);
    let state = LabState {
        run: RunState::new(
            LabKind::Signal,
            SETTINGS,
            engine,
            data,
            parsed.config,
            parsed.hidden,
            &parsed.problems,
        ),
        editor: RwSignal::new(PathEditor::new(path, MAX_WAYPOINTS)),
        scene: RwSignal::new(Scene::default()),
        wanted: RwSignal::new(0),
        playing: RwSignal::new(true),
        selected: RwSignal::new(None),
        layers: RwSignal::new(Layers::default()),
        link_chars: RwSignal::new(0),
        latency: RwSignal::new(Latency::default()),
        edit: StoredValue::new((0, 0.0, None)),
        in_flight: StoredValue::new(false),
        dirty: StoredValue::new(false),
        last_sent: StoredValue::new(Vec::new()),
        play_timer: StoredValue::new(false),
    };
    engine.listen(move |response| match response {
        Response::Signal(
            SignalResponse::StudyProgress { .. }
            | SignalResponse::StudyDone { .. }
            | SignalResponse::StudyError { .. },
        ) => {
            state.study.update(|s| s.apply(response));
            None
        }
        Response::Signal(_) => {
            state.on_response(response);
            None
        }
        other => Some(other),
    });
    // A file imported: the lab runs on it at once; forgotten: back to the path.
    Effect::new(move |seen: Option<u32>| {
        let revision = data.view.with(|d| d.revision);
        if seen.is_some_and(|r| r != revision) {
            state.reset();
            if state.has_data() {
                state.playing.set(true);
                state.advance_if_ready();
            }
        }
        revision
    });
    state.save_url();
    state.restart();
    state
}
