#!/usr/bin/env python3
"""Draws benchmark results (the JSON lines of any bench program's --json
output, or of bench/run.sh --json) as SVG, one file per metric. Needs
nothing beyond Python 3.

    bench/plot.py [--skip VARIANT ...] [--only METRIC ...] OUTDIR LABEL=results.json ...

A metric measured at several sizes becomes a line chart against size
(both axes logarithmic), one line per variant and run label; one measured
at a single size becomes a bar chart. The raw floor ("floor") is drawn
dashed, other baselines dotted, the subject (the library) solid. Files are
OUTDIR/METRIC.svg; prints their names. Exits 1 on a malformed result.
"""
import json
import math
import os
import sys

WIDTH, HEIGHT = 760, 440
LEFT, RIGHT, TOP, BOTTOM = 70, 230, 40, 60
COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf",
           "#7f7f7f", "#bcbd22", "#e377c2"]
# Metric name -> (title, unit); the suffix decides lower-is-better.
TITLES = {
    "latency_us": ("one-way latency (half a round trip)", "µs"),
    "rate_Mmsg_s": ("message rate, 8 B", "M messages/s"),
    "counters_Madd_s": ("counter increments", "M/s"),
    "msgs_per_s": ("messages per second", "messages/s"),
    "gbytes_per_s": ("payload throughput", "GB/s"),
}
# Variants that are the library's own measurement in each bench program.
SUBJECTS = {"sm", "ucx", "ofi", "pmpi", "notified"}


class BadResult(Exception):
    pass


