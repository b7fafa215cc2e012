//! The Mobility lab's side of the worker ([002]): one run worked in slices of attack iterations
//! up to the round the page wants (play, pause, step), each round sent with the server's
//! optimisation trail; and the privacy–utility study behind the run when it is stopped.

use super::host::{self, Host, HostedLab};
use super::{LabHost, VisitorData};
use crate::protocol::mobility::PER_ITERATE;
use crate::protocol::{LabKind, MobRequest, MobResponse, Request, Response};
use whereabouts_core::driver::Driver;
use whereabouts_core::study::StudyRunner;
use whereabouts_engine::mobility::config::MobConfig;
use whereabouts_engine::mobility::lab::{MobEvent, MobLab};
use whereabouts_engine::mobility::membership::{self, YourMembership};
use whereabouts_engine::mobility::study::{self, StudyPoint, StudyRun};
use whereabouts_engine::mobility::traces::Target;
use whereabouts_engine::mobility::unicity::YourUnicity;
use whereabouts_engine::mobility::visitor::{FileTarget, target_from_file};

/// The most iterates of a trail sent to the page (a longer one is thinned evenly).
const MAX_TRAIL: usize = 400;

/// The Mobility lab's host: at most one run, and a study behind it.
#[derive(Default)]
pub struct MobHost {
    run: Host<Mobility>,
    /// The round the page wants the run to stop at.
    want: usize,
}

fn say(response: MobResponse) -> Response {
    Response::Mobility(response)
}

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

/// The cards on the city's crowd for one run: unicity and membership (the release's AUC, or
/// why it could not be played).
type Cards = (YourUnicity, Result<YourMembership, String>);

thread_local! {
    /// The last run's cards: about a second's work, made once per run.
    static CARDS: std::cell::RefCell<Option<(u32, Cards)>> = const { std::cell::RefCell::new(None) };
}

/// The cards of run `generation` once it is done (made at its first idle after that).
fn cards(generation: u32, lab: &MobLab) -> Option<Cards> {
    CARDS.with_borrow_mut(|cached| {
        if let Some((g, c)) = cached.as_ref()
            && *g == generation
        {
            return Some(c.clone());
        }
        let c = membership::cards(lab)?;
        *cached = Some((generation, c.clone()));
        Some(c)
    })
}

/// The Mobility lab, as the generic [`Host`] sees it.
pub struct Mobility;

impl HostedLab for Mobility {
    type Config = MobConfig;
    /// The round to play to.
    type Start = usize;
    type Lab = MobLab;
    /// The visitor's imported file as a target (or why it cannot be one).
    type File = Result<FileTarget, String>;
    type StudyRun = StudyRun;
    type Point = StudyPoint;

    const REPLIES: super::study::Replies<StudyPoint> = |reply| say(MobResponse::Study(reply));

    fn file(data: &VisitorData) -> Self::File {
        target_from_file(&data.fixes).map_err(|e| format!("{}: {e}", data.name))
    }

    /// The file as the target, and what to say about it.
    fn on_file(
        mut config: MobConfig,
        file: Option<&Self::File>,
    ) -> Result<(MobConfig, Option<String>), String> {
        let target = super::visitor_file(file)?;
        config.target = Target::Fixes {
            fixes: target.fixes.clone(),
        };
        Ok((config, target.note()))
    }

    fn start(config: MobConfig) -> Result<MobLab, String> {
        MobLab::start(config)
    }

    fn study(config: &MobConfig) -> StudyRunner<StudyRun, MobLab, StudyPoint> {
        study::runner(study::runs(config))
    }

    fn started(generation: u32, lab: &MobLab, note: Option<String>) -> Response {
        say(MobResponse::Started {
            generation,
            target: lab.target().iter().map(|f| f.at).collect(),
            rounds: lab.config().rounds,
            note,
        })
    }

    fn idle(generation: u32, lab: &MobLab) -> Response {
        let (unicity, membership) = cards(generation, lab).unzip();
        say(MobResponse::Idle {
            generation,
            summary: Box::new(lab.summary()),
            unicity: unicity.map(Box::new),
            membership: membership.map(Box::new),
        })
    }

    fn error(generation: u32, message: String) -> Response {
        say(MobResponse::Error {
            generation,
            message,
        })
    }
}

impl MobHost {
    pub fn handle(&mut self, request: MobRequest, emit: &mut dyn FnMut(Response)) {
        match request {
            MobRequest::Run(request) => {
                if let Some(want) = self.run.handle(request, emit) {
                    self.want = want;
                }
            }
            MobRequest::Play { generation, want } => {
                if generation == self.run.generation && self.run.lab.is_some() {
                    self.want = want;
                    // Played on, or paused: either way the page hears where the run stops.
                    self.run.idle_reported = false;
                }
            }
        }
    }
}

impl LabHost for MobHost {
    fn handle(&mut self, request: Request, now: &dyn Fn() -> f64, emit: &mut dyn FnMut(Response)) {
        let _ = now;
        let typed = |r| match r {
            Request::Mobility(r) => Some(r),
            _ => None,
        };
        if let Some(request) = host::family(request, LabKind::Mobility, typed, emit) {
            MobHost::handle(self, request, emit);
        }
    }

    fn set_data(&mut self, data: Option<&VisitorData>) {
        self.run.set_data(data);
    }

    fn has_work(&self) -> bool {
        self.run.has_work()
    }

    /// The run up to the round wanted; the study when the run is stopped.
    fn pump(
        &mut self,
        now: &dyn Fn() -> f64,
        deadline: f64,
        emit: &mut dyn FnMut(Response),
    ) -> bool {
        let (generation, want) = (self.run.generation, self.want);
        self.run.pump(now, deadline, emit, |lab, emit| {
            if lab.rounds_done() >= lab.config().rounds || lab.rounds_done() >= want {
                return Ok(false);
            }
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
            result.map(|more| more && lab.rounds_done() < want)
        });
        self.has_work()
    }
}
