//! The Linkability lab's side of the worker ([004]): one run worked in slices (the federation's
//! rounds, then the attack's training a mini-batch at a time, then the figures), and the
//! trade-off study behind it when it is idle.

use super::{LabHost, VisitorData};
use crate::protocol::linkability::UseData;
use crate::protocol::{LinkRequest, LinkResponse, Response};
use whereabouts_core::driver::Driver;
use whereabouts_core::study::StudyRunner;
use whereabouts_engine::linkability::config::{LinkConfig, You};
use whereabouts_engine::linkability::lab::LinkLab;
use whereabouts_engine::linkability::study::{self, StudyPoint, StudyRun};
use whereabouts_engine::signal_map::placement::ImportedTrace;

/// The Linkability lab's host: at most one run, and a study behind it.
#[derive(Default)]
pub struct LinkHost {
    generation: u32,
    lab: Option<LinkLab>,
    /// The run went idle and the page has been told.
    idle_reported: bool,
    /// The run's RMSE references were sent (after its figures).
    references_sent: bool,
    study: Option<(u32, StudyRunner<StudyRun, LinkLab, StudyPoint>)>,
    /// The visitor's imported file (its placement is computed once and shared by every run).
    data: Option<ImportedTrace>,
}

fn say(response: LinkResponse) -> Response {
    Response::Linkability(response)
}

const STUDY_REPLIES: super::study::Replies<StudyPoint> = |reply| say(LinkResponse::Study(reply));

impl LinkHost {
    pub fn handle(&mut self, request: LinkRequest, emit: &mut dyn FnMut(Response)) {
        match request {
            LinkRequest::Start {
                generation,
                config,
                use_data,
            } => {
                self.generation = generation;
                match self.with_data(*config, use_data).and_then(LinkLab::start) {
                    Ok(lab) => {
                        emit(say(LinkResponse::Started {
                            generation,
                            notes: lab.summary().notes,
                        }));
                        self.lab = Some(lab);
                        self.idle_reported = false;
                        self.references_sent = false;
                    }
                    Err(message) => {
                        self.lab = None;
                        emit(say(LinkResponse::Error {
                            generation,
                            message,
                        }));
                    }
                }
            }
            LinkRequest::StudyStart {
                id,
                config,
                use_data,
            } => {
                let runner = self
                    .with_data(*config, use_data)
                    .map(|config| study::runner(study::runs(&config)));
                super::study::start(&mut self.study, id, runner, STUDY_REPLIES, emit);
            }
            LinkRequest::StudyCancel { id } => {
                super::study::cancel(&mut self.study, id, STUDY_REPLIES, emit)
            }
        }
    }

    /// `config` with the visitor's file as person 0, when asked for.
    fn with_data(&self, mut config: LinkConfig, use_data: UseData) -> Result<LinkConfig, String> {
        if use_data == UseData::File {
            let trace = self.data.clone().ok_or(super::NO_FILE)?;
            config.you = You::File { trace };
        }
        Ok(config)
    }

    fn pump_study(&mut self, now: &dyn Fn() -> f64, deadline: f64, emit: &mut dyn FnMut(Response)) {
        super::study::pump(&mut self.study, STUDY_REPLIES, now, deadline, emit);
    }
}

impl LabHost for LinkHost {
    fn set_data(&mut self, data: Option<&VisitorData>) {
        self.data = data.map(|d| ImportedTrace::new(d.name.clone(), d.fixes.clone()));
    }

    fn has_work(&self) -> bool {
        self.study.is_some()
            || (self.lab.is_some() && !(self.idle_reported && self.references_sent))
    }

    /// The run first; the study when it is idle.
    fn pump(
        &mut self,
        now: &dyn Fn() -> f64,
        deadline: f64,
        emit: &mut dyn FnMut(Response),
    ) -> bool {
        let generation = self.generation;
        if let (true, false, Some(lab)) = (self.idle_reported, self.references_sent, &self.lab) {
            // The run's figures are on the page; now what its RMSE stands beside.
            self.references_sent = true;
            emit(say(LinkResponse::References {
                generation,
                references: lab.federation().references(),
            }));
            return self.has_work();
        }
        let Some(lab) = self.lab.as_mut().filter(|_| !self.idle_reported) else {
            self.pump_study(now, deadline, emit);
            return self.has_work();
        };
        let result = lab.work(now, deadline, &mut |event| {
            emit(say(LinkResponse::Event { generation, event }))
        });
        match result {
            Ok(true) => {}
            Ok(false) => {
                self.idle_reported = true;
                emit(say(LinkResponse::Idle {
                    generation,
                    summary: Box::new(lab.summary()),
                }));
            }
            Err(message) => {
                self.lab = None;
                emit(say(LinkResponse::Error {
                    generation,
                    message,
                }));
            }
        }
        self.has_work()
    }
}
