#!/usr/bin/env python3
"""quality_nanopyx.py — quality.h's metrics against NanoPyx 2.1 on the shipped stack, in one job.

    python3 quality_nanopyx.py [--bench build/bench/quality_bench] [--device host]
                               [--esrrf build/examples/esrrf] [--out build/quality_nanopyx]

Run it with a Python that has NanoPyx 2.1 (pip install nanopyx==2.1.5; it brings tifffile and
matplotlib). Cases, from examples/data/fkbp_confocal_50x256x256_u8.tif (50 frames of 256 x 256):
  ref          the mean of all frames (256 x 256)
  sr_esrrf     eSRRF AVG of all frames at mag 5 (build/examples/esrrf, defaults; 1280 x 1280)
  esrrf_crop   its centre 512 x 512, for decorrelation (the whole image pads to 2048 x 2048,
               whose flat curve sends the high-pass sigmas up to 1024 pixels: minutes per
               filter on either side here)
  sr_up2       the mean, each pixel repeated 2 x 2 (np.kron; 512 x 512)
  odd, even    the means of the odd and of the even frames (256 x 256), for FRC
  odd_up2/even_up2  the same repeated 2 x 2, for FRC at 512 x 512
Metrics per case: error map (NanoPyx: calculate_error_map(ref, sr)), FRC (calculate_frc(a, b)),
decorrelation (calculate_decorr_analysis(img)); ours: quality_bench --metrics on the same float32
files. Times: each side one call after a warm-up call of the same metric (NanoPyx's first
call carries one-time costs, seconds for FRC; ours builds the OpenCL programs on a device),
on this machine, in this job.

Writes OUT/results.md (the table: values, differences, the brief's tolerances, times, ratio),
OUT/results.json, and OUT/error_maps.png (NanoPyx's map, ours, their difference for each case).
Exits 1 if a figure is outside its tolerance:
  RSP within 1e-3 absolute, RSE within 1% relative, error map Pearson r >= 0.999,
  FIRE and decorrelation resolution within 2% relative.
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
STACK = os.path.join(ROOT, "examples", "data", "fkbp_confocal_50x256x256_u8.tif")
TOL = {"rsp_abs": 1e-3, "rse_rel": 0.01, "map_r": 0.999, "res_rel": 0.02}


def timed(fn, *args, **kw):
    fn(*args, **kw)   # warm-up: NanoPyx's first call of a function carries one-time costs
    t0 = time.perf_counter()
    out = fn(*args, **kw)
    return out, time.perf_counter() - t0


def write_case(d, arrays):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "inputs.txt"), "w") as f:
        for name, a in arrays.items():
            a = np.ascontiguousarray(a, dtype=np.float32)
            a.tofile(os.path.join(d, name + ".f32"))
            f.write(f"{name} {a.shape[0]} {a.shape[1]}\n")


def run_ours(bench, device, d):
    out = subprocess.run([bench, "--device", device, "--metrics", d], check=True,
                         capture_output=True, text=True).stdout
    res = {}
    for line in out.splitlines():
        words = line.split()
        if words and words[0] in ("error_map", "frc", "decorr"):
            res[words[0]] = {words[i]: float(words[i + 1]) for i in range(1, len(words) - 1, 2)}
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", default=os.path.join(ROOT, "build", "bench", "quality_bench"))
    ap.add_argument("--esrrf", default=os.path.join(ROOT, "build", "examples", "esrrf"))
    ap.add_argument("--device", default="host")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "quality_nanopyx"))
    args = ap.parse_args()

    import tifffile
    import nanopyx
    from nanopyx.methods.squirrel import calculate_error_map, calculate_frc, calculate_decorr_analysis

    os.makedirs(args.out, exist_ok=True)
    stack = tifffile.imread(STACK).astype(np.float32)
    ref = stack.mean(axis=0)
    odd, even = stack[1::2].mean(axis=0), stack[0::2].mean(axis=0)
    up2 = lambda a: np.kron(a, np.ones((2, 2), dtype=np.float32))
    esrrf_tif = os.path.join(args.out, "esrrf_avg.tif")
    if not os.path.exists(esrrf_tif):
        subprocess.run([args.esrrf, "--device", args.device, "-q", "--no-preview", STACK, esrrf_tif],
                       check=True)
    sr_esrrf = tifffile.imread(esrrf_tif).astype(np.float32).reshape(256 * 5, 256 * 5)

    cases = {
        "mean_up2": {"ref": ref, "sr": up2(ref), "frc_a": odd, "frc_b": even, "decorr": ref},
        "esrrf_mag5": {"ref": ref, "sr": sr_esrrf, "frc_a": up2(odd), "frc_b": up2(even),
                       "decorr": sr_esrrf[384:896, 384:896]},
    }
    rows, failures, maps = [], [], []
    for name, arrays in cases.items():
        d = os.path.join(args.out, name)
        write_case(d, arrays)
        ours = run_ours(args.bench, args.device, d)
        (npx_map, npx_rse, npx_rsp), t_em = timed(calculate_error_map, arrays["ref"], arrays["sr"])
        npx_fire, t_frc = timed(calculate_frc, arrays["frc_a"], arrays["frc_b"])
        npx_dec, t_dec = timed(calculate_decorr_analysis, arrays["decorr"])
        our_map = np.fromfile(os.path.join(d, "hst_error_map.f32"), dtype=np.float32)
        our_map = our_map.reshape(npx_map.shape)
        r_map = float(np.corrcoef(npx_map.ravel(), our_map.ravel())[0, 1])
        maps.append((name, npx_map, our_map))
        em, fr, dc = ours["error_map"], ours["frc"], ours["decorr"]
        checks = [
            ("RSP", npx_rsp, em["rsp"], abs(em["rsp"] - npx_rsp), TOL["rsp_abs"], t_em, em["seconds"]),
            ("RSE", npx_rse, em["rse"], abs(em["rse"] / npx_rse - 1), TOL["rse_rel"], t_em, em["seconds"]),
            ("error map r", 1.0, r_map, 1.0 - r_map, 1.0 - TOL["map_r"], t_em, em["seconds"]),
            ("FIRE", npx_fire, fr["fire"], abs(fr["fire"] / npx_fire - 1) if npx_fire else abs(fr["fire"]),
             TOL["res_rel"], t_frc, fr["seconds"]),
            ("decorrelation", npx_dec, dc["resolution"], abs(dc["resolution"] / npx_dec - 1),
             TOL["res_rel"], t_dec, dc["seconds"]),
        ]
        for metric, a, b, diff, tol, tn, th in checks:
            ok = diff <= tol
            rows.append({"case": name, "metric": metric, "nanopyx": a, "ours": b, "diff": diff,
                         "tolerance": tol, "ok": ok, "nanopyx_s": tn, "ours_s": th})
            if not ok:
                failures.append(f"{name} {metric}: NanoPyx {a:.6g}, ours {b:.6g}")

    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump({"nanopyx": nanopyx.__version__, "device": args.device, "rows": rows}, f, indent=1)
    with open(os.path.join(args.out, "results.md"), "w") as f:
        f.write(f"NanoPyx {nanopyx.__version__} vs quality.h (device {args.device}), "
                f"{os.uname().nodename}, {os.cpu_count()} CPUs\n\n")
        f.write("| case | metric | NanoPyx | ours | difference | tolerance | NanoPyx s | ours s | ratio |\n")
        f.write("|---|---|---|---|---|---|---|---|---|\n")
        for r in rows:
            diff = f"{r['diff']:.2e}" if r["metric"] in ("RSP", "error map r") else f"{100 * r['diff']:.3f}%"
            tol = f"{r['tolerance']:.0e}" if r["metric"] in ("RSP", "error map r") else f"{100 * r['tolerance']:.0f}%"
            f.write(f"| {r['case']} | {r['metric']} | {r['nanopyx']:.6g} | {r['ours']:.6g} | {diff} | "
                    f"{tol} | {r['nanopyx_s']:.3f} | {r['ours_s']:.3f} | {r['nanopyx_s'] / r['ours_s']:.1f}x |\n")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(len(maps), 3, figsize=(12, 4 * len(maps)), squeeze=False)
        for i, (name, a, b) in enumerate(maps):
            for j, (img, title) in enumerate(((a, "NanoPyx"), (b, "quality.h"), (b - a, "ours - NanoPyx"))):
                im = ax[i][j].imshow(img, cmap="inferno" if j < 2 else "coolwarm")
                ax[i][j].set_title(f"{name}: {title}")
                ax[i][j].axis("off")
                fig.colorbar(im, ax=ax[i][j], fraction=0.046)
        fig.tight_layout()
        fig.savefig(os.path.join(args.out, "error_maps.png"), dpi=80)
    except ImportError:
        pass
    print(open(os.path.join(args.out, "results.md")).read())
    if failures:
        print("outside tolerance:\n  " + "\n  ".join(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
