#!/usr/bin/env python3
"""PyTorch's time for the attacks' inner step, the reference BENCHMARKS.md's speed-ups are
measured against: run on the same machine, in the same session, as `./x bench`.

    python3 tools/bench/torch_reference.py [--iterations 2000] [--threads 1]

Needs torch (tools/bench/requirements.txt; never installed by ./x or run in CI). Prints one
line per kernel, `TORCH <name>: <µs> us/it`, the median of five timed blocks.

The kernels are the ones `whereabouts bench` and `tests/bench.rs` time, written the way a
PyTorch user writes them (double backward through `torch.autograd.grad(create_graph=True)`):

- DLG ([000] Algorithm 2's inner loop, as `signal_map::bench::dlg_ms_per_iteration`): one dummy
  point, the cosine distance over all parameters concatenated to a 30-point batch's gradient,
  the analytic label y' = F(x') - gb/2 (gb the observed last-bias gradient), one Adam step on
  x'. Models: small (2-64 tanh-64 sigmoid-1), 2-64-64-1 tanh, the paper's (2-224 ReLU-640
  sigmoid-1).
- ST-GIA's objective ([002], as `mobility::bench::objective_ms`): nn.LSTM(2, 16) + nn.Linear(16,
  2) on a window of 8 positions, MSE loss, the authors' row-wise L2 distance
  (PairwiseDistance(p=2, eps=1e-6) per tensor, summed) to the observed gradient, its gradient
  with respect to the 16 positions and the 2-number label, one Adam step.
"""

import argparse
import statistics
import time

import torch
import torch.nn as nn


def mlp(hidden):
    layers, width = [], 2
    for size, act in hidden:
        layers += [nn.Linear(width, size), act()]
        width = size
    layers.append(nn.Linear(width, 1))
    return nn.Sequential(*layers)


MODELS = {
    "small (2-64 tanh-64 sigmoid-1)": [(64, nn.Tanh), (64, nn.Sigmoid)],
    "2-64-64-1 tanh (PyTorch reference shape)": [(64, nn.Tanh), (64, nn.Tanh)],
    "paper (2-224 ReLU-640 sigmoid-1)": [(224, nn.ReLU), (640, nn.Sigmoid)],
}


def timed(step, iterations):
    """Median µs per call over five blocks, after a warm-up of a tenth as many."""
    for _ in range(max(iterations // 10, 1)):
        step()
    block = max(iterations // 5, 1)
    per = []
    for _ in range(5):
        began = time.perf_counter()
        for _ in range(block):
            step()
        per.append((time.perf_counter() - began) / block * 1e6)
    return statistics.median(per)


def dlg(hidden, iterations):
    torch.manual_seed(1)
    model = mlp(hidden)
    params = list(model.parameters())
    xs = torch.randn(30, 2) * 0.5
    ys = torch.randn(30, 1) * 8.0 - 96.0
    observed = torch.autograd.grad(((model(xs) - ys) ** 2).mean(), params)
    observed = [g.detach() for g in observed]
    flat_observed = torch.cat([g.reshape(-1) for g in observed])
    gb = observed[-1].reshape(())
    dummy = torch.zeros(1, 2, requires_grad=True)
    optimiser = torch.optim.Adam([dummy], lr=0.01)

    def step():
        optimiser.zero_grad()
        prediction = model(dummy)
        label = prediction.detach() - gb / 2
        loss = ((prediction - label) ** 2).mean()
        grads = torch.autograd.grad(loss, params, create_graph=True)
        flat = torch.cat([g.reshape(-1) for g in grads])
        distance = 1 - torch.dot(flat, flat_observed) / (flat.norm() * flat_observed.norm() + 1e-12)
        distance.backward()
        optimiser.step()

    return timed(step, iterations)


def stgia(iterations):
    torch.manual_seed(1)
    lstm = nn.LSTM(2, 16, batch_first=True)
    fc = nn.Linear(16, 2)
    params = list(lstm.parameters()) + list(fc.parameters())

    def loss_of(window, label):
        out, _ = lstm(window)
        return ((fc(out[:, -1, :]) - label) ** 2).mean()

    positions = torch.stack([torch.tensor([0.2 + 0.05 * i, 0.4 + 0.03 * i]) for i in range(9)])
    truth, truth_label = positions[:8].unsqueeze(0), positions[8].unsqueeze(0)
    observed = [g.detach() for g in torch.autograd.grad(loss_of(truth, truth_label), params)]
    dummy = (truth + 0.1).clone().requires_grad_(True)
    dummy_label = (truth_label + 0.1).clone().requires_grad_(True)
    optimiser = torch.optim.Adam([dummy, dummy_label], lr=0.01)
    pairwise = nn.PairwiseDistance(p=2, eps=1e-6)

    def step():
        optimiser.zero_grad()
        grads = torch.autograd.grad(loss_of(dummy, dummy_label), params, create_graph=True)
        distance = sum(
            pairwise(g.reshape(g.shape[0], -1) if g.dim() > 1 else g.unsqueeze(0),
                     o.reshape(o.shape[0], -1) if o.dim() > 1 else o.unsqueeze(0)).sum()
            for g, o in zip(grads, observed)
        )
        distance.backward()
        optimiser.step()

    return timed(step, iterations)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=2000)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    if args.iterations < 5:
        parser.error(f"--iterations must be at least 5 (got {args.iterations})")
    torch.set_num_threads(args.threads)
    print(f"# torch {torch.__version__}, {torch.get_num_threads()} thread(s), {args.iterations} iterations")
    for name, hidden in MODELS.items():
        print(f"TORCH DLG {name}: {dlg(hidden, args.iterations):.1f} us/it", flush=True)
    print(f"TORCH ST-GIA objective, row-wise L2 (LSTM 2-16-2, window 8): {stgia(args.iterations):.1f} us/it", flush=True)


if __name__ == "__main__":
    main()
