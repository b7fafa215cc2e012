//! The Density lab ([003]): the visitor places themselves (home, work, …) in a synthetic city,
//! every phone answers the server's density query with random features, and the page shows
//! what the server makes of the visitor's upload beside the density it gets from everyone.
//!
//! State lives here as signals; the run is in the worker ([`crate::worker::density`]) and its
//! reports accumulate in a [`scene::Scene`]. The map ([`map`]), controls ([`controls`]),
//! figures ([`results`]) and the study ([`study`]) read and edit that state.

pub mod controls;
pub mod lesson;
pub mod map;
pub mod results;
pub mod scene;
pub mod settings;
pub mod study;

/// The lab in the registry ([`crate::labs`]).
pub static SPEC: crate::lab_spec::LabSpec = crate::lab_spec::LabSpec {
    kind: crate::protocol::LabKind::Density,
    hide_key: whereabouts_engine::density::settings::HIDE_KEY,
    groups: whereabouts_engine::density::settings::CONTROL_GROUPS,
    settings: || {
        whereabouts_engine::density::settings::SETTINGS
            .iter()
            .map(|s| s.key)
            .collect()
    },
    figures: &[
        "density.error",
        "density.rivals",
        "density.median",
        "density.found",
        "density.people",
        "density.mean",
        "density.random",
        "density.rho",
        "density.f1",
        "density.epsilon",
    ],
};

use crate::protocol::{DensityRequest, DensityResponse, LabKind, Request, RunRequest};
use crate::shell::run::{RunState, page_query, with_unknown_keys};
use crate::shell::{data::DataState, engine::Engine};
pub use crate::ui::basemap::now_ms;
use leptos::prelude::*;
use scene::Scene;
use whereabouts_core::geo::Metres;
use whereabouts_engine::density::DensityConfig;
use whereabouts_engine::density::limits::MAX_VISITOR_PLACES;
use whereabouts_engine::density::settings::SETTINGS;

/// What the map shows under the markers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Show {
    /// The selected place's upload as the server sees it.
    Upload,
    /// The density the server publishes (everyone's uploads summed).
    Estimate,
    /// The exact density (what the server would get if everyone sent their location).
    Exact,
}

impl Show {
    pub const ALL: [(Show, &'static str, &'static str); 3] = [
        (Show::Upload, "upload", "Your upload"),
        (Show::Estimate, "estimate", "Server's density"),
        (Show::Exact, "exact", "Exact density"),
    ];
}

/// Which markers are on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Layers {
    pub candidates: bool,
    pub guess: bool,
}

impl Default for Layers {
    fn default() -> Self {
        Layers {
            candidates: true,
            guess: true,
        }
    }
}

/// The last drag's round trip (shown, and read by the benchmark).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Latency {
    pub edit: u32,
    /// Edit sent → its answers and the edit's acknowledgement received, ms.
    pub total_ms: Option<f64>,
    /// The worker's share.
    pub worker_ms: Option<f64>,
}

/// The default places: home in a western neighbourhood, work to the north-east.
pub fn default_places() -> Vec<Metres> {
    DensityConfig::default().visitor
}

/// Everything the lab's parts share (all `Copy` handles): the run state every lab has, and
/// the lab's own.
#[derive(Clone, Copy)]
pub struct DensityState {
    pub run: RunState<DensityConfig, study::StudyView>,
    pub places: RwSignal<Vec<Metres>>,
    /// The place whose upload the map and the figures show.
    pub selected: RwSignal<usize>,
    pub scene: RwSignal<Scene>,
    pub show: RwSignal<Show>,
    pub layers: RwSignal<Layers>,
    pub latency: RwSignal<Latency>,
    /// The last edit's number and when it was sent.
    edit: StoredValue<(u32, f64)>,
    in_flight: StoredValue<bool>,
    dirty: StoredValue<bool>,
    /// The places stopped moving: tell the worker once their last edit is answered.
    settle: StoredValue<bool>,
}

impl std::ops::Deref for DensityState {
    type Target = RunState<DensityConfig, study::StudyView>;
    fn deref(&self) -> &Self::Target {
        &self.run
    }
}

