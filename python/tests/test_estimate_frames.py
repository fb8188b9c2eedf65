"""halostream.estimate_frames (quality.h's hst_estimate_frames, NanoJ-eSRRF's estimate of the
most frames worth one time point): a still scene keeps the block, a moving one gives fewer
frames the faster it moves, every dtype of the same values gives the same curve bit for bit,
bad input raises naming the argument. The SSIMs run on the host's processor whatever the
device (HST_DEVICE's Backend takes the log)."""
import numpy as np

import halostream
from tap import DEVICE, main, raises, test

R, C = 48, 44
SPOTS = np.array([[10, 8, 900], [30, 12, 700], [20, 30, 800], [38, 36, 600], [6, 26, 500],
                  [42, 6, 750], [25, 20, 650], [14, 40, 550], [34, 24, 850], [4, 14, 450],
                  [18, 4, 700], [44, 30, 500]], np.float64)


def scene(frames, speed, noise, seed=1):
    """Spots (sigma 2 px) moving down `speed` px a frame on a torus, noise, integer values."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:R, 0:C].astype(np.float64)
    out = np.empty((frames, R, C), np.float32)
    for f in range(frames):
        v = np.full((R, C), 100.0)
        for cy, cx, a in SPOTS:
            ry = np.remainder(y - cy - speed * f + R / 2, R) - R / 2
            v += a * np.exp(-(ry * ry + (x - cx) ** 2) / 8.0)
        out[f] = np.floor(v + noise * rng.uniform(-1, 1, (R, C)) + 0.5)
    return out


@test
def still_and_moving():
    still = halostream.estimate_frames(scene(60, 0.0, 60.0), block_frames=20, device=DEVICE)
    assert not still.reached and still.frames == 20 and still.blocks == 3, still
    assert still.ssim.shape == (20,) and still.ssim[0] == 1.0
    fast = halostream.estimate_frames(scene(90, 0.5, 60.0), block_frames=30, device=DEVICE)
    slow = halostream.estimate_frames(scene(90, 0.05, 60.0), block_frames=30, device=DEVICE)
    assert fast.reached and slow.reached, (fast, slow)
    assert fast.frames < slow.frames, (fast.frames, slow.frames)
    assert fast.ssim[1] > fast.ssim[10]
    return "fast %d frames, slow %d" % (fast.frames, slow.frames)


@test
def dtypes_give_the_same_curve():
    s = scene(40, 0.2, 40.0)
    want = halostream.estimate_frames(s, block_frames=10, device=DEVICE)
    for dt in (np.uint16, np.int16):
        got = halostream.estimate_frames(s.astype(dt), block_frames=10, device=DEVICE)
        assert got.frames == want.frames
        assert np.array_equal(got.ssim, want.ssim) and np.array_equal(got.ssim_sd, want.ssim_sd)
    assert want.range == float(s.max() - s.min())
    given = halostream.estimate_frames(s, block_frames=10, value_range=65535, device=DEVICE)
    assert given.range == 65535.0


@test
def bad_input():
    s = scene(8, 0.1, 10.0)
    raises(ValueError, "block_frames", halostream.estimate_frames, s, block_frames=1,
           device=DEVICE)
    raises(halostream.InvalidArgument, "block_frames", halostream.estimate_frames, s,
           block_frames=7, device=DEVICE)   # a block of 7 and one of 1 frame: too few
    raises(ValueError, "sigmas", halostream.estimate_frames, s, sigmas=-1, device=DEVICE)
    raises(halostream.InvalidArgument, "window", halostream.estimate_frames, s[:, :10, :],
           block_frames=4, device=DEVICE)
    raises(TypeError, "dtype", halostream.estimate_frames, s.astype(np.complex64),
           block_frames=4, device=DEVICE)


if __name__ == "__main__":
    raise SystemExit(main())
