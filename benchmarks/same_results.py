"""Do two versions of latent_mm select the same random bounds? Runs k-means trials of Table 1 and scene trials with
random bounds under this checkout and under git revision REV (a temporary worktree), and compares, trial by trial,
every configuration the random walk selected, its diagnostics, and the trial's results.

    python benchmarks/same_results.py REV [--trials 3]

For a change meant to be a pure speed-up of the walk or of the regret pass: the committed results then stand. The
product law's `beta` is compared apart, by its largest relative difference, since sums taken in another order can
move its last bits without changing any draw.
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import warnings


def digest(x) -> str:
    return hashlib.sha1(json.dumps(x, sort_keys=True, default=str).encode()).hexdigest()[:16]


def record(trials):
    "One JSON line per trial of the installed or PYTHONPATH-selected latent_mm."
    import numpy as np
    import latent_mm.selection as S
    from latent_mm.experiments.kmeans import DATASETS, TABLE1_INITS, kmeans_trial
    from latent_mm.experiments.scene import scene_trial
    warnings.simplefilter("ignore")
    log, call = [], S.RandomWalk.__call__

    def logged(self, R, budget, z_prev, rng):
        z, info = call(self, R, budget, z_prev, rng)
        log.append((hashlib.sha1(np.asarray(z).tobytes()).hexdigest(), info))
        return z, info
    S.RandomWalk.__call__ = logged
    cases = [(f"kmeans/{d}/{init}/{t}", lambda d=d, init=init, t=t: kmeans_trial(d, init, t))
             for d in DATASETS for init in TABLE1_INITS for t in range(trials)]
    cases += [(f"scene/{init}/{lam}", lambda init=init, lam=lam: scene_trial(
        "G-MM random", init, lam, grid=(6, 6), n_train=4, n_test=4, max_iter=20))
        for init, lam in (("kmeans", 0.0), ("kmeans", 0.25), ("random", 0.0))]
    for name, run in cases:
        log.clear()
        result = {k: v for k, v in run().items() if "second" not in k and "time" not in k}
        print(json.dumps(dict(case=name, module=S.__file__, selections=len(log), z=digest([z for z, _ in log]),
                              info=digest([{k: v for k, v in i.items() if k != "beta"} for _, i in log]),
                              beta=[i["beta"] for _, i in log], result=digest(result))), flush=True)


def run_under(path, trials):
    env = dict(os.environ, PYTHONPATH=path)
    out = subprocess.run([sys.executable, __file__, "--record", "--trials", str(trials)], env=env, cwd=tempfile.gettempdir(),
                         capture_output=True, text=True, check=True).stdout
    return [json.loads(line) for line in out.splitlines()]


def main(rev, trials):
    import numpy as np
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with tempfile.TemporaryDirectory() as tmp:
        old_tree = os.path.join(tmp, "old")
        subprocess.run(["git", "-C", here, "worktree", "add", "--detach", old_tree, rev], check=True, capture_output=True)
        try:
            old, new = run_under(old_tree, trials), run_under(here, trials)
        finally:
            subprocess.run(["git", "-C", here, "worktree", "remove", "--force", old_tree], check=True)
    assert old[0]["module"].startswith(old_tree) and new[0]["module"].startswith(here), "the wrong latent_mm ran"
    worst, differ = 0.0, []
    for a, b in zip(old, new):
        same = [a[k] == b[k] for k in ("selections", "z", "info", "result")]
        ba, bb = np.array(a["beta"], float), np.array(b["beta"], float)
        tilted = np.isfinite(ba) & (ba > 0)
        if ba.shape == bb.shape and np.array_equal(np.isfinite(ba), np.isfinite(bb)) and tilted.any():
            worst = max(worst, float(np.max(np.abs(ba[tilted] - bb[tilted]) / ba[tilted])))
        if not all(same):
            differ.append(a["case"])
        print(f"{a['case']:36s} selections {a['selections']:4d}  same configurations {same[1]}  same diagnostics "
              f"{same[2]}  same results {same[3]}")
    print(f"{len(old)} trials, {sum(a['selections'] for a in old)} selections: {len(old) - len(differ)} identical"
          f"{' (differ: ' + ', '.join(differ) + ')' if differ else ''}; largest relative change of beta {worst:.1e}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rev", nargs="?", help="the git revision to compare with")
    parser.add_argument("--trials", type=int, default=3, help="k-means trials per Table 1 setting (default: 3)")
    parser.add_argument("--record", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.record:
        record(args.trials)
    elif args.rev is None:
        parser.error("give the git revision to compare with")
    elif subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"{args.rev}^{{commit}}"], capture_output=True,
                        cwd=os.path.dirname(os.path.abspath(__file__))).returncode != 0:
        parser.error(f"{args.rev!r} is not a commit of this repository")
    elif args.trials < 1:
        parser.error(f"--trials {args.trials}: at least 1")
    else:
        main(args.rev, args.trials)
