//! The Web Worker's entry point; see [`whereabouts_web::worker::start`].
fn main() {
    whereabouts_web::worker::start();
}
