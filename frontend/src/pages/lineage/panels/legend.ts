// Legend pieces: a short line drawn as an edge is, and an item naming it.

import { h, svg } from "../../../dom";

/** A short line drawn as an edge is: its colour, dash and opacity, for a legend. */
export function edgeSample(color: string, dash: string | null, opacity = 1): SVGElement {
  return svg("svg", { width: 28, height: 10, viewBox: "0 0 28 10", "aria-hidden": "true", class: "edge-sample" },
    svg("line", { x1: 1, y1: 5, x2: 27, y2: 5, stroke: color, "stroke-width": 2.5, opacity, ...(dash ? { "stroke-dasharray": dash } : {}) }));
}

export function legendItem(sample: Node, text: string, id: string): HTMLElement {
  return h("span", { class: "legend-item", "data-legend": id }, sample, text);
}
