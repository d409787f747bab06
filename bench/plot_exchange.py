#!/usr/bin/env python3
"""Plots exchange_bench results (bench/run.sh --suite exchange --json) as an
SVG: payload throughput against payload size, one line per implementation
and backend. Needs nothing beyond Python 3.

    bench/plot_exchange.py OUT.svg LABEL=results.json [LABEL=results.json ...]
"""
import json
import math
import sys

WIDTH, HEIGHT = 760, 440
LEFT, RIGHT, TOP, BOTTOM = 70, 200, 40, 60
COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf"]


def load(path):
    """{variant: {bytes: GB/s}} from one run's JSON lines."""
    series = {}
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            line = line.strip()
            if not line.startswith("{"):
                continue
            record = json.loads(line)
            # The plain-puts baseline stays in the table: on shared memory
            # it is ten times the others and would flatten them.
            if record.get("metric") != "gbytes_per_s" or record["variant"] == "puts":
                continue
            series.setdefault(record["variant"], {})[record["bytes"]] = record["value"]
    return series


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    lines = []  # (label, {bytes: value})
    for argument in argv[2:]:
        label, path = argument.split("=", 1)
        for variant, points in sorted(load(path).items()):
            lines.append((f"{variant} ({label})", points))
    sizes = sorted({size for _, points in lines for size in points})
    top = max(value for _, points in lines for value in points.values())
    top = 10 ** math.ceil(math.log10(top)) if top > 0 else 1
    bottom = top / 1000
    x_of = lambda size: LEFT + (WIDTH - LEFT - RIGHT) * (
        (math.log2(size) - math.log2(sizes[0])) / max(1e-9, math.log2(sizes[-1]) - math.log2(sizes[0])))
    y_of = lambda value: TOP + (HEIGHT - TOP - BOTTOM) * (
        1 - (math.log10(max(value, bottom)) - math.log10(bottom)) / (math.log10(top) - math.log10(bottom)))
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
           f'font-family="sans-serif" font-size="12">',
           f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
           f'<text x="{LEFT}" y="22" font-size="14">Message exchange: payload throughput '
           f'(GB/s, log scale) against payload size</text>']
    for decade in range(int(math.log10(bottom)), int(math.log10(top)) + 1):
        y = y_of(10 ** decade)
        out.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{WIDTH - RIGHT}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{LEFT - 8}" y="{y + 4:.1f}" text-anchor="end">{10 ** decade:g}</text>')
    for size in sizes:
        x = x_of(size)
        text = f"{size >> 20} MiB" if size >= 1 << 20 else f"{size >> 10} KiB"
        out.append(f'<line x1="{x:.1f}" y1="{TOP}" x2="{x:.1f}" y2="{HEIGHT - BOTTOM}" stroke="#eee"/>')
        out.append(f'<text x="{x:.1f}" y="{HEIGHT - BOTTOM + 18}" text-anchor="middle">{text}</text>')
    out.append(f'<text x="{(LEFT + WIDTH - RIGHT) / 2:.0f}" y="{HEIGHT - 15}" '
               f'text-anchor="middle">payload bytes per message</text>')
    for index, (label, points) in enumerate(lines):
        colour = COLOURS[index % len(COLOURS)]
        dash = ' stroke-dasharray="6,4"' if label.startswith("tag") else ""
        path = " ".join(f"{x_of(size):.1f},{y_of(points[size]):.1f}" for size in sorted(points))
        out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"{dash}/>')
        for size in sorted(points):
            out.append(f'<circle cx="{x_of(size):.1f}" cy="{y_of(points[size]):.1f}" r="3" '
                       f'fill="{colour}"/>')
        y = TOP + 10 + 18 * index
        out.append(f'<line x1="{WIDTH - RIGHT + 12}" y1="{y}" x2="{WIDTH - RIGHT + 36}" y2="{y}" '
                   f'stroke="{colour}" stroke-width="2"{dash}/>')
        out.append(f'<text x="{WIDTH - RIGHT + 42}" y="{y + 4}">{label}</text>')
    out.append("</svg>")
    with open(argv[1], "w", encoding="utf-8") as svg:
        svg.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