/// How the lab's family carries its start, study and cancel.
fn run(request: RunRequest<DensityConfig>) -> Request {
    Request::Density(DensityRequest::Run(request))
}

impl DensityState {
    fn send(&self, request: DensityRequest) {
        self.run.send(&Request::Density(request));
    }

    /// True while the visitor's file is loaded: their places are the file's.
    pub fn has_data(&self) -> bool {
        self.data.has_data()
    }

    pub fn config(&self) -> DensityConfig {
        let places = self.places.get_untracked();
        self.settings
            .with_untracked(|s| settings::with_places(s, &places))
    }

    /// Starts a fresh run with the current settings and places.
    pub fn restart(&self) {
        let generation = self.next_generation();
        self.in_flight.set_value(false);
        self.dirty.set_value(false);
        self.settle.set_value(false);
        self.notice.set(None);
        self.run.send(&run(RunRequest::Start {
            generation,
            config: Box::new(self.config()),
            use_data: self.has_data(),
            start: (),
        }));
    }

    /// The places moved (while dragging too): the worker redoes the visitor's part at once;
    /// one edit is in flight at a time and the latest wins.
    pub fn places_changed(&self) {
        let places = self.places.get_untracked();
        // Only a place added or removed changes the scene (a moved one's answer stays drawn).
        if self
            .scene
            .with_untracked(|s| s.answers.len() != places.len())
        {
            self.scene.update(|s| s.places_changed(places.len()));
        }
        if self.selected.get_untracked() >= places.len() {
            self.selected.set(places.len().saturating_sub(1));
        }
        if self.in_flight.get_value() {
            self.dirty.set_value(true);
            return;
        }
        let (edit, _) = self.edit.get_value();
        self.edit.set_value((edit + 1, now_ms()));
        self.in_flight.set_value(true);
        self.dirty.set_value(false);
        self.send(DensityRequest::Places {
            generation: self.generation(),
            edit: edit + 1,
            places: places
                .iter()
                .map(|p| Metres::new(p.east.round(), p.north.round()))
                .collect(),
        });
    }

    /// A drag or a change of places ended: the link records them, and the run's figures are
    /// made again once the last edit is answered ([`DensityRequest::Settled`]).
    pub fn places_done(&self) {
        self.save_url();
        self.settle.set_value(true);
        self.settle_when_answered();
    }

    fn settle_when_answered(&self) {
        if self.settle.get_value() && !self.in_flight.get_value() {
            self.settle.set_value(false);
            self.send(DensityRequest::Settled {
                generation: self.generation(),
            });
        }
    }

    pub fn add_place(&self, at: Metres) -> bool {
        if self.places.with_untracked(|p| p.len()) >= MAX_VISITOR_PLACES {
            return false;
        }
        self.places.update(|p| p.push(at));
        self.selected
            .set(self.places.with_untracked(|p| p.len() - 1));
        self.places_changed();
        self.places_done();
        true
    }

    pub fn remove_place(&self, i: usize) {
        self.places.update(|p| {
            if i < p.len() {
                p.remove(i);
            }
        });
        self.places_changed();
        self.places_done();
    }

    /// Applies a control's new value, or explains why not (the old value stays).
    pub fn set_field(&self, key: &str, value: &str) -> Result<(), String> {
        self.apply(self.edited(key, value)?)
    }

    /// A lesson step's state: `pairs` (URL keys and values) over the lab's defaults, the
    /// places and the hidden controls kept.
    pub fn set_state(&self, pairs: &[(&str, &str)]) -> Result<(), String> {
        self.apply(self.stepped(DensityConfig::default(), pairs)?)
    }

    /// Runs `next` if it is valid (else the old settings stay), and keeps it in the link.
    fn apply(&self, next: DensityConfig) -> Result<(), String> {
        let places = self.places.get_untracked();
        settings::with_places(&next, &places)
            .validate()
            .map_err(|e| e.to_string())?;
        self.settings.set(next);
        self.save_url();
        self.restart();
        Ok(())
    }

    /// One more query: the server asks every phone again and attacks the mean of the answers.
    pub fn ask_again(&self) -> Result<(), String> {
        let n = self.settings.with_untracked(|s| s.queries) + 1;
        self.set_field("d.asks", &n.to_string())
    }

