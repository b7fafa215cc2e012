//! Synthetic people for any lab: each person's places and the timeline of their weeks, made
//! from one seeded stream per person, so a person is the same in every lab that asks for them.
//!
//! A lab that measures something along the way (the signal map logs fixes and their signal
//! strength) continues the person's own stream, which [`person`] hands back positioned after
//! the draws that made the person: the person and their measurements stay one reproducible
//! sequence.

use super::mobility::{self, MobilityConfig, Place, Segment};
use super::roads::RoadNetwork;
use crate::rng::Stream;

/// One synthetic person.
#[derive(Clone, Debug, PartialEq)]
pub struct Person {
    /// Home, work and a few other places.
    pub places: Vec<Place>,
    /// Where they are, piece by piece, over the configured weeks.
    pub timeline: Vec<Segment>,
}

/// The person made from `seed` and `label` (one label per person, e.g. "user-3") in the area of
/// `roads`, living along them, and the stream that made them, to continue.
pub fn person(
    cfg: &MobilityConfig,
    roads: &RoadNetwork,
    seed: u64,
    label: &str,
) -> (Person, Stream) {
    let mut s = Stream::new(seed, label);
    let places = mobility::pick_places(cfg, roads, &mut s);
    let timeline = mobility::timeline(cfg, &places, roads, &mut s);
    (Person { places, timeline }, s)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn cfg() -> MobilityConfig {
        MobilityConfig {
            users: 3,
            weeks: 1,
            start_unix: 1_700_438_400,
            sample_interval_s: 60.0,
            logging_duty: 0.35,
            gps_noise_m: 5.0,
            stay_wander_m: 25.0,
            speed_mps: 1.6,
            other_places: 3,
            nearby_places: 3,
            background_sources: 0,
            background_duty: 0.0,
        }
    }

    #[test]
    fn a_person_is_the_same_wherever_they_are_asked_for_and_lives_in_the_area() {
        let roads = RoadNetwork::for_area(900.0, 850.0, 4);
        let (a, mut sa) = person(&cfg(), &roads, 4, "user-1");
        let (b, mut sb) = person(&cfg(), &roads, 4, "user-1");
        assert_eq!(a, b);
        // The streams handed back continue identically.
        assert_eq!(sa.uniform(), sb.uniform());
        let (c, _) = person(&cfg(), &roads, 4, "user-2");
        assert_ne!(a, c);
        assert!(a.places.len() >= 2);
        for p in &a.places {
            assert!(p.position.east.abs() <= 900.0 && p.position.north.abs() <= 850.0);
        }
        // The timeline covers the week without gaps.
        assert!(!a.timeline.is_empty());
        for w in a.timeline.windows(2) {
            assert!((w[0].end() - w[1].start()).abs() < 1e-6, "{w:?}");
        }
    }
}
