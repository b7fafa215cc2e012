//! The Density lab's evidence: the paper's estimator, its error, and what the server's attacks
//! can and cannot do ([003]; the list is issue "The Density lab", "Evidence required").

use super::config::{Attack, DensityConfig, Persistence, Scheme};
use super::grid::Grid;
use super::kde;
use super::lab::{DensityLab, Privacy};
use super::rff::Basis;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
use whereabouts_core::driver::Driver;
use whereabouts_core::geo::Metres;
use whereabouts_core::rng::Stream;

/// A small city: 2 km square, 48 × 48 cells of 83 m, h = 250 m.
fn small(scheme: Scheme, population: usize) -> DensityConfig {
    DensityConfig {
        city_half_m: 2000.0,
        population,
        grid_side: 48,
        bandwidth_m: 250.0,
        scheme,
        attacked: 60,
        visitor: vec![Metres::new(-500.0, 300.0)],
        ..DensityConfig::default()
    }
}

fn run(config: DensityConfig) -> DensityLab {
    let mut lab = DensityLab::start(config).unwrap();
    lab.finish(&mut |_| {}).unwrap();
    lab
}

fn privacy(lab: &DensityLab) -> Privacy {
    lab.summary().privacy.unwrap()
}

fn rmse(a: &[f64], b: &[f64]) -> f64 {
    (a.iter().zip(b).map(|(x, y)| (x - y).powi(2)).sum::<f64>() / a.len() as f64).sqrt()
}

#[test]
fn the_rff_estimate_is_unbiased() {
    // Averaged over R independent draws of every user's basis, the estimate converges to the
    // exact KDE; at each cell the mean's standard error follows from Var[cos(ωᵀΔ)] =
    // ½ + ½k⁴ − k² (the digest's §6.1): every cell within 5 standard errors.
    let grid = Grid::centred(1000.0, 1000.0, 16, 16);
    let h = 300.0;
    let mut s = Stream::new(5, "people");
    let people: Vec<Metres> = (0..12)
        .map(|_| Metres::new(s.range(-800.0, 800.0), s.range(-800.0, 800.0)))
        .collect();
    let exact = kde::exact(&grid, &people, h);
    let draws = 300;
    let mut mean = vec![0.0; grid.len()];
    for r in 0..draws {
        for (u, &d) in people.iter().enumerate() {
            let basis = Basis::of_user(5, u as u32, 1, h, Some(r));
            basis.add_upload(&mut mean, &grid, d, 1.0 / (people.len() * draws) as f64);
        }
    }
    for k in 0..grid.len() {
        let g = grid.point(k);
        let var: f64 = people
            .iter()
            .map(|d| {
                let kk = kde::kernel(g.distance(d).powi(2), h);
                0.5 + 0.5 * kk.powi(4) - kk * kk
            })
            .sum::<f64>()
            / people.len() as f64;
        let se = (var / (people.len() * draws) as f64).sqrt();
        assert!(
            (mean[k] - exact[k]).abs() < 5.0 * se,
            "cell {k}: {} vs {} ± {se}",
            mean[k],
            exact[k]
        );
    }
}

#[test]
fn the_error_shrinks_like_one_over_root_n_b() {
    // 16 times the features (N·B from 400 to 6,400): the error falls about 4 times.
    let err = |population: usize, features: usize| {
        let lab = run(DensityConfig {
            attacked: 1,
            visitor: vec![],
            ..small(Scheme::Rff { features }, population)
        });
        rmse(&lab.estimate(), &lab.exact())
    };
    let (few, many_b, many_n) = (err(400, 1), err(400, 16), err(6400, 1));
    for many in [many_b, many_n] {
        let ratio = few / many;
        assert!((2.8..5.7).contains(&ratio), "{few} / {many} = {ratio}");
    }
}

