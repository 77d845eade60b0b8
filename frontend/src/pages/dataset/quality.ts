// A dataset's data quality on its page: its status now, each check passing or failing run by run, and its
// metrics (row count, null and distinct counts per column) as trends.

import { api } from "../../api/client";
import type { DatasetQuality, QualityCheck, QualityReport } from "../../api/types";
import { h, replace } from "../../dom";
import { formatTime } from "../../format";
import { errorMessage, loading, nodeLink, qualityBadge } from "../../shell/widgets";

const OUTCOME_MARKS: Record<QualityCheck["outcome"], string> = { passed: "✓", failed: "✗", warned: "!", skipped: "–" };
const SVG = "http://www.w3.org/2000/svg";

/** The dataset page's quality section: filled in when the quality API answers. */
export function qualitySection(nodeId: string): HTMLElement {
  const section = h("section", { id: "quality", class: "quality" }, h("h2", {}, "Data quality"), loading());
  api.datasetQuality(nodeId).then(
    (quality) => replace(section, ...qualityView(quality)),
    (error) => replace(section, h("h2", {}, "Data quality"), errorMessage(error)));
  return section;
}

export function qualityView(quality: DatasetQuality): HTMLElement[] {
  const head = h("h2", {}, "Data quality ", qualityBadge(quality.status));
  if (!quality.results.length) {
    return [head, h("p", { class: "muted" }, "No data-quality checks or metrics were reported for this dataset.")];
  }
  const reports = [...quality.results].reverse();  // oldest first, as trends read
  return [
    head,
    h("p", { class: "muted" },
      `${quality.count} report${quality.count === 1 ? "" : "s"}`,
      quality.count > quality.results.length ? ` (the latest ${quality.results.length} shown)` : "",
      ". The status is the worst of each checking job's latest checks; a failed check of severity warn warns."),
    ...checksView(reports),
    ...metricsView(reports),
  ];
}

/** What identifies one check from run to run: its name (else its kind) and its column. */
function checkKey(check: QualityCheck): string {
  return `${check.name ?? check.assertion}\u001f${check.column ?? ""}`;
}

function checkTitle(check: QualityCheck, report: QualityReport): string {
  const lines = [`${check.name ?? check.assertion}: ${check.outcome}`, `run ${report.runId} · ${formatTime(report.at)}`];
  if (check.severity) lines.push(`severity ${check.severity}`);
  if (check.actual !== null) lines.push(`actual ${check.actual}`);
  if (check.expected !== null) lines.push(`expected ${check.expected}`);
  if (check.description) lines.push(check.description);
  return lines.join("\n");
}

/** Each check a row, each run a column: whether it passed, failed, warned or was skipped then. */
function checksView(reports: QualityReport[]): HTMLElement[] {
  const checked = reports.filter((report) => report.checks.length);
  if (!checked.length) return [];
  const rows = new Map<string, QualityCheck>();
  for (const report of checked) for (const check of report.checks) if (!rows.has(checkKey(check))) rows.set(checkKey(check), check);
  const latest = checked[checked.length - 1];
  return [
    h("h3", {}, "Checks over time"),
    h("div", { class: "scroll-x" }, h("table", { class: "grid quality-checks", id: "quality-checks" },
      h("thead", {}, h("tr", {},
        h("th", {}, "Check"), h("th", {}, "Column"),
        checked.map((report) => h("th", { class: "nowrap", title: `${report.job}\nrun ${report.runId}` }, formatTime(report.at))))),
      h("tbody", {}, [...rows].map(([key, first]) => h("tr", { "data-check": first.name ?? first.assertion },
        h("td", {}, first.name ?? first.assertion, first.name && first.name !== first.assertion ? h("span", { class: "muted" }, ` · ${first.assertion}`) : ""),
        h("td", { class: "mono" }, first.column ?? "—"),
        checked.map((report) => {
          const check = report.checks.find((c) => checkKey(c) === key);
          return check
            ? h("td", { class: `check check-${check.outcome}`, "data-outcome": check.outcome, title: checkTitle(check, report) },
              OUTCOME_MARKS[check.outcome], check.outcome !== "passed" && check.actual !== null ? ` ${check.actual}` : "")
            : h("td", { class: "check muted" }, "");
        })))))),
    h("p", { class: "muted" }, "Latest: ", nodeLink(latest.job), ` · run ${latest.runId}`,
      latest.datasetVersion ? ` · dataset version ${latest.datasetVersion}` : ""),
  ];
}

interface Series {
  label: string;
  values: (number | null)[];
}

/** Row count, then each column's null and distinct counts, over the reports that measured them. */
function metricsView(reports: QualityReport[]): HTMLElement[] {
  const measured = reports.filter((report) => report.metrics);
  if (!measured.length) return [];
  const series: Series[] = [{ label: "Row count", values: measured.map((r) => r.metrics?.rowCount ?? null) }];
  const columns = [...new Set(measured.flatMap((r) => Object.keys(r.metrics?.columns ?? {})))].sort();
  for (const column of columns) {
    series.push({ label: `${column} · nulls`, values: measured.map((r) => r.metrics?.columns[column]?.nullCount ?? null) });
    series.push({ label: `${column} · distinct`, values: measured.map((r) => r.metrics?.columns[column]?.distinctCount ?? null) });
  }
  const shown = series.filter((s) => s.values.some((v) => v !== null));
  return [
    h("h3", {}, `Metrics (${measured.length} measurement${measured.length === 1 ? "" : "s"}, ${formatTime(measured[0].at)} – ${formatTime(measured[measured.length - 1].at)})`),
    h("table", { class: "grid quality-metrics", id: "quality-metrics" },
      h("thead", {}, h("tr", {}, h("th", {}, "Metric"), h("th", {}, "Trend"), h("th", { class: "num" }, "First"), h("th", { class: "num" }, "Latest"))),
      h("tbody", {}, shown.map((s) => {
        const known = s.values.filter((v): v is number => v !== null);
        return h("tr", { "data-metric": s.label },
          h("td", {}, s.label), h("td", {}, sparkline(s.values)),
          h("td", { class: "num" }, String(known[0])), h("td", { class: "num" }, String(known[known.length - 1])));
      }))),
  ];
}

/** A small line of `values` (gaps where none was sent), scaled to its own range. */
export function sparkline(values: (number | null)[], width = 160, height = 28): SVGSVGElement {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("width", String(width));
  svg.setAttribute("height", String(height));
  svg.setAttribute("class", "sparkline");
  const known = values.filter((v): v is number => v !== null);
  const low = Math.min(...known), high = Math.max(...known);
  const x = (i: number) => (values.length === 1 ? width / 2 : 3 + (i * (width - 6)) / (values.length - 1));
  const y = (v: number) => (high === low ? height / 2 : height - 3 - ((v - low) * (height - 6)) / (high - low));
  const points = values.flatMap((v, i) => (v === null ? [] : [`${x(i).toFixed(1)},${y(v).toFixed(1)}`]));
  const line = document.createElementNS(SVG, "polyline");
  line.setAttribute("points", points.join(" "));
  line.setAttribute("fill", "none");
  line.setAttribute("stroke", "#0969da");
  line.setAttribute("stroke-width", "1.5");
  svg.appendChild(line);
  for (const point of points) {
    const [cx, cy] = point.split(",");
    const dot = document.createElementNS(SVG, "circle");
    dot.setAttribute("cx", cx);
    dot.setAttribute("cy", cy);
    dot.setAttribute("r", "2");
    dot.setAttribute("fill", "#0969da");
    svg.appendChild(dot);
  }
  return svg;
}
