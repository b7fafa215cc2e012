//! The page's entry point; see [`whereabouts_web::start_app`].
//!
//! In the site's build (`--features split`) it also holds the page's split points, one per lab
//! whose views are fetched when its tab first shows (src/shell/lab_views.rs): they are exported
//! symbols, so they live in this binary and not in the library the worker links too.
fn main() {
    #[cfg(all(feature = "split", target_family = "wasm"))]
    whereabouts_web::start_app(chunks::LATER);
    #[cfg(not(all(feature = "split", target_family = "wasm")))]
    whereabouts_web::start_app(whereabouts_web::shell::lab_views::Later::at_once());
}

#[cfg(all(feature = "split", target_family = "wasm"))]
mod chunks {
    use wasm_split_helpers::{SplitLoaderError, wasm_split};
    use whereabouts_web::density::{self, DensityState};
    use whereabouts_web::linkability::{self, LinkState};
    use whereabouts_web::mobility::{self, MobState};
    use whereabouts_web::protocol::LabKind;
    use whereabouts_web::shell::lab_views::{
        Fetching, Later, Make, MakeGlossary, MakeInstructor, MakeLesson, Pending, not_fetched,
        panel_not_fetched,
    };
    use whereabouts_web::shell::{glossary, instructor};
    use whereabouts_web::signal_map::export::{self, Exports};
    use whereabouts_web::ui::lesson;

    /// Each split point only names its lab's views: what they reach goes into the lab's chunk,
    /// unless the rest of the page reaches it too.
    #[wasm_split(density_views, fallible)]
    fn density_views() -> Result<Make<DensityState>, SplitLoaderError> {
        Ok(density::views)
    }

    #[wasm_split(linkability_views, fallible)]
    fn linkability_views() -> Result<Make<LinkState>, SplitLoaderError> {
        Ok(linkability::views)
    }

    #[wasm_split(mobility_views, fallible)]
    fn mobility_views() -> Result<Make<MobState>, SplitLoaderError> {
        Ok(mobility::views)
    }

    /// The glossary's terms: long prose only the open panel shows.
    #[wasm_split(glossary, fallible)]
    fn glossary_panel() -> Result<MakeGlossary, SplitLoaderError> {
        Ok(glossary::panel)
    }

    /// The instructor's panel, with the lessons' answers only it shows.
    #[wasm_split(instructor, fallible)]
    fn instructor_panel() -> Result<MakeInstructor, SplitLoaderError> {
        Ok(instructor::panel)
    }

    /// The lesson panel, with every lesson's prose.
    #[wasm_split(lesson, fallible)]
    fn lesson_panel() -> Result<MakeLesson, SplitLoaderError> {
        Ok(lesson::panel)
    }

    /// The Signal map's CSV and JSON exports, with serde_json's encoders of the run.
    #[wasm_split(exports, fallible)]
    fn exports() -> Result<Exports, SplitLoaderError> {
        Ok(export::EXPORTS)
    }

    /// A panel's chunk, or what the page says when it did not come.
    fn panel<T>(what: &str, made: Result<T, SplitLoaderError>) -> Result<T, String> {
        made.map_err(|_| panel_not_fetched(what, "its code did not arrive: is the page offline?"))
    }

    fn fetched<S>(
        kind: LabKind,
        made: Result<Make<S>, SplitLoaderError>,
    ) -> Result<Make<S>, String> {
        // The loader's own error says only that it failed (it logs the fetch's error).
        made.map_err(|_| not_fetched(kind, "its code did not arrive: is the page offline?"))
    }

    /// The [`Later`] of this build.
    pub const LATER: Later = Later {
        density: || -> Fetching<DensityState> {
            Box::pin(async { fetched(LabKind::Density, density_views().await) })
        },
        linkability: || -> Fetching<LinkState> {
            Box::pin(async { fetched(LabKind::Linkability, linkability_views().await) })
        },
        mobility: || -> Fetching<MobState> {
            Box::pin(async { fetched(LabKind::Mobility, mobility_views().await) })
        },
        glossary: || -> Pending<MakeGlossary> {
            Box::pin(async { panel("The glossary", glossary_panel().await) })
        },
        instructor: || -> Pending<MakeInstructor> {
            Box::pin(async { panel("The instructor's panel", instructor_panel().await) })
        },
        lesson: || -> Pending<MakeLesson> {
            Box::pin(async { panel("The lesson", lesson_panel().await) })
        },
        exports: || -> Pending<Exports> {
            Box::pin(async { panel("The export", exports().await) })
        },
    };
}
