//! The Mobility lab ([002]): phones learn to predict the next place from the last 8; the visitor
//! draws a route (or brings a file), and round by round the server rebuilds the window their
//! phone trained on from its update (ST-GIA and the baselines), while the phone's defence spends
//! a privacy budget to stop it.
//!
//! State lives here as signals; the run is in the worker ([`crate::worker::mobility`]) and its
//! reports accumulate in a [`scene::Scene`]. The map ([`map`]), controls ([`controls`]), the
//! playback and figures ([`results`]) and the study ([`study`]) read and edit that state.

pub mod controls;
pub mod lesson;
pub mod map;
pub mod membership;
pub mod results;
pub mod scene;
pub mod settings;
pub mod study;
pub mod unicity;

/// The lab in the registry ([`crate::labs`]).
pub static SPEC: crate::lab_spec::LabSpec = crate::lab_spec::LabSpec {
    kind: crate::protocol::LabKind::Mobility,
    hide_key: whereabouts_engine::mobility::settings::HIDE_KEY,
    groups: whereabouts_engine::mobility::settings::CONTROL_GROUPS,
    settings: || {
        whereabouts_engine::mobility::settings::SETTINGS
            .iter()
            .map(|s| s.key)
            .collect()
    },
    figures: &[
        "mobility.asr",
        "mobility.ait",
        "mobility.mean",
        "mobility.phones",
        "mobility.sybils",
        "mobility.epsilon_round",
        "mobility.epsilon",
        "mobility.epsilon_stated",
        "mobility.rounds",
        "mobility.spent",
        "mobility.epsilon_t",
        "mobility.error",
        "mobility.recall",
        "mobility.stay",
        "mobility.people",
        "mobility.auc",
        "mobility.you1",
        "mobility.you2",
        "mobility.you3",
        "mobility.you4",
        "mobility.places1",
        "mobility.places2",
        "mobility.places3",
        "mobility.places4",
        "mobility.everyone1",
        "mobility.everyone2",
        "mobility.everyone3",
        "mobility.everyone4",
    ],
};

use crate::protocol::{LabKind, MobRequest, MobResponse, Request, RunRequest};
use crate::shell::run::{RunState, page_query, with_unknown_keys};
use crate::shell::{data::DataState, engine::Engine};
use crate::ui::basemap::now_ms;
use crate::ui::path_editor::PathEditor;
use leptos::prelude::*;
use scene::Scene;
use settings::{drawn, is_file, with_path};
use std::sync::Arc;
use whereabouts_core::geo::Metres;
use whereabouts_engine::mobility::config::MobConfig;
use whereabouts_engine::mobility::limits;
use whereabouts_engine::mobility::settings::{SETTINGS, default_path, lab_default};
use whereabouts_engine::mobility::traces;

/// Which layers the map draws.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Layers {
    pub trail: bool,
    pub estimates: bool,
    pub streets: bool,
}

impl Default for Layers {
    fn default() -> Self {
        Layers {
            trail: true,
            estimates: true,
            streets: true,
        }
    }
}

/// Everything the lab's parts share (all `Copy` handles): the run state every lab has (its
/// settings are the engine's config, the drawn route put in when it runs,
/// [`settings::with_path`]) and the lab's own.
#[derive(Clone, Copy)]
pub struct MobState {
    pub run: RunState<MobConfig, study::StudyView>,
    /// The visitor's drawn route, with its undo history.
    pub editor: RwSignal<PathEditor>,
    pub scene: RwSignal<Scene>,
    pub layers: RwSignal<Layers>,
    /// The round the map and the figures show (`None`: the latest).
    pub viewed: RwSignal<Option<usize>>,
    /// The rounds play on as they come (else the run stops at the round reached).
    pub playing: RwSignal<bool>,
}

impl std::ops::Deref for MobState {
    type Target = RunState<MobConfig, study::StudyView>;
    fn deref(&self) -> &Self::Target {
        &self.run
    }
}

/// How the lab's family carries its start, study and cancel.
fn run(request: RunRequest<MobConfig, usize>) -> Request {
    Request::Mobility(MobRequest::Run(request))
}

