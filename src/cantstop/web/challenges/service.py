"""The challenges room's service: challenging an account to a game of two, accepting (which
makes and starts the game), declining and withdrawing, each a whole job with every check
made before anything is stored; and telling the accounts concerned, by their webhooks.

A challenge obeys what a game would: the challenger and the account challenged may both
play (no suspension), neither blocks the other, the rules are for two players, and a rated
challenge is on rules a rated game is played on. It lasts a day (`store.LASTS`): after that
it reads as expired at once, and the sweep stores it so.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from cantstop.core.errors import VariantError
from cantstop.core.variant import preset, variant_title
from cantstop.web.challenges.store import (
    LASTS,
    Challenge,
    ChallengeState,
    ChallengeStore,
    SeatOrder,
)
from cantstop.web.db.tokens import GAME_ID
from cantstop.web.db.values import RatingKind
from cantstop.web.errors import Conflict, Invalid, NotAllowed, NotFound
from cantstop.web.games.clock import duration_text
from cantstop.web.games.turns import TurnHooks
from cantstop.web.identity.accounts import Account
from cantstop.web.identity.service import AccountService
from cantstop.web.lobby.service import Lobby
from cantstop.web.players.profiles import profile_url
from cantstop.web.players.ratings import rated_variant
from cantstop.web.social.service import Social
from cantstop.web.webhooks import time_text

SHOWN = timedelta(hours=24)  # how long a challenger's page shows an answer (or an expiry)
ID_CHARS = 32  # the longest id worth looking up


def person_json(name: str) -> dict[str, str]:
    return {"name": name, "url": profile_url(name, RatingKind.PERSON)}


def challenge_json(c: Challenge, at: datetime) -> dict[str, Any]:
    """A challenge as the pages read it, in its state at `at`."""
    return {
        "id": c.id, "from": person_json(c.challenger), "to": person_json(c.challenged), "rules": c.variant,
        "title": variant_title(c.variant), "clock": c.clock, "clock_text": f"{duration_text(c.clock)} a move" if c.clock else "no clock",
        "rated": c.rated, "seats": c.seats.value, "created": time_text(c.created), "expires": time_text(c.expires),
        "state": c.state_at(at).value, "game": c.game_id, "url": None if c.game_id is None else f"/game/{c.game_id}",
    }


def challenge_event(c: Challenge, origin: str, at: datetime) -> dict[str, Any]:
    """What the webhook of the account challenged receives: who, to what, until when, and
    the page where it is answered."""
    return {
        "event": "challenge", "challenge": c.id, "from": c.challenger, "rules": c.variant, "clock": c.clock, "rated": c.rated,
        "seats": c.seats.value, "expires": time_text(c.expires), "url": f"{origin}/", "sent": time_text(at),
    }


def answered_event(c: Challenge, answer: ChallengeState, game_id: str | None, origin: str, at: datetime) -> dict[str, Any]:
    """What the challenger's webhook receives when its challenge is accepted (with the game) or declined."""
    return {
        "event": "challenge_answered", "challenge": c.id, "by": c.challenged, "answer": answer.value, "game": game_id,
        "url": None if game_id is None else f"{origin}/game/{game_id}", "sent": time_text(at),
    }


