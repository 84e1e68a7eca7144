"""Fixtures for the interop tests that ask pi's own library what it reads."""

from __future__ import annotations

import os

import pytest

from tests.interop.pi_oracle import PiOracle, ensure_pi


@pytest.fixture(scope="session")
def pi_oracle() -> PiOracle:
    """pi 0.73.1's SessionManager as an oracle; skips when node/npm or the package is missing.

    Set PITUI_REQUIRE_PI_ORACLE=1 (e.g. in CI) to fail instead of skipping, so that a broken
    install cannot hide behind a skip.
    """
    oracle, reason = ensure_pi()
    if oracle is None:
        if os.environ.get("PITUI_REQUIRE_PI_ORACLE") == "1":
            pytest.fail(f"pi oracle required but unavailable: {reason}", pytrace=False)
        pytest.skip(f"pi oracle unavailable: {reason}")
    return oracle
