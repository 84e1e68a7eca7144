"""Fixtures for the interop tests that ask pi's own library what it reads."""

from __future__ import annotations

import os

import pytest

from tests.interop.pi_oracle import PI_0_73, PI_1_6, PiOracle, PiRelease, ensure_pi


def _oracle(release: PiRelease) -> PiOracle:
    """The release's SessionManager as an oracle; skips when node/npm or the package is missing.

    Set PITUI_REQUIRE_PI_ORACLE=1 (e.g. in CI) to fail instead of skipping, so that a broken
    install cannot hide behind a skip.
    """
    oracle, reason = ensure_pi(release)
    if oracle is None:
        if os.environ.get("PITUI_REQUIRE_PI_ORACLE") == "1":
            pytest.fail(f"{release.label} oracle required but unavailable: {reason}", pytrace=False)
        pytest.skip(f"{release.label} oracle unavailable: {reason}")
    return oracle


@pytest.fixture(scope="session")
def pi_oracle() -> PiOracle:
    """pi 0.73.1's SessionManager (see _oracle)."""
    return _oracle(PI_0_73)


@pytest.fixture(scope="session")
def pi_oracle_1_6() -> PiOracle:
    """pi 1.6.0's SessionManager (see _oracle), through its session modules on node 20."""
    return _oracle(PI_1_6)


@pytest.fixture(scope="session")
def pi_oracles(pi_oracle: PiOracle, pi_oracle_1_6: PiOracle) -> tuple[PiOracle, PiOracle]:
    """Both releases, older first; requested together so a missing one skips (or fails) both."""
    return pi_oracle, pi_oracle_1_6
