"""k-means trials on 1 and 2 threads against the committed records of Table 1, field by field, bit for bit.

    python benchmarks/kmeans_threads_records.py [--datasets d31,cloud,norm25] [--trials 0,1]

Reruns `latent_mm.experiments.kmeans.kmeans_trial` (k-means and G-MM with the default random bound, every
initialisation of Table 1) with numba's thread count set to 1 and to 2, and compares every result but the times
(NaN equal to NaN) with the record of the same config in `nbs/experiments/results/kmeans_table1.jsonl` (read only).
"""
import argparse
import json
from pathlib import Path

import numba

from latent_mm.experiments.kmeans import TABLE1_INITS, kmeans_trial

RECORDS = Path(__file__).resolve().parents[1] / "nbs/experiments/results/kmeans_table1.jsonl"


def main(datasets="d31,cloud,norm25", trials="0,1"):
    records = {}
    for line in RECORDS.read_text().splitlines():
        r = json.loads(line)
        records[json.dumps(r["config"], sort_keys=True)] = r["result"]
    same = total = 0
    for dataset in datasets.split(","):
        for init in TABLE1_INITS:
            for trial in map(int, trials.split(",")):
                config = {"dataset": dataset, "init": init, "trial": trial, "eta": 0.02, "bound": "random",
                          "n_sweeps": 2}
                want = records.get(json.dumps(config, sort_keys=True))
                if want is None:
                    print(f"{dataset} {init} trial {trial}: no record")
                    continue
                for threads in (1, 2):
                    numba.set_num_threads(threads)
                    got = kmeans_trial(dataset, init, trial)
                    diff = {k: (got[k], v) for k, v in want.items()
                            if not k.endswith("seconds") and got[k] != v and not (got[k] != got[k] and v != v)}
                    total += 1
                    same += not diff
                    print(f"{dataset} {init} trial {trial}, {threads} thread(s): "
                          + ("identical" if not diff else f"differs {diff}"), flush=True)
    print(f"{same} of {total} runs identical to the committed records")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="d31,cloud,norm25")
    parser.add_argument("--trials", default="0,1")
    main(**vars(parser.parse_args()))
