"""The reference values of the sampled Gaussian accountant's test (issue 39 §3).

Google's `dp_accounting` (PyPI `dp-accounting`, version pinned in
tools/reference/requirements.txt) computes ε for a grid of (q, σ, steps, δ): the Poisson-sampled
Gaussian mechanism (`dp_event.PoissonSampledDpEvent(q, GaussianDpEvent(σ))`) composed `steps`
times in `dp_accounting.rdp.RdpAccountant` with its default orders, converted to (ε, δ) by its
`get_epsilon_and_optimal_order` (`rdp.compute_epsilon`: the improved conversion of Canonne,
Kamath & Steinke 2020, Proposition 12 / Asoodeh et al. 2020, Eq. 20). A few sequences of
different events test the composition of rounds with different noise.

Written to crates/core/tests/fixtures/dp_accounting_grid.csv, which
crates/core/tests/dp_accounting.rs reads. Never run by ./x or CI: run it by hand when the grid
changes, e.g.

    python3 -m venv /tmp/dpenv && /tmp/dpenv/bin/pip install -r tools/reference/requirements.txt
    /tmp/dpenv/bin/python tools/reference/dp_accounting_grid.py
"""

import importlib.metadata
import itertools
import pathlib

import dp_accounting
from dp_accounting import dp_event
from dp_accounting.rdp import RdpAccountant

OUT = pathlib.Path(__file__).resolve().parents[2] / "crates/core/tests/fixtures/dp_accounting_grid.csv"

QS = [1.0, 0.5, 0.1, 0.01, 0.001]
SIGMAS = [0.5, 0.8, 1.0, 2.0, 5.0]
STEPS = [1, 10, 100, 1000]
DELTAS = [1e-5, 1e-6]
# Sequences of (q, σ, steps): rounds whose noise differs (distributed noise after dropouts).
MIXED = [
    [(0.1, 1.0, 50), (0.1, 0.7, 50)],
    [(1.0, 2.0, 10), (1.0, 1.5, 5), (1.0, 3.0, 20)],
    [(0.01, 1.1, 500), (0.02, 0.9, 100)],
    [(0.5, 5.0, 3), (0.5, 4.0, 7)],
]


def epsilon(events, delta):
    acc = RdpAccountant()
    for q, sigma, steps in events:
        acc.compose(dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(sigma)), steps)
    return acc.get_epsilon_and_optimal_order(delta)


def main():
    version = importlib.metadata.version("dp-accounting")
    rows = []
    for q, sigma, steps, delta in itertools.product(QS, SIGMAS, STEPS, DELTAS):
        eps, order = epsilon([(q, sigma, steps)], delta)
        rows.append(f"{q!r};{sigma!r};{steps};{delta!r};{eps!r};{order!r}")
    for events, delta in itertools.product(MIXED, DELTAS):
        eps, order = epsilon(events, delta)
        q = "|".join(repr(e[0]) for e in events)
        sigma = "|".join(repr(e[1]) for e in events)
        steps = "|".join(str(e[2]) for e in events)
        rows.append(f"{q};{sigma};{steps};{delta!r};{eps!r};{order!r}")
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(
        f"# dp-accounting {version}: rdp.RdpAccountant (default orders), PoissonSampledDpEvent(q, GaussianDpEvent(sigma)) composed steps times;\n"
        "# a row with | composes each (q, sigma, steps) in turn. Made by tools/reference/dp_accounting_grid.py; never edit by hand.\n"
        "q;sigma;steps;delta;epsilon;order\n" + "\n".join(rows) + "\n"
    )
    print(f"{len(rows)} rows, dp-accounting {version} -> {OUT}")


if __name__ == "__main__":
    main()
