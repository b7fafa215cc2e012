//! Every bound on a Density-lab setting, defined once: the engine refuses what lies outside,
//! and the page's controls and URL parser read the same constants.

pub use whereabouts_core::limit::{Limit, SEED};
use whereabouts_core::limit::{closed, positive, whole};

/// N, the people in the city (the visitor comes on top).
pub const POPULATION: Limit = whole(1.0, 50_000.0, "a whole number from 1 to 50,000");
/// The city's half-width (it is a square), metres.
pub const CITY_HALF_M: Limit = closed(500.0, 50_000.0, "between 500 m and 50 km");
/// P = Q, the grid's cells per side.
pub const GRID_SIDE: Limit = whole(8.0, 512.0, "a whole number from 8 to 512");
/// h, the kernel bandwidth, metres.
pub const BANDWIDTH_M: Limit = closed(10.0, 10_000.0, "between 10 m and 10 km");
/// B, the random features per user (0: nothing is shared).
pub const FEATURES: Limit = whole(0.0, 200.0, "a whole number from 0 to 200");
/// GeoInd's ε per metre (0.01 is a 200 m mean shift).
pub const GEOIND_EPSILON_PER_M: Limit = positive(
    10.0,
    "between 0 (not included) and 10 per metre (0.01 means a 200 m mean shift)",
);
/// How many times the server asks each user.
pub const QUERIES: Limit = whole(1.0, 100.0, "a whole number from 1 to 100");
/// How many users' uploads the server attacks (a random sample; the visitor always).
pub const ATTACKED: Limit = whole(1.0, 50_000.0, "a whole number from 1 to 50,000");
/// How many places the visitor may put on the map.
pub const MAX_VISITOR_PLACES: usize = 5;
/// Components the fitting attacks fit per answer set (B, times the queries when each has its own
/// basis): beyond it the fit's time per user grows past what a page can wait for.
pub const FITTED_COMPONENTS: Limit = whole(
    0.0,
    1000.0,
    "peak picking when B times the answers to fit (the queries, with a redrawn basis) exceeds 1,000: fitting more would take too long",
);
/// DP-FedAvg's clip C of an upload's L2 norm under central DP (`sees = dp`). An upload of B
/// random features has a norm of about √(P·Q·B/2) (157 at 128² and B = 3, the defaults; 5,120 at
/// 512² and B = 200, the limits) and never more than P·B (every cell at most B); a bump's is
/// about √π·h over the cell (8.5 at the defaults, 4.3 at 64²). Up to 100,000 every upload the
/// lab can make fits unclipped; below, any clip is a choice.
pub const DP_CLIP: Limit = positive(100_000.0, "between 0 (not included) and 100,000");
