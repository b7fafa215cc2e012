//! The Linkability lab's side of the worker ([004]): one run worked in slices (the federation's
//! rounds, then the attack's training a mini-batch at a time, then the figures), and the
//! trade-off study behind it when it is idle.

use super::host::{self, Host, HostedLab};
use super::{LabHost, VisitorData};
use crate::protocol::{LabKind, LinkRequest, LinkResponse, Request, Response};
use whereabouts_core::driver::Driver;
use whereabouts_core::study::StudyRunner;
use whereabouts_engine::linkability::config::{LinkConfig, You};
use whereabouts_engine::linkability::lab::LinkLab;
use whereabouts_engine::linkability::study::{self, StudyPoint, StudyRun};
use whereabouts_engine::signal_map::placement::ImportedTrace;

/// The Linkability lab's host: at most one run, and a study behind it.
#[derive(Default)]
pub struct LinkHost {
    run: Host<Linkability>,
    /// The run's RMSE references were sent (after its figures).
    references_sent: bool,
}

fn say(response: LinkResponse) -> Response {
    Response::Linkability(response)
}

/// The Linkability lab, as the generic [`Host`] sees it.
pub struct Linkability;

impl HostedLab for Linkability {
    type Config = LinkConfig;
    type Start = ();
    type Lab = LinkLab;
    /// The visitor's imported file (its placement is computed once and shared by every run).
    type File = ImportedTrace;
    type StudyRun = StudyRun;
    type Point = StudyPoint;

    const REPLIES: super::study::Replies<StudyPoint> = |reply| say(LinkResponse::Study(reply));

    fn file(data: &VisitorData) -> ImportedTrace {
        ImportedTrace::new(data.name.clone(), data.fixes.clone())
    }

    /// The visitor's file as person 0.
    fn on_file(
        mut config: LinkConfig,
        file: Option<&ImportedTrace>,
    ) -> Result<(LinkConfig, Option<String>), String> {
        let trace = file.ok_or(super::NO_FILE)?.clone();
        config.you = You::File { trace };
        Ok((config, None))
    }

    fn start(config: LinkConfig) -> Result<LinkLab, String> {
        LinkLab::start(config)
    }

    fn study(config: &LinkConfig) -> StudyRunner<StudyRun, LinkLab, StudyPoint> {
        study::runner(study::runs(config))
    }

    /// The run's notes say what the page should know about the visitor's data.
    fn started(generation: u32, lab: &LinkLab, _: Option<String>) -> Response {
        say(LinkResponse::Started {
            generation,
            notes: lab.summary().notes,
        })
    }

    fn idle(generation: u32, lab: &LinkLab) -> Response {
        say(LinkResponse::Idle {
            generation,
            summary: Box::new(lab.summary()),
        })
    }

    fn error(generation: u32, message: String) -> Response {
        say(LinkResponse::Error {
            generation,
            message,
        })
    }
}

impl LinkHost {
    pub fn handle(&mut self, request: LinkRequest, emit: &mut dyn FnMut(Response)) {
        if self.run.handle(request, emit).is_some() {
            self.references_sent = false;
        }
    }
}

impl LabHost for LinkHost {
    fn handle(&mut self, request: Request, now: &dyn Fn() -> f64, emit: &mut dyn FnMut(Response)) {
        let _ = now;
        let typed = |r| match r {
            Request::Linkability(r) => Some(r),
            _ => None,
        };
        if let Some(request) = host::family(request, LabKind::Linkability, typed, emit) {
            LinkHost::handle(self, request, emit);
        }
    }

    fn set_data(&mut self, data: Option<&VisitorData>) {
        self.run.set_data(data);
    }

    fn has_work(&self) -> bool {
        self.run.has_work() || (self.run.lab.is_some() && !self.references_sent)
    }

    /// The run first, then its references; the study when it is idle.
    fn pump(
        &mut self,
        now: &dyn Fn() -> f64,
        deadline: f64,
        emit: &mut dyn FnMut(Response),
    ) -> bool {
        let generation = self.run.generation;
        if let (true, false, Some(lab)) =
            (self.run.idle_reported, self.references_sent, &self.run.lab)
        {
            // The run's figures are on the page; now what its RMSE stands beside.
            self.references_sent = true;
            emit(say(LinkResponse::References {
                generation,
                references: lab.federation().references(),
            }));
            return self.has_work();
        }
        self.run.pump(now, deadline, emit, |lab, emit| {
            lab.work(now, deadline, &mut |event| {
                emit(say(LinkResponse::Event { generation, event }))
            })
        });
        self.has_work()
    }
}
