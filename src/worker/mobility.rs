//! The Mobility lab's side of the worker ([002]): one run worked in slices of attack iterations
//! up to the round the page wants (play, pause, step), each round sent with the server's
//! optimisation trail; and the privacy–utility study behind the run when it is stopped.

use super::{LabHost, VisitorData};
use crate::protocol::mobility::PER_ITERATE;
use crate::protocol::{MobRequest, MobResponse, Response};
use whereabouts_core::driver::Driver;
use whereabouts_core::study::StudyRunner;
use whereabouts_engine::mobility::config::MobConfig;
use whereabouts_engine::mobility::lab::{MobEvent, MobLab};
use whereabouts_engine::mobility::study::{self, StudyPoint, StudyRun};
use whereabouts_engine::mobility::traces::Target;
use whereabouts_engine::mobility::visitor::{FileTarget, target_from_file};

/// The most iterates of a trail sent to the page (a longer one is thinned evenly).
const MAX_TRAIL: usize = 400;

/// The Mobility lab's host: at most one run, and a study behind it.
#[derive(Default)]
pub struct MobHost {
    generation: u32,
    lab: Option<MobLab>,
    /// The round the page wants the run to stop at.
    want: usize,
    /// The run stopped (at `want` or its end) and the page has been told.
    idle_reported: bool,
    study: Option<(u32, StudyRunner<StudyRun, MobLab, StudyPoint>)>,
    /// The visitor's imported file as a target (or why it cannot be one).
    data: Option<Result<FileTarget, String>>,
}

fn say(response: MobResponse) -> Response {
    Response::Mobility(response)
}

const STUDY_REPLIES: super::study::Replies<StudyPoint> = |reply| say(MobResponse::Study(reply));

/// The lab's last trail in metres, [`PER_ITERATE`] numbers an iterate (at most [`MAX_TRAIL`]).
fn trail(lab: &MobLab) -> Vec<f32> {
    let scaler = lab.scaler();
    let stride = lab.last_trail.len().div_ceil(MAX_TRAIL).max(1);
    let mut flat = Vec::with_capacity(lab.last_trail.len() / stride * PER_ITERATE);
    for it in lab.last_trail.iter().step_by(stride) {
        for p in it.window.iter().chain(std::iter::once(&it.label)) {
            let m = scaler.denormalise(*p);
            flat.extend([m.east as f32, m.north as f32]);
        }
    }
    flat
}

impl MobHost {
    pub fn handle(&mut self, request: MobRequest, emit: &mut dyn FnMut(Response)) {
        match request {
            MobRequest::Start {
                generation,
                config,
                use_data,
                want,
            } => {
                self.generation = generation;
                let started = self
                    .with_data(*config, use_data)
                    .and_then(|(c, note)| MobLab::start(c).map(|lab| (lab, note)));
                match started {
                    Ok((lab, note)) => {
                        emit(say(MobResponse::Started {
                            generation,
                            target: lab.target().iter().map(|f| f.at).collect(),
                            rounds: lab.config().rounds,
                            note,
                        }));
                        self.lab = Some(lab);
                        self.want = want;
                        self.idle_reported = false;
                    }
                    Err(message) => {
                        self.lab = None;
                        emit(say(MobResponse::Error {
                            generation,
                            message,
                        }));
                    }
                }
            }
            MobRequest::Play { generation, want } => {
                if generation == self.generation && self.lab.is_some() {
                    self.want = want;
                    // Played on, or paused: either way the page hears where the run stops.
                    self.idle_reported = false;
                }
            }
            MobRequest::StudyStart {
                id,
                config,
                use_data,
            } => {
                let runner = self
                    .with_data(*config, use_data)
                    .map(|(config, _)| study::runner(study::runs(&config)));
                super::study::start(&mut self.study, id, runner, STUDY_REPLIES, emit);
            }
            MobRequest::StudyCancel { id } => {
                super::study::cancel(&mut self.study, id, STUDY_REPLIES, emit)
            }
        }
    }

    /// `config` with the file as the target, when asked for; and what to say about it.
    fn with_data(
        &self,
        mut config: MobConfig,
        use_data: bool,
    ) -> Result<(MobConfig, Option<String>), String> {
        if !use_data {
            return Ok((config, None));
        }
        let target = super::visitor_file(&self.data)?;
        config.target = Target::Fixes {
            fixes: target.fixes.clone(),
        };
        Ok((config, target.note()))
    }

    fn pump_study(&mut self, now: &dyn Fn() -> f64, deadline: f64, emit: &mut dyn FnMut(Response)) {
        super::study::pump(&mut self.study, STUDY_REPLIES, now, deadline, emit);
    }
}

impl LabHost for MobHost {
    fn set_data(&mut self, data: Option<&VisitorData>) {
        self.data =
            data.map(|d| target_from_file(&d.fixes).map_err(|e| format!("{}: {e}", d.name)));
    }

    fn has_work(&self) -> bool {
        self.study.is_some() || (self.lab.is_some() && !self.idle_reported)
    }

    /// The run up to the round wanted; the study when the run is stopped.
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
        let ended = lab.rounds_done() >= lab.config().rounds;
        let result = if ended || lab.rounds_done() >= self.want {
            Ok(false)
        } else {
            // A call of `work` ends with each round, so the run never passes the round wanted.
            let mut rounds = Vec::new();
            let result = lab.work(now, deadline, &mut |event| match event {
                MobEvent::Progress { round, iteration } => emit(say(MobResponse::Progress {
                    generation,
                    round,
                    iteration,
                })),
                MobEvent::Round(record) => rounds.push(record),
            });
            let last = rounds.len();
            for (i, record) in rounds.into_iter().enumerate() {
                let trail = if i + 1 == last {
                    trail(lab)
                } else {
                    Vec::new()
                };
                emit(say(MobResponse::Round {
                    generation,
                    record,
                    trail,
                }));
            }
            result.map(|more| more && lab.rounds_done() < self.want)
        };
        match result {
            Ok(true) => {}
            Ok(false) => {
                self.idle_reported = true;
                emit(say(MobResponse::Idle {
                    generation,
                    summary: Box::new(lab.summary()),
                }));
            }
            Err(message) => {
                self.lab = None;
                emit(say(MobResponse::Error {
                    generation,
                    message,
                }));
            }
        }
        self.has_work()
    }
}
