#!/usr/bin/env python3
"""The README's Python section runs as written (TAP; tests/run.sh runs this once per device:
the code names its own device, "auto", so it runs on the host device's turn only):

- its ```sh block, line by line, in a copy of the source tree, with `python3` the interpreter
  under test's base: a venv that imports the package it installed, from outside the tree;
- its ```python blocks, in order, in one new process of the installed package, from the source
  tree's root."""

import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

from tap import DEVICE, ROOT, child, main, test


def blocks(kind):
    text = open(os.path.join(ROOT, "README.md")).read()
    section = text[text.index("\n## Python\n"):]
    section = section[:section.index("\n## ", 1)]
    return re.findall(r"```%s\n(.*?)```" % kind, section, re.S)


@test
def readme_sh_installs():
    if DEVICE != "host":
        return "SKIP once per stage: on the host device's turn"
    (sh,) = blocks("sh")
    with tempfile.TemporaryDirectory() as tmp:
        tree = os.path.join(tmp, "tree")
        shutil.copytree(os.path.join(ROOT, "python"), os.path.join(tree, "python"),
                        ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
        for h in glob.glob(os.path.join(ROOT, "*.h")):
            shutil.copy(h, tree)
        bin_dir = os.path.join(tmp, "bin")
        os.mkdir(bin_dir)
        os.symlink(getattr(sys, "_base_executable", sys.executable),
                   os.path.join(bin_dir, "python3"))
        env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ["PATH"])
        for line in sh.strip().splitlines():
            subprocess.run(["bash", "-c", line], cwd=tree, env=env, check=True,
                           stdout=subprocess.DEVNULL)
        where = subprocess.run([os.path.join(tree, "build", "venv", "bin", "python"), "-c",
                                "import halostream; print(halostream.__file__)"],
                               cwd=tmp, check=True, stdout=subprocess.PIPE, text=True).stdout
        assert where.startswith(os.path.join(tree, "build", "venv")), where


@test
def readme_python_runs():
    if DEVICE != "host":
        return "SKIP the README's code chooses its own device (auto): run on the host's turn"
    try:
        import tifffile  # noqa: F401  (the README reads its TIFF with it)
    except ImportError:
        return "SKIP tifffile not installed (scripts/deps.sh test: python3-tifffile)"
    code = blocks("python")
    assert code, "no python block in the README's Python section"
    p = child("\n".join(code), cwd=ROOT)
    out, _ = p.communicate(timeout=900)
    assert p.returncode == 0, out[-2000:]
    lines = out.splitlines()
    assert "(1, 512, 512) float32" in lines and "(3, 512, 512)" in lines, out[-2000:]
    assert sum(line.startswith("time point ") for line in lines) == 5, out[-2000:]


if __name__ == "__main__":
    sys.exit(main())
