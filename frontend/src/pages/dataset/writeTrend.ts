// The rows and bytes each recent run wrote to a dataset (its `outputStatistics`), as two bar charts over time.

import type { WriteStatistics } from "../../api/types";
import { h, svg } from "../../dom";
import { STATE_COLORS, formatTime, stateKey } from "../../format";

type Measure = "rowCount" | "bytes";

/** Both trends, oldest run left; a note when no run reported what it wrote. */
export function writeTrend(statistics: WriteStatistics[]): HTMLElement {
  if (!statistics.length) return h("p", { class: "muted", id: "write-trend" }, "No run has reported how much it wrote.");
  return h("div", { class: "write-trend", id: "write-trend" },
    ...(["rowCount", "bytes"] as Measure[]).map((measure) => trendChart(statistics, measure)));
}

const LABELS: Record<Measure, string> = { rowCount: "Rows written", bytes: "Bytes written" };

function trendChart(statistics: WriteStatistics[], measure: Measure): HTMLElement {
  const values = statistics.map((s) => s[measure]);
  const known = values.filter((v): v is number => v !== null && v !== undefined);
  const latest = [...values].reverse().find((v) => v !== null && v !== undefined) ?? null;
  const figure = h("figure", { class: "trend", "data-measure": measure },
    h("figcaption", {}, LABELS[measure], " ", h("span", { class: "muted" }, latest === null ? "—" : `latest ${amount(latest, measure)}`)));
  if (!known.length) return figure;
  const width = 420;
  const height = 90;
  const top = Math.max(...known, 1);
  const slot = (width - 20) / statistics.length;
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height + 20}`, class: "trend-svg", role: "img", "aria-label": LABELS[measure] });
  chart.appendChild(svg("line", { x1: 10, x2: width - 10, y1: height, y2: height, stroke: "#d0d7de" }));
  statistics.forEach((run, i) => {
    const value = run[measure];
    if (value === null || value === undefined) return;
    const barHeight = Math.max(2, (value / top) * (height - 8));
    const bar = svg("rect", {
      x: 10 + i * slot + slot * 0.15, y: height - barHeight, width: Math.max(2, slot * 0.7), height: barHeight, rx: 2,
      fill: STATE_COLORS[stateKey(run.state)], "data-run": run.runId, "data-value": value,
    });
    bar.appendChild(svg("title", {}, `${amount(value, measure)} · ${formatTime(run.at)} · run ${run.runId}`));
    chart.appendChild(bar);
  });
  chart.appendChild(svg("text", { x: 10, y: height + 15, "font-size": 11, fill: "#57606a" }, formatTime(statistics[0].at)));
  chart.appendChild(svg("text", { x: width - 10, y: height + 15, "font-size": 11, fill: "#57606a", "text-anchor": "end" },
    formatTime(statistics[statistics.length - 1].at)));
  figure.appendChild(chart);
  return figure;
}

/** A count with thousands separators, or bytes in the largest binary unit that keeps it at or above 1. */
export function amount(value: number, measure: Measure): string {
  if (measure === "rowCount") return value.toLocaleString("en-US");
  const units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
  let scaled = value;
  let unit = 0;
  while (scaled >= 1024 && unit < units.length - 1) { scaled /= 1024; unit += 1; }
  return `${unit ? scaled.toFixed(1) : scaled} ${units[unit]}`;
}
