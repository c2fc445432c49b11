"""What every benchmark shares: the ``--quick`` switch and the figure line.

A figure line puts the measured figure first and its target after it, so a reader (and
``tests/test_benchmarks.py``) finds it the same way in every script::

    ratio replay / by hand: 1.62x (target <= 1.3x)

``--quick`` runs tiny sizes and one round: seconds, for the test suite, which checks that each
script still runs and prints its figure lines. Its figures are not measurements.
"""

from __future__ import annotations

import argparse


def parser(doc: str | None, runs: int | None = None) -> argparse.ArgumentParser:
    """An argument parser with ``--quick`` (and ``--runs N`` when the script has rounds)."""
    options = argparse.ArgumentParser(description=(doc or "").splitlines()[0])
    if runs is not None:
        options.add_argument("--runs", type=int, default=runs, help=f"rounds (default {runs})")
    options.add_argument(
        "--quick", action="store_true", help="tiny sizes and one round: checks it runs"
    )
    return options


def figure(label: str, value: str, target: str | None = None) -> None:
    """Print ``label: value (target ...)``: the measured figure first, the target after."""
    print(f"{label}: {value}" + (f" (target {target})" if target else ""))
