"""What every generated matrix asks of a rewrite's text, beyond its meaning
(issue 42): the output a reviewer of the user's project would merge. A call
whose error code the program read must not leave its effect wrapped in an
expression that fakes the code, `(p = new CUtensorMap, cudaSuccess)`: the
statement around it becomes plain (DeviceStorage::plainStatement)."""

import re

# The effect and a faked success code in one parenthesised comma
# expression: `(..., cudaSuccess)`, `(..., CUDA_SUCCESS)`.
FAKED_CODE = re.compile(r",\s*(cudaSuccess|CUDA_SUCCESS)\s*\)")


def form_problems(pairs):
    """The problems of the rewritten files, given as (original, rewritten)
    text pairs: one line per kind, empty when none. Only what the rewrite
    added counts (the user's own `EXPECT_EQ(err, cudaSuccess)` is theirs)."""
    for before, after in pairs:
        if len(FAKED_CODE.findall(after)) > len(FAKED_CODE.findall(before)):
            lines = [l.strip() for l in after.splitlines() if FAKED_CODE.search(l)]
            return [f"the rewrite keeps an error code in an expression ('{lines[0]}'): "
                    "the statement should be plain"]
    return []