impl MobState {
    fn send(&self, request: MobRequest) {
        self.run.send(&Request::Mobility(request));
    }

    /// The drawn route's waypoints.
    pub fn path(&self) -> Vec<Metres> {
        self.editor.with_untracked(|e| e.waypoints.clone())
    }

    /// The run's config and whether the worker puts the visitor's file in; or what is wrong.
    fn config(&self) -> Result<(MobConfig, bool), String> {
        let config = with_path(&self.settings.get_untracked(), &self.path());
        if drawn(&config) && self.editor.with_untracked(|e| e.waypoints.len()) < 2 {
            return Err(
                "Draw your route: click on the map to add its waypoints (two at least).".into(),
            );
        }
        settings::validate(&config)?;
        if is_file(&config) {
            if !self.data.has_data() {
                return Err(
                    "The server's target: your file — choose or drop one under “Your own data” first"
                        .into(),
                );
            }
            return Ok((config, true));
        }
        Ok((config, false))
    }

    /// Starts a fresh run with the current settings and route, playing if playback is on.
    pub fn restart(&self) {
        let generation = self.next_generation();
        self.notice.set(None);
        self.viewed.set(None);
        let seed = self.settings.with_untracked(|s| s.seed);
        // The streets are the worker's: the same seed makes the same city.
        let roads = self
            .scene
            .with_untracked(|s| s.roads.clone())
            .filter(|_| {
                self.scene
                    .with_untracked(|s| s.generation > 0 && s.seed == seed)
            })
            .unwrap_or_else(|| Arc::new(traces::city(seed)));
        match self.config() {
            Ok((config, use_data)) => {
                let rounds = config.rounds;
                self.scene.set(Scene {
                    generation,
                    seed,
                    roads: Some(roads),
                    running: true,
                    started_ms: now_ms(),
                    ..Scene::default()
                });
                let want = if self.playing.get_untracked() {
                    rounds
                } else {
                    1
                };
                self.run.send(&run(RunRequest::Start {
                    generation,
                    config: Box::new(config),
                    use_data,
                    start: want,
                }));
            }
            Err(e) => {
                self.scene.set(Scene {
                    seed,
                    roads: Some(roads),
                    ..Scene::default()
                });
                self.notice.set(Some(e));
            }
        }
    }

    /// A new run for changed settings or a changed route, played (the visitor wants to see
    /// what the change does).
    fn replay(&self) {
        self.playing.set(true);
        self.restart();
    }

    /// Plays to the end, or pauses where the run is.
    pub fn toggle_play(&self) {
        let playing = !self.playing.get_untracked();
        self.playing.set(playing);
        if playing && self.scene.with_untracked(Scene::finished) {
            self.restart();
            return;
        }
        let want = if playing {
            self.scene.with_untracked(|s| s.rounds)
        } else {
            self.scene.with_untracked(|s| s.done() + 1)
        };
        self.play_to(want);
    }

    /// One more round, then stop.
    pub fn step(&self) {
        self.playing.set(false);
        self.viewed.set(None);
        let want = self.scene.with_untracked(|s| s.done() + 1);
        self.play_to(want);
    }

    fn play_to(&self, want: usize) {
        self.scene
            .update(|s| s.running = s.done() < want.min(s.rounds));
        self.send(MobRequest::Play {
            generation: self.generation(),
            want,
        });
    }

    /// Pauses (leaving the tab stops the playback).
    pub fn pause(&self) {
        if self.playing.get_untracked() {
            self.toggle_play();
        }
    }

    /// Applies a control's new value, or explains why not (the old value stays).
    pub fn set_field(&self, key: &str, value: &str) -> Result<(), String> {
        self.apply(self.edited(key, value)?)
    }

    /// A lesson step's state: `pairs` (URL keys and values) over the lab's defaults, the
    /// route and the hidden controls kept; it plays from the first round.
    pub fn set_state(&self, pairs: &[(&str, &str)]) -> Result<(), String> {
        self.apply(self.stepped(lab_default(), pairs)?)
    }

