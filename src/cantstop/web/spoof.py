"""Names nobody can imitate: characters that show as nothing, and look-alike skeletons.

Two names may differ underneath and read the same. Unicode says which characters a
renderer may draw as nothing (the Default_Ignorable_Code_Point property: joiners, variation
selectors, Hangul fillers, the combining grapheme joiner, tags...) and which only format
text (general category Cf); UTS #39 says which characters look alike, as a "skeleton" that
look-alike strings share. ICU (through PyICU) holds both tables, kept up to date with Unicode.
"""

from __future__ import annotations

import unicodedata
from functools import cache

import icu

# Drawn as a blank by every font, yet no property says so: it is a symbol (So) and graphic.
BLANK_SYMBOLS = {"\u2800": "the braille pattern blank"}
_IGNORABLE = icu.UProperty.DEFAULT_IGNORABLE_CODE_POINT


@cache
def _checker() -> icu.SpoofChecker:
    checker = icu.SpoofChecker()
    checker.setChecks(icu.USpoofChecks.INVISIBLE)  # the same combining mark twice on one letter
    return checker


def invisible_character(text: str) -> str | None:
    """What is wrong with the first character of `text` that may show as nothing (or with a
    mark doubled so that it shows once), or None when every character shows."""
    for ch in text:
        if icu.Char.hasBinaryProperty(ch, _IGNORABLE) or unicodedata.category(ch) == "Cf":
            return f"U+{ord(ch):04X} ({unicodedata.name(ch, 'no name')}), a character that may show as nothing"
        if ch in BLANK_SYMBOLS:
            return f"U+{ord(ch):04X} ({BLANK_SYMBOLS[ch]}), a character that shows as a blank"
    if _checker().check(text):
        return "the same combining mark twice in a row, which shows as one"
    return None


def lookalike_key(name: str) -> str:
    """What two names are told apart by at a glance: UTS #39's skeleton, case-folded, and the
    skeleton again (so 'MaIIory', 'Маllоry' and 'mallory' share one key). `name` is
    NFKC-normalised already (`names.normal`)."""
    checker = _checker()
    return str(checker.getSkeleton(0, checker.getSkeleton(0, name).casefold()))