def load(path, skip):
    """{metric: {variant: {bytes: value}}} from one run's JSON lines."""
    metrics = {}
    with open(path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            line = line.strip()
            if not line.startswith("{"):
                continue  # build output, warnings
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                raise BadResult(f"{path}:{number}: not JSON ({error})") from error
            if "note" in record and "metric" not in record:
                continue
            try:
                metric, variant = str(record["metric"]), str(record["variant"])
                size, value = int(record["bytes"]), float(record["value"])
            except (KeyError, TypeError, ValueError) as error:
                raise BadResult(f"{path}:{number}: a result needs metric, variant, bytes "
                                f"and a numeric value ({error!r})") from error
            if not math.isfinite(value) or value < 0:
                raise BadResult(f"{path}:{number}: value {value} of {metric}/{variant}")
            if variant in skip:
                continue
            metrics.setdefault(metric, {}).setdefault(variant, {})[size] = value
    return metrics


def size_text(size):
    for shift, unit in ((20, "MiB"), (10, "KiB")):
        if size >= 1 << shift and size % (1 << shift) == 0:
            return f"{size >> shift} {unit}"
    return f"{size} B"


def style(variant):
    if variant == "floor":
        return ' stroke-dasharray="8,4"'
    if variant.split(" ")[0] in SUBJECTS:
        return ""
    return ' stroke-dasharray="2,3"'


def header(title):
    return [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
            f'font-family="sans-serif" font-size="12">',
            f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
            f'<text x="{LEFT}" y="22" font-size="14">{title}</text>']


def legend(out, index, label, colour, dash):
    y = TOP + 10 + 18 * index
    out.append(f'<line x1="{WIDTH - RIGHT + 12}" y1="{y}" x2="{WIDTH - RIGHT + 36}" y2="{y}" '
               f'stroke="{colour}" stroke-width="2"{dash}/>')
    out.append(f'<text x="{WIDTH - RIGHT + 42}" y="{y + 4}">{label}</text>')


def decades(values):
    """(bottom, top) powers of ten around the positive values."""
    positive = [v for v in values if v > 0] or [1]
    top = 10 ** math.ceil(math.log10(max(positive)))
    bottom = 10 ** math.floor(math.log10(min(positive)))
    return (bottom if bottom < top else top / 10), top


def line_chart(title, unit, lines):
    sizes = sorted({size for _, points in lines for size in points})
    bottom, top = decades([v for _, points in lines for v in points.values()])
    span = max(1e-9, math.log2(sizes[-1] or 1) - math.log2(sizes[0] or 1))
    x_of = lambda size: LEFT + (WIDTH - LEFT - RIGHT) * (
        (math.log2(max(size, 1)) - math.log2(max(sizes[0], 1))) / span)
    y_of = lambda value: TOP + (HEIGHT - TOP - BOTTOM) * (
        1 - (math.log10(max(value, bottom)) - math.log10(bottom)) /
        (math.log10(top) - math.log10(bottom)))
    out = header(f"{title} ({unit}, log scale) against size")
    for decade in range(round(math.log10(bottom)), round(math.log10(top)) + 1):
        y = y_of(10 ** decade)
        out.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{WIDTH - RIGHT}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{LEFT - 8}" y="{y + 4:.1f}" text-anchor="end">{10 ** decade:g}</text>')
    for size in sizes:
        x = x_of(size)
        out.append(f'<line x1="{x:.1f}" y1="{TOP}" x2="{x:.1f}" y2="{HEIGHT - BOTTOM}" stroke="#eee"/>')
        out.append(f'<text x="{x:.1f}" y="{HEIGHT - BOTTOM + 18}" text-anchor="middle" '
                   f'font-size="10">{size_text(size)}</text>')
    out.append(f'<text x="{(LEFT + WIDTH - RIGHT) / 2:.0f}" y="{HEIGHT - 15}" '
               f'text-anchor="middle">bytes</text>')
    for index, (label, points) in enumerate(lines):
        colour = COLOURS[index % len(COLOURS)]
        dash = style(label)
        path = " ".join(f"{x_of(s):.1f},{y_of(points[s]):.1f}" for s in sorted(points))
        out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"{dash}/>')
        for s in sorted(points):
            out.append(f'<circle cx="{x_of(s):.1f}" cy="{y_of(points[s]):.1f}" r="3" fill="{colour}"/>')
        legend(out, index, label, colour, dash)
    return out


def bar_chart(title, unit, lines):
    size = next(iter(lines[0][1]))
    top = max(points[size] for _, points in lines) or 1
    bar = (HEIGHT - TOP - BOTTOM) / len(lines)
    # Room for the longest label (about 6 px a character at this size).
    left = max(LEFT, 12 + 6 * max(len(label) for label, _ in lines))
    out = header(f"{title} ({unit}) at {size_text(size)}")
    for index, (label, points) in enumerate(lines):
        colour = COLOURS[index % len(COLOURS)]
        length = (WIDTH - left - 60) * points[size] / top
        y = TOP + index * bar
        out.append(f'<rect x="{left}" y="{y + 2:.1f}" width="{length:.1f}" height="{bar - 4:.1f}" '
                   f'fill="{colour}" fill-opacity="{1.0 if style(label) == "" else 0.5}"/>')
        out.append(f'<text x="{left + length + 4:.1f}" y="{y + bar / 2 + 4:.1f}">'
                   f'{points[size]:.3g}</text>')
        out.append(f'<text x="{left - 4}" y="{y + bar / 2 + 4:.1f}" text-anchor="end" '
                   f'font-size="10">{label}</text>')
    return out


def main(argv):
    skip, only, rest = set(), set(), []
    arguments = iter(argv[1:])
    for argument in arguments:
        if argument in ("--skip", "--only"):
            (skip if argument == "--skip" else only).add(next(arguments, ""))
        else:
            rest.append(argument)
    if len(rest) < 2 or any("=" not in a for a in rest[1:]):
        print(__doc__, file=sys.stderr)
        return 2
    outdir, runs = rest[0], [a.split("=", 1) for a in rest[1:]]
    charts = {}  # metric -> [(label, {bytes: value})]
    try:
        for label, path in runs:
            for metric, variants in sorted(load(path, skip).items()):
                if only and metric not in only:
                    continue
                for variant, points in sorted(variants.items()):
                    name = variant if len(runs) == 1 else f"{variant} ({label})"
                    charts.setdefault(metric, []).append((name, points))
    except (OSError, BadResult) as error:
        print(f"plot: {error}", file=sys.stderr)
        return 1
    if not charts:
        print("plot: no results to draw", file=sys.stderr)
        return 1
    os.makedirs(outdir, exist_ok=True)
    for metric, lines in sorted(charts.items()):
        title, unit = TITLES.get(metric, (metric, "lower is better" if metric.endswith("_us")
                                          else "higher is better"))
        sizes = {size for _, points in lines for size in points}
        out = line_chart(title, unit, lines) if len(sizes) > 1 else bar_chart(title, unit, lines)
        out.append("</svg>")
        path = os.path.join(outdir, f"{metric}.svg")
        with open(path, "w", encoding="utf-8") as svg:
            svg.write("\n".join(out) + "\n")
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
