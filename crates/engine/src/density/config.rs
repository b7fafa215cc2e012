//! A Density-lab run's settings: the city, the grid and kernel, what each user sends, how the
//! server asks and whom it attacks, and the visitor's own places.

use super::central_dp::{self, CentralDp};
use super::limits;
use serde::{Deserialize, Serialize};
use whereabouts_core::error::ConfigError;
use whereabouts_core::geo::Metres;
use whereabouts_core::secagg::Sees;
use whereabouts_core::world::city::Moment;

/// What each user sends the server.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Scheme {
    /// Baseline federated KDE: the user's own kernel bump ([003] Eq. 5, "Baseline 1").
    Kde,
    /// Random Fourier features: the sum of B cosines of the user's own ([003] Eq. 7);
    /// B = 0 sends nothing ("Baseline 2: 0 features").
    Rff { features: usize },
    /// Geo-indistinguishability: the bump of a location moved by planar-Laplace noise (the
    /// poster's "localized noise" comparator; Andrés et al., CCS 2013).
    GeoInd { epsilon_per_m: f64 },
}

impl Scheme {
    pub fn name(&self) -> &'static str {
        match self {
            Scheme::Kde => "kde",
            Scheme::Rff { .. } => "rff",
            Scheme::GeoInd { .. } => "geoind",
        }
    }
}

/// Whether a user's randomness (its frequencies, or its GeoInd noise) stays the same from one
/// query to the next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Persistence {
    /// Drawn once and kept: the poster's rule (claim 3).
    Fixed,
    /// Drawn again for every query: the ablation that shows why the rule matters.
    Redrawn,
}

/// How the server attacks one user's answer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Attack {
    /// The poster's: the grid's largest cell, ties at random ([`super::attack::peak`]).
    #[default]
    Peak,
    /// Fit the user's frequencies and phases and take the fitted surface's maximum, ties at
    /// random ([`super::fit`], [`super::search`]); for an own bump or GeoInd, peak picking.
    Fit,
    /// As `Fit`, ties broken by the density the server published; for GeoInd, the posterior
    /// of the published density and the planar-Laplace likelihood of the reported bump.
    FitPrior,
}

impl Attack {
    /// The attack's name in guesses and tables.
    pub fn name(&self) -> &'static str {
        match self {
            Attack::Peak => "peak",
            Attack::Fit => "fit",
            Attack::FitPrior => "fit_prior",
        }
    }
}

/// The default B: the smallest whose peak picking finds most people, so that the lab opens on
/// the paper's scheme with its privacy claims and their limit side by side (B = 1 and 2 hide
/// everyone from peak picking; docs/reproduce-density.md).
pub const DEFAULT_FEATURES: usize = 3;

/// Everything a run depends on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DensityConfig {
    pub seed: u64,
    /// The city is a square of ± this many metres.
    pub city_half_m: f64,
    /// N, the people in the city (the visitor comes on top).
    pub population: usize,
    /// When the server asks (who is where).
    pub moment: Moment,
    /// P = Q, the grid's cells per side.
    pub grid_side: usize,
    /// h, the kernel bandwidth, metres.
    pub bandwidth_m: f64,
    pub scheme: Scheme,
    pub persistence: Persistence,
    /// How many times the server asks each user; it attacks the mean of the answers.
    pub queries: usize,
    /// How many of the population's uploads the server attacks (a seeded random sample).
    pub attacked: usize,
    /// How the server attacks each answer.
    pub attack: Attack,
    /// What the server receives when it asks: every phone's upload ([003]), or only the sum of
    /// the query's uploads under secure aggregation (issue 39 §2; [`super::lab`] says how the
    /// sum is made). The density is a sum either way; the attacks then read the sum.
    #[serde(skip_serializing_if = "is_updates")]
    pub sees: Sees,
    /// DP-FedAvg's settings, used when `sees` is `dp` (secure sum + central DP, issue 39 §3:
    /// [`super::central_dp`] says what a round, an update and the sample are here).
    #[serde(skip_serializing_if = "is_default_dp")]
    pub central_dp: CentralDp,
    /// The visitor's places (home, work, …): the first is where they are when asked and goes
    /// into the density; the server attacks the visitor's answer from each.
    pub visitor: Vec<Metres>,
    /// The population's positions given instead of the synthetic city's residents (real
    /// check-ins under `reproduce --real`: docs/papers.md, "Real data: foursquare-nyc"); empty:
    /// the city's. When given, there are `population` of them, inside the city's square.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub residents: Vec<Metres>,
}

fn is_updates(s: &Sees) -> bool {
    *s == Sees::Updates
}

fn is_default_dp(dp: &CentralDp) -> bool {
    *dp == central_dp::default_settings()
}

/// Uploads the server attacks by default: a sample of the city's people (at most all of them).
pub const DEFAULT_ATTACKED: usize = 200;

impl Default for DensityConfig {
    fn default() -> Self {
        DensityConfig {
            seed: 1,
            city_half_m: 4000.0,
            population: 5000,
            moment: Moment::Day,
            grid_side: 128,
            bandwidth_m: 300.0,
            scheme: Scheme::Rff {
                features: DEFAULT_FEATURES,
            },
            persistence: Persistence::Fixed,
            queries: 1,
            attacked: DEFAULT_ATTACKED,
            attack: Attack::Peak,
            sees: Sees::Updates,
            central_dp: central_dp::default_settings(),
            visitor: vec![Metres::new(-1200.0, -900.0), Metres::new(900.0, 700.0)],
            residents: Vec::new(),
        }
    }
}