#[test]
fn the_error_is_what_the_convergence_theory_says() {
    use super::convergence::{
        log_slope, measured_rmse, mse_per_feature, mse_per_feature_closed, rmse as theory,
    };
    // The measured error of one run against the theory's, from the people's own kernels: every
    // run averages the variance of N·B features over 2,304 cells, so it lands close.
    let mut points = Vec::new();
    for (population, features) in [(400, 1), (400, 4), (1600, 2), (3200, 5)] {
        let lab = run(DensityConfig {
            attacked: 1,
            visitor: vec![],
            ..small(Scheme::Rff { features }, population)
        });
        let measured = measured_rmse(&lab.estimate(), &lab.exact());
        let per_feature = mse_per_feature(lab.grid(), lab.people(), 250.0);
        let predicted = theory(per_feature, population, features);
        assert!(
            (measured / predicted - 1.0).abs() < 0.1,
            "N {population}, B {features}: {measured} against {predicted}"
        );
        assert_eq!(lab.summary().utility.unwrap().rmse, Some(measured));
        // The closed form leaves out only the kernels' mass beyond the grid's edge.
        let closed = mse_per_feature_closed(lab.grid(), 250.0);
        assert!(
            closed <= per_feature && per_feature < 1.03 * closed,
            "{per_feature} against {closed}"
        );
        points.push(((population * features) as f64, measured));
    }
    let slope = log_slope(&points).unwrap();
    assert!((slope + 0.5).abs() < 0.05, "slope {slope}");
    assert_eq!(log_slope(&[(1.0, 2.0)]), None);
    assert!((log_slope(&[(1.0, 1.0), (100.0, 0.1)]).unwrap() + 0.5).abs() < 1e-12);
}

#[test]
fn the_fast_estimate_is_the_sum_of_the_uploads() {
    let lab = run(DensityConfig {
        attacked: 1,
        ..small(Scheme::Rff { features: 3 }, 300)
    });
    let mut direct = vec![0.0; lab.grid().len()];
    for (u, &d) in lab.people().iter().enumerate() {
        Basis::of_user(1, u as u32, 3, 250.0, None).add_upload(&mut direct, lab.grid(), d, 1.0);
    }
    let visitor = lab.config().visitor[0];
    Basis::of_user(1, lab.visitor_id(), 3, 250.0, None).add_upload(
        &mut direct,
        lab.grid(),
        visitor,
        1.0,
    );
    let n = (lab.people().len() + 1) as f64 * 3.0;
    let worst = lab
        .estimate()
        .iter()
        .zip(&direct)
        .map(|(a, b)| (a - b / n).abs())
        .fold(0.0, f64::max);
    assert!(worst < 1e-8, "{worst}");
}

#[test]
fn peak_picking_recovers_the_baselines_users_to_the_grid() {
    let lab = run(small(Scheme::Kde, 500));
    let (dx, dy) = lab.grid().step();
    let half_cell = 0.5 * (dx * dx + dy * dy).sqrt();
    let p = privacy(&lab);
    assert_eq!(p.attacked, 60);
    assert!(
        lab.guesses()
            .iter()
            .all(|g| g.error_m() <= half_cell + 1e-9)
    );
    // The baseline's estimate is the exact KDE itself.
    assert!(lab.summary().utility.unwrap().spearman_all > 0.999_999);
}

#[test]
fn one_feature_puts_the_guesses_on_ridges_about_as_far_as_random_guessing() {
    let lab = run(small(Scheme::Rff { features: 1 }, 500));
    let p = privacy(&lab);
    assert!(p.mean_m > 0.6 * p.random_guess_m, "{p:?}");
    // Each guess sits on a crest of the user's one cosine: cos(ωᵀ(guess − d)) ≈ 1.
    for g in lab.guesses() {
        let basis = Basis::of_user(1, g.user, 1, 250.0, None);
        assert!(basis.value(g.truth, g.guess) > 0.95, "{g:?}");
    }
    // Nothing shared (B = 0): random guessing, and an estimate that ranks nothing.
    let none = run(small(Scheme::Rff { features: 0 }, 500));
    let q = privacy(&none);
    assert!(
        (q.mean_m - q.random_guess_m).abs() < 0.25 * q.random_guess_m,
        "{q:?}"
    );
    assert_eq!(none.summary().utility.unwrap().spearman_all, 0.0);
}

