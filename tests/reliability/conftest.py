"""The reliability suite (issue 9): load, restarts, connection cuts, lease safety, bad input, injection.

Backends come from the conformance registry: a test that takes ``cluster`` runs against every family
(memory, mongo, redis, postgres; sync and async), exactly like the conformance suite. The options, the
mark and the counts table live in :mod:`tests.reliability.plugin`.
"""

from __future__ import annotations

from tests.conformance.conftest import cluster, node, pytest_generate_tests
from tests.router_check import router_check

__all__ = ["cluster", "node", "pytest_generate_tests", "router_check"]
