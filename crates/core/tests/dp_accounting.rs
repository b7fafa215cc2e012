//! The sampled Gaussian accountant against Google's `dp_accounting` (issue 39 §3): every row
//! of `fixtures/dp_accounting_grid.csv` — ε of the Poisson-sampled Gaussian mechanism composed
//! over steps, by `dp_accounting.rdp.RdpAccountant` with its default orders, the version named
//! in the file's first line (made by tools/reference/dp_accounting_grid.py) — to 1e-3 relative.

use whereabouts_core::privacy::rdp::SampledGaussianAccountant;

const GRID: &str = include_str!("fixtures/dp_accounting_grid.csv");

fn numbers(cell: &str) -> Vec<f64> {
    cell.split('|').map(|x| x.parse().unwrap()).collect()
}

#[test]
fn the_accountant_matches_dp_accounting_on_every_grid_point() {
    assert!(
        GRID.starts_with("# dp-accounting 0.6.0:"),
        "the fixture names its version"
    );
    let mut rows = 0;
    let (mut q1, mut small_q, mut long, mut worst) = (false, false, false, 0.0f64);
    for line in GRID.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let cells: Vec<&str> = line.split(';').collect();
        let (qs, zs, steps) = (numbers(cells[0]), numbers(cells[1]), numbers(cells[2]));
        let delta: f64 = cells[3].parse().unwrap();
        let want: f64 = cells[4].parse().unwrap();
        let mut acc = SampledGaussianAccountant::default();
        for ((q, z), n) in qs.iter().zip(&zs).zip(&steps) {
            acc.record(*q, *z, *n as usize).unwrap();
        }
        let (got, order) = acc.epsilon(delta);
        let rel = (got - want).abs() / want.abs().max(1e-12);
        assert!(
            rel < 1e-3,
            "{line}: ε {got} at α {order}, dp_accounting {want} (relative {rel:.2e})"
        );
        worst = worst.max(rel);
        rows += 1;
        q1 |= qs == [1.0];
        small_q |= qs.iter().any(|&q| q <= 0.01);
        long |= steps.iter().sum::<f64>() >= 1000.0;
    }
    // The grid covers what the brief asks: q = 1, q ≤ 0.01, 1,000 steps; both δ's are in it.
    assert!(rows >= 200 && q1 && small_q && long, "{rows} rows");
    assert!(GRID.contains(";1e-05;") && GRID.contains(";1e-06;"));
    eprintln!("{rows} grid points, worst relative difference {worst:.2e}");
}
