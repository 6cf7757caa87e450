#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Draw the JSON of `vfabric arsim --json` as a PNG an admin can read:
how many links carry how many flows, static routes versus adaptive
routing; the busiest link of each; and, with failed links, the flows lost
before the SM reacts (AR with and without lost-route notification) and
the load before and after it re-routes.

  arplot.py ARSIM.json -o PLOT.png      (or `vfabric arsim ... --plot PNG`)

Needs matplotlib (Debian: python3-matplotlib).
"""

import argparse
import json
import os
import sys

STATIC, ADAPTIVE, QUIET = "#c44e52", "#4c72b0", "#9fb7db"


def histogram(ax, res):
    """Fabric links per load, static and adaptive side by side."""
    hs, ha = res["histogram"]["static"], res["histogram"]["adaptive"]
    loads = range(len(hs))
    ax.bar([x - 0.2 for x in loads], hs, width=0.4, color=STATIC,
           label="static (LFT)")
    ax.bar([x + 0.2 for x in loads], ha, width=0.4, color=ADAPTIVE,
           label="adaptive routing")
    ax.set_xlabel("flows on the link")
    ax.set_ylabel("directed switch-to-switch links")
    seed = res["seed"]
    ax.set_title(f"Link load, {res['pattern']} (seed {seed})")
    ax.set_xticks(list(loads))
    ax.legend(loc="upper right")


def annotate(ax, bars):
    for bar in bars:
        h = bar.get_height()
        ax.annotate(f"{h:.2f}".rstrip("0").rstrip("."),
                    (bar.get_x() + bar.get_width() / 2, h),
                    ha="center", va="bottom", fontsize=8)


def summary(ax, res):
    """Max load (mean over runs) and, with failures, lost flows and the
    load before and after the SM re-routes; with notification on, a third
    bar for AR on switches without it, where it differs (before the
    re-route)."""
    labels = ["max load"]
    st = [res["static"]["max"]]
    ar = [res["adaptive"]["max"]]
    quiet = []
    fail = res.get("failure")
    notify = res.get("notify", False)
    if fail:
        engine = fail.get("reroute_engine", "shortestpath")
        labels += ["flows lost\n(until re-route)",
                   "max load\nlink(s) failed",
                   f"max load\nafter re-route\n({engine})"]
        st += [fail["static_lost"], fail["static_max"],
               fail["rerouted_static_max"]]
        ar += [fail["ar_lost"], fail["ar_max"], fail["rerouted_ar_max"]]
        if notify:
            quiet = [fail["ar_lost_no_notify"], fail["ar_max_no_notify"]]
    xs = range(len(labels))
    w = 0.27 if quiet else 0.4
    ar_label = "adaptive routing" + (
        ", lost-route notification" if quiet else
        ", no notification" if fail else "")
    annotate(ax, ax.bar([x - w / 2 - (w / 2 if quiet else 0) for x in xs],
                        st, width=w, color=STATIC, label="static (LFT)"))
    annotate(ax, ax.bar([x + w / 2 - (w / 2 if quiet else 0) for x in xs],
                        ar, width=w, color=ADAPTIVE, label=ar_label))
    if quiet:
        annotate(ax, ax.bar([1 + w, 2 + w], quiet, width=w, color=QUIET,
                            label="adaptive routing, no notification"))
    ax.set_xticks(list(xs))
    ax.set_xticklabels(labels)
    ax.set_ylabel("flows")
    runs = res["runs"]
    title = f"Static vs adaptive, {res['flows']} flows"
    if runs > 1:
        title += f", mean of {runs} runs"
    if fail:
        title += f", {len(fail['links'])} link(s) failed"
    ax.set_title(title)
    ax.set_ylim(top=max(st + ar + quiet + [1]) * (1.45 if quiet else 1.25))
    ax.legend(loc="upper right")


def gain_text(res):
    """The ratio, named by the congestion model it comes from, and the
    other model's (older JSON has only the ratio)."""
    ratio = res.get("ratio") or 0
    gain = res.get("gain")
    if not gain:
        return f"{ratio:.2f}x"
    bp = res.get("backpressure", True)
    other = gain["no_backpressure" if bp else "backpressure"]
    return (f"{ratio:.2f}x {'with' if bp else 'without'} backpressure, "
            f"{other:.2f}x {'without' if bp else 'with'} it")


def draw(res, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 5))
    histogram(left, res)
    summary(right, res)
    fig.suptitle(f"vfabric arsim: {os.path.basename(res['topo'])}: "
                 f"static/AR max load {gain_text(res)}", fontsize=11)
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("json", help="vfabric arsim --json output ('-': stdin)")
    ap.add_argument("-o", "--output", required=True, help="PNG to write")
    args = ap.parse_args(argv)
    try:
        fh = sys.stdin if args.json == "-" else open(args.json)
        with fh:
            res = json.load(fh)
    except (OSError, ValueError) as e:
        sys.exit(f"arplot: {args.json}: {e}")
    try:
        draw(res, args.output)
    except ImportError:
        sys.exit("arplot: needs matplotlib (apt-get install "
                 "python3-matplotlib)")
    except (KeyError, TypeError) as e:
        sys.exit(f"arplot: {args.json}: not vfabric arsim output ({e})")


if __name__ == "__main__":
    main()
