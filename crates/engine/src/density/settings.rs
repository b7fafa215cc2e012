//! The Density lab's settings, one row each ([`whereabouts_core::setting`]): the page's
//! controls, the address bar's `d.` keys, the lessons' and the instructor's keys and the
//! messages for refused values all come from [`SETTINGS`]. The config's own default is the
//! lab's (B = 3: [`DensityConfig::default`]).

use super::config::{Attack, DEFAULT_ATTACKED, DensityConfig, Persistence, Scheme};
use super::limits;
use whereabouts_core::choices;
use whereabouts_core::secagg::Sees;
use whereabouts_core::setting::{Choices, Setting, number, trim};
use whereabouts_core::world::city::Moment;

/// The panel's sections, in order.
pub const PHONES: &str = "What phones send";
pub const SERVER: &str = "The server";
pub const CITY: &str = "The city";
pub const SECTIONS: [&str; 3] = [PHONES, SERVER, CITY];

/// The link's key for hidden controls, and the groups of controls besides the settings.
pub const HIDE_KEY: &str = "d.hide";
pub const CONTROL_GROUPS: &[&str] = &["d.places", "d.study", "d.layers", "d.data"];

/// The choices of B the page offers.
pub const FEATURE_CHOICES: [usize; 7] = [0, 1, 2, 3, 5, 10, 50];
/// The grid sides the page offers.
pub const GRID_CHOICES: [usize; 3] = [64, 128, 256];
/// GeoInd's ε per metre when the visitor first picks GeoInd (a 200 m mean shift).
pub const GEOIND_EPSILON_PER_M: f64 = 0.01;

choices!(Attack, "an attack", {
    Attack::Peak => "peak", "Peak picking (the paper's)";
    Attack::Fit => "fit", "Frequency fitting";
    Attack::FitPrior => "fit_prior", "Fitting + density prior";
});
choices!(Persistence, "a rule", {
    Persistence::Fixed => "fixed", "Kept";
    Persistence::Redrawn => "redrawn", "Redrawn";
});

/// What each phone sends, by the key of [`Scheme::name`].
const SCHEMES: &[(&str, &str)] = &[
    ("rff", "Random features"),
    ("kde", "Its own bump"),
    ("geoind", "GeoInd bump"),
];
const FEATURE_LABELS: &[(&str, &str)] = &[
    ("0", "0 (nothing)"),
    ("1", "1"),
    ("2", "2"),
    ("3", "3"),
    ("5", "5"),
    ("10", "10"),
    ("50", "50"),
];
const GRID_LABELS: &[(&str, &str)] = &[
    ("64", "64 × 64"),
    ("128", "128 × 128"),
    ("256", "256 × 256"),
];

/// A row of the lab's table.
type Row = Setting<DensityConfig>;

/// DP-FedAvg's rows matter only when the server sees the sum with central DP.
fn dp_on(c: &DensityConfig) -> bool {
    c.sees == Sees::Dp
}

