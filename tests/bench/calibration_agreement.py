#!/usr/bin/env python3
"""Do calibrations agree with each other? Runs `tunekit calibrate` on the
same keys N times (no cache, so each run measures afresh) and prints, per key
and parameter, the values chosen and how many runs chose the most common one.

  calibration_agreement.py TOOL [--runs N] [--time-budget S] [--side-by-side BENCH] [--keep FOLDER]
                           [calibrate options...]

for example
  calibration_agreement.py build/ci/bin/tunekit --runs 10 --kernel Abs --kernel Add --element-type float

With --side-by-side (the path of bench_calibration_side_by_side), each run
also writes its profile, and the benchmark then times the configurations the
runs chose side by side, with the portable default, and prints per key the
slowest chosen over the fastest chosen.
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tool")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--time-budget", default="2")
    parser.add_argument("--side-by-side", metavar="BENCH")
    parser.add_argument("--keep", metavar="FOLDER", help="write the reports and profiles here and keep them")
    args, calibrate_options = parser.parse_known_args()

    chosen = collections.defaultdict(list)  # (key, parameter) -> values, one per run
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.keep or scratch
        os.makedirs(folder, exist_ok=True)
        for run in range(args.runs):
            report_path = os.path.join(folder, f"report-{run}.json")
            command = [args.tool, "calibrate", "--no-cache", "--time-budget", args.time_budget,
                       "--report", report_path] + calibrate_options
            if args.side_by_side:
                command += ["--profile-out", os.path.join(folder, f"profile-{run}.toml")]
            finished = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if finished.returncode != 0:
                sys.exit(f"run {run}: {' '.join(command)} exited with {finished.returncode}:\n{finished.stderr}")
            with open(report_path) as f:
                report = json.load(f)
            for entry in report["calibrated"]:
                for selected in entry["report"].get("selected", []):
                    chosen[(entry["key"], selected["parameter"])].append(selected["value"])
            for entry in report["not_calibrated"]:
                chosen[(entry["key"], "(not calibrated)")].append(entry["reason"][:40])
        if args.side_by_side:
            profiles = [os.path.join(folder, f"profile-{run}.toml") for run in range(args.runs)]
            profiles = [p for p in profiles if os.path.exists(p)]
            side = subprocess.run([args.side_by_side] + profiles, stdout=subprocess.PIPE, text=True)
            side_by_side_output = side.stdout
            if side.returncode != 0:
                sys.exit(f"{args.side_by_side} exited with {side.returncode}:\n{side.stdout}")

    agreeing = 0
    print(f"{'key':<52} {'parameter':<30} {'agree':>7}  values chosen (count)")
    for (key, parameter), values in sorted(chosen.items()):
        counts = collections.Counter(json.dumps(v) for v in values)
        majority = counts.most_common(1)[0][1]
        agreeing += majority == len(values) == args.runs
        shown = ", ".join(f"{v} ({n})" for v, n in counts.most_common())
        print(f"{key:<52} {parameter:<30} {majority:>3}/{len(values):<3}  {shown}")
    print(f"{agreeing} of {len(chosen)} parameters chose one value in all {args.runs} runs")
    if args.side_by_side:
        print()
        print(side_by_side_output, end="")


if __name__ == "__main__":
    main()
