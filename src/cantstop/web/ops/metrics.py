"""Prometheus metrics of one server process (`prometheus-client`, a registry per app).

Actions and their latency are observed as they happen; the rest is read from the game
service and the guard when a scrape asks, so the hot path pays for one histogram sample."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

# Seconds from an action's arrival to its commit: the load test's p99 is 25-150 ms.
LATENCY_BUCKETS = (0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)


@dataclass(frozen=True)
class Reading:
    """One number read at scrape time: a gauge (what is now) or a counter (what has been)."""

    name: str
    help: str
    read: Callable[[], float]
    counter: bool = False


class Readings(Collector):
    def __init__(self, readings: list[Reading]) -> None:
        self.readings = readings

    def collect(self) -> Iterator[Metric]:
        for r in self.readings:
            family = CounterMetricFamily if r.counter else GaugeMetricFamily
            yield family(r.name, r.help, value=r.read())


class Metrics:
    def __init__(self, readings: list[Reading]) -> None:
        self.registry = CollectorRegistry()
        self.actions = Counter("cantstop_actions", "Actions stored (people's and bots')", registry=self.registry)
        self.latency = Histogram(
            "cantstop_action_seconds", "Seconds from an action's arrival to its commit", buckets=LATENCY_BUCKETS, registry=self.registry
        )
        self.registry.register(Readings(readings))

    def acted(self, seconds: float) -> None:
        self.actions.inc()
        self.latency.observe(seconds)

    def text(self) -> bytes:
        return generate_latest(self.registry)