#[test]
fn with_a_fixed_basis_repeated_answers_are_identical_and_a_redrawn_one_gives_you_away() {
    let once = run(small(Scheme::Rff { features: 1 }, 300));
    let fixed = run(DensityConfig {
        queries: 20,
        ..small(Scheme::Rff { features: 1 }, 300)
    });
    // Claim 3: asking again brings nothing new.
    assert_eq!(once.guesses(), fixed.guesses());
    assert_eq!(
        once.visitor_answers()[0].surface,
        fixed.visitor_answers()[0].surface
    );
    let redrawn = run(DensityConfig {
        queries: 20,
        persistence: Persistence::Redrawn,
        ..small(Scheme::Rff { features: 1 }, 300)
    });
    let (f, r) = (privacy(&fixed), privacy(&redrawn));
    assert!(r.median_m < 0.2 * f.median_m, "redrawn {r:?}, fixed {f:?}");
    assert!(r.located > 0.5, "{r:?}");
}

#[test]
fn geoind_moves_the_guesses_by_about_its_noise() {
    // Planar Laplace with ε: the mean shift is 2/ε (200 m for ε = 0.01 per m).
    let lab = run(DensityConfig {
        attacked: 200,
        ..small(
            Scheme::GeoInd {
                epsilon_per_m: 0.01,
            },
            500,
        )
    });
    let p = privacy(&lab);
    assert!((140.0..270.0).contains(&p.mean_m), "{p:?}");
    let u = lab.summary().utility.unwrap();
    assert!(
        u.spearman_top_half > 0.5 && u.spearman_top_half < 1.0,
        "{u:?}"
    );
}

#[test]
fn moving_the_visitor_redoes_only_their_part() {
    let mut lab = run(small(Scheme::Rff { features: 3 }, 300));
    let places = vec![Metres::new(700.0, -900.0), Metres::new(-100.0, 50.0)];
    lab.set_visitor(places.clone(), &mut |_| {}).unwrap();
    lab.finish(&mut |_| {}).unwrap();
    let fresh = run(DensityConfig {
        visitor: places,
        ..small(Scheme::Rff { features: 3 }, 300)
    });
    let worst = lab
        .estimate()
        .iter()
        .zip(&fresh.estimate())
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    assert!(worst < 1e-12, "{worst}");
    assert_eq!(lab.guesses(), fresh.guesses());
    assert_eq!(lab.visitor_answers().len(), 2);
    // A place outside the city is refused, naming it, and the run is untouched.
    let e = lab
        .set_visitor(vec![Metres::new(9e3, 0.0)], &mut |_| {})
        .unwrap_err();
    assert!(e.contains("visitor") && e.contains("place 1"), "{e}");
    assert_eq!(lab.visitor_answers().len(), 2);
}

#[test]
fn bad_settings_are_refused_with_their_name() {
    for (config, field) in [
        (
            DensityConfig {
                population: 0,
                ..DensityConfig::default()
            },
            "population",
        ),
        (
            DensityConfig {
                grid_side: 4,
                ..DensityConfig::default()
            },
            "grid_side",
        ),
        (
            DensityConfig {
                bandwidth_m: f64::NAN,
                ..DensityConfig::default()
            },
            "bandwidth_m",
        ),
        (
            DensityConfig {
                scheme: Scheme::Rff { features: 1000 },
                ..DensityConfig::default()
            },
            "scheme.features",
        ),
        (
            DensityConfig {
                scheme: Scheme::GeoInd { epsilon_per_m: 0.0 },
                ..DensityConfig::default()
            },
            "scheme.epsilon_per_m",
        ),
        (
            DensityConfig {
                queries: 0,
                ..DensityConfig::default()
            },
            "queries",
        ),
    ] {
        let e = DensityLab::start(config).err().unwrap();
        assert!(e.contains(field), "{e}");
    }
}

