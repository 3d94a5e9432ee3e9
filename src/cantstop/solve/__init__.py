"""Exact solution of one-player Can't Stop by retrograde analysis.

A position between turns (an *anchor*) is each column's progress, the top meaning
claimed. A turn from an anchor ends in a bust (back to the same anchor) or in a stop
at a strictly more advanced anchor, so anchors are solved from the most advanced
layer (by total progress) down to the empty board. An anchor's value x, the expected
turns still needed, is the fixed point of x = 1 + W(x), where W is the optimum over
the turn's own graph with a bust worth x; W is piecewise linear and concave in x, so
Newton's method reaches the fixed point in a few passes (Glenn, Fang & Kruskal).

Modules: `board` (the variant checked and measured: anchors, in-turn states, roll
classes), `kernels` (the numba passes over one anchor's turn), `table` (the value
table on disk with its header), `solver` (layers, resume, progress), `policy`
(optimal actions read from a solved table).
"""
