"""The lobby: creating games (and rematches), taking seats, and the start of play.

A game is created rated or friendly. A rated game seats signed-in people only, each on a
seat of their own account, on a rated variant (`players.ratings.rated_variant`); a friendly
one seats anybody, guests included, and several people at one screen.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cantstop.bots import get_bot
from cantstop.core.dice import roll_off
from cantstop.core.errors import BotUnfitError, UnknownBotError, VariantError
from cantstop.core.notation import seat_letter
from cantstop.core.variant import Variant, preset
from cantstop.table.wording import roll_off_text
from cantstop.web.db.tokens import new_token
from cantstop.web.db.values import (
    ENDED,
    LIVE,
    GameStatus,
    RematchExists,
    SeatKind,
    StoredGame,
    Taker,
)
from cantstop.web.errors import Conflict, Invalid, NotAllowed
from cantstop.web.games.describe import summary_json
from cantstop.web.games.live import LiveGame, LiveGames
from cantstop.web.names import checked_name, same_name
from cantstop.web.players.ratings import rated_variant

GUESTS_UNRATED = "guests play friendly games: sign in to play rated ones"


def bot_spec(name: str, variant: Variant, players: int) -> str:
    """Check a bot name or level now, so a game never starts with a bot that cannot play."""
    try:
        info = get_bot(name)
        info.check(variant, players)
    except (UnknownBotError, BotUnfitError) as error:
        raise Invalid("bad_seat", str(error)) from None
    return info.name


def new_taker(name: str, account_id: int | None, seat: int | None = None) -> Taker:
    """Who takes a seat, with the seat's new token: an account under its own name, a guest
    under `name` once checked (refused, saying why, naming `seat` if given)."""
    return Taker(name if account_id is not None else checked_name(name, seat), new_token(), account_id)


class Lobby:
    def __init__(self, games: LiveGames) -> None:
        self.games = games
        self.recorder = games.recorder
        self.storage = games.storage

    async def create(
        self, variant: str, seats: list[str], people: Mapping[int, Taker] | None = None, rematch_of: str | None = None,
        clock: int = 0, rated: bool = False,
    ) -> str:
        """A new game, `rated` or friendly, with a move `clock` of that many seconds (0: none);
        `people` maps open seats the creating client takes at once (itself, and in a friendly
        game more people at its screen) to who takes them. All is checked before anything is
        stored; with `rematch_of` the new game is stored as that game's rematch, or not at all."""
        try:
            v = preset(variant)
        except VariantError as error:
            raise Invalid("bad_variant", str(error)) from None
        if why := v.players_text(len(seats)):
            raise Invalid("bad_seats", why)
        parsed: list[tuple[SeatKind, str | None]] = []
        for seat in seats:
            text = seat.strip()
            if text == SeatKind.OPEN:
                parsed.append((SeatKind.OPEN, None))
            elif text.startswith("bot:"):
                parsed.append((SeatKind.BOT, bot_spec(text[4:], v, len(seats))))
            else:
                raise Invalid("bad_seat", f"a seat is 'open' or 'bot:NAME' (a bot name or level), not {seat!r}")
        # (a plain (name, token) pair is a guest's Taker too)
        taken = {i: Taker(*taker)._replace(name=checked_name(taker[0], i)) for i, taker in (people or {}).items()}
        for i in taken:
            if not 0 <= i < len(parsed) or parsed[i][0] is not SeatKind.OPEN:
                opened = ", ".join(str(j) for j, (kind, _) in enumerate(parsed) if kind is SeatKind.OPEN) or "none"
                raise Invalid("bad_seat", f"only open seats can be taken, not seat {i}; open seats: {opened}")
        names = [taker.name for taker in taken.values()]
        if any(same_name(a, b) for i, a in enumerate(names) for b in names[i + 1:]):
            raise Invalid("bad_name", "each person at this screen needs a different name")
        accounts = [t.account_id for t in taken.values() if t.account_id is not None]
        if len(set(accounts)) < len(accounts):
            raise Invalid("bad_seat", "an account takes one seat of a game")
        if rated:
            self._check_rated(v, parsed, taken)
        try:
            game_id = await self.recorder.db(self.storage.create_game, variant.strip(), parsed, taken, rematch_of, clock, rated)
        except RematchExists as exists:
            raise Conflict(
                "rematch_exists", f"this game's rematch was created already: join it at /game/{exists.game_id}",
                game=exists.game_id, url=f"/game/{exists.game_id}",
            ) from None
        if all(kind is SeatKind.BOT or i in taken for i, (kind, _) in enumerate(parsed)):
            game = await self.games.live(game_id)
            async with game.lock:
                await self._start(game)
        return game_id

    @staticmethod
    def _check_rated(variant: Variant, parsed: list[tuple[SeatKind, str | None]], taken: Mapping[int, Taker]) -> None:
        """Refused, saying why, unless a game can be rated: a rated variant, a person's seat at
        least, and every seat taken now taken by a signed-in person for their own account."""
        why = rated_variant(variant, len(parsed))
        if why is not None:
            raise Invalid("not_rated_variant", why)
        if all(kind is SeatKind.BOT for kind, _ in parsed):
            raise Invalid("bad_seats", "a rated game is played by people: leave a seat open for a signed-in person")
        if any(t.account_id is None for t in taken.values()):
            raise NotAllowed("rated_needs_account", f"a rated game seats signed-in people only, each on their own device: {GUESTS_UNRATED}")

    async def rematch(self, game_id: str, seats: set[int]) -> tuple[str, dict[int, str]]:
        """A new game like finished game `game_id`, asked for by the client holding `seats`:
        the same variant and seats in the same order (the roll-off picks who starts), the same
        bots, `seats` taken again under the same names, and every other person's seat open
        for them to join by the link. Returns its id and the new tokens of `seats`."""
        game = await self.games.live(game_id)
        async with game.lock:
            await self.games.refresh(game, seats=True)
            if not game.finished:
                raise Conflict("not_over", "a rematch is for a finished game: this one is still being played")
            if not seats:
                raise NotAllowed("not_seated", "only a player of this game can start its rematch: spectators can create a game on the home page")
            old = game.meta.seats
            people = {s: Taker(old[s].name or seat_letter(s), new_token(), old[s].account_id) for s in sorted(seats)}
            specs = [f"bot:{s.bot}" if s.kind is SeatKind.BOT else SeatKind.OPEN.value for s in old]
            new_id = await self.create(game.meta.variant, specs, people, rematch_of=game_id, clock=game.meta.clock, rated=game.meta.rated)
            await self.games.reread(game)
            self.games.publish(game, [])  # everyone still on the finished game hears of it
        return new_id, {s: taker.token for s, taker in people.items()}

    async def join(self, game_id: str, seat: int, name: str, account_id: int | None = None) -> str:
        """Give open `seat` to `name` (of the signed-in account `account_id`, if any) and return
        its new token. Refused, with nothing stored, for a game already under way or over, a
        seat out of range or not open, a name another person of this game has (people at one
        screen, and the record, tell players by name), an account seated already, or a guest
        at a rated game."""
        name = checked_name(name, seat)
        held = game_id in self.games.held
        game = await self.games.live(game_id)
        async with game.lock:
            if held:  # else `live` has just read it
                await self.games.reread(game)  # another process may have seated someone
            open_seats = game.open_seats
            if game.meta.status is not GameStatus.WAITING:
                how = {GameStatus.OVER: "is over", GameStatus.ABANDONED: "has ended, abandoned"}.get(game.meta.status, "has started with every seat taken")
                raise Conflict("not_waiting", f"the game {how}: seats can be taken only before it starts")
            if not 0 <= seat < len(game.meta.seats):
                raise Invalid("bad_seat", f"this game has seats 0..{len(game.meta.seats) - 1}, not {seat}; open seats: {open_seats}")
            check_seated(game.meta, name, account_id)
            claimed = await self.recorder.db(self.storage.claim_seat, game_id, seat, name, account_id)
            if claimed is None:
                raise Conflict("seat_taken", f"seat {seat} ({seat_letter(seat)}) is not open; open seats: {open_seats}")
            token, game.meta = claimed
            if all(s.kind is not SeatKind.OPEN for s in game.meta.seats):
                await self._start(game)
            else:
                self.games.publish(game, [])
        return token

    async def _start(self, game: LiveGame) -> None:
        """Every seat is taken (the caller holds the game's lock): roll off for the first player and begin."""
        v = preset(game.meta.variant)
        rolloff = roll_off(v, len(game.meta.seats), self.games.dice)
        tags = {
            **game.meta.tags,  # a tournament's game came with its Event and Round
            "RollOff": roll_off_text(rolloff),
            "Site": "cantstop serve",
            "Game": game.meta.id,
            "Date": game.meta.created.strftime("%Y.%m.%d"),
        }
        started = await self.recorder.db(self.storage.start, game.meta.id, rolloff.first, tags)
        game.driven = 0
        if started is None:  # another process started it first: as it did
            await self.games.refresh(game)
        else:
            await self.games.begin(game, started)
        self.games.turn_begins(game)

    async def start_seated(self, game_id: str) -> None:
        """Start a waiting game whose seats were all taken when it was made (a tournament's
        round), unless it has started meanwhile, here or in another process."""
        game = await self.games.live(game_id)
        async with game.lock:
            await self.games.reread(game)
            if game.meta.status is GameStatus.WAITING and all(s.kind is not SeatKind.OPEN for s in game.meta.seats):
                await self._start(game)

    async def listed(self, finished: bool) -> list[dict[str, Any]]:
        """Games waiting for players or in play, the last moved first; with `finished`, those that ended."""
        games = await self.recorder.db(self.storage.games, ENDED if finished else LIVE, 100)
        return [summary_json(g) for g in games]

    async def seat_of(self, game_id: str, token: str | None, account_id: int | None = None) -> int | None:
        """The seat `token` holds in the game, else the seat of the signed-in account
        `account_id`; None for neither (a spectator)."""
        seat = await self.recorder.db(self.storage.seat_of, game_id, token) if token else None
        if seat is None and account_id is not None:
            seat = await self.recorder.db(self.storage.seat_of_account, game_id, account_id)
        return seat

    async def held_seat(self, game_id: str, token: str, account_id: int | None = None) -> int:
        """As `seat_of`, but a token that holds no seat (with no account's seat to fall back
        on) is refused."""
        seat = await self.seat_of(game_id, token, account_id)
        if seat is None:
            raise NotAllowed("bad_token", "a token holds no seat in this game; nothing was done")
        return seat

def check_seated(game: StoredGame, name: str, account_id: int | None) -> None:
    """Refused unless `name` (of `account_id`) may join `game`: a rated game seats accounts
    only, an account takes one seat, and each person in a game has a name of their own."""
    if game.rated and account_id is None:
        raise NotAllowed("rated_needs_account", f"this game is rated: {GUESTS_UNRATED}")
    mine = [s for s in game.seats if account_id is not None and s.account_id == account_id]
    if mine:
        raise Conflict("already_seated", f"you play seat {seat_letter(mine[0].seat)} of this game already: an account takes one seat")
    same = [s for s in game.seats if s.kind is SeatKind.PERSON and same_name(s.name or "", name)]
    if same:
        raise Invalid("bad_name", f"{same[0].name} already plays seat {seat_letter(same[0].seat)}: each person in a game needs a different name")
