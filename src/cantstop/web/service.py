"""One process's game server: the lobby, the live games, the bot seats, the move clock,
leaving games (resigning, abandoning), the sweeper, the chat, the players' pages, the "your
turn" hooks, the tournaments, the challenges, quick pairing, the games' analyses and the record writer wired together around one storage. Each part lives in
its own module; a room that comes next (accounts, operations) is one more here."""

from __future__ import annotations

import time
from collections.abc import Callable

from cantstop.core.dice import SecureDice
from cantstop.web.challenges.service import Challenges
from cantstop.web.db.recorder import Recorder
from cantstop.web.db.storage import Storage
from cantstop.web.games.bot_seats import BotSeats
from cantstop.web.games.chat import Chat
from cantstop.web.games.clock import MoveClock
from cantstop.web.games.leaving import Leaving
from cantstop.web.games.live import LiveGames
from cantstop.web.games.sweeper import WEEK, Sweeper
from cantstop.web.games.turns import TurnHooks
from cantstop.web.identity.accounts import Accounts
from cantstop.web.identity.hooks import Hooks
from cantstop.web.identity.service import AccountService
from cantstop.web.lobby.seats import Seats
from cantstop.web.lobby.service import Lobby
from cantstop.web.ops.metrics import Reading
from cantstop.web.pairing.service import Pairing
from cantstop.web.pairing.store import PAIRING_TOPIC
from cantstop.web.players.profiles import Profiles
from cantstop.web.players.service import Players
from cantstop.web.review.analysts import Analysts
from cantstop.web.review.service import Reviews
from cantstop.web.settings import Settings
from cantstop.web.social.blocks import BLOCKS_TOPIC, Blocks
from cantstop.web.social.service import Social
from cantstop.web.tournaments.service import Tournaments
from cantstop.web.webhooks import WebhookSender


