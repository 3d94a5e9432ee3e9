"""The lobby: creating games (and rematches), taking seats, and the start of play."""

from __future__ import annotations

from collections.abc import Mapping

from cantstop.bots import get_bot
from cantstop.core.dice import roll_off
from cantstop.core.errors import BotUnfitError, UnknownBotError, VariantError
from cantstop.core.notation import seat_letter
from cantstop.core.variant import Variant, preset
from cantstop.table.wording import roll_off_text
from cantstop.web.db.tokens import new_token
from cantstop.web.db.values import GameStatus, RematchExists, SeatKind
from cantstop.web.errors import Conflict, Invalid, NotAllowed
from cantstop.web.games.live import LiveGame, LiveGames
from cantstop.web.names import checked_name, same_name


def bot_spec(name: str, variant: Variant, players: int) -> str:
    """Check a bot name or level now, so a game never starts with a bot that cannot play."""
    try:
        info = get_bot(name)
        info.check(variant, players)
    except (UnknownBotError, BotUnfitError) as error:
        raise Invalid("bad_seat", str(error)) from None
    return info.name


class Lobby:
    def __init__(self, games: LiveGames) -> None:
        self.games = games
        self.recorder = games.recorder
        self.storage = games.storage

    async def create(
        self, variant: str, seats: list[str], people: Mapping[int, tuple[str, str]] | None = None, rematch_of: str | None = None,
        clock: int = 0,
    ) -> str:
        """A new game with a move `clock` of that many seconds (0: none); `people` maps open seats the creating client takes at once (people at
        one screen) to (name, token). All is checked before anything is stored; with
        `rematch_of` the new game is stored as that game's rematch, or not at all."""
        try:
            v = preset(variant)
        except VariantError as error:
            raise Invalid("bad_variant", str(error)) from None
        if not v.min_players <= len(seats) <= v.max_players:
            raise Invalid("bad_seats", f"{v.name} is for {v.min_players}..{v.max_players} players, not {len(seats)}")
        parsed: list[tuple[SeatKind, str | None]] = []
        for seat in seats:
            text = seat.strip()
            if text == SeatKind.OPEN:
                parsed.append((SeatKind.OPEN, None))
            elif text.startswith("bot:"):
                parsed.append((SeatKind.BOT, bot_spec(text[4:], v, len(seats))))
            else:
                raise Invalid("bad_seat", f"a seat is 'open' or 'bot:NAME' (a bot name or level), not {seat!r}")
        taken = {i: (checked_name(name, i), token) for i, (name, token) in (people or {}).items()}
        for i in taken:
            if not 0 <= i < len(parsed) or parsed[i][0] is not SeatKind.OPEN:
                opened = ", ".join(str(j) for j, (kind, _) in enumerate(parsed) if kind is SeatKind.OPEN) or "none"
                raise Invalid("bad_seat", f"only open seats can be taken, not seat {i}; open seats: {opened}")
        names = [name for name, _ in taken.values()]
        if any(same_name(a, b) for i, a in enumerate(names) for b in names[i + 1:]):
            raise Invalid("bad_name", "each person at this screen needs a different name")
        try:
            game_id = await self.recorder.db(self.storage.create_game, variant.strip(), parsed, taken, rematch_of, clock)
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
            people = {s: (old[s].name or seat_letter(s), new_token()) for s in sorted(seats)}
            specs = [f"bot:{s.bot}" if s.kind is SeatKind.BOT else SeatKind.OPEN.value for s in old]
            new_id = await self.create(game.meta.variant, specs, people, rematch_of=game_id, clock=game.meta.clock)
            await self.games.reread(game)
            self.games.publish(game, [])  # everyone still on the finished game hears of it
        return new_id, {s: token for s, (_, token) in people.items()}

    async def join(self, game_id: str, seat: int, name: str) -> str:
        """Give open `seat` to `name` and return its new token. Refused, with nothing stored, for
        a game already under way or over, a seat out of range or not open, or a name another
        person of this game has (people at one screen, and the record, tell players by name)."""
        name = checked_name(name, seat)
        game = await self.games.live(game_id)
        async with game.lock:
            await self.games.reread(game)  # another process may have seated someone
            open_seats = game.open_seats
            if game.meta.status is not GameStatus.WAITING:
                how = {GameStatus.OVER: "is over", GameStatus.ABANDONED: "has ended, abandoned"}.get(game.meta.status, "has started with every seat taken")
                raise Conflict("not_waiting", f"the game {how}: seats can be taken only before it starts")
            if not 0 <= seat < len(game.meta.seats):
                raise Invalid("bad_seat", f"this game has seats 0..{len(game.meta.seats) - 1}, not {seat}; open seats: {open_seats}")
            same = [s for s in game.meta.seats if s.kind is SeatKind.PERSON and same_name(s.name or "", name)]
            if same:
                raise Invalid("bad_name", f"{same[0].name} already plays seat {seat_letter(same[0].seat)}: each person in a game needs a different name")
            token = await self.recorder.db(self.storage.claim_seat, game_id, seat, name)
            if token is None:
                raise Conflict("seat_taken", f"seat {seat} ({seat_letter(seat)}) is not open; open seats: {open_seats}")
            await self.games.reread(game)
            if all(s.kind is not SeatKind.OPEN for s in game.meta.seats):
                await self._start(game)
            else:
                self.games.publish(game, [])
        return str(token)

    async def _start(self, game: LiveGame) -> None:
        """Every seat is taken (the caller holds the game's lock): roll off for the first player and begin."""
        v = preset(game.meta.variant)
        rolloff = roll_off(v, len(game.meta.seats), self.games.dice)
        tags = {
            "RollOff": roll_off_text(rolloff),
            "Site": "cantstop serve",
            "Game": game.meta.id,
            "Date": game.meta.created.strftime("%Y.%m.%d"),
        }
        await self.recorder.db(self.storage.start, game.meta.id, rolloff.first, tags)
        game.driven = 0
        await self.games.refresh(game)

    async def seat_of(self, game_id: str, token: str | None) -> int | None:
        """The seat `token` holds in the game; None for no token or one that holds no seat."""
        if not token:
            return None
        return await self.recorder.db(self.storage.seat_of, game_id, token)

    async def held_seat(self, game_id: str, token: str) -> int:
        """The seat `token` holds in the game; a token that holds none is refused."""
        seat = await self.seat_of(game_id, token)
        if seat is None:
            raise NotAllowed("bad_token", "a token holds no seat in this game; nothing was done")
        return seat