impl DensityConfig {
    /// B, the random features each phone sends ([`DEFAULT_FEATURES`] when the scheme is not
    /// random features: what choosing them brings).
    pub fn features(&self) -> usize {
        match self.scheme {
            Scheme::Rff { features } => features,
            _ => DEFAULT_FEATURES,
        }
    }

    /// The config as TOML.
    pub fn to_toml(&self) -> Result<String, String> {
        toml::to_string(self).map_err(|e| format!("cannot write TOML: {e}"))
    }

    /// Parses TOML or JSON (by the first non-blank character) and validates; settings left
    /// out keep their defaults.
    pub fn parse(text: &str) -> Result<Self, String> {
        let config: DensityConfig = crate::config_text::parse(text)?;
        config.validate().map_err(|e| e.to_string())?;
        Ok(config)
    }

    /// Refuses absurd settings, naming the setting.
    pub fn validate(&self) -> Result<(), ConfigError> {
        limits::SEED.check("seed", self.seed as f64)?;
        limits::CITY_HALF_M.check("city_half_m", self.city_half_m)?;
        limits::POPULATION.check("population", self.population as f64)?;
        limits::GRID_SIDE.check("grid_side", self.grid_side as f64)?;
        limits::BANDWIDTH_M.check("bandwidth_m", self.bandwidth_m)?;
        match self.scheme {
            Scheme::Kde => {}
            Scheme::Rff { features } => {
                limits::FEATURES.check("scheme.features", features as f64)?;
            }
            Scheme::GeoInd { epsilon_per_m } => {
                limits::GEOIND_EPSILON_PER_M.check("scheme.epsilon_per_m", epsilon_per_m)?;
            }
        }
        limits::QUERIES.check("queries", self.queries as f64)?;
        central_dp::validate(&self.central_dp)?;
        if self.sees == Sees::Dp {
            // The city's phones: the N residents and the visitor with a place.
            let phones = self.population + usize::from(!self.visitor.is_empty());
            // Fewer than one phone expected a query is refused, as in every lab (the core's rule).
            self.central_dp
                .validate_sample(phones, "city's phones a query")?;
        }
        limits::ATTACKED.check("attacked", self.attacked as f64)?;
        if self.attacked > self.population {
            return Err(ConfigError::new(
                "attacked",
                format!(
                    "is {}, more than the city's {} people: the server attacks a sample of them",
                    self.attacked, self.population
                ),
            ));
        }
        if let (Attack::Fit | Attack::FitPrior, Scheme::Rff { features }) =
            (self.attack, self.scheme)
        {
            let fits = match self.persistence {
                Persistence::Fixed => 1,
                Persistence::Redrawn => self.queries,
            };
            limits::FITTED_COMPONENTS.check("attack", (features * fits) as f64)?;
        }
        if self.visitor.len() > limits::MAX_VISITOR_PLACES {
            return Err(ConfigError::new(
                "visitor",
                format!(
                    "has {} places; the limit is {}",
                    self.visitor.len(),
                    limits::MAX_VISITOR_PLACES
                ),
            ));
        }
        let h = self.city_half_m;
        if !self.residents.is_empty() && self.residents.len() != self.population {
            return Err(ConfigError::new(
                "residents",
                format!(
                    "are {} positions for a population of {}",
                    self.residents.len(),
                    self.population
                ),
            ));
        }
        if let Some(i) = self.residents.iter().position(|m| {
            !(m.east.is_finite() && m.north.is_finite() && m.east.abs() <= h && m.north.abs() <= h)
        }) {
            return Err(ConfigError::new(
                "residents",
                format!("resident {} is outside the city", i + 1),
            ));
        }
        if let Some((i, _)) = self.visitor.iter().enumerate().find(|(_, m)| {
            !(m.east.is_finite() && m.north.is_finite() && m.east.abs() <= h && m.north.abs() <= h)
        }) {
            return Err(ConfigError::new(
                "visitor",
                format!("place {} is outside the city", i + 1),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn the_config_round_trips_through_toml_and_json_and_names_a_bad_setting() {
        let c = DensityConfig {
            scheme: Scheme::GeoInd {
                epsilon_per_m: 0.01,
            },
            moment: Moment::Evening,
            attack: Attack::FitPrior,
            sees: Sees::Sum,
            ..DensityConfig::default()
        };
        assert_eq!(DensityConfig::parse(&c.to_toml().unwrap()).unwrap(), c);
        // Every update, the paper's, is written as before (stored runs read the same).
        assert!(!DensityConfig::default().to_toml().unwrap().contains("sees"));
        assert_eq!(
            DensityConfig::parse(&serde_json::to_string(&c).unwrap()).unwrap(),
            c
        );
        assert_eq!(DensityConfig::parse("").unwrap(), DensityConfig::default());
        let e = DensityConfig::parse("population = -3").unwrap_err();
        assert!(e.contains("population"), "{e}");
        let e = DensityConfig::parse("[scheme]\nkind = \"rff\"\nfeatures = 999").unwrap_err();
        assert!(e.contains("scheme.features"), "{e}");
        let e = DensityConfig::parse(
            "attack = \"fit\"\npersistence = \"redrawn\"\nqueries = 30\n[scheme]\nkind = \"rff\"\nfeatures = 50",
        )
        .unwrap_err();
        assert!(e.contains("attack"), "{e}");
        let e = DensityConfig::parse("populaton = 3").unwrap_err();
        assert!(e.contains("populaton"), "{e}");
    }
}
