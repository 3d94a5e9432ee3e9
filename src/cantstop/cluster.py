"""Joining a Ray cluster (extra `ray`), for the arena's games and the solver's layers alike.

ADDRESS is what `ray.init(address=...)` takes: `auto` (the cluster this machine
belongs to), `ray://HEAD:10001` (a remote cluster through Ray Client), or `local`
for a fresh Ray instance on this machine with `cpus` CPUs. A process that already
called `ray.init()` uses its cluster whatever ADDRESS says.
"""

from __future__ import annotations

from typing import Any

from cantstop.extras import missing_extra


def connect(address: str, cpus: int, feature: str) -> Any:
    """The `ray` module, joined to the cluster at `address`; `feature` names the caller in errors.

    Raises ImportError (naming the extra) without Ray, ConnectionError when no cluster answers.
    """
    try:
        import ray
    except ImportError as error:
        raise missing_extra("ray", feature, error) from None
    if not ray.is_initialized():
        options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
        if address == "local":
            ray.init(num_cpus=cpus, **options)
        else:
            try:
                ray.init(address=address, **options)
            except ConnectionError as error:  # Ray's own words, without the traceback
                raise ConnectionError(
                    f"{feature}: no Ray cluster at {address!r} ({error}). Start one with `ray start "
                    "--head`, name its address, or use --ray local for one on this machine"
                ) from None
    return ray