class GameService:
    def __init__(
        self, storage: Storage, bot_delay: float = 0.8, bot_standby: float = 5.0, clock_scale: float = 1.0, *,
        forfeit_after: int = 3, abandon_after: float = WEEK, sweep_every: float = 60.0, now: Callable[[], float] = time.time,
        settings: Settings | None = None,
    ) -> None:
        """`forfeit_after`: timeouts in a row that forfeit a seat (0: never); `abandon_after`:
        seconds a game with no clock running may go untouched and unopened before it ends;
        `sweep_every`: seconds between looks for such games and for clocks nearing their end;
        `now`: the clock, in seconds since the epoch (tests move it on); `settings`: the
        server's (if None, the defaults) for accounts and their webhooks."""
        settings = settings or Settings()
        self.storage = storage
        self.recorder = Recorder(storage)
        self.games = LiveGames(self.recorder, SecureDice(), clock_scale, now, idle_kept=settings.idle_games_kept)
        self.lobby = Lobby(self.games)
        self.bots = BotSeats(self.games, bot_delay, bot_standby)
        self.clock = MoveClock(self.games, bot_standby, forfeit_after, horizon=2 * sweep_every)
        self.leaving = Leaving(self.games)
        self.sweeper = Sweeper(self.games, self.clock, self.leaving, sweep_every, abandon_after)
        self.chat = Chat(self.recorder, self.games.send)
        self.profiles = Profiles(storage, clock_scale, now)
        self.players = Players(self.games, self.profiles)
        self.seats = Seats(self.games, self.players)
        self.hooks = Hooks(storage)  # one per process: it remembers the webhooks read for "your turn"
        self.identity = AccountService(Accounts(storage), self.recorder.db, settings, self.hooks, self.leaving, now)
        self.tournaments = Tournaments(self.games, self.lobby, sweep_every)
        self.sweeper.also.append(self.tournaments.sweep)
        self.turns = TurnHooks(self.games, self.recorder, self.hooks, WebhookSender(allow_private=settings.webhook_private), settings.public_origin)
        self.reviews = Reviews(
            self.games, Analysts(settings.analysis_workers), settings.analyse_after, settings.analysis_wait, settings.analyse_after_per_minute,
        )
        self.games.on_move.append(self.reviews.ended)
        self.warm = settings.analysis_warm
        self.social = Social(self.recorder, self.profiles, Blocks(storage), self.identity.stamp)
        self.social.on_blocks.append(self._reblock)
        self.challenges = Challenges(self.lobby, self.social, self.identity, self.turns, settings.challenges_open, self.identity.stamp)
        self.social.on_block.append(self.challenges.blocked)
        self.sweeper.also.append(self.challenges.sweep)
        # Quick pairing: the queue looked at while a request waits, by any process.
        self.pairing = Pairing(self.games, self.lobby, self.identity.may_play, every=settings.pairing_every,
                               expire_after=settings.pairing_expire, bot_after=settings.pairing_bot_after)

    def _reblock(self, account: int, blocked: frozenset[int]) -> None:
        """An account's blocks changed: its connections to the games held here follow."""
        for game in list(self.games.held.values()):
            if account in game.connections.accounts.values():
                game.connections.reblock(account, blocked)

    async def news(self, topic: str, text: str) -> None:
        """Another process (or this one) told every process of something that is no game's
        move: an account's blocks changed, requests for a quick game were paired."""
        if topic == BLOCKS_TOPIC:
            await self.social.blocks_changed(int(text))
        if topic == PAIRING_TOPIC:
            await self.pairing.news(text)

    def readings(self) -> list[Reading]:
        """What the metrics read from the games at each scrape (`ops.Operations`)."""
        games = self.games
        return [
            Reading("cantstop_live_games", "Games in progress held in memory",
                    lambda: sum(1 for g in list(games.held.values()) if g.table is not None and not g.table.over)),
            Reading("cantstop_held_games", "Games held in memory (waiting, playing, or watched after the end)", lambda: len(games.held)),
            Reading("cantstop_games_let_go", "Idle games let go of from memory (read back from the database when needed)",
                    lambda: games.let_go_count, counter=True),
            Reading("cantstop_clock_timeouts", "Moves the move clock made for people out of time", lambda: self.clock.timeouts, counter=True),
            Reading("cantstop_seats_forfeited", "Seats that forfeited on the clock (timeouts in a row)", lambda: games.forfeited, counter=True),
            Reading("cantstop_games_abandoned", "Games this process ended as abandoned (left alone)", lambda: self.sweeper.abandoned, counter=True),
            Reading("cantstop_games_rated_late", "Rated games this process's sweep rated: their own process stopped first",
                    lambda: self.sweeper.rated, counter=True),
            Reading("cantstop_games_analysed", "Games this process analysed and stored", lambda: self.reviews.analysed, counter=True),
            Reading("cantstop_analyses_under_way", "Analyses this process has claimed or is waiting on", lambda: self.reviews.under_way),
            Reading("cantstop_analyses_skipped", "Games that ended here with too many analyses waiting (analysed when asked for)",
                    lambda: self.reviews.skipped, counter=True),
            Reading("cantstop_analysis_failures", "Jobs lost because an analysis process died (it was replaced)",
                    lambda: self.reviews.analysts.failures, counter=True),
            Reading("cantstop_pairing_tables", "Quick games this process paired", lambda: self.pairing.paired, counter=True),
            Reading("cantstop_pairing_claims_lost", "Tables this process worked out that another process paired first",
                    lambda: self.pairing.lost, counter=True),
        ]

    async def chat_notified(self, game_id: str, text: str) -> None:
        """Another process (or this one) relayed a chat frame: for our clients of that game."""
        game = await self.games.holding(game_id)
        if game is not None:
            self.chat.received(game, text)

    async def catch_up_all(self) -> None:
        """After the notices of other processes were lost (the database connection dropped):
        every game held here catches up with its moves, seats and chat."""
        await self.games.catch_up_all()
        for game in list(self.games.held.values()):
            await self.chat.catch_up(game)

    async def resume(self) -> None:
        """After a (re)start: the bots of the games in progress go on, the sweeper starts with a
        first look for clocks nearing their end and for games left alone, and the analysis
        processes start and warm up (unless the settings leave that to their first job)."""
        await self.bots.resume()
        self.sweeper.start()
        if self.warm:
            self.reviews.start()

    async def close(self) -> None:
        await self.sweeper.close()
        await self.tournaments.close()
        await self.pairing.close()
        await self.bots.close()
        await self.clock.close()
        await self.turns.close()
        await self.reviews.close()  # its claims given up before the database goes
        await self.games.ratings_written()  # a game ended just now keeps its rating
        await self.recorder.close()