/// Every setting of the Density lab, in the panel's order.
pub const SETTINGS: &[Row] = &[
    Row::choice("d.send", "Each phone sends", PHONES, SCHEMES)
        .help("What your phone uploads when the server asks for the density. Random features: the sum of B cosine waves of its own, kept secret, centred on you ([003] Eq. 7). Its own bump: your kernel bump on the grid, the baseline federated KDE (Eq. 5) — exact density, and the server sees exactly where you are. GeoInd: the bump of a location moved by planar-Laplace noise.")
        .get(|c| c.scheme.name().into())
        .set(|c, v| {
            let scheme = match v {
                "rff" => Scheme::Rff {
                    features: DensityConfig::default().features(),
                },
                "kde" => Scheme::Kde,
                "geoind" => Scheme::GeoInd {
                    epsilon_per_m: GEOIND_EPSILON_PER_M,
                },
                _ => return Err(format!("“{v}” is not a scheme (rff, kde, geoind)")),
            };
            // The same scheme again keeps its parameter.
            if scheme.name() != c.scheme.name() {
                c.scheme = scheme;
            }
            Ok(())
        }),
    Row::choice("d.B", "Random features B", PHONES, FEATURE_LABELS)
        .help("How many cosine waves each phone sends, each with a random frequency of its own drawn once from N(0, h⁻²) and kept. Summed over everyone, the waves average into the city's density (more waves: a better map); in one upload your location is a peak as high as B — with B = 1 a whole ridge is as high, with B = 2 a lattice of peaks; from about B = 3 yours stands out. B = 0 sends nothing: the server can only guess.")
        .get(|c| c.features().to_string())
        .set(|c, v| {
            // The page offers only the choices (a config file may give any B the limit takes).
            let b = number(v, &limits::FEATURES)
                .ok()
                .map(|b| b as usize)
                .filter(|b| FEATURE_CHOICES.contains(b))
                .ok_or_else(|| {
                    let list: Vec<String> = FEATURE_CHOICES.iter().map(|b| b.to_string()).collect();
                    format!("must be one of {}", list.join(", "))
                })?;
            if let Scheme::Rff { features } = &mut c.scheme {
                *features = b;
            }
            Ok(())
        })
        .relevant(|c| matches!(c.scheme, Scheme::Rff { .. })),
    Row::number("d.eps", "GeoInd ε", PHONES, "0.001", limits::GEOIND_EPSILON_PER_M)
        .unit("per m")
        .help("Planar-Laplace noise on each location before its bump is sent: the mean shift is 2/ε (0.01 per m: 200 m). Smaller ε: more privacy, a blurrier map.")
        .get(|c| match c.scheme {
            Scheme::GeoInd { epsilon_per_m } => trim(epsilon_per_m),
            _ => trim(GEOIND_EPSILON_PER_M),
        })
        .set(|c, v| {
            let e = number(v, &limits::GEOIND_EPSILON_PER_M)?;
            if let Scheme::GeoInd { epsilon_per_m } = &mut c.scheme {
                *epsilon_per_m = e;
            }
            Ok(())
        })
        .relevant(|c| matches!(c.scheme, Scheme::GeoInd { .. })),
    Row::choice("d.basis", "Random waves between queries", PHONES, Persistence::MENU)
        .help("Kept: each phone draws its waves once and answers every query with them (the paper's rule): asking again gives the same upload and nothing new. Drawn anew: the ablation — each answer has new waves, the server averages them, and only your own peak stays in the same place.")
        .get(|c| c.persistence.key().into())
        .set(|c, v| {
            c.persistence = Persistence::parse(v)?;
            Ok(())
        })
        .relevant(|c| c.scheme != Scheme::Kde),
    Row::choice("d.attack", "The server's attack", SERVER, Attack::MENU)
        .help("How the server reads one upload. Peak picking, the paper's attacker: the grid's highest cell, ties at random. Frequency fitting, stronger: it estimates your B waves' directions and offsets from the upload (an FFT, then least squares), so it knows your surface everywhere and takes its true top — with 3 or more waves that is you, to the metre. With the density prior: where several places are as high (a ridge for B = 1, a lattice for B = 2), it picks the one where the density it published says people are. Against GeoInd, the prior remaps the noisy report towards where people are.")
        .get(|c| c.attack.key().into())
        .set(|c, v| {
            c.attack = Attack::parse(v)?;
            Ok(())
        })
        .relevant(|c| c.scheme != Scheme::Kde),
    Row::choice("d.sees", "What the server sees", SERVER, Sees::MENU)
        .help("Every update: the server receives each phone's upload, as in the paper, and attacks yours. Only the sum: secure aggregation (Bonawitz et al. 2017) — the phones mask their uploads so that the server can unmask only the sum of everyone's, query by query. The density is that sum, so the map is the same (to the fixed-point rounding); the attack on your upload reads the sum of the whole city's instead, and the errors stay measured to your own place. The sum is the protocol's, word for word, gathered without running it: a round of thousands of phones sending a grid each is too long for a tab. Sum + central DP (DP-FedAvg, McMahan et al. 2018): each time the server asks, every phone is in the round with probability q and clips its upload to L2 norm C, and noise of standard deviation z·C goes on every cell of the sum (added by a trusted aggregator, or in shares by the phones themselves); the server publishes the noised sum over qN·B, so the map carries noise z·C/(qN·B) a cell, and the attacks read the noised sum. Your user-level ε, what the sums tell about whether your upload was in them at all, is shown per query and in total. An upload of B waves spreads over the whole grid: its norm is about √(cells·B/2), 157 at 128² and B = 3, where a bump's is about 8.5 — set the clip to the upload's.")
        .get(|c| c.sees.key().into())
        .set(|c, v| {
            c.sees = <Sees as Choices>::parse(v)?;
            Ok(())
        }),
    whereabouts_core::central_dp_setting!(noise_multiplier, Row, "d.dpz", SERVER, dp_on),
    whereabouts_core::central_dp_setting!(clip, Row, "d.dpclip", SERVER, limits::DP_CLIP, "10", dp_on),
    whereabouts_core::central_dp_setting!(sampling_rate, Row, "d.dpq", SERVER, dp_on),
    whereabouts_core::central_dp_setting!(adaptive, Row, "d.dpadapt", SERVER, dp_on),
    whereabouts_core::central_dp_setting!(target_quantile, Row, "d.dpquant", SERVER, dp_on),
    whereabouts_core::central_dp_setting!(noise_at, Row, "d.dpnoise", SERVER, dp_on),
    whereabouts_core::central_dp_setting!(dropout, Row, "d.dpdrop", SERVER, dp_on),
    Row::number("d.asks", "Times the server asks", SERVER, "1", limits::QUERIES)
        .help("How many times the server asks each phone for its upload; it attacks the mean of the answers. “Ask again” adds one.")
        .get(|c| c.queries.to_string())
        .set(|c, v| {
            c.queries = number(v, &limits::QUERIES)? as usize;
            Ok(())
        }),
    Row::number("d.h", "Bandwidth h", SERVER, "50", limits::BANDWIDTH_M)
        .unit("m")
        .help("The kernel's width: how far one person's share of the density spreads (the Gaussian exp(−d²/2h²), [003] Eq. 1). The random frequencies are drawn at the scale 1/h, so h is also the width of an upload's ridges.")
        .get(|c| trim(c.bandwidth_m))
        .set(|c, v| {
            c.bandwidth_m = number(v, &limits::BANDWIDTH_M)?;
            Ok(())
        }),
    Row::choice("d.grid", "Grid", SERVER, GRID_LABELS)
        .help("The points at which the server asks for the density (the city is 8 km across: 128 cells are 62.5 m each). Every upload is a value per grid point.")
        .get(|c| c.grid_side.to_string())
        .set(|c, v| {
            let side = number(v, &limits::GRID_SIDE)? as usize;
            if !GRID_CHOICES.contains(&side) {
                return Err("must be 64, 128 or 256".into());
            }
            c.grid_side = side;
            Ok(())
        }),
    Row::number("d.N", "People in the city N", CITY, "1000", limits::POPULATION)
        .help("Synthetic residents of the city, clustered in neighbourhoods (homes), business districts (work) and a few hot spots (evenings). You come on top.")
        .get(|c| c.population.to_string())
        .set(|c, v| {
            let before = c.population;
            c.population = number(v, &limits::POPULATION)? as usize;
            // The server attacks a sample of the people (the page has no control for its size):
            // the default sample, or everyone in a smaller city; a sample that was everyone
            // follows the city back up, so a link gives the same run as the controls did.
            if c.attacked > c.population
                || (c.attacked == before && c.attacked < DEFAULT_ATTACKED)
            {
                c.attacked = DEFAULT_ATTACKED.min(c.population);
            }
            Ok(())
        }),
    Row::choice("d.when", "When the server asks", CITY, Moment::MENU)
        .help("Where the residents are: at home at night, at work by day, out in the evening. The density — and the prior a server can use — changes with it.")
        .get(|c| c.moment.key().into())
        .set(|c, v| {
            c.moment = <Moment as Choices>::parse(v)?;
            Ok(())
        }),
    whereabouts_core::seed_setting!(
        Row,
        "d.seed",
        CITY,
        "Everything random (the city, everyone's waves, the noise) comes from this number: the same seed gives the same run."
    ),
];

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;
    use whereabouts_core::privacy::central::{CentralDp, NoiseAt};
    use whereabouts_core::setting::{check_rows, set};

    #[test]
    fn the_attacked_sample_follows_a_smaller_city_and_back() {
        let mut c = DensityConfig::default();
        set(SETTINGS, &mut c, "d.N", "100").unwrap();
        assert_eq!(c.attacked, 100, "everyone in a city of 100");
        assert!(c.validate().is_ok());
        set(SETTINGS, &mut c, "d.N", "5000").unwrap();
        assert_eq!(
            c.attacked, DEFAULT_ATTACKED,
            "as a link with d.N=5000 gives"
        );
        // A sample the config chose below the city's size stays as it was.
        c.attacked = 50;
        set(SETTINGS, &mut c, "d.N", "3000").unwrap();
        assert_eq!(c.attacked, 50);
        // More attacked than people: refused by name, not clamped.
        let e = DensityConfig {
            population: 100,
            attacked: 300,
            ..DensityConfig::default()
        }
        .validate()
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("attacked") && e.contains("300") && e.contains("100 people"),
            "{e}"
        );
    }

    #[test]
    fn every_setting_round_trips_through_its_text_and_absurd_values_are_named() {
        let c = DensityConfig {
            scheme: Scheme::GeoInd {
                epsilon_per_m: 0.003,
            },
            grid_side: 64,
            moment: Moment::Evening,
            persistence: Persistence::Redrawn,
            queries: 4,
            attack: Attack::FitPrior,
            sees: Sees::Dp,
            central_dp: CentralDp {
                noise_multiplier: 2.5,
                clip: 8.5,
                sampling_rate: 0.2,
                adaptive: true,
                target_quantile: 0.3,
                noise_at: NoiseAt::Distributed,
                dropout: 0.1,
            },
            ..DensityConfig::default()
        };
        check_rows(
            SETTINGS,
            &SECTIONS,
            "d.",
            &DensityConfig::default(),
            &c,
            &[
                ("d.N", "0"),
                ("d.N", "50001"),
                ("d.h", "5"),
                ("d.B", "4"),
                ("d.B", "-1"),
                ("d.grid", "100"),
                ("d.asks", "0"),
                ("d.eps", "0"),
                ("d.send", "carrier pigeon"),
                ("d.attack", "guess"),
                ("d.sees", "everything"),
                ("d.dpz", "0"),
                ("d.dpclip", "0"),
                ("d.dpclip", "200000"),
                ("d.dpq", "1.5"),
                ("d.dpquant", "1"),
                ("d.dpnoise", "enclave"),
                ("d.dpdrop", "0.95"),
            ],
        );
        // DP-FedAvg's rows show only under sees = dp; γ only under adaptive clipping too.
        let base = DensityConfig::default();
        for key in [
            "d.dpz",
            "d.dpclip",
            "d.dpq",
            "d.dpadapt",
            "d.dpnoise",
            "d.dpdrop",
        ] {
            let row = whereabouts_core::setting::find(SETTINGS, key).unwrap();
            assert!(!(row.relevant)(&base) && (row.relevant)(&c), "{key}");
        }
        let quantile = whereabouts_core::setting::find(SETTINGS, "d.dpquant").unwrap();
        let fixed = DensityConfig {
            central_dp: CentralDp {
                adaptive: false,
                ..c.central_dp
            },
            ..c.clone()
        };
        assert!((quantile.relevant)(&c) && !(quantile.relevant)(&fixed));
        // A refused clip names the lab's limit.
        let mut d = DensityConfig::default();
        let e = set(SETTINGS, &mut d, "d.dpclip", "200000").unwrap_err();
        assert!(e.contains("Clip C") && e.contains("100,000"), "{e}");
        let mut c = DensityConfig::default();
        // At the engine's own bounds the rows and the engine agree.
        set(SETTINGS, &mut c, "d.N", "50000").unwrap();
        set(SETTINGS, &mut c, "d.h", "10").unwrap();
        assert!(c.validate().is_ok());
        // B's refusal lists what the control offers, whatever was wrong.
        for bad in ["4", "-1", "500", "many"] {
            let e = set(SETTINGS, &mut c, "d.B", bad).unwrap_err();
            assert!(e.contains("one of 0, 1, 2, 3, 5, 10, 50"), "{bad}: {e}");
        }
    }
}
