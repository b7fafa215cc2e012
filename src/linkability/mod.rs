//! The Linkability lab ([004]): the visitor owns two devices among many pseudonymous ones; the
//! server, from the devices' model updates alone, ranks which devices are the visitor's, and the
//! mitigations of §9 try to stop it.
//!
//! State lives here as signals; the run is in the worker ([`crate::worker::linkability`]) and
//! its reports accumulate in a [`scene::Scene`]. The controls ([`controls`]), figures
//! ([`results`]), the map of updates ([`updates_map`]) and the study ([`study`]) read and edit
//! that state.

pub mod confusion;
pub mod controls;
pub mod lesson;
pub mod results;
pub mod scene;
pub mod settings;
pub mod study;
pub mod updates_map;

/// The lab in the registry ([`crate::labs`]).
pub static SPEC: crate::lab_spec::LabSpec = crate::lab_spec::LabSpec {
    kind: crate::protocol::LabKind::Linkability,
    hide_key: whereabouts_engine::linkability::settings::HIDE_KEY,
    groups: whereabouts_engine::linkability::settings::CONTROL_GROUPS,
    settings: || {
        whereabouts_engine::linkability::settings::SETTINGS
            .iter()
            .map(|s| s.key)
            .collect()
    },
    figures: &[
        "linkability.rank",
        "linkability.new",
        "linkability.times",
        "linkability.ap",
        "linkability.chance",
        "linkability.top1",
        "linkability.top5",
        "linkability.matching",
        "linkability.rmse",
        "linkability.mean",
        "linkability.central",
        "linkability.sums",
        "linkability.summed",
        "linkability.devices",
        "linkability.epsilon",
        "linkability.epsilon_round",
        "linkability.rounds",
        "linkability.delta",
        "linkability.noise",
    ],
};

use crate::protocol::{LabKind, LinkResponse, Request, RunRequest};
use crate::shell::path_link::decode_path;
use crate::shell::run::{RunState, page_query, query_value, with_unknown_keys};
use crate::shell::{PATH_KEY, data::DataState, engine::Engine};
use crate::ui::basemap::now_ms;
use leptos::prelude::*;
use scene::Scene;
use whereabouts_core::geo::Metres;
use whereabouts_engine::linkability::config::LinkConfig;
use whereabouts_engine::linkability::settings::{SETTINGS, file_to_come, lab_default};

/// Everything the lab's parts share (all `Copy` handles): the run state every lab has, and
/// the run's reports.
#[derive(Clone, Copy)]
pub struct LinkState {
    pub run: RunState<LinkConfig, study::StudyView>,
    pub scene: RwSignal<Scene>,
}

impl std::ops::Deref for LinkState {
    type Target = RunState<LinkConfig, study::StudyView>;
    fn deref(&self) -> &Self::Target {
        &self.run
    }
}

/// The path drawn in the Signal map, from the address bar (`None`: none, or unreadable).
fn drawn_path() -> Option<Vec<Metres>> {
    decode_path(&query_value(PATH_KEY)?).ok()
}

impl LinkState {
    /// The run's config and whether the worker puts the visitor's file in; or what is wrong.
    fn config(&self) -> Result<(LinkConfig, bool), String> {
        let (config, use_data) = self
            .settings
            .with_untracked(|c| settings::run_config(c, drawn_path().as_deref()))?;
        if use_data && !self.data.has_data() {
            return Err(
                "You are: your file — choose or drop one under “Your own data” first".into(),
            );
        }
        Ok((config, use_data))
    }

    /// Nothing to show: the run could not start (the notice says why) and no results are in,
    /// so the result cards and pictures give way to the notice.
    pub fn blocked(&self) -> bool {
        self.notice.with(Option::is_some) && self.scene.with(|s| !s.running && s.summary.is_none())
    }

