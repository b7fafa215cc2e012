//! A lab's study behind its run, pumped the same way in every lab whose study is a plain list of
//! runs: finished runs are reported one by one as progress, then the end or the failure, each in
//! the lab's own family of responses.

use super::Response;
use whereabouts_core::driver::Driver;
use whereabouts_core::study::StudyRunner;

/// How a lab says its study's progress (id, done, total, the finished run's point), end and
/// failure.
pub struct Replies<P> {
    pub progress: fn(u32, usize, usize, P) -> Response,
    pub done: fn(u32) -> Response,
    pub error: fn(u32, String) -> Response,
}

/// Works the study in `slot` until the deadline; clears the slot when it ends or fails.
pub fn pump<R, D: Driver, P>(
    slot: &mut Option<(u32, StudyRunner<R, D, P>)>,
    replies: &Replies<P>,
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
        emit((replies.progress)(id, done, total, point))
    });
    match result {
        Ok(true) => {}
        Ok(false) => {
            *slot = None;
            emit((replies.done)(id));
        }
        Err(message) => {
            *slot = None;
            emit((replies.error)(id, message));
        }
    }
}
