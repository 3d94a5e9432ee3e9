"""The Swiss system as plain functions: who plays whom in a round, and the standings.

Nothing here knows of the web: players are keys (the server's account ids), results are
values, and each function is pure, so the pairing is tested on its own (hypothesis).

**Two-player games.** Players are taken in pairing order (score, then seed), best first;
each in turn is paired with the player it prefers among those left — inside its score
group the one half a group below it (the Dutch way: 1 meets 5, 2 meets 6 of eight), then
the nearest lower group — as long as everyone left can still be paired with nobody they
met before. That question is a perfect matching of the graph of players who have not met,
answered by Edmonds' blossom search (`_augment`), so no rematch is ever made while one
can be avoided. With an odd count one player sits out with a bye, the lowest in pairing
order among those with the fewest byes (no second bye while a player has had none); the
bye is a vertex of the same graph. When rematches cannot all be avoided (few players,
many rounds), the largest matching of players who have not met is kept and the rest are
paired in order.

**Three or four a table.** Players in pairing order are cut into tables of the game's size,
as even as can be (ten players at tables of four sit four, three and three); then a
player may swap with one at the next table when that lowers the number of pairs at a
table who met before, each player staying at its own table or the next one. One player
alone sits out with a bye.

**Points and standings.** A game gives its winner 1 point and its last 0, the places
between evenly spaced (at three: 1, ½, 0; at four: 1, ⅔, ⅓, 0); seats that left the game
share the last place. A bye is worth a win. Standings order by points, then Buchholz (the
sum of the points of every opponent met: the strength of one's schedule), then wins, then
seed; players level on all three share a rank.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

Key = int  # a player, as the caller knows them (an account id)


@dataclass(frozen=True)
class Entrant:
    """A player to pair: its points so far, the players it met, its byes."""

    key: Key
    score: Fraction = Fraction(0)
    met: frozenset[Key] = frozenset()
    byes: int = 0


@dataclass(frozen=True)
class Pairing:
    """One round: its tables (each a tuple of players, in pairing order) and who sits out."""

    tables: tuple[tuple[Key, ...], ...]
    byes: tuple[Key, ...] = ()


@dataclass(frozen=True)
class Result:
    """What one round gave one player: its opponents at its table (none for a bye), its
    points, whether it won, and whether it forfeited the game on its clock."""

    round: int
    player: Key
    opponents: tuple[Key, ...]
    points: Fraction
    won: bool = False
    forfeited: bool = False


@dataclass(frozen=True)
class Standing:
    player: Key
    rank: int
    score: Fraction
    buchholz: Fraction
    wins: int
    played: int
    byes: int
    forfeits: int


@dataclass
class _Graph:
    """Players (and the bye, if any) as vertices, edges between those who may meet."""

    adjacent: list[set[int]]
    alive: list[bool] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.alive = [True] * len(self.adjacent)


def place_points(place: int, seats: int) -> Fraction:
    """The points of `place` (1 for the winner) at a table of `seats`: the winner 1, the last
    0, the places between evenly spaced; a place past the seats counts as the last. A table
    of one is a bye: a win's point."""
    if seats < 2:
        return Fraction(1)
    return Fraction(seats - min(place, seats), seats - 1)


def game_points(places: Sequence[int]) -> list[Fraction]:
    """Each seat's points from its place (1 for the winner), as `place_points` gives them."""
    return [place_points(place, len(places)) for place in places]