#[test]
fn a_local_maximum_of_the_visitors_answer_is_their_place_one_among_many() {
    // Claim 1, on a place at a cell's centre (the grid sees the peak itself; off-centre, the
    // highest cell nearby may lie along the ridge).
    let place = Grid::centred(2000.0, 2000.0, 48, 48).point(20 * 48 + 17);
    let lab = run(DensityConfig {
        visitor: vec![place],
        ..small(Scheme::Rff { features: 2 }, 100)
    });
    let answer = &lab.visitor_answers()[0];
    assert!(
        answer.candidates.contains(&place),
        "{:?}",
        answer.candidates
    );
    assert!(answer.candidates.len() > 1, "one among many");
}

fn attacked_with(attack: Attack, scheme: Scheme) -> Privacy {
    privacy(&run(DensityConfig {
        attack,
        ..small(scheme, 1000)
    }))
}

#[test]
fn the_fitting_server_locates_three_features_below_the_grid_where_peak_picking_cannot() {
    let b3 = Scheme::Rff { features: 3 };
    let (peak, fit) = (
        attacked_with(Attack::Peak, b3),
        attacked_with(Attack::Fit, b3),
    );
    // The fitted surface's maximum is the user's exact place for nearly everyone (a few have
    // two frequencies too close to split); peak picking stops at the cell or at a rival peak.
    assert!(fit.located > 0.9 && fit.median_m < 1.0, "{fit:?}");
    assert!(
        peak.median_m > 10.0 && peak.located < fit.located,
        "{peak:?}"
    );
}

#[test]
fn the_published_density_breaks_the_ties_of_one_and_two_features() {
    for b in [1, 2] {
        let scheme = Scheme::Rff { features: b };
        let (fit, prior) = (
            attacked_with(Attack::Fit, scheme),
            attacked_with(Attack::FitPrior, scheme),
        );
        // Alone the fit knows a ridge (B = 1) or a lattice (B = 2): about random guessing.
        assert!(fit.median_m > 0.5 * fit.random_guess_m, "B = {b}: {fit:?}");
        // People are where people are: the densest tie is often the user.
        assert!(
            prior.median_m < 0.5 * fit.median_m && prior.located > fit.located + 0.2,
            "B = {b}: {prior:?} vs {fit:?}"
        );
    }
}

#[test]
fn a_geoind_server_remaps_the_report_by_the_density_it_published() {
    let geo = Scheme::GeoInd {
        epsilon_per_m: 0.01,
    };
    let (peak, remapped) = (
        attacked_with(Attack::Peak, geo),
        attacked_with(Attack::FitPrior, geo),
    );
    assert!(remapped.mean_m < peak.mean_m, "{remapped:?} vs {peak:?}");
    // Nothing shared and nothing to fit: the fit is peak picking, guess for guess.
    let none = Scheme::Rff { features: 0 };
    assert_eq!(
        attacked_with(Attack::Fit, none),
        attacked_with(Attack::Peak, none)
    );
}

#[test]
fn two_answers_with_one_basis_give_the_visitors_move_away() {
    let places = vec![Metres::new(-500.0, 300.0), Metres::new(-300.0, 0.0)];
    let moves = |scheme, persistence| {
        run(DensityConfig {
            visitor: places.clone(),
            persistence,
            ..small(scheme, 200)
        })
        .summary()
        .moves
    };
    let m = moves(Scheme::Rff { features: 3 }, Persistence::Fixed);
    assert_eq!(m.len(), 1);
    assert_eq!(m[0].truth, Metres::new(200.0, -300.0));
    assert!(m[0].error_m() < 1.0, "{m:?}");
    // A basis redrawn per query, or no features, gives two answers nothing in common.
    assert!(moves(Scheme::Rff { features: 3 }, Persistence::Redrawn).is_empty());
    assert!(moves(Scheme::Kde, Persistence::Fixed).is_empty());
}
