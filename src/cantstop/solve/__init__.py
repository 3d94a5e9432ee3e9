"""Exact solution of one- and two-player Can't Stop by retrograde analysis.

Alone, a position between turns (an *anchor*) is each column's progress, the top
meaning claimed. A turn from an anchor ends in a bust (back to the same anchor) or in a
stop at a strictly more advanced anchor, so anchors are solved from the most advanced
layer (by total progress) down to the empty board. An anchor's value x, the expected
turns still needed, is the fixed point of x = 1 + W(x), where W is the optimum over
the turn's own graph with a bust worth x; W is piecewise linear and concave in x, so
Newton's method reaches the fixed point in a few passes (Glenn, Fang & Kruskal).

With a rival a position is both players' progress and its value the mover's chance to
win; a bust hands the same position to the rival (its mirror), so a position and its
mirror are solved together, layer by layer in decreasing (claims, total progress).

Modules, each importing only those before it (tests/test_file_cycles.py forbids any
ring): `errors` (SolveError), `layer` (a layer's positions and their kinds), `value_file`
(the values on disk with their header), `bundles` (the kernels' arrays, named),
`kernels` (the numba steps of one turn and the Newton solves), `board` (a one-player
variant checked and measured, its roll classes, a position read from text or a state),
`duo` (the two-player board), `parts` (a layer in independent parts, Ray), `solver`
(layers, resume, progress, plan), `policy` (optimal actions read from a solved board's
value file), `rival_stops` (the stop values of a turn with rivals, for the rivals bot).
"""