    /// Runs `next` from the first round if it is valid (else the old settings stay), and keeps
    /// it in the link.
    fn apply(&self, next: MobConfig) -> Result<(), String> {
        settings::validate(&with_path(&next, &self.path()))?;
        self.settings.set(next);
        self.save_url();
        self.replay();
        Ok(())
    }

    /// The route changed (a gesture ended): the link keeps it, and a drawn target runs again.
    pub fn path_done(&self) {
        self.save_url();
        if self.settings.with_untracked(drawn) {
            self.replay();
        }
    }

    pub fn save_url(&self) {
        let hidden = self.hidden.get_untracked();
        let path = self.path();
        let own = self
            .settings
            .with_untracked(|s| settings::to_query(s, &path, &hidden));
        self.save(&own);
    }

    pub fn start_study(&self) {
        self.run.start_study(self.config(), run);
    }

    pub fn cancel_study(&self) {
        self.run.cancel_study(run);
    }

    fn on_response(&self, response: MobResponse) {
        let generation = match &response {
            MobResponse::Started { generation, .. }
            | MobResponse::Progress { generation, .. }
            | MobResponse::Round { generation, .. }
            | MobResponse::Idle { generation, .. }
            | MobResponse::Error { generation, .. } => *generation,
            _ => return,
        };
        if generation != self.generation() {
            return;
        }
        if let MobResponse::Error { message, .. } = &response {
            self.notice.set(Some(message.clone()));
        }
        if let MobResponse::Idle { summary, .. } = &response
            && summary.rounds_done >= self.scene.with_untracked(|s| s.rounds)
        {
            self.playing.set(false);
        }
        let now = now_ms();
        self.scene.update(|s| s.apply(response, now));
    }
}

/// Creates the lab's state from the URL and listens for its responses. The first run starts
/// when the lab's tab first shows (a visitor who never opens it costs nothing); a file imported
/// makes the file the target, and forgotten, the drawn route again.
pub fn create(engine: Engine, data: DataState, active: RwSignal<LabKind>) -> MobState {
    let parsed = settings::from_query(&page_query());
    let state = MobState {
        run: RunState::new(
            LabKind::Mobility,
            SETTINGS,
            engine,
            data,
            parsed.settings,
            parsed.hidden,
            &with_unknown_keys(parsed.problems),
        ),
        editor: RwSignal::new(PathEditor::new(
            parsed.path.unwrap_or_else(default_path),
            limits::WAYPOINTS.max as usize,
        )),
        scene: RwSignal::new(Scene::default()),
        layers: RwSignal::new(Layers::default()),
        viewed: RwSignal::new(None),
        playing: RwSignal::new(true),
    };
    // Leaving the tab pauses the playback (the worker computes only the visible lab).
    Effect::new(move || {
        if active.get() != LabKind::Mobility {
            state.pause();
        }
    });
    // A file came: it is the target; it went: the drawn route again.
    state.run_when_shown(
        active,
        move |has_file| {
            let who = if has_file { "file" } else { "path" };
            let mut next = state.settings.get_untracked();
            match whereabouts_core::setting::set(SETTINGS, &mut next, "m.who", who) {
                Ok(()) => state.settings.set(next),
                Err(e) => state.notice.set(Some(e)),
            }
        },
        move || {
            state.save_url();
            state.restart();
        },
    );
    state
}

/// The lab's views on `state` (made when its tab first shows: [`crate::shell::lab_views`]).
pub fn views(state: MobState) -> crate::shell::lab_views::Views {
    use {
        controls::MobControls,
        map::MobMap,
        results::{MobPlayback, MobResults},
        study::MobStudy,
    };
    // The lab's messages are read from here on (what came before first), by code that comes
    // with its views.
    state.run.listen(
        crate::protocol::mobility::decode,
        move |response| match response {
            MobResponse::Study(reply) => state.study.update(|s| s.apply(reply)),
            r => state.on_response(r),
        },
    );
    crate::shell::lab_views::Views {
        stage: view! {
            <section class="map-panel" aria-label="Map">
                <MobMap state=state/>
            </section>
            <MobPlayback state=state/>
            <MobResults state=state/>
            <MobStudy state=state/>
        }
        .into_any(),
        side: view! { <MobControls state=state/> }.into_any(),
    }
}
