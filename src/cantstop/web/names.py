"""People's names as the server accepts them.

A name is stored NFKC-normalised with its runs of spaces made one, so that what people
read is what the server compares: two names that look alike after that (and case-folding)
are one name, and a name that reads as a bot's is not a person's.
"""

from __future__ import annotations

import unicodedata
from functools import cache

from cantstop.bots import bot_names, get_bot
from cantstop.core.notation import seat_letter
from cantstop.web.errors import Invalid
from cantstop.web.spoof import invisible_character

MAX_NAME = 40
DELETED = "deleted player"  # what a deleted account's seats read, with its number
RECORD_SYNTAX = set(';"\\[]{}')  # a record's tag values cannot hold these
# Unicode categories no name may hold: invisible or direction-changing characters make two
# names look alike (or a name look like another text) while differing underneath.
REFUSED = {
    "Cc": "a control character",
    "Cf": "an invisible formatting character (such as a zero-width space or a direction override)",
    "Co": "a private-use character",
    "Cs": "a lone surrogate",
    "Cn": "an unassigned code point",
    "Zl": "a line separator",
    "Zp": "a paragraph separator",
}
ALLOWED = f"names are 1..{MAX_NAME} letters, digits, spaces and punctuation, without ; \" \\ [ ] {{ }}"


def normal(name: str) -> str:
    """NFKC, trimmed, every run of white space one space."""
    return " ".join(unicodedata.normalize("NFKC", name).split())


def name_key(name: str) -> str:
    """What two names are compared by: equal keys are the same name to a reader."""
    return normal(name).casefold()


def skeleton(name: str) -> str:
    """Letters and digits only, case-folded: 'Rule of 28 bot' and 'rule-of-28 BOT' agree."""
    return "".join(ch for ch in name_key(name) if ch.isalnum())


@cache
def bot_skeletons() -> dict[str, str]:
    """Each bot's display name by its skeleton."""
    return {skeleton(get_bot(n).display): get_bot(n).display for n in bot_names()}


def refused_character(text: str) -> str | None:
    """What is wrong with the first character plain text may not hold, or None."""
    for ch in text:
        why = REFUSED.get(unicodedata.category(ch))
        if why is not None:
            return f"U+{ord(ch):04X} ({unicodedata.name(ch, 'no name')}), {why}"
    return None


def checked_name(name: str, seat: int | None = None) -> str:
    """A person's name, normalised; refused, saying why (and which seat, if given), unless it
    is plain text that fits a record's tags and cannot pass for a bot."""
    where = "" if seat is None else f"seat {seat_letter(seat)}: "
    wrong = refused_character(name) or invisible_character(name)  # before NFKC, which drops some of them
    if wrong is not None:
        raise Invalid("bad_name", f"{where}the name holds {wrong}: {ALLOWED}")
    name = normal(name)
    if not 1 <= len(name) <= MAX_NAME:
        raise Invalid("bad_name", f"{where}the name has {len(name)} characters after normalising: {ALLOWED}")
    bad = sorted(RECORD_SYNTAX.intersection(name))
    if bad:
        raise Invalid("bad_name", f"{where}the name holds {' '.join(bad)}: {ALLOWED}")
    if name.casefold().startswith("bot:"):
        raise Invalid("bad_name", f"{where}{name!r} reads as a bot's name: 'bot:…' names bots, a person's name may not start so")
    if name.casefold().startswith(DELETED):
        raise Invalid("bad_name", f"{where}{name!r} reads as a deleted account's seat: a person's name may not start so")
    bot = bot_skeletons().get(skeleton(name))
    if bot is not None:
        raise Invalid("bad_name", f"{where}{name!r} reads as the bot {bot!r}: a person needs a name no bot has")
    return name


def same_name(a: str, b: str) -> bool:
    """Whether two people's names would be told apart by nobody."""
    return name_key(a) == name_key(b)
