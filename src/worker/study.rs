//! A lab's study behind its run, pumped the same way in every lab whose study is a plain list of
//! runs: finished runs are reported one by one as progress, then the end or the failure, each in
//! the lab's own family of responses.

use super::Response;
use crate::protocol::StudyReply;
use whereabouts_core::driver::Driver;
use whereabouts_core::study::StudyRunner;

/// How a lab's family carries its study's replies.
pub type Replies<P> = fn(StudyReply<P>) -> Response;

/// Puts study `id` in `slot` (replacing any before it) and says how many runs it has; or says
/// why it cannot start.
pub fn start<R, D: Driver, P>(
    slot: &mut Option<(u32, StudyRunner<R, D, P>)>,
    id: u32,
    runner: Result<StudyRunner<R, D, P>, String>,
    replies: Replies<P>,
    emit: &mut dyn FnMut(Response),
) {
    match runner {
        Ok(runner) => {
            emit(replies(StudyReply::Progress {
                id,
                done: 0,
                total: runner.total(),
                point: None,
            }));
            *slot = Some((id, runner));
        }
        Err(message) => emit(replies(StudyReply::Error { id, message })),
    }
}

/// Stops study `id` if it is the one in `slot`, and says so.
pub fn cancel<R, D: Driver, P>(
    slot: &mut Option<(u32, StudyRunner<R, D, P>)>,
    id: u32,
    replies: Replies<P>,
    emit: &mut dyn FnMut(Response),
) {
    if slot.as_ref().is_some_and(|(s, _)| *s == id) {
        *slot = None;
        emit(replies(StudyReply::Done {
            id,
            cancelled: true,
        }));
    }
}

/// Works the study in `slot` until the deadline; clears the slot when it ends or fails.
pub fn pump<R, D: Driver, P>(
    slot: &mut Option<(u32, StudyRunner<R, D, P>)>,
    replies: Replies<P>,
    now: &dyn Fn() -> f64,
    deadline: f64,
    emit: &mut dyn FnMut(Response),
) {
    let Some((id, runner)) = slot.as_mut() else {
        return;
    };
    let (id, total) = (*id, runner.total());
    let mut done = runner.done();
    let result = runner.work(now, deadline, &mut |point| {
        done += 1;
        emit(replies(StudyReply::Progress {
            id,
            done,
            total,
            point: Some(point),
        }))
    });
    match result {
        Ok(true) => {}
        Ok(false) => {
            *slot = None;
            emit(replies(StudyReply::Done {
                id,
                cancelled: false,
            }));
        }
        Err(message) => {
            *slot = None;
            emit(replies(StudyReply::Error { id, message }));
        }
    }
}
