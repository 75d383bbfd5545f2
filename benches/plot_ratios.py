#!/usr/bin/env python3
"""Draws benches/ratios.svg: how many times slower each peer is than ptc on
W1 (cold run) and W2 (per sub-call). Inputs: ptc's workloads JSON lines and
the peers' peers.json, both written by benches/peers/run-all. Usage:
  benches/peers/run-all target/peers
  python3 benches/plot_ratios.py target/peers/ptc.jsonl target/peers/peers.json > benches/ratios.svg
"""
import json
import sys

ptc = {}
for line in open(sys.argv[1]):
    line = line.strip()
    if line.startswith("{"):
        r = json.loads(line)
        ptc[r["workload"]] = r["median"]

peers = json.load(open(sys.argv[2]))["engines"]
rows = []
for engine, figures in peers.items():
    if engine.startswith("plain") or "W1" not in figures:
        continue  # no sandbox (a floor, not a peer), or a renderer only
    rows.append((engine, figures["W1"].get("median"), figures.get("W2", {}).get("median")))

width, bar_h, gap, left = 760, 16, 10, 190
scale_max = max(max((w1 or 0) / ptc["W1"], (w2 or 0) / ptc["W2"]) for _, w1, w2 in rows)
height = 60 + len(rows) * (2 * bar_h + gap)
out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="12">',
       f'<text x="10" y="20" font-size="14">Peer time ÷ ptc time (higher = ptc faster); ptc W1 {ptc["W1"]:.0f} µs/run, W2 {ptc["W2"]:.2f} µs/sub-call</text>',
       '<rect x="10" y="30" width="12" height="10" fill="#4878d0"/><text x="26" y="39">W1 cold run</text>',
       '<rect x="120" y="30" width="12" height="10" fill="#ee854a"/><text x="136" y="39">W2 per sub-call</text>']
y = 55
plot_w = width - left - 70
for engine, w1, w2 in rows:
    out.append(f'<text x="10" y="{y + bar_h + 4}">{engine}</text>')
    for value, base, color, dy in ((w1, ptc["W1"], "#4878d0", 0), (w2, ptc["W2"], "#ee854a", bar_h)):
        if value is None:
            continue
        ratio = value / base
        w = max(1, plot_w * ratio / scale_max)
        out.append(f'<rect x="{left}" y="{y + dy}" width="{w:.1f}" height="{bar_h - 2}" fill="{color}"/>')
        out.append(f'<text x="{left + w + 4:.1f}" y="{y + dy + bar_h - 5}">{ratio:.2f}×</text>')
    y += 2 * bar_h + gap
x1 = left + plot_w / scale_max
out.append(f'<line x1="{x1:.1f}" y1="50" x2="{x1:.1f}" y2="{height - 5}" stroke="#444" stroke-dasharray="3,3"/>')
out.append(f'<text x="{x1 + 3:.1f}" y="{height - 8}" fill="#444">1× (ptc)</text>')
out.append("</svg>")
print("\n".join(out))
