//! What every lab's study panel shares: the page's view of a study running in the worker (its
//! id, progress, points, end or failure) and the Run / Cancel / progress / status toolbar. Each
//! lab keeps its own charts and table, and hands its family's study replies
//! ([`StudyReply`]) to [`StudyView::apply`].

use crate::protocol::StudyReply;
use leptos::prelude::*;

/// A study as the page knows it: the points of the runs done so far.
#[derive(Clone, Debug, PartialEq)]
pub struct StudyView<P> {
    pub id: u32,
    pub running: bool,
    pub done: usize,
    pub total: usize,
    pub points: Vec<P>,
    pub cancelled: bool,
    pub error: Option<String>,
}

impl<P> Default for StudyView<P> {
    fn default() -> Self {
        StudyView {
            id: 0,
            running: false,
            done: 0,
            total: 0,
            points: Vec::new(),
            cancelled: false,
            error: None,
        }
    }
}

impl<P> StudyView<P> {
    /// Applies one of the worker's replies about a study.
    pub fn apply(&mut self, reply: StudyReply<P>) {
        match reply {
            StudyReply::Progress {
                id,
                done,
                total,
                point,
            } => self.progress(id, done, total, point),
            StudyReply::Done { id, cancelled } => self.finished(id, cancelled),
            StudyReply::Error { id, message } => self.failed(id, message),
        }
    }

    /// Study `id` was asked of the worker.
    pub fn started(id: u32) -> Self {
        StudyView {
            id,
            running: true,
            ..StudyView::default()
        }
    }

    /// Study `id` could not be asked for (the settings say why).
    pub fn refused(id: u32, error: String) -> Self {
        StudyView {
            id,
            error: Some(error),
            ..StudyView::default()
        }
    }

    /// A run of study `id` finished (`point: None` when the study only says its size).
    pub fn progress(&mut self, id: u32, done: usize, total: usize, point: Option<P>) {
        if id == self.id {
            self.done = done;
            self.total = total;
            self.points.extend(point);
        }
    }

    /// Study `id` ended, or was cancelled.
    pub fn finished(&mut self, id: u32, cancelled: bool) {
        if id == self.id {
            self.running = false;
            self.cancelled = cancelled;
        }
    }

    /// Study `id` stopped on an error.
    pub fn failed(&mut self, id: u32, message: String) {
        if id == self.id {
            self.running = false;
            self.error = Some(message);
        }
    }

    /// The status line.
    pub fn status(&self) -> String {
        match (&self.error, self.running, self.cancelled) {
            (Some(e), ..) => format!("The study stopped: {e}"),
            (None, true, _) if self.total == 0 => "Preparing…".to_string(),
            (None, true, _) => format!("{} of {} runs…", self.done, self.total),
            (None, false, true) => format!("Cancelled after {} of {} runs.", self.done, self.total),
            (None, false, false) if self.total > 0 => format!("Done: {} runs.", self.done),
            _ => String::new(),
        }
    }
}

/// The Run / Cancel buttons, the progress bar and the status line of a study (test ids
/// `{prefix}study-run`, `-cancel`, `-progress`, `-status`).
pub fn study_tools<P: Clone + Send + Sync + 'static>(
    prefix: &'static str,
    view: RwSignal<StudyView<P>>,
    run: impl Fn() + Send + Sync + 'static,
    cancel: impl Fn() + Send + Sync + 'static,
) -> impl IntoView {
    let running = move || view.with(|v| v.running);
    view! {
        <div class="tools">
            <button type="button" data-testid=format!("{prefix}study-run") prop:disabled=running
                on:click=move |_| run()>"Run the study"</button>
            <button type="button" data-testid=format!("{prefix}study-cancel") prop:disabled=move || !running()
                on:click=move |_| cancel()>"Cancel"</button>
            <progress data-testid=format!("{prefix}study-progress") prop:max=move || view.with(|v| v.total.max(1) as f64)
                prop:value=move || view.with(|v| v.done as f64) class:hidden=move || !running()></progress>
            <span class="stats" aria-live="polite" data-testid=format!("{prefix}study-status")>{move || view.with(StudyView::status)}</span>
        </div>
    }
}

