"""Outgoing webhooks, one sub-package per concept: `endpoints` (the registry and what an
endpoint holds), `deliveries` (rows, fan-out, log, sweep, recovery), `sending` (queue, worker,
signing, the pinned sender) and `operations` (notices and the alarm topic). Beside them, the
wiring every handler shares: `services` (the stores for a Settings), `workers` (the delivery
worker and recovery runner) and `wiring` (the seams tests swap).

A sub-package's modules import each other directly; everything else imports a sub-package's
names from its `__init__`, never its inner modules (tests/unit/test_module_boundaries.py).
"""
