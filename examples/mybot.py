"""A bot for Can't Stop in plain Python, speaking the cantstop text protocol.

Run a match against it:  cantstop arena "cmd:python examples/mybot.py" random
It needs no cantstop code: it reads the position notation itself, just enough
to play a simple strategy. Rolls at most `MaxRolls` times a turn (an option the
controller may set), prefers the choice that moves the most steps and, among
those, the one that places no new runner.
"""

import sys

NAME = "mybot 1.0"
options = {"MaxRolls": 2}


def send(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def choose(position, legal, rolls):
    """The action to play, given the position's fields and the legal actions."""
    fields = position.split()
    runners, phase = fields[2], fields[4]  # runners: one base-36 digit per column, from 2
    if phase == "decide":
        return "stop" if rolls >= options["MaxRolls"] and "stop" in legal else "roll"

    def score(choice):
        columns = [int(c) for c in choice.split("+")]
        new = sum(1 for c in set(columns) if runners[c - 2] == "0")
        return (len(columns), -new)

    return max(legal, key=score)


def main():
    position = None
    rolls = {}  # turn number -> choose decisions seen in it (one per roll)
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        command = words[0]
        if command == "cantstop":
            send("id name " + NAME)
            send("id author an example in examples/mybot.py")
            send("option name MaxRolls type spin default 2 min 1 max 20")
            send("cantstopok")
        elif command == "setoption" and len(words) >= 5 and words[2] == "MaxRolls":
            if words[4].isdigit() and 1 <= int(words[4]) <= 20:
                options["MaxRolls"] = int(words[4])
            else:
                send("info string error: MaxRolls takes 1..20")
        elif command == "isready":
            send("readyok")
        elif command == "newgame":
            rolls = {}
        elif command == "position":
            position = line.partition(" ")[2]
        elif command == "go":
            legal = words[words.index("legal") + 1 :] if "legal" in words else []
            if position is None or not legal:
                send("info string error: send position and go movetime MS legal ... first")
                send("bestmove none")
                continue
            turn = position.split()[6]
            if position.split()[4].startswith("choose"):
                rolls[turn] = rolls.get(turn, 0) + 1
            send("bestmove " + choose(position, legal, rolls.get(turn, 0)))
        elif command == "quit":
            break
        else:
            send("info string error: unknown command " + command)


if __name__ == "__main__":
    main()
