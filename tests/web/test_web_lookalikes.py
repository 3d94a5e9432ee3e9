"""Names nobody can imitate: characters that show as nothing, and names that look like an account's."""

from __future__ import annotations

import icu
import pytest
from account_helpers import PASSWORD, csrf, sign_up
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st
from web_helpers import new_game

from cantstop.web.errors import Invalid
from cantstop.web.identity.accounts import name_hashes
from cantstop.web.names import checked_name, normal
from cantstop.web.spoof import invisible_character, lookalike_key


def code_points(pattern: str) -> list[str]:
    """Every character of an ICU set pattern such as '[:Default_Ignorable_Code_Point:]'."""
    return [str(ch) for ch in icu.UnicodeSet(pattern)]


# Assigned characters only: unassigned ones are refused as such already.
INVISIBLE = code_points("[[:Default_Ignorable_Code_Point:][:Cf:]-[:Cn:]]")
PLAIN = st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -_."), min_size=2, max_size=20)
# Latin letters and a Cyrillic or Greek twin that looks the same.
TWINS = {"a": "а", "e": "е", "o": "о", "p": "р", "c": "с", "x": "х", "y": "у", "i": "і", "A": "Α", "B": "Β", "E": "Ε", "O": "Ο"}


def test_the_invisible_class_is_derived_from_unicode_not_a_short_list() -> None:
    assert len(INVISIBLE) > 400  # joiners, variation selectors, tags, fillers, bidi controls...
    for ch in ("\u3164", "\u034f", "\u200b", "\u200d", "\u2060", "\ufe0f", "\U000e0041", "\u115f", "\uffa0", "\u180e", "\u2800"):
        assert invisible_character(f"Mal{ch}lory") is not None, f"U+{ord(ch):04X}"


@given(PLAIN.filter(lambda s: s.strip()), st.sampled_from(INVISIBLE), st.integers(0, 20))
def test_a_name_holding_any_invisible_character_is_refused(name: str, hidden: str, at: int) -> None:
    with pytest.raises(Invalid) as refused:
        checked_name(name[:at] + hidden + name[at:])
    assert refused.value.code == "bad_name" and f"U+{ord(hidden):04X}" in refused.value.message


def test_a_mark_doubled_on_one_letter_is_refused_and_one_mark_is_fine() -> None:
    assert checked_name("Zoë") == "Zoë" and checked_name("Zoe\u0308") == "Zoë"
    with pytest.raises(Invalid, match="combining mark twice"):
        checked_name("Zoe\u0308\u0308")


@given(PLAIN, st.data())
def test_swapping_letters_for_their_twins_in_other_scripts_keeps_the_key(name: str, data: st.DataObject) -> None:
    twin = "".join(TWINS[ch] if ch in TWINS and data.draw(st.booleans()) else ch for ch in name)
    assert lookalike_key(normal(twin)) == lookalike_key(normal(name))


def same_to_the_eye(a: str, b: str) -> bool:
    """Whether an account called `a` keeps `b` out: one of the hashes its name is kept under is b's."""
    return any(x == y for x, y in zip(name_hashes(a), name_hashes(b)))


@given(PLAIN, st.data())
def test_no_change_of_case_or_script_makes_a_name_another(name: str, data: st.DataObject) -> None:
    twin = "".join(TWINS.get(ch, ch) if data.draw(st.booleans()) else ch for ch in name)
    pairs = [(name, name.upper()), (name, name.lower()), (name, name.swapcase()), (name, twin), (name.upper(), twin.upper())]
    for a, b in pairs:
        assert same_to_the_eye(a, b) and same_to_the_eye(b, a)


def test_names_that_differ_to_the_eye_keep_different_keys() -> None:
    keys = {lookalike_key(n) for n in ("Mallory", "Malory", "Ann", "Anne", "Bob", "Alice")}
    assert len(keys) == 6


MALLORIES = ["Mallory", "mallory", "MALLORY", "MaIIory", "Маllоry", "Mallοry", "Ma11ory", "rnallory", "Ｍａｌｌｏｒｙ"]


@pytest.mark.parametrize("impostor", MALLORIES)
def test_no_account_and_no_guest_can_take_a_name_that_looks_like_an_accounts(client: TestClient, impostor: str) -> None:
    sign_up(TestClient(client.app), "Mallory")
    taken = client.post("/api/account/sign-up", json={"name": impostor, "password": PASSWORD})
    assert taken.status_code == 409 and taken.json()["error"] == "name_taken"
    game_id = new_game(client, ["open", "open"])
    seated = client.post(f"/api/games/{game_id}/join", json={"seat": 0, "name": impostor})
    assert seated.status_code == 409 and seated.json()["error"] == "name_taken"
    created = client.post("/api/games", json={"seats": ["open", "open"], "take": [{"seat": 0, "name": impostor}]})
    assert created.status_code == 409


def test_the_account_itself_plays_under_its_name(client: TestClient) -> None:
    sign_up(client, "Mallory")
    created = client.post("/api/games", json={"seats": ["open", "open"], "take": [{"seat": 0, "name": "mallory"}]}, headers=csrf(client))
    assert created.status_code == 201
    game_id = client.post("/api/games", json={"seats": ["open"]}, headers=csrf(client)).json()["id"]
    assert client.post(f"/api/games/{game_id}/join", json={"seat": 0, "name": "Mallory"}, headers=csrf(client)).status_code == 200


@pytest.mark.parametrize("name", ["\u3164", "\u2800", "\u3164\u3164 \u2800", "Mal\u034flory", "Mallory\u200d", "\u115f\u1160"])
def test_invisible_names_are_refused_for_accounts_and_seats(client: TestClient, name: str) -> None:
    refused = client.post("/api/account/sign-up", json={"name": name, "password": PASSWORD})
    assert refused.status_code == 422 and refused.json()["error"] == "bad_name"
    seated = client.post(f"/api/games/{new_game(client, ['open'])}/join", json={"seat": 0, "name": name})
    assert seated.status_code == 422 and seated.json()["error"] == "bad_name"


SOFT_DOTTED = code_points("[:Soft_Dotted:]")


@given(PLAIN, st.sampled_from(SOFT_DOTTED), st.integers(0, 20))
def test_a_dot_above_a_letter_that_shows_its_dot_keeps_the_key(name: str, letter: str, at: int) -> None:
    """Every soft-dotted letter (i, j, and their kin in other scripts and styles) shows its dot
    until a mark above takes its place: a dot above it adds nothing to the eye."""
    plain = name[:at] + letter + name[at:]
    dotted = name[:at] + letter + "\u0307" + name[at:]
    assert lookalike_key(normal(dotted)) == lookalike_key(normal(plain))


def test_a_dot_above_another_mark_above_does_show() -> None:
    """Once an accent takes the dot's place, a dot above it is seen: 'i\u0301\u0307' is not 'i\u0301'."""
    assert lookalike_key(normal("Ali\u0301\u0307ce")) != lookalike_key(normal("Ali\u0301ce"))
