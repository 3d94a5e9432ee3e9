"""Passwords: the rules a new one must pass, and argon2id to keep and check them.

The rules follow OWASP ASVS 4 (level 2): at least 12 characters, up to 128, any characters
(no rule about classes), and not one of the passwords everybody tries first.
"""

from __future__ import annotations

import asyncio
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from importlib.resources import files

from argon2 import PasswordHasher, Type
from argon2.exceptions import InvalidHashError, VerificationError

from cantstop.web.errors import Invalid

MIN_PASSWORD, MAX_PASSWORD = 12, 128
MIN_DISTINCT = 5  # 'aaaaaaaaaaaa' and '121212121212' are long and still guessed at once
# argon2id at OWASP's configuration of 19 MiB, two passes, one lane: as strong as its others
# and the cheapest here. At 46 MiB a hash cost 65 ms of CPU against 25, most of it in the
# kernel: glibc takes a block over 32 MiB fresh from it at every hash, and keeps a smaller
# one for the next. docs/deploy.md says what a sign-in costs at these numbers.
TIME_COST, MEMORY_KIB, PARALLELISM = 2, 19_456, 1
HASHER = PasswordHasher(time_cost=TIME_COST, memory_cost=MEMORY_KIB, parallelism=PARALLELISM, type=Type.ID)
# argon2id runs on threads of its own, one core fewer than the machine has (one at least),
# each at a lower scheduling priority than the games' threads (on Linux, where a thread has
# its own nice value): a burst of sign-ins waits its turn rather than taking cores from the
# games, a sign-in takes longer only while the cores are busy, and the memory a hash holds
# (19 MiB) stays bounded.
HASHING_NICE = 10  # added to the process's nice value, up to the lowest priority, 19


def _lower_priority() -> None:
    try:
        thread = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, thread, min(19, os.getpriority(os.PRIO_PROCESS, thread) + HASHING_NICE))
    except (AttributeError, OSError):  # no per-thread priority here (not Linux): the pool's size still bounds it
        pass


HASHING = ThreadPoolExecutor(max(1, (os.cpu_count() or 2) - 1), thread_name_prefix="cantstop-argon2", initializer=_lower_priority)


@cache
def common_passwords() -> frozenset[str]:
    """The shipped list of passwords tried first in every guessing attack, case-folded."""
    text = (files("cantstop.web.identity") / "common_passwords.txt").read_text(encoding="utf-8")
    return frozenset(line.strip().casefold() for line in text.splitlines() if line.strip() and not line.startswith("#"))


def check_password(password: str, name: str) -> None:
    """Invalid `weak_password` saying what a password needs, unless it has all of it."""
    wrong = password_problem(password, name)
    if wrong is not None:
        raise Invalid("weak_password", wrong)


def password_problem(password: str, name: str) -> str | None:
    """What a new password lacks, or None."""
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        return f"a password has {MIN_PASSWORD} to {MAX_PASSWORD} characters; this one has {len(password)}"
    folded = password.casefold()
    if folded in common_passwords():
        return "this password is on the list of the most common ones, which are tried first: choose another"
    if len(set(folded)) < MIN_DISTINCT:
        return f"a password needs at least {MIN_DISTINCT} different characters"
    if name.casefold() in folded:
        return "a password may not hold the account's name"
    return None


def hash_password(password: str) -> str:
    return HASHER.hash(password)


# Checked against when the name is unknown, so that an unknown name costs what a wrong
# password does and the two cannot be told apart by the time the answer takes.
_DECOY = HASHER.hash("a decoy that no account has")


def password_matches(stored: str | None, password: str) -> bool:
    """Whether `password` is the one `stored` hashes (always spending one argon2id check)."""
    try:
        return HASHER.verify(stored or _DECOY, password) and stored is not None
    except (VerificationError, InvalidHashError):
        return False


async def hashed(password: str) -> str:
    """`hash_password` off the event loop, on the hashing threads."""
    return await asyncio.get_running_loop().run_in_executor(HASHING, hash_password, password)


async def matches(stored: str | None, password: str) -> bool:
    """`password_matches` off the event loop, on the hashing threads."""
    return await asyncio.get_running_loop().run_in_executor(HASHING, password_matches, stored, password)


def needs_rehash(stored: str) -> bool:
    """Whether a hash was made with other parameters than today's (then it is redone at sign-in)."""
    return HASHER.check_needs_rehash(stored)
