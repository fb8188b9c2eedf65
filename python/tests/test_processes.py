#!/usr/bin/env python3
"""Tests of the installed package across processes and signals (TAP; tests/run.sh runs it once
per device with HST_DEVICE set):

- multiprocessing with the default "fork" start method after the parent used a Backend on the
  device never hangs (a forked child used to wait for ever for the parent's OpenCL threads):
  in the workers the host device works (a new Backend, the parent's host device Backend, the
  module-level call, "auto" with a RuntimeWarning), and OpenCL, the parent's Backend on it or a
  new one, raises HalostreamError (HST_ERROR_FORKED) at once; the same pool with the "spawn"
  start method works fully, every worker giving the parent's bits on every device;
- Ctrl-C (SIGINT) interrupts a long call on the host device within INTERRUPT_BOUND_S seconds
  (eSRRF of a stack, the parameter sweep, decorrelation: the package interrupts the Backend at
  once instead of waiting for the library's next progress report, two blocks late), and the
  Backend then runs the next call."""

import json
import os
import signal
import subprocess
import sys
import tempfile
import time

from tap import DEVICE, child, main, test

POOL_TIMEOUT_S = 300   # a pool that has not ended by then hung
INTERRUPT_BOUND_S = 3.0
WARM_S = 1.0           # how long the call runs before the signal
LATENCY_TIMEOUT_S = 300   # a call still running then was not interrupted at all

# A pool of two workers running one use of halostream each (the script's argv: device, start
# method); prints JSON: the parent's bits (on the device, "auto" and the host device), whether
# the device is the host device, the library's file and each task's outcome.
POOL_SCRIPT = r'''
import json, multiprocessing as mp, os, sys, warnings
import numpy as np
import halostream

DEVICE, METHOD = sys.argv[1], sys.argv[2]
STACK = np.random.default_rng(9).random((4, 24, 20)).astype(np.float32)
BE = None   # the parent's Backend on the device, made before the pool forks


def bits(out):
    return int(out["avg"].view(np.uint32).sum(dtype=np.uint64))


def task(what):
    """[what, "ok", bits, warnings] or [what, "error", its name, its message, warnings]."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            if what == "parent's Backend":
                out = BE.esrrf(STACK, magnification=2)
            elif what == "module":
                out = halostream.esrrf(STACK, magnification=2)
            else:
                with halostream.Backend(what) as be:
                    out = be.esrrf(STACK, magnification=2)
            result = ["ok", bits(out)]
        except halostream.HalostreamError as e:
            result = ["error", e.name, str(e)]
    return [what] + result + [[str(w.message) for w in caught
                               if issubclass(w.category, RuntimeWarning)]]


if __name__ == "__main__":
    BE = halostream.Backend(DEVICE)
    ref = {DEVICE: bits(BE.esrrf(STACK, magnification=2)),
           "auto": bits(halostream.esrrf(STACK, magnification=2)),
           "host": bits(halostream.esrrf(STACK, magnification=2, device="host"))}
    tasks = [DEVICE, "auto", "host", "module"] + (["parent's Backend"] if METHOD == "fork" else [])
    with mp.get_context(METHOD).Pool(2) as pool:
        results = pool.map(task, tasks, chunksize=1)
    print(json.dumps({"ref": ref, "host": BE.devices[0]["type"] == "host",
                      "lib": os.path.basename(halostream._errors.library()._name),
                      "results": results}))
'''