    /// Starts a fresh run with the current settings.
    pub fn restart(&self) {
        let generation = self.next_generation();
        self.notice.set(None);
        match self.config() {
            Ok((config, use_data)) => {
                self.scene.update(|s| {
                    *s = Scene {
                        generation,
                        running: true,
                        started_ms: now_ms(),
                        ..Scene::default()
                    }
                });
                self.run.send(&Request::Linkability(RunRequest::Start {
                    generation,
                    config: Box::new(config),
                    use_data,
                    start: (),
                }));
            }
            Err(e) => {
                self.scene.set(Scene::default());
                self.notice.set(Some(e));
            }
        }
    }

    /// Applies a control's new value, or explains why not (the old value stays).
    pub fn set_field(&self, key: &str, value: &str) -> Result<(), String> {
        self.apply(self.edited(key, value)?)
    }

    /// A lesson step's state: `pairs` (URL keys and values) over the lab's defaults, the
    /// hidden controls kept.
    pub fn set_state(&self, pairs: &[(&str, &str)]) -> Result<(), String> {
        self.apply(self.stepped(lab_default(), pairs)?)
    }

    /// Runs `next` if it is valid (else the old settings stay), and keeps it in the link.
    fn apply(&self, next: LinkConfig) -> Result<(), String> {
        settings::check(&next)?;
        self.settings.set(next);
        self.save_url();
        self.restart();
        Ok(())
    }

    pub fn save_url(&self) {
        let hidden = self.hidden.get_untracked();
        let own = self
            .settings
            .with_untracked(|c| settings::to_query(c, &hidden));
        self.save(&own);
    }

    pub fn start_study(&self) {
        self.run.start_study(self.config(), Request::Linkability);
    }

    pub fn cancel_study(&self) {
        self.run.cancel_study(Request::Linkability);
    }

    fn on_response(&self, response: LinkResponse) {
        let generation = match &response {
            LinkResponse::Started { generation, .. }
            | LinkResponse::Event { generation, .. }
            | LinkResponse::Idle { generation, .. }
            | LinkResponse::References { generation, .. }
            | LinkResponse::Error { generation, .. } => *generation,
            _ => return,
        };
        if generation != self.generation() {
            return;
        }
        if let LinkResponse::Error { message, .. } = &response {
            self.notice.set(Some(message.clone()));
        }
        let now = now_ms();
        self.scene.update(|s| s.apply(response, now));
    }
}

/// Creates the lab's state from the URL and listens for its responses. The first run starts
/// when the lab's tab first shows (a visitor who never opens it costs nothing); a file imported
/// makes the visitor their file, and forgotten, the default week again.
pub fn create(engine: Engine, data: DataState, active: RwSignal<LabKind>) -> LinkState {
    let parsed = settings::from_query(&page_query());
    let problems = with_unknown_keys(parsed.messages());
    let state = LinkState {
        run: RunState::new(
            LabKind::Linkability,
            SETTINGS,
            engine,
            data,
            parsed.config,
            parsed.hidden,
            &problems,
        ),
        scene: RwSignal::new(Scene::default()),
    };
    // A file came: you are your file; it went: you walk the default week again.
    state.run_when_shown(
        active,
        move |has_file| {
            let you = if has_file {
                file_to_come()
            } else {
                lab_default().you
            };
            state.settings.update(|c| c.you = you);
        },
        move || {
            state.save_url();
            state.restart();
        },
    );
    state
}

/// The lab's views on `state` (made when its tab first shows: [`crate::shell::lab_views`]).
pub fn views(state: LinkState) -> crate::shell::lab_views::Views {
    use {
        confusion::Confusion, controls::LinkControls, results::Results, study::LinkStudy,
        updates_map::UpdatesMap,
    };
    // The lab's messages are read from here on (what came before first), by code that comes
    // with its views.
    state.run.listen(
        crate::protocol::linkability::decode,
        move |response| match response {
            LinkResponse::Study(reply) => state.study.update(|s| s.apply(reply)),
            r => state.on_response(r),
        },
    );
    crate::shell::lab_views::Views {
        stage: view! {
            <Results state=state/>
            <UpdatesMap state=state/>
            <Confusion state=state/>
            <LinkStudy state=state/>
        }
        .into_any(),
        side: view! { <LinkControls state=state/> }.into_any(),
    }
}