    pub fn save_url(&self) {
        let places = self.places.get_untracked();
        let hidden = self.hidden.get_untracked();
        let own = self
            .settings
            .with_untracked(|s| settings::to_query(s, &places, &hidden));
        self.save(&own);
    }

    pub fn start_study(&self) {
        self.run
            .start_study(Ok((self.config(), self.has_data())), run);
    }

    pub fn cancel_study(&self) {
        self.run.cancel_study(run);
    }

    fn on_response(&self, response: DensityResponse) {
        let current = self.generation();
        match &response {
            // A file's places replace the drawn ones while it is loaded.
            DensityResponse::Started {
                generation, places, ..
            } if *generation == current && self.has_data() => {
                self.places.set(places.clone());
                self.selected.set(0);
            }
            DensityResponse::Edited {
                generation,
                edit,
                worker_ms,
            } if *generation == current => {
                let (sent, at) = self.edit.get_value();
                if *edit == sent {
                    self.latency.set(Latency {
                        edit: *edit,
                        total_ms: Some(now_ms() - at),
                        worker_ms: Some(*worker_ms),
                    });
                }
                self.in_flight.set_value(false);
                if self.dirty.get_value() {
                    self.places_changed();
                }
                self.settle_when_answered();
            }
            DensityResponse::Error {
                generation,
                message,
            } if *generation == current => {
                self.in_flight.set_value(false);
                self.notice.set(Some(message.clone()));
                self.scene.update(|s| s.running = false);
                return;
            }
            _ => {}
        }
        let generation = match &response {
            DensityResponse::Started { generation, .. }
            | DensityResponse::Event { generation, .. }
            | DensityResponse::Edited { generation, .. }
            | DensityResponse::Idle { generation, .. }
            | DensityResponse::Error { generation, .. } => *generation,
            _ => return,
        };
        if generation != current {
            return;
        }
        // An edit's answers are drawn together when its acknowledgement comes: one re-render
        // and one repaint per drag step, not one per message.
        if self.in_flight.get_value() && matches!(response, DensityResponse::Event { .. }) {
            self.scene.update_untracked(|s| s.apply(response));
        } else {
            self.scene.update(|s| s.apply(response));
        }
    }
}

/// Creates the lab's state from the URL and listens for its responses. The first run starts
/// when the lab's tab first shows (a visitor who never opens it costs nothing).
pub fn create(engine: Engine, data: DataState, active: RwSignal<LabKind>) -> DensityState {
    let parsed = settings::from_query(&page_query());
    let state = DensityState {
        run: RunState::new(
            LabKind::Density,
            SETTINGS,
            engine,
            data,
            parsed.settings,
            parsed.hidden,
            &with_unknown_keys(parsed.problems),
        ),
        places: RwSignal::new(parsed.places.unwrap_or_else(default_places)),
        selected: RwSignal::new(0),
        scene: RwSignal::new(Scene::default()),
        show: RwSignal::new(Show::Upload),
        layers: RwSignal::new(Layers::default()),
        latency: RwSignal::new(Latency::default()),
        edit: StoredValue::new((0, 0.0)),
        in_flight: StoredValue::new(false),
        dirty: StoredValue::new(false),
        settle: StoredValue::new(false),
    };
    // A file imported: its places are the visitor's (the worker puts them in); forgotten: the
    // default places again.
    state.run_when_shown(
        active,
        move |has_file| {
            if !has_file {
                state.places.set(default_places());
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
pub fn views(state: DensityState) -> crate::shell::lab_views::Views {
    use {controls::DensityControls, map::DensityMap, results::Results, study::DensityStudy};
    // The lab's messages are read from here on (what came before first), by code that comes
    // with its views.
    state.run.listen(
        crate::protocol::density::decode,
        move |response| match response {
            DensityResponse::Study(reply) => state.study.update(|s| s.apply(reply)),
            r => state.on_response(r),
        },
    );
    crate::shell::lab_views::Views {
        stage: view! {
            <section class="map-panel" aria-label="Map">
                <DensityMap state=state/>
            </section>
            <Results state=state/>
            <DensityStudy state=state/>
        }
        .into_any(),
        side: view! { <DensityControls state=state/> }.into_any(),
    }
}
