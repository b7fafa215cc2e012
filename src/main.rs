//! The page's entry point; see [`whereabouts_web::start_app`].
fn main() {
    whereabouts_web::start_app();
}