def pool_run(method):
    """POOL_SCRIPT's JSON for the start method, the pool bounded by POOL_TIMEOUT_S."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "pool.py")
        with open(path, "w") as f:
            f.write(POOL_SCRIPT)
        # a session of its own: a hung pool's workers are killed with it (they hold the pipes)
        p = subprocess.Popen([sys.executable, path, DEVICE, method], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            out, err = p.communicate(timeout=POOL_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
            raise AssertionError("the %r pool hung (no end after %d s)" % (method, POOL_TIMEOUT_S))
    assert p.returncode == 0, (p.returncode, err[-2000:])
    return json.loads(out)


def forked_warning(warned):
    return len(warned) == 1 and "fork()" in warned[0] and "host device" in warned[0]


@test
def fork_pool_never_hangs():
    run = pool_run("fork")
    ref, on_host = run["ref"], run["host"]
    opencl_build = "opencl" in run["lib"]   # the parent initialised OpenCL by listing devices
    got = {r[0]: r[1:] for r in run["results"]}
    for what in ("host", "auto", "module") + ((DEVICE, "parent's Backend") if on_host else ()):
        assert got[what][:2] == ["ok", ref["host"]], (what, got[what], ref)
    assert got["host"][-1] == [], got["host"]
    for what in ("auto", "module"):   # `auto` takes the host device, saying why
        assert forked_warning(got[what][-1]) == opencl_build, (what, got[what])
    if not on_host:   # OpenCL: refused at once, the message saying what to do
        for what in (DEVICE, "parent's Backend"):
            status, name, message = got[what][:3]
            assert status == "error" and name == "HST_ERROR_FORKED", (what, got[what])
            assert "fork()" in message and "spawn" in message, (what, message)
    return "%s: %s" % ("host" if on_host else "OpenCL refused", ", ".join(sorted(got)))


@test
def spawn_pool_works_fully():
    run = pool_run("spawn")
    ref = run["ref"]
    got = {r[0]: r[1:] for r in run["results"]}
    want = {DEVICE: ref[DEVICE], "auto": ref["auto"], "host": ref["host"], "module": ref["auto"]}
    for what, bits in want.items():
        assert got[what] == ["ok", bits, []], (what, got[what], bits)


# A long call on the host device, interrupted by the parent's SIGINT WARM_S seconds after it
# began; prints "interrupted" (or "finished") with the monotonic time (the clock every process
# shares), then "usable" once the Backend has run the next call.
LATENCY_CHILD = """
import time, numpy as np, halostream
be = halostream.Backend("host")
rng = np.random.default_rng(0)
%s
small = rng.random((2, 32, 32)).astype(np.float32)
print("running", flush=True)
try:
    %s
    print("finished", time.monotonic())
except KeyboardInterrupt:
    print("interrupted", time.monotonic())
be.esrrf(small, magnification=2)
print("usable")
"""


def interrupt_latency(setup, call):
    """Seconds from the signal to KeyboardInterrupt in the child (setup and call: code lines
    using be and rng); None when the call ended before the signal."""
    p = child(LATENCY_CHILD % (setup, call))
    assert p.stdout.readline().strip() == "running"
    time.sleep(WARM_S)
    sent = time.monotonic()
    p.send_signal(signal.SIGINT)
    try:
        out, _ = p.communicate(timeout=LATENCY_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        raise AssertionError("no end %d s after SIGINT" % LATENCY_TIMEOUT_S)
    words = out.split()
    if words[:1] == ["finished"] and float(words[1]) < sent:
        return None
    assert p.returncode == 0 and len(words) == 3 and words[0] == "interrupted" and \
        words[2] == "usable", (out, p.returncode)
    return float(words[1]) - sent


def prompt(setup, call):
    if DEVICE != "host":
        return "SKIP the bound is the host device's (OpenCL devices stop after their running " \
               "block: test_halostream's ctrl_c_cancels_backend_stays_usable)"
    took = interrupt_latency(setup, call)
    if took is None:
        return "SKIP the call ended within %.1f s, before the signal" % WARM_S
    assert took <= INTERRUPT_BOUND_S, "interrupted %.2f s after SIGINT" % took
    return "interrupted %.2f s after SIGINT" % took


@test
def ctrl_c_esrrf_prompt():
    return prompt("big = rng.random((400, 256, 256)).astype(np.float32)",
                  "be.esrrf(big, magnification=5, progress=False)")


@test
def ctrl_c_sweep_prompt():
    return prompt("big = rng.random((200, 256, 256)).astype(np.float32)",
                  "be.esrrf_sweep(big, magnification=5, use_decorr=True, progress=False)")


@test
def ctrl_c_metric_prompt():
    return prompt("img = rng.random((4096, 4096)).astype(np.float32)",
                  "be.decorrelation(img)")


if __name__ == "__main__":
    sys.exit(main())