/// What a lab's study panel says and shows around its own charts and table rows.
pub struct StudyFrame {
    /// The test ids' and the heading's prefix ("density-", "link-", "mob-").
    pub prefix: &'static str,
    pub title: &'static str,
    /// What the study runs and how to read it.
    pub about: &'static str,
    /// The families in the charts: engine name, label, colour (`.swatch.fN` in the CSS).
    pub families: &'static [(&'static str, &'static str, usize)],
    /// The table's column heads.
    pub head: &'static [&'static str],
    /// A note above the table ("" for none).
    pub note: &'static str,
}

/// A lab's study panel: its heading and what it runs, the toolbar, then — once points arrive —
/// the families' legend, the lab's `charts` and the table of its `rows`. `hidden`: the link
/// hides the panel.
pub fn study_panel<P, C, R>(
    frame: StudyFrame,
    view: RwSignal<StudyView<P>>,
    hidden: impl Fn() -> bool + Send + Sync + 'static,
    (run, cancel): (
        impl Fn() + Send + Sync + 'static,
        impl Fn() + Send + Sync + 'static,
    ),
    charts: C,
    rows: R,
) -> impl IntoView
where
    P: Clone + Send + Sync + 'static,
    C: IntoView + 'static,
    R: IntoView + 'static,
{
    let empty = move || view.with(|v| v.points.is_empty());
    let (labelled_by, title_id) = (
        format!("{}study-title", frame.prefix),
        format!("{}study-title", frame.prefix),
    );
    let legend = frame
        .families
        .iter()
        .map(|&(_, label, colour)| view! { <span><i class=format!("swatch f{colour}")></i>{label}</span> })
        .collect_view();
    let head = frame
        .head
        .iter()
        .map(|&h| view! { <th>{h}</th> })
        .collect_view();
    let note = (!frame.note.is_empty()).then(|| view! { <p class="hint">{frame.note}</p> });
    view! {
        <section class="panel studies" aria-labelledby=labelled_by class:hidden=hidden>
            <h2 id=title_id>{frame.title}</h2>
            <p class="hint">{frame.about}</p>
            {study_tools(frame.prefix, view, run, cancel)}
            <div class="study-legend" class:hidden=empty>{legend}</div>
            {charts}
            // A region the keyboard reaches: the table scrolls.
            <div class="table-wrap" class:hidden=empty role="region" aria-label=format!("{} table", frame.title) tabindex="0">
                {note}
                <table>
                    <thead><tr>{head}</tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
        </section>
    }
}

/// A table cell's text: the value formatted, or a dash.
pub fn cell(x: Option<f64>, format: fn(f64) -> String) -> String {
    x.map_or("—".to_string(), format)
}

/// After a run's label: why it stopped, if it did.
pub fn stopped(failed: Option<String>) -> impl IntoView {
    failed.map(|why| view! { <span class="run-failed">" — stopped: " {why}</span> })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_study_reports_its_runs_its_end_and_ignores_an_older_study() {
        let mut v = StudyView::<u8>::started(2);
        assert_eq!(v.status(), "Preparing…");
        v.progress(2, 0, 3, None);
        v.progress(2, 1, 3, Some(7));
        v.progress(1, 2, 3, Some(9));
        assert_eq!(
            (v.done, v.points.clone()),
            (1, vec![7]),
            "study 1's point is dropped"
        );
        assert_eq!(v.status(), "1 of 3 runs…");
        v.finished(1, false);
        assert!(v.running, "an older study's end is not this one's");
        v.finished(2, true);
        assert_eq!(v.status(), "Cancelled after 1 of 3 runs.");
        let mut w = StudyView::<u8>::started(3);
        w.progress(3, 1, 1, Some(1));
        w.finished(3, false);
        assert_eq!(w.status(), "Done: 1 runs.");
        w.failed(3, "diverged".into());
        assert_eq!(w.status(), "The study stopped: diverged");
        assert_eq!(
            StudyView::<u8>::refused(4, "no file".into()).status(),
            "The study stopped: no file"
        );
        assert_eq!(StudyView::<u8>::default().status(), "");
    }
}