def table_sizes(count: int, size: int) -> list[int]:
    """How `count` players sit at tables of at most `size`: as few tables as can be, as even
    as can be, the bigger ones first; no table of one (that player has a bye)."""
    if count < 2:
        return []
    tables = -(-count // size)
    return [count // tables + (1 if i < count % tables else 0) for i in range(tables)]


def pair_round(entrants: Sequence[Entrant], size: int = 2) -> Pairing:
    """The next round's tables for `entrants` in pairing order (best first), at games of
    `size` players (2 to 4). Raises ValueError for a size out of range or a player twice."""
    if not 2 <= size <= 4:
        raise ValueError(f"a table seats 2 to 4 players, not {size}")
    if len({e.key for e in entrants}) < len(entrants):
        raise ValueError("a player is listed twice")
    if len(entrants) == 1:
        return Pairing((), (entrants[0].key,))
    if size == 2:
        return _pair_two(list(entrants))
    return _tables(list(entrants), size)


# ------------------------------------------------------------------ two a table
def _pair_two(players: list[Entrant]) -> Pairing:
    n = len(players)
    odd = n % 2 == 1
    fewest = min((p.byes for p in players), default=0)
    vertices = n + odd  # the bye, if any, is vertex n
    adjacent: list[set[int]] = [set() for _ in range(vertices)]
    for i in range(n):
        for j in range(i + 1, n):
            if players[j].key not in players[i].met and players[i].key not in players[j].met:
                adjacent[i].add(j)
                adjacent[j].add(i)
        if odd and players[i].byes == fewest:
            adjacent[i].add(n)
            adjacent[n].add(i)
    graph = _Graph(adjacent)
    match = _maximum_matching(graph)
    if -1 in match:
        return _fewest_rematches(players, graph, match, fewest)
    paired: list[tuple[int, int]] = []
    for p in range(n):
        if not graph.alive[p]:
            continue
        for q in _preferences(players, graph, p):
            if _keep_perfect(graph, match, p, q):
                break
        else:  # unreachable: the matching held is perfect, so its own partner always fits
            raise AssertionError("no partner keeps the round paired")
        graph.alive[p] = graph.alive[q] = False
        paired.append((p, q))
    tables = tuple((players[p].key, players[q].key) for p, q in paired if q < n)
    byes = tuple(players[p].key for p, q in paired if q == n)
    return Pairing(tables, byes)


def _preferences(players: list[Entrant], graph: _Graph, p: int) -> list[int]:
    """Whom `p` would rather meet, best first, among the vertices still unpaired: its score
    group half a group down first (the Dutch way), then the rest of its group upwards, then
    lower groups nearest first, each by pairing order; the bye last."""
    n = len(players)
    score = players[p].score
    left = [q for q in range(n) if q != p and graph.alive[q]]
    group = [q for q in left if players[q].score == score]
    half = (len(group) + 1) // 2 - 1  # p is the group's first: its partner is half the group below
    dutch = group[half:] + group[:half][::-1]
    others = sorted((q for q in left if players[q].score != score), key=lambda q: (abs(players[q].score - score), q))
    bye = [n] if len(graph.alive) > n and graph.alive[n] else []
    return dutch + others + bye


def _keep_perfect(graph: _Graph, match: list[int], p: int, q: int) -> bool:
    """Pair `p` with `q` if everyone else left can still be paired: `match` (perfect on the
    vertices alive) is changed to one that pairs them, or left as it was."""
    if q not in graph.adjacent[p]:
        return False
    if match[p] == q:
        return True
    a, b = match[p], match[q]
    trial = list(match)
    trial[p], trial[q], trial[a], trial[b] = q, p, -1, -1
    graph.alive[p] = graph.alive[q] = False
    found = _augment(graph, trial, a)  # a and b are the only vertices without a partner
    graph.alive[p] = graph.alive[q] = True
    if found:
        match[:] = trial
    return found


def _fewest_rematches(players: list[Entrant], graph: _Graph, match: list[int], fewest: int) -> Pairing:
    """Rematches cannot all be avoided: the largest matching of players who have not met
    stands, the bye (if any) goes to the lowest without a partner among those with the
    fewest byes (or the lowest with the fewest), and the rest meet again in pairing order."""
    n = len(players)
    bye: int | None = None
    if len(match) > n:
        bye = match[n] if match[n] != -1 else None
        if bye is None:
            free = [p for p in range(n) if match[p] == -1 and players[p].byes == fewest]
            bye = free[-1] if free else max(p for p in range(n) if players[p].byes == fewest)
            if match[bye] != -1:
                match[match[bye]] = -1
            match[bye] = n
    single = [p for p in range(n) if match[p] == -1]
    pairs = {tuple(sorted((p, match[p]))) for p in range(n) if match[p] not in (-1, n)}
    pairs |= {(single[i], single[i + 1]) for i in range(0, len(single) - 1, 2)}
    tables = tuple((players[p].key, players[q].key) for p, q in sorted(pairs))
    return Pairing(tables, () if bye is None else (players[bye].key,))


def _maximum_matching(graph: _Graph) -> list[int]:
    """A largest matching of the graph (partner of each vertex, -1 for none): greedy, then an
    augmenting path looked for from each vertex left without a partner."""
    count = len(graph.adjacent)
    match = [-1] * count
    for v in range(count):
        if match[v] == -1:
            for w in sorted(graph.adjacent[v]):
                if match[w] == -1:
                    match[v], match[w] = w, v
                    break
    for v in range(count):
        if match[v] == -1:
            _augment(graph, match, v)
    return match


def _augment(graph: _Graph, match: list[int], root: int) -> bool:
    """Edmonds' search for an augmenting path from `root` (without a partner) among the live
    vertices, shrinking odd cycles (blossoms) to their base as it meets them; flips the path
    into `match` if found."""
    count = len(graph.adjacent)
    alive, adjacent = graph.alive, graph.adjacent
    parent = [-1] * count
    base = list(range(count))
    queued = [False] * count
    queued[root] = True
    queue = [root]

    def common_base(a: int, b: int) -> int:
        seen = [False] * count
        while True:
            a = base[a]
            seen[a] = True
            if match[a] == -1:
                break
            a = parent[match[a]]
        while True:
            b = base[b]
            if seen[b]:
                return b
            b = parent[match[b]]

    def mark(v: int, stem: int, child: int, inside: list[bool]) -> None:
        while base[v] != stem:
            inside[base[v]] = inside[base[match[v]]] = True
            parent[v] = child
            child = match[v]
            v = parent[match[v]]

    head = 0
    while head < len(queue):
        v = queue[head]
        head += 1
        for w in adjacent[v]:
            if not alive[w] or base[v] == base[w] or match[v] == w:
                continue
            if w == root or (match[w] != -1 and parent[match[w]] != -1):
                stem = common_base(v, w)
                inside = [False] * count
                mark(v, stem, w, inside)
                mark(w, stem, v, inside)
                for u in range(count):
                    if inside[base[u]]:
                        base[u] = stem
                        if not queued[u]:
                            queued[u] = True
                            queue.append(u)
            elif parent[w] == -1:
                parent[w] = v
                if match[w] == -1:
                    while w != -1:  # flip the path back to the root
                        v = parent[w]
                        after = match[v]
                        match[w], match[v] = v, w
                        w = after
                    return True
                queued[match[w]] = True
                queue.append(match[w])
    return False


# ------------------------------------------------------------- three or four a table
def _tables(players: list[Entrant], size: int) -> Pairing:
    sizes = table_sizes(len(players), size)
    tables: list[list[Entrant]] = []
    start = 0
    for seats in sizes:
        tables.append(players[start:start + seats])
        start += seats
    home = {p.key: i for i, table in enumerate(tables) for p in table}
    for _ in range(len(players)):  # each pass lowers the repeats, so this many passes is plenty
        if not _one_better_swap(tables, home):
            break
    return Pairing(tuple(tuple(p.key for p in sorted(table, key=players.index)) for table in tables))


def _repeats(table: Sequence[Entrant]) -> int:
    """Pairs at a table who met before."""
    return sum(1 for i, a in enumerate(table) for b in table[i + 1:] if b.key in a.met or a.key in b.met)


def _one_better_swap(tables: list[list[Entrant]], home: dict[Key, int]) -> bool:
    """Swap the first two players of next tables (the lower of the upper table first, the
    higher of the lower one first) whose swap lowers the repeats at the two tables, each
    staying at its own table or the next; False if no swap does."""
    for i in range(len(tables) - 1):
        upper, lower = tables[i], tables[i + 1]
        now = _repeats(upper) + _repeats(lower)
        if now == 0:
            continue
        for a in reversed(upper):
            for b in lower:
                if abs(home[a.key] - (i + 1)) > 1 or abs(home[b.key] - i) > 1:
                    continue
                up = [b if p is a else p for p in upper]
                down = [a if p is b else p for p in lower]
                if _repeats(up) + _repeats(down) < now:
                    tables[i], tables[i + 1] = up, down
                    return True
    return False


# ------------------------------------------------------------------ standings
def standings(players: Sequence[Key], results: Iterable[Result]) -> list[Standing]:
    """Every player of `players` (in seed order, which breaks the last ties) by points, then
    Buchholz, then wins; a rank is shared by players level on all three. A result of a
    player not listed is ignored."""
    listed = set(players)
    mine: dict[Key, list[Result]] = defaultdict(list)
    for result in results:
        if result.player in listed:
            mine[result.player].append(result)
    score = {p: sum((r.points for r in mine[p]), Fraction(0)) for p in players}
    rows = []
    for seed, p in enumerate(players):
        games = [r for r in mine[p] if r.opponents]
        buchholz = sum((score.get(o, Fraction(0)) for r in games for o in r.opponents), Fraction(0))
        wins = sum(1 for r in games if r.won)
        rows.append((seed, p, score[p], buchholz, wins, len(games), len(mine[p]) - len(games), sum(1 for r in games if r.forfeited)))
    rows.sort(key=lambda row: (-row[2], -row[3], -row[4], row[0]))
    ranked: list[Standing] = []
    for place, (_, p, points, buchholz, wins, played, byes, forfeits) in enumerate(rows, 1):
        last = ranked[-1] if ranked else None
        level = last is not None and (last.score, last.buchholz, last.wins) == (points, buchholz, wins)
        ranked.append(Standing(p, last.rank if level and last else place, points, buchholz, wins, played, byes, forfeits))
    return ranked


def pairing_order(standing: Sequence[Standing], seeds: Sequence[Key]) -> list[Key]:
    """Players in the order the next round pairs them: by points, then by seed (Buchholz
    settles the standings, not the pairing, as in the Dutch system)."""
    seed_of = {key: i for i, key in enumerate(seeds)}
    return [s.player for s in sorted(standing, key=lambda s: (-s.score, seed_of.get(s.player, len(seed_of))))]


def entrants(order: Sequence[Key], results: Iterable[Result]) -> list[Entrant]:
    """The players of `order` as the pairing takes them: points, whom each met, byes."""
    score: dict[Key, Fraction] = defaultdict(Fraction)
    met: dict[Key, set[Key]] = defaultdict(set)
    byes: dict[Key, int] = defaultdict(int)
    for r in results:
        score[r.player] += r.points
        met[r.player].update(r.opponents)
        byes[r.player] += not r.opponents
    return [Entrant(p, score[p], frozenset(met[p]), byes[p]) for p in order]
