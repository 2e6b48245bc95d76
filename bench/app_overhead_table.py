#!/usr/bin/env python3
"""The tables of bench/app_overhead.sh from its measurements.

Argument 1: one line per run and metric, tab-separated:
    app  metric  unit  better  config  repetition  value
better is "lower" (a time) or "higher" (a rate). Configurations: none, distro, mpimon
(distro may be absent). Output: a Markdown table on stdout, one row per metric.
Argument 2 (optional): one line per monitored run, tab-separated:
    app  config  repetition  ranks  point-to-point messages sent (all ranks)  wall seconds
Output: a second table, the messages per rank and per second of each application.

The cost of a run is its value when lower is better, 1/value when higher is better; a
configuration's overhead in one repetition is cost(config) / cost(none) - 1 of the runs of
that repetition (neighbours in time, so a slow phase of the machine hits both), and the
table gives the median of those per-pair overheads with their minimum and maximum (and
the same for mpimon against distro), and the overhead of each configuration's best run
against the best unmonitored run.
"""
import statistics
import sys
from collections import defaultdict


def percent(x):
    return f"{x * 100:+.1f}%"


def fmt(value):
    return f"{value:.4g}"


def main():
    runs = defaultdict(dict)  # (app, metric) -> {(config, rep): value}
    info = {}  # (app, metric) -> (unit, better)
    order = []
    with open(sys.argv[1], encoding="utf-8") as f:
        for line in f:
            app, metric, unit, better, config, rep, value = line.rstrip("\n").split("\t")
            key = (app, metric)
            if key not in info:
                info[key] = (unit, better)
                order.append(key)
            runs[key][(config, int(rep))] = float(value)
    configs = ["none", "distro", "mpimon"]
    present = [c for c in configs if any(c == k[0] for r in runs.values() for k in r)]
    others = [c for c in present if c != "none"]

    header = ["application", "metric", "unit"]
    header += [f"{c}: median" for c in present]
    header += ["none: CV"]
    # Each monitored configuration against none; and mpimon against Open MPI's own.
    comparisons = [(c, "none") for c in others]
    if "distro" in present and "mpimon" in present:
        comparisons.append(("mpimon", "distro"))
    header += [f"{c} vs {b}: median [min, max]" for c, b in comparisons]
    header += ["best runs: " + " / ".join(f"{c} vs none" for c in others)]
    header += ["runs"]
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join(["---"] * 3 + ["---:"] * (len(header) - 3)) + "|")
    for key in order:
        unit, better = info[key]
        values = runs[key]
        row = [key[0], key[1], f"{unit} ({better} is better)"]
        for c in present:
            v = [x for (cc, _), x in values.items() if cc == c]
            row.append(fmt(statistics.median(v)) if v else "-")
        base = [x for (cc, _), x in values.items() if cc == "none"]
        if len(base) >= 2 and statistics.mean(base) != 0:
            row.append(f"{statistics.stdev(base) / statistics.mean(base) * 100:.1f}%")
        else:
            row.append("-")
        for c, base_config in comparisons:
            pairs = []
            for (cc, rep), x in values.items():
                if cc != c or (base_config, rep) not in values:
                    continue
                b = values[(base_config, rep)]
                if x <= 0 or b <= 0:
                    continue
                pairs.append(x / b - 1 if better == "lower" else b / x - 1)
            if pairs:
                row.append(f"{percent(statistics.median(pairs))} [{percent(min(pairs))}, {percent(max(pairs))}]")
            else:
                row.append("-")
        # The load only ever slows a run down: the best run of each configuration is the
        # one least disturbed, and the ratio of the best runs the least noisy estimate.
        def best_cost(config):
            costs = [x if better == "lower" else 1 / x for (cc, _), x in values.items() if cc == config and x > 0]
            return min(costs) if costs else None

        best_none = best_cost("none")
        row.append(" / ".join(percent(best_cost(c) / best_none - 1) if best_none and best_cost(c) else "-"
                              for c in others))
        row.append(" / ".join(str(sum(1 for (cc, _) in values if cc == c)) for c in present))
        print("| " + " | ".join(row) + " |")


def traffic_table(path):
    rows = defaultdict(lambda: defaultdict(list))  # app -> config -> [(per rank, per second)]
    order = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            app, config, _, ranks, messages, wall = line.rstrip("\n").split("\t")
            if app not in rows:
                order.append(app)
            per_rank = int(messages) / int(ranks)
            rows[app][config].append((per_rank, per_rank / float(wall) if float(wall) > 0 else 0))
    if not order:
        return
    print()
    print("| application | point-to-point messages per rank (distro / mpimon, median) "
          "| per rank per second of wall time (median) |")
    print("|---|---:|---:|")
    for app in order:
        counts = " / ".join(f"{statistics.median(m for m, _ in rows[app][c]):.0f}"
                            for c in ("distro", "mpimon") if rows[app][c])
        rates = [r for c in rows[app] for _, r in rows[app][c]]
        print(f"| {app} | {counts} | {statistics.median(rates):.0f} |")


if __name__ == "__main__":
    main()
    if len(sys.argv) > 2:
        traffic_table(sys.argv[2])
