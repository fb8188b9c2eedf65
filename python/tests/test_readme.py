#!/usr/bin/env python3
"""The README's Python section runs as written (TAP; tests/run.sh runs this once per device:
the code names its own device, "auto", so it runs on the host device's turn only; its quick
run leaves out the install, which builds the wheel again):

- its ```sh block, line by line, in a copy of the source tree (what `make python` builds from),
  with `python3` the interpreter under test's base: a venv that imports the package it
  installed, sample data included, from outside the tree;
- its ```python blocks, in order, in one new process of the installed package, from a folder
  outside the source tree (the sample data comes from the package)."""

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
    if os.environ.get("HST_QUICK_TESTS") == "1":   # tests/run.sh quick: minutes of compiling
        return "SKIP in the quick run (a second wheel build): make test-all runs it"
    (sh,) = blocks("sh")
    with tempfile.TemporaryDirectory() as tmp:
        tree = os.path.join(tmp, "tree")
        for d in ("python", "mk", os.path.join("examples", "data")):
            shutil.copytree(os.path.join(ROOT, d), os.path.join(tree, d),
                            ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
        for f in glob.glob(os.path.join(ROOT, "*.h")) + [os.path.join(ROOT, "Makefile")]:
            shutil.copy(f, tree)
        bin_dir = os.path.join(tmp, "bin")
        os.mkdir(bin_dir)
        os.symlink(getattr(sys, "_base_executable", sys.executable),
                   os.path.join(bin_dir, "python3"))
        # as from a user's shell: no variables of a make that runs these tests (BUILD=...)
        env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
        env["PATH"] = bin_dir + os.pathsep + os.environ["PATH"]
        for line in sh.strip().splitlines():
            subprocess.run(["bash", "-c", line], cwd=tree, env=env, check=True,
                           stdout=subprocess.DEVNULL)
        where, shape = subprocess.run(
            [os.path.join(tree, "build", "venv", "bin", "python"), "-c",
             "import halostream.data as d; print(d.__file__); print(d.fkbp_confocal().shape)"],
            cwd=tmp, check=True, stdout=subprocess.PIPE, text=True).stdout.splitlines()
        assert where.startswith(os.path.join(tree, "build", "venv")), where
        assert shape == "(50, 256, 256)", shape


@test
def readme_python_runs():
    if DEVICE != "host":
        return "SKIP the README's code chooses its own device (auto): run on the host's turn"
    code = blocks("python")
    assert code, "no python block in the README's Python section"
    with tempfile.TemporaryDirectory() as elsewhere:
        p = child("\n".join(code), cwd=elsewhere)
        out, _ = p.communicate(timeout=900)
    assert p.returncode == 0, out[-2000:]
    lines = out.splitlines()
    assert "(1, 512, 512) float32" in lines and "(3, 512, 512)" in lines, out[-2000:]
    assert sum(line.startswith("time point ") for line in lines) == 5, out[-2000:]


@test
def readme_sample_data_is_the_shipped_stack():
    """halostream.data.fkbp_confocal(), which the README's code runs on, is examples/data's TIFF
    pixel for pixel, its licence beside it."""
    import numpy as np
    import tifffile
    import halostream.data as data
    tif = os.path.join(ROOT, "examples", "data", "fkbp_confocal_50x256x256_u8.tif")
    stack = data.fkbp_confocal()
    assert stack.flags.c_contiguous and stack.flags.writeable, stack.flags
    ref = tifffile.imread(tif)
    assert stack.dtype == ref.dtype == np.uint8 and np.array_equal(stack, ref), stack.shape
    with open(os.path.join(ROOT, "examples", "data", "LICENSE-nandb.txt")) as f:
        assert data.fkbp_confocal_licence() == f.read()


if __name__ == "__main__":
    sys.exit(main())
