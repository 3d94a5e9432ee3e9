"""The review room: finished games analysed (every decision's options and grade, every roll's
luck, each player's accuracy), the roll map and the tutor of a friendly game in progress, and
practice on the costly decisions of a player's own games.

Every value comes from `cantstop.analysis`, computed in worker processes of their own
(`analysts`): its compiled kernels hold the interpreter lock between their calls, and the
games' event loop must not feel them. An analysis is computed once per game, whichever
server process claims it first (`analyses`), and read from storage afterwards.
"""
