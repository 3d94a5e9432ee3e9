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

# A dot above on a letter that has its dot already (i, j and the other Soft_Dotted letters:
# their own dot gives way only to a mark above) shows as that letter alone: 'Ali\u0307ce'
# reads 'Alice'. UTS #39's skeleton keeps the mark, so it is taken out first.
DOT_ABOVE = "\u0307"
_SOFT_DOTTED = icu.UProperty.SOFT_DOTTED
ABOVE = 230  # the canonical combining class of the marks drawn above a letter


def without_unseen_marks(text: str) -> str:
    """`text` (decomposed) without the marks that do not change how its letter looks: a dot
    above on a soft-dotted letter with no other mark above between them."""
    decomposed = unicodedata.normalize("NFD", text)
    if DOT_ABOVE not in decomposed:  # nearly every name
        return text
    kept: list[str] = []
    dotted = False  # the last letter shows a dot of its own where a dot above would go
    for ch in decomposed:
        mark = unicodedata.combining(ch)
        if ch == DOT_ABOVE and dotted:
            continue
        if mark == 0:
            dotted = icu.Char.hasBinaryProperty(ch, _SOFT_DOTTED)
        elif mark == ABOVE:
            dotted = False  # the letter's own dot gave way to this mark: a dot above it shows
        kept.append(ch)
    return unicodedata.normalize("NFC", "".join(kept))


# Drawn as a blank by every font, yet no property says so: it is a symbol (So) and graphic.
BLANK_SYMBOLS = {"\u2800": "the braille pattern blank"}
_IGNORABLE = icu.UProperty.DEFAULT_IGNORABLE_CODE_POINT
PRESENTATION = frozenset("\ufe0e\ufe0f")  # text and emoji presentation selectors


@cache
def _checker() -> icu.SpoofChecker:
    checker = icu.SpoofChecker()
    checker.setChecks(icu.USpoofChecks.INVISIBLE)  # the same combining mark twice on one letter
    return checker


def invisible_character(text: str, emoji: bool = False) -> str | None:
    """What is wrong with the first character of `text` that may show as nothing (or with a
    mark doubled so that it shows once), or None when every character shows. With `emoji`
    (chat), a presentation selector right after a character that shows is let through: it
    only picks how that character is drawn (the red heart of U+2764 U+FE0F)."""
    shown = False  # the character before shows
    for ch in text:
        if emoji and ch in PRESENTATION and shown:
            shown = False
            continue
        shown = True
        if icu.Char.hasBinaryProperty(ch, _IGNORABLE) or unicodedata.category(ch) == "Cf":
            return f"U+{ord(ch):04X} ({unicodedata.name(ch, 'no name')}), a character that may show as nothing"
        if ch in BLANK_SYMBOLS:
            return f"U+{ord(ch):04X} ({BLANK_SYMBOLS[ch]}), a character that shows as a blank"
    if _checker().check(text):
        return "the same combining mark twice in a row, which shows as one"
    return None


def lookalike_key(name: str) -> str:
    """What two names are told apart by at a glance: UTS #39's skeleton, case-folded, and the
    skeleton again (so 'MaIIory', 'Маllоry' and 'mallory' share one key), each time without
    the marks that do not show (`without_unseen_marks`: 'Ali\u0307ce' is 'Alice'). `name` is
    NFKC-normalised already (`names.normal`)."""
    checker = _checker()
    once = without_unseen_marks(checker.getSkeleton(0, without_unseen_marks(name)).casefold())
    return without_unseen_marks(str(checker.getSkeleton(0, once)))