class Challenges:
    """`most`: open challenges one account may have sent at once (`Settings.challenges_open`);
    `clock`: the time as stored, which tests move on; `draw`: the seat (0 or 1) a challenge
    with a random seat order gives its challenger."""

    def __init__(
        self, lobby: Lobby, social: Social, identity: AccountService, turns: TurnHooks, most: int,
        clock: Callable[[], datetime], draw: Callable[[], int] = lambda: secrets.randbelow(2),
    ) -> None:
        self.lobby, self.social, self.identity, self.turns = lobby, social, identity, turns
        self.most, self.clock, self.draw = most, clock, draw
        self.run = lobby.recorder.db
        self.store = ChallengeStore(lobby.storage)

    # ------------------------------------------------------------ challenging
    async def create(self, me: Account, to: str, rules: str, clock: int, rated: bool, seats: SeatOrder) -> dict[str, Any]:
        """Challenge the account `to`. Refused, with nothing stored and the field named: a
        suspended challenger (NotAllowed `suspended`), `to` oneself (Invalid `bad_name`), no
        open account of that name (NotFound `no_account`), one that may not play (NotAllowed
        `cannot_play`), a block either way (NotAllowed `blocked`), rules that are unknown or
        not for two (Invalid `bad_rules`), rated on rules that are not (Invalid
        `not_rated_variant`), past the open limit (Conflict `too_many`), or an open challenge
        between the two already (Conflict `challenged_already`)."""
        await self.identity.may_play(me.id)
        other = await self.social.account(to, "to", me)
        if await self.social.between(me.id, other.id):
            raise NotAllowed("blocked", f"to: you cannot challenge {other.name} (one of you blocks the other)")
        if (await self.identity.standing(other.id)).suspended is not None:
            raise NotAllowed("cannot_play", f"to: {other.name} may not play games now")
        variant = checked_rules(rules, rated)
        at = self.clock()
        made = await self.run(self.store.create, me.id, other.id, other.name, variant, clock, rated, seats, at, self.most)
        found = await self._found(made, me)
        self.turns.post(other.id, lambda: challenge_event(found, self.turns.origin, at))
        return challenge_json(found, at)

    # ------------------------------------------------------------ answering
    async def accept(self, me: Account, challenge_id: str) -> dict[str, Any]:
        """Accept a challenge made to `me`: its game is made, both seats taken in the order
        it asked for, and started. Refused (nothing stored): a challenge that is not there for
        `me` (NotFound `no_challenge`), one's own (NotAllowed `own_challenge`), one no longer
        open (Conflict `expired`, `answered`), a player who may not play now (NotAllowed
        `suspended`, `cannot_play`), a block made since (NotAllowed `blocked`)."""
        found = await self._found(challenge_id, me)
        if found.challenger_id == me.id:
            raise NotAllowed("own_challenge", "challenge: you made this challenge; the account you challenged accepts it (or you withdraw it)")
        at = self.clock()
        still_open(found, at)
        await self.identity.may_play(me.id)
        if (await self.identity.standing(found.challenger_id)).suspended is not None:
            raise NotAllowed("cannot_play", f"challenge: {found.challenger} may not play games now")
        if await self.social.between(me.id, found.challenger_id):
            raise NotAllowed("blocked", f"challenge: you cannot play {found.challenger} (one of you blocks the other)")
        seat = {SeatOrder.FIRST: 0, SeatOrder.SECOND: 1}.get(found.seats)
        game_id = await self.run(self.store.accept, found, self.draw() if seat is None else seat, at)
        if game_id is None:  # answered, withdrawn or expired a moment ago (another click, another process)
            still_open(await self._found(challenge_id, me), at)
            raise Conflict("answered", "challenge: it is no longer open")
        await self.lobby.start_seated(game_id)
        self.turns.post(found.challenger_id, lambda: answered_event(found, ChallengeState.ACCEPTED, game_id, self.turns.origin, at))
        return challenge_json(await self._found(challenge_id, me), at)

    async def decline(self, me: Account, challenge_id: str) -> dict[str, Any]:
        """Decline a challenge made to `me`: it is gone, and its challenger is told."""
        return await self._close(me, challenge_id, ChallengeState.DECLINED)

    async def withdraw(self, me: Account, challenge_id: str) -> dict[str, Any]:
        """Withdraw a challenge `me` made, before it is answered."""
        return await self._close(me, challenge_id, ChallengeState.WITHDRAWN)

    async def _close(self, me: Account, challenge_id: str, state: ChallengeState) -> dict[str, Any]:
        found = await self._found(challenge_id, me)
        declining = state is ChallengeState.DECLINED
        if (found.challenged_id if declining else found.challenger_id) != me.id:
            raise NotAllowed("not_yours", "challenge: only the account challenged declines a challenge" if declining
                             else "challenge: only the challenger withdraws a challenge; decline it instead")
        at = self.clock()
        still_open(found, at)
        if not await self.run(self.store.close, challenge_id, me.id, state, at):
            still_open(await self._found(challenge_id, me), at)
            raise Conflict("answered", "challenge: it is no longer open")
        if declining:
            self.turns.post(found.challenger_id, lambda: answered_event(found, state, None, self.turns.origin, at))
        return challenge_json(await self._found(challenge_id, me), at)

    async def _found(self, challenge_id: str, me: Account) -> Challenge:
        """The challenge `me` made or was made: NotFound `no_challenge` for any other (one that
        does not exist, or is between two other accounts, alike)."""
        # An id is made of what a game's is (a NUL, say, is never looked up: PostgreSQL refuses it).
        wellformed = len(challenge_id) <= ID_CHARS and GAME_ID.fullmatch(challenge_id) is not None
        found = await self.run(self.store.challenge, challenge_id) if wellformed else None
        if found is None or me.id not in (found.challenger_id, found.challenged_id):
            raise NotFound("no_challenge", f"challenge: you have no challenge {challenge_id[:ID_CHARS]!r}")
        return found

    # ------------------------------------------------------------ reading
    async def mine(self, me: Account) -> dict[str, Any]:
        """The challenges made to `me` and open (`received`), and those `me` made: open, or
        accepted (with the game), declined or expired within SHOWN (`sent`)."""
        at = self.clock()
        found = await self.run(self.store.mine, me.id, at, at - SHOWN)
        return {
            "received": [challenge_json(c, at) for c in found if c.challenged_id == me.id and c.state_at(at) is ChallengeState.OPEN],
            "sent": [challenge_json(c, at) for c in found if c.challenger_id == me.id],
            "most": self.most, "lasts": int(LASTS.total_seconds()),
        }

    # ------------------------------------------------------------ the rest
    async def blocked(self, blocker: int, blocked: int) -> None:
        """A block was made: the open challenge between the two is gone (withdrawn, if the
        blocker made it; declined, if it was made to the blocker)."""
        await self.run(self.store.blocked, blocker, blocked, self.clock())

    async def sweep(self) -> int:
        """The sweeper's look: expired challenges stored so, old ones deleted, and the game of
        an accepted challenge that was made but not started (its process stopped) started."""
        expired, waiting = await self.run(self.store.sweep, self.clock())
        for game_id in waiting:
            await self.lobby.start_seated(game_id)
        return expired + len(waiting)


def checked_rules(rules: str, rated: bool) -> str:
    """The rules of a challenge, checked: Invalid `bad_rules` for rules that are unknown or
    not for two players, `not_rated_variant` for a rated challenge on rules that are not."""
    try:
        variant = preset(rules)
    except VariantError as error:
        raise Invalid("bad_rules", f"rules: {error}") from None
    if not variant.min_players <= 2 <= variant.most_players:
        raise Invalid("bad_rules", f"rules: {variant.name} is for {variant.min_players}..{variant.most_players} players; a challenge"
                      " is a game of two")
    if rated:
        why = rated_variant(variant, 2)
        if why is not None:
            raise Invalid("not_rated_variant", f"rated: {why}")
    return rules.strip()


def still_open(c: Challenge, at: datetime) -> None:
    """Conflict unless the challenge is open at `at`: `expired`, or `answered` (saying how)."""
    state = c.state_at(at)
    if state is ChallengeState.EXPIRED:
        raise Conflict("expired", f"challenge: it expired at {c.expires:%Y-%m-%d %H:%M} UTC (a challenge lasts {duration_text(LASTS.total_seconds())})")
    if state is not ChallengeState.OPEN:
        raise Conflict("answered", f"challenge: it was {state.value} already")
