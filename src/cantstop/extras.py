"""Optional extras: the error to raise when a module's extra is not installed.

The core is standard library only; environments, OpenSpiel and Ray come as extras
(`pip install -e '.[envs]'` from a checkout). A module that needs one imports its
packages in a `try` and raises `missing_extra(...)` so that the message names the
extra to install instead of a bare ModuleNotFoundError.
"""

from __future__ import annotations

EXTRAS = ("envs", "fast", "openspiel", "train", "ray")


def missing_extra(extra: str, feature: str, error: ImportError) -> ImportError:
    """An ImportError for `feature` naming the missing package and the extra that brings it."""
    if extra not in EXTRAS:  # a typo here would send users to install nothing
        raise ValueError(f"unknown extra {extra!r}; extras: {', '.join(EXTRAS)}")
    missing = error.name or str(error)
    return ImportError(
        f"{feature} needs the '{extra}' extra ({missing} is not installed): from a checkout run "
        f"pip install -e '.[{extra}]'",
        name=error.name,
    )
