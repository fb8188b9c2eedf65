#!/usr/bin/env python3
"""The README's Python section runs as written: its ```python blocks, in order, in one new
process of the installed package, from the source tree's root (TAP; tests/run.sh runs this
once per device: the code names its own device, "auto", so it runs on the host device's turn
only)."""

import os
import re
import sys

from tap import DEVICE, ROOT, child, main, test


def python_blocks():
    text = open(os.path.join(ROOT, "README.md")).read()
    section = text[text.index("\n## Python\n"):]
    section = section[:section.index("\n## ", 1)]
    return re.findall(r"```python\n(.*?)```", section, re.S)


@test
def readme_python_runs():
    if DEVICE != "host":
        return "SKIP the README's code chooses its own device (auto): run on the host's turn"
    try:
        import tifffile  # noqa: F401  (the README reads its TIFF with it)
    except ImportError:
        return "SKIP tifffile not installed (scripts/deps.sh test: python3-tifffile)"
    blocks = python_blocks()
    assert blocks, "no python block in the README's Python section"
    p = child("\n".join(blocks), cwd=ROOT)
    out, _ = p.communicate(timeout=900)
    assert p.returncode == 0, out[-2000:]
    lines = out.splitlines()
    assert "(1, 512, 512) float32" in lines and "(3, 512, 512)" in lines, out[-2000:]
    assert sum(line.startswith("time point ") for line in lines) == 5, out[-2000:]


if __name__ == "__main__":
    sys.exit(main())
