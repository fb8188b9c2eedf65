"""Launches the fused eSRRF kernel's OpenCL build through CUDA, so that Nsight Compute (which
does not profile OpenCL kernels) can: NVIDIA's OpenCL program binary is PTX, and the backend's
program cache keeps it.

  HST_CACHE_DIR=/tmp/cache esrrf_kernel_bench --device nvidia --size 1000 --mag 5 --variant "..."
  python3 fused_cuda.py ptx /tmp/cache/<key>.clbin fused.ptx      # the entry's PTX, launchable
  ptxas -arch=sm_90 --maxrregcount 64 fused.ptx -o fused.cubin    # the OpenCL build's cap
  ncu --clock-control none -k hst_k_esrrf_rgc_fused -c 1 --set full -o prof \
      python3 fused_cuda.py run fused.cubin 2

`ptx` drops the cache entry's 40-byte header (backend.h, hst__cache_header) and the trailing
NULs, and replaces the OpenCL environment registers NVIDIA's compiler reads: %envreg0/1 (the
group offsets) by 0, %envreg6/7 (the groups in x, y) by %nctaid.x/y, any other by 0 (other
kernels of the program; not launched). `run FILE FRAMES [REPS]` launches the kernel on FRAMES
random 1000 x 1000 frames at mag 5, radius 1.5, with intensity weighting, in work-groups of
256 at 40 work indices an item (esrrf.h's NVIDIA geometry), and prints its time a frame (CUDA
events; it matched OpenCL's to 0.1% on an H200, bench/RESULTS.md 2026-12-05). Needs CuPy.
"""
import re
import sys

ENVREG = {"0": "0", "1": "0", "6": "%nctaid.x", "7": "%nctaid.y"}


def ptx(entry, out):
    text = open(entry, "rb").read()[40:].rstrip(b"\0").decode()
    fix = lambda m: "mov.u32 \t%s, %s;" % (m.group(1), ENVREG.get(m.group(2), "0"))
    open(out, "w").write(re.sub(r"mov\.b32 \t(%r\d+), %envreg(\d+);", fix, text))


def run(path, frames, reps):
    import cupy as cp
    import numpy as np
    n, mag, k, local = 1000, 5, 40, 256
    fn = cp.RawModule(path=path).get_function("hst_k_esrrf_rgc_fused")
    f = cp.random.rand(frames, n, n, dtype=cp.float32) * 1000
    out = cp.zeros(frames * n * mag * n * mag, dtype=cp.float32)
    groups = ((n * mag * n * mag + k - 1) // k + local - 1) // local
    args = (f, out, np.uint32(n), np.uint32(n), np.uint32(mag), np.float32(1.5), np.float32(1.0),
            np.int32(1), np.uint32(0), np.uint32(n * mag), np.uint64(0), np.uint64(0),
            np.uint64(frames), np.uint64(frames), np.int32(3))
    fn((groups, frames), (local, 1), args)
    cp.cuda.Device().synchronize()
    a, b = cp.cuda.Event(), cp.cuda.Event()
    a.record()
    for _ in range(reps):
        fn((groups, frames), (local, 1), args)
    b.record()
    b.synchronize()
    print("%.4f ms per frame, %d pixels written" %
          (cp.cuda.get_elapsed_time(a, b) / reps / frames, int(cp.count_nonzero(out))))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "ptx":
        ptx(sys.argv[2], sys.argv[3])
    elif len(sys.argv) in (4, 5) and sys.argv[1] == "run":
        run(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]) if len(sys.argv) == 5 else 1)
    else:
        sys.exit(__doc__)
