"""Metrics: radon's size and complexity, object-oriented metrics, coupling and instability."""
