"""Game analysis: skill and luck apart, and what the next roll can bring.

`analyse(record)` values every decision of a finished game (each option's chance to win
under best play for the rest of the turn, the best, the loss, a grade) and every roll's
luck, with each player's accuracy; `decision_options(state)` values the options of one
position's decision before it is taken (the same numbers); `roll_map(state)` groups the
rolls a position can meet by what they offer. The values come from `judges`: exact value files where the
board is solved, else the rivals bot's learned chance to win (or alone, expert II's
fitted expected turns), every turn solved exactly by the solver's kernel. The command
line, the terminal game and the web server call these; they compute no value themselves.
"""

from cantstop.analysis.game import GameAnalysis, analyse
from cantstop.analysis.grades import Grade
from cantstop.analysis.judges import AnalysisError, Judge, Method, Units, judge_for
from cantstop.analysis.options import DecisionOptions, decision_options

__all__ = [
    "AnalysisError", "DecisionOptions", "GameAnalysis", "Grade", "Judge", "Method", "Units", "analyse", "decision_options", "judge_for",
]
