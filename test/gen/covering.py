"""The default sample of a generated matrix: the fewest cells (greedily) that
together show every value of every dimension, so that the test command
checks each storage, writer, launch form, hazard, ... at least once in a
few dozen programs instead of the whole product (issue 39). The whole
matrix runs with TMA_FULL_MATRIX=1 (docs/performance.md).

A dimension is a function of a cell: one field (`lambda c: c[0]`) or a pair
of fields (`lambda c: (c[0], c[3])`), so that, for instance, every storage is
seen both safe and unsafe. The choice is deterministic: among the cells that
show the most values not yet seen, the first in the matrix's own order.
"""


def covering(cells, dimensions):
    """The cells, in their matrix order, that cover every value that any
    cell gives each dimension."""
    cells = list(cells)
    shown = [set() for _ in dimensions]
    wanted = [{d(c) for c in cells} for d in dimensions]
    chosen = []
    while any(s != w for s, w in zip(shown, wanted)):
        def gain(c):
            return sum(d(c) not in s for d, s in zip(dimensions, shown))
        best = max(range(len(cells)), key=lambda i: (gain(cells[i]), -i))
        if gain(cells[best]) == 0:
            break
        chosen.append(best)
        for d, s in zip(dimensions, shown):
            s.add(d(cells[best]))
    return [cells[i] for i in sorted(chosen)]
