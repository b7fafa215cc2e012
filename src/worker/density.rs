//! The Density lab's side of the worker ([003]): one run worked in slices, the visitor's places
//! applied at once (their part of the density and the attacks on their answers, without redoing
//! the city; the run's figures once the places settle), and the privacy–utility study behind the
//! run when it is idle.

use super::{LabHost, VisitorData};
use crate::protocol::{DensityRequest, DensityResponse, Response};
use whereabouts_core::driver::Driver;
use whereabouts_core::study::StudyRunner;
use whereabouts_engine::density::DensityConfig;
use whereabouts_engine::density::lab::{DensityEvent, DensityLab};
use whereabouts_engine::density::study::{self, StudyPoint, StudyRun};
use whereabouts_engine::density::visitor::{FilePlaces, places_from_fixes};

/// The Density lab's host: at most one run, and a study behind it.
#[derive(Default)]
pub struct DensityHost {
    generation: u32,
    lab: Option<DensityLab>,
    /// The run went idle and the page has been told.
    idle_reported: bool,
    /// Edits came after the idle run's figures were reported: they are made again when the page
    /// says the places settled ([`DensityRequest::Settled`]), not after every step of a drag.
    stale: bool,
    study: Option<(u32, StudyRunner<StudyRun, DensityLab, StudyPoint>)>,
    /// The visitor's imported file, as frequent places (or why it has none).
    data: Option<Result<FilePlaces, String>>,
}

fn say(response: DensityResponse) -> Response {
    Response::Density(response)
}

const STUDY_REPLIES: super::study::Replies<StudyPoint> = |reply| say(DensityResponse::Study(reply));

impl DensityHost {
    /// Answers one of the lab's requests; a start and an edit's attacks answer at once.
    pub fn handle(
        &mut self,
        request: DensityRequest,
        now: &dyn Fn() -> f64,
        emit: &mut dyn FnMut(Response),
    ) {
        match request {
            DensityRequest::Start {
                generation,
                config,
                use_data,
            } => {
                self.generation = generation;
                let started = self
                    .with_data(*config, use_data)
                    .and_then(|(c, note)| DensityLab::start(c).map(|lab| (lab, note)));
                match started {
                    Ok((lab, note)) => {
                        emit(say(DensityResponse::Started {
                            generation,
                            grid: lab.grid().clone(),
                            places: lab.config().visitor.clone(),
                            note,
                        }));
                        self.lab = Some(lab);
                        self.idle_reported = false;
                        self.stale = false;
                    }
                    Err(message) => {
                        self.lab = None;
                        emit(say(DensityResponse::Error {
                            generation,
                            message,
                        }));
                    }
                }
            }
            DensityRequest::Places {
                generation,
                edit,
                places,
            } => {
                let began = now();
                if generation != self.generation {
                    return;
                }
                let Some(lab) = self.lab.as_mut() else {
                    return;
                };
                // The densities hold only the first place: when another moved, the page's are
                // still right and are not sent again.
                let densities_moved = lab.config().visitor.first() != places.first();
                let mut out = |event| {
                    if densities_moved || !matches!(event, DensityEvent::Density { .. }) {
                        emit(say(DensityResponse::Event { generation, event }));
                    }
                };
                let result = lab.set_visitor(places, &mut out).and_then(|()| {
                    // The city's work kept, only the visitor's answers remain: do them now.
                    if lab.visitor_pending() {
                        lab.work(now, f64::INFINITY, &mut out).map(|_| ())
                    } else {
                        Ok(())
                    }
                });
                match result {
                    Ok(()) => {
                        emit(say(DensityResponse::Edited {
                            generation,
                            edit,
                            worker_ms: now() - began,
                        }));
                        // A run still under way reports its figures when it ends anyway.
                        self.stale |= self.idle_reported;
                    }
                    Err(message) => emit(say(DensityResponse::Error {
                        generation,
                        message,
                    })),
                }
            }
            DensityRequest::Settled { generation } => {
                if generation == self.generation && self.stale {
                    self.stale = false;
                    self.idle_reported = false;
                }
            }
            DensityRequest::StudyStart {
                id,
                config,
                use_data,
            } => {
                let runner = self
                    .with_data(*config, use_data)
                    .map(|(config, _)| study::runner(study::runs(&config)));
                super::study::start(&mut self.study, id, runner, STUDY_REPLIES, emit);
            }
            DensityRequest::StudyCancel { id } => {
                super::study::cancel(&mut self.study, id, STUDY_REPLIES, emit)
            }
        }
    }

    /// `config` with the file's places as the visitor's, when asked for; and what to say.
    fn with_data(
        &self,
        mut config: DensityConfig,
        use_data: bool,
    ) -> Result<(DensityConfig, Option<String>), String> {
        if !use_data {
            return Ok((config, None));
        }
        let found = super::visitor_file(&self.data)?;
        config.visitor = found.places.clone();
        let note = (found.left_out > 0).then(|| {
            format!(
                "Your file has {} more frequent place{} than the lab shows (it keeps the {} with the most fixes that fit in the city).",
                found.left_out,
                if found.left_out == 1 { "" } else { "s" },
                found.places.len()
            )
        });
        Ok((config, note))
    }

    fn pump_study(&mut self, now: &dyn Fn() -> f64, deadline: f64, emit: &mut dyn FnMut(Response)) {
        super::study::pump(&mut self.study, STUDY_REPLIES, now, deadline, emit);
    }
}

impl LabHost for DensityHost {
    fn set_data(&mut self, data: Option<&VisitorData>) {
        self.data = data.map(|d| {
            places_from_fixes(&d.fixes, DensityConfig::default().city_half_m)
                .map_err(|e| format!("{}: {e}", d.name))
        });
    }

    fn has_work(&self) -> bool {
        self.study.is_some() || (self.lab.is_some() && !self.idle_reported)
    }

    /// The run first; the study when it is idle.
    fn pump(
        &mut self,
        now: &dyn Fn() -> f64,
        deadline: f64,
        emit: &mut dyn FnMut(Response),
    ) -> bool {
        let generation = self.generation;
        let Some(lab) = self.lab.as_mut().filter(|_| !self.idle_reported) else {
            self.pump_study(now, deadline, emit);
            return self.has_work();
        };
        let result = lab.work(now, deadline, &mut |event| {
            emit(say(DensityResponse::Event { generation, event }))
        });
        match result {
            Ok(true) => {}
            Ok(false) => {
                self.idle_reported = true;
                emit(say(DensityResponse::Idle {
                    generation,
                    summary: lab.summary(),
                }));
            }
            Err(message) => {
                self.lab = None;
                emit(say(DensityResponse::Error {
                    generation,
                    message,
                }));
            }
        }
        self.has_work()
    }
}
