//! A lab's run and its study behind it, hosted the same way in every lab whose run is an engine
//! [`Driver`] and whose study is a plain list of runs (the Density, Linkability and Mobility
//! labs): the visitor's file converted once when it arrives, a run started on a config (and on
//! the file, when asked), worked in slices until it goes idle, the study worked when the run is
//! idle. A lab's own host holds a [`Host`] and adds only what is its own (the Density lab's
//! edits, the Linkability lab's references, the Mobility lab's round to play to).

use super::VisitorData;
use super::study::{self, Replies};
use crate::protocol::{LabKind, Request, Response, RunRequest};
use serde::Deserialize;
use whereabouts_core::driver::Driver;
use whereabouts_core::study::StudyRunner;

/// A later lab's request in its own family `R`: the typed request `typed` finds in `request`
/// (the native tests send those), or `request`'s message as it came to the worker
/// ([`Request::Later`]) decoded here, in the lab's host, so that the decoder is in the lab's
/// chunk with it (src/worker/split.rs). `None`: another lab's, or an unreadable message, which
/// the page is told of ([`Response::Rejected`]).
pub fn family<R: for<'de> Deserialize<'de>>(
    request: Request,
    lab: LabKind,
    typed: impl FnOnce(Request) -> Option<R>,
    emit: &mut dyn FnMut(Response),
) -> Option<R> {
    match request {
        Request::Later { lab: to, message } if to == lab => {
            match crate::protocol::decode_later_request(message) {
                Ok(r) => Some(r),
                Err(reason) => {
                    emit(Response::Rejected { reason });
                    None
                }
            }
        }
        other => typed(other),
    }
}

/// What [`Host`] needs to know of a lab.
pub trait HostedLab {
    /// The lab's engine config.
    type Config;
    /// What else a run needs to start (see [`RunRequest`]).
    type Start;
    /// A run of the lab.
    type Lab: Driver;
    /// The visitor's file as the lab uses it.
    type File;
    /// A run of the lab's study, and what it measures.
    type StudyRun;
    type Point;

    /// How the lab's family carries its study's replies.
    const REPLIES: Replies<Self::Point>;

    /// The visitor's file as the lab uses it (converted once, when it arrives).
    fn file(data: &VisitorData) -> Self::File;
    /// `config` on the visitor's file, and what to say about the file (a part of it left out,
    /// say); the file is `None` when the worker holds none.
    fn on_file(
        config: Self::Config,
        file: Option<&Self::File>,
    ) -> Result<(Self::Config, Option<String>), String>;
    /// A run of `config`.
    fn start(config: Self::Config) -> Result<Self::Lab, String>;
    /// The lab's study on `config`.
    fn study(config: &Self::Config) -> Runner<Self>;

    /// The lab's messages that a run started (with what to say about the file), went idle, or
    /// failed.
    fn started(generation: u32, lab: &Self::Lab, note: Option<String>) -> Response;
    fn idle(generation: u32, lab: &Self::Lab) -> Response;
    fn error(generation: u32, message: String) -> Response;
}

/// A lab's study runner.
type Runner<H> =
    StudyRunner<<H as HostedLab>::StudyRun, <H as HostedLab>::Lab, <H as HostedLab>::Point>;

/// A lab's run (at most one) and its study behind it.
pub struct Host<H: HostedLab> {
    /// The run's generation: every message of the run carries it.
    pub generation: u32,
    pub lab: Option<H::Lab>,
    /// The run went idle and the page has been told.
    pub idle_reported: bool,
    study: Option<(u32, Runner<H>)>,
    /// The visitor's file, as the lab uses it.
    data: Option<H::File>,
}

impl<H: HostedLab> Default for Host<H> {
    fn default() -> Self {
        Host {
            generation: 0,
            lab: None,
            idle_reported: false,
            study: None,
            data: None,
        }
    }
}

impl<H: HostedLab> Host<H> {
    /// Answers a start, a study or a cancel. A run that starts returns its `start` (what the
    /// lab's own host keeps of it); a run that cannot start is the lab's error.
    pub fn handle(
        &mut self,
        request: RunRequest<H::Config, H::Start>,
        emit: &mut dyn FnMut(Response),
    ) -> Option<H::Start> {
        match request {
            RunRequest::Start {
                generation,
                config,
                use_data,
                start,
            } => {
                self.generation = generation;
                let started = self
                    .with_data(*config, use_data)
                    .and_then(|(c, note)| H::start(c).map(|lab| (lab, note)));
                match started {
                    Ok((lab, note)) => {
                        emit(H::started(generation, &lab, note));
                        self.lab = Some(lab);
                        self.idle_reported = false;
                        return Some(start);
                    }
                    Err(message) => {
                        self.lab = None;
                        emit(H::error(generation, message));
                    }
                }
            }
            RunRequest::StudyStart {
                id,
                config,
                use_data,
            } => {
                let runner = self
                    .with_data(*config, use_data)
                    .map(|(config, _)| H::study(&config));
                study::start(&mut self.study, id, runner, H::REPLIES, emit);
            }
            RunRequest::StudyCancel { id } => study::cancel(&mut self.study, id, H::REPLIES, emit),
        }
        None
    }

    /// `config`, on the visitor's file when asked for; and what to say about the file.
    fn with_data(
        &self,
        config: H::Config,
        use_data: bool,
    ) -> Result<(H::Config, Option<String>), String> {
        if use_data {
            H::on_file(config, self.data.as_ref())
        } else {
            Ok((config, None))
        }
    }

    /// The visitor's data changed (`None`: forgotten); runs started from now on use it.
    pub fn set_data(&mut self, data: Option<&VisitorData>) {
        self.data = data.map(H::file);
    }

    /// Whether the run or the study has work left.
    pub fn has_work(&self) -> bool {
        self.study.is_some() || (self.lab.is_some() && !self.idle_reported)
    }

    /// Works the run until the deadline with `work` (the lab's slice of it: true while work
    /// remains), and says when it goes idle or fails; works the study when the run is idle.
    pub fn pump(
        &mut self,
        now: &dyn Fn() -> f64,
        deadline: f64,
        emit: &mut dyn FnMut(Response),
        work: impl FnOnce(&mut H::Lab, &mut dyn FnMut(Response)) -> Result<bool, String>,
    ) {
        let generation = self.generation;
        let Some(lab) = self.lab.as_mut().filter(|_| !self.idle_reported) else {
            study::pump(&mut self.study, H::REPLIES, now, deadline, emit);
            return;
        };
        match work(lab, emit) {
            Ok(true) => {}
            Ok(false) => {
                self.idle_reported = true;
                emit(H::idle(generation, lab));
            }
            Err(message) => {
                self.lab = None;
                emit(H::error(generation, message));
            }
        }
    }
}
