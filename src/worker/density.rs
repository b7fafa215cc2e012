//! The Density lab's side of the worker ([003]): one run worked in slices, the visitor's places
//! applied at once (their part of the density and the attacks on their answers, without redoing
//! the city; the run's figures once the places settle), and the privacy–utility study behind the
//! run when it is idle.

use super::host::{self, Host, HostedLab};
use super::{LabHost, VisitorData};
use crate::protocol::{DensityRequest, DensityResponse, LabKind, Request, Response};
use whereabouts_core::driver::Driver;
use whereabouts_core::study::StudyRunner;
use whereabouts_engine::density::DensityConfig;
use whereabouts_engine::density::lab::{DensityEvent, DensityLab};
use whereabouts_engine::density::study::{self, StudyPoint, StudyRun};
use whereabouts_engine::density::visitor::{FilePlaces, places_from_fixes};

/// The Density lab's host: at most one run, and a study behind it.
#[derive(Default)]
pub struct DensityHost {
    run: Host<Density>,
    /// Edits came after the idle run's figures were reported: they are made again when the page
    /// says the places settled ([`DensityRequest::Settled`]), not after every step of a drag.
    stale: bool,
}

fn say(response: DensityResponse) -> Response {
    Response::Density(response)
}

/// The Density lab, as the generic [`Host`] sees it.
pub struct Density;

impl HostedLab for Density {
    type Config = DensityConfig;
    type Start = ();
    type Lab = DensityLab;
    /// The visitor's imported file, as frequent places (or why it has none).
    type File = Result<FilePlaces, String>;
    type StudyRun = StudyRun;
    type Point = StudyPoint;

    const REPLIES: super::study::Replies<StudyPoint> = |reply| say(DensityResponse::Study(reply));

    fn file(data: &VisitorData) -> Self::File {
        places_from_fixes(&data.fixes, DensityConfig::default().city_half_m)
            .map_err(|e| format!("{}: {e}", data.name))
    }

    /// The file's places as the visitor's, and a word on the places left out.
    fn on_file(
        mut config: DensityConfig,
        file: Option<&Self::File>,
    ) -> Result<(DensityConfig, Option<String>), String> {
        let found = super::visitor_file(file)?;
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

    fn start(config: DensityConfig) -> Result<DensityLab, String> {
        DensityLab::start(config)
    }

    fn study(config: &DensityConfig) -> StudyRunner<StudyRun, DensityLab, StudyPoint> {
        study::runner(study::runs(config))
    }

    fn started(generation: u32, lab: &DensityLab, note: Option<String>) -> Response {
        say(DensityResponse::Started {
            generation,
            grid: lab.grid().clone(),
            places: lab.config().visitor.clone(),
            note,
        })
    }

    fn idle(generation: u32, lab: &DensityLab) -> Response {
        say(DensityResponse::Idle {
            generation,
            summary: lab.summary(),
        })
    }

    fn error(generation: u32, message: String) -> Response {
        say(DensityResponse::Error {
            generation,
            message,
        })
    }
}

impl DensityHost {
    /// Answers one of the lab's requests; a start and an edit's attacks answer at once.
    pub fn handle(
        &mut self,
        request: DensityRequest,
        now: &dyn Fn() -> f64,
        emit: &mut dyn FnMut(Response),
    ) {
        match request {
            DensityRequest::Run(request) => {
                if self.run.handle(request, emit).is_some() {
                    self.stale = false;
                }
            }
            DensityRequest::Places {
                generation,
                edit,
                places,
            } => {
                let began = now();
                if generation != self.run.generation {
                    return;
                }
                let Some(lab) = self.run.lab.as_mut() else {
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
                        self.stale |= self.run.idle_reported;
                    }
                    Err(message) => emit(Density::error(generation, message)),
                }
            }
            DensityRequest::Settled { generation } => {
                if generation == self.run.generation && self.stale {
                    self.stale = false;
                    self.run.idle_reported = false;
                }
            }
        }
    }
}

impl LabHost for DensityHost {
    fn handle(&mut self, request: Request, now: &dyn Fn() -> f64, emit: &mut dyn FnMut(Response)) {
        let typed = |r| match r {
            Request::Density(r) => Some(r),
            _ => None,
        };
        if let Some(request) = host::family(request, LabKind::Density, typed, emit) {
            DensityHost::handle(self, request, now, emit);
        }
    }

    fn set_data(&mut self, data: Option<&VisitorData>) {
        self.run.set_data(data);
    }

    fn has_work(&self) -> bool {
        self.run.has_work()
    }

    /// The run first; the study when it is idle.
    fn pump(
        &mut self,
        now: &dyn Fn() -> f64,
        deadline: f64,
        emit: &mut dyn FnMut(Response),
    ) -> bool {
        let generation = self.run.generation;
        self.run.pump(now, deadline, emit, |lab, emit| {
            lab.work(now, deadline, &mut |event| {
                emit(say(DensityResponse::Event { generation, event }))
            })
        });
        self.has_work()
    }
}
