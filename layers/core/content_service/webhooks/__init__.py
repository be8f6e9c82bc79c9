"""Outgoing webhooks: event catalogue, secrets, signatures, URL policy and the pinned sender.

The modules here are pure (no storage) so the API, fan-out and delivery handlers share one
definition of each rule.
"""
