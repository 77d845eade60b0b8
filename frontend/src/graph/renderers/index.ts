// The graph stylesheet: one renderer per node type, then edges and the highlight layers.

import type cytoscape from "cytoscape";
import type { GraphNode } from "../model";
import { clusterColors, clusterStyle } from "./cluster";
import { datasetColors, datasetStyle } from "./dataset";
import { fieldEdgeStyle, fieldStyle } from "./field";
import { jobColors, jobStyle } from "./job";
import { timeStyle } from "./time";

/** Per-type colours put in each node's data, read by that type's style rule. */
/** How an input inferred from column lineage is drawn (and its legend sample). */
export const INFERRED_COLOR = "#8250df";

export const nodeColors: Partial<Record<GraphNode["type"], (node: GraphNode) => { fill: string; stroke: string }>> = {
  DATASET: datasetColors,
  JOB: jobColors,
  CLUSTER: clusterColors,
};

export const graphStyle: cytoscape.StylesheetJson = [
  // Labels too small to read are not drawn: that keeps zoomed-out 1,000-node graphs fluid.
  { selector: "node", style: { "min-zoomed-font-size": 7 } },
  ...datasetStyle,
  ...jobStyle,
  ...fieldStyle,
  ...clusterStyle,
  {
    selector: "edge",
    style: {
      width: 1.5,
      "line-color": "#afb8c1",
      "target-arrow-color": "#afb8c1",
      "target-arrow-shape": "triangle",
      "curve-style": "bezier",
      "arrow-scale": 0.9,
    },
  },
  // Large graphs: straight edges skip the bezier bundling work on every redraw.
  { selector: "edge.fast", style: { "curve-style": "straight" } },
  // Edges the layout routed (around the nodes of the ranks they pass, or from one band to the
  // next through the gutters) bend where it said, measured from the node centres.
  {
    selector: "edge.routed",
    style: {
      "curve-style": "segments",
      "edge-distances": "node-position",
      "segment-weights": "data(sw)",
      "segment-distances": "data(sd)",
    } as cytoscape.Css.Edge,
  },
  ...fieldEdgeStyle,
  // An input inferred from column lineage (no event listed it as an input): dashed short, in violet.
  {
    selector: "edge.inferred",
    style: {
      "line-style": "dashed",
      "line-dash-pattern": [3, 3],
      "line-color": INFERRED_COLOR,
      "target-arrow-color": INFERRED_COLOR,
    } as cytoscape.Css.Edge,
  },
  // Job -> job edges: a declared dependency (no data flows along it), and one through hidden temporary datasets.
  {
    selector: "edge.declared",
    style: {
      "line-style": "dotted", "line-color": "#8250df", "target-arrow-color": "#8250df", label: "declared",
      "font-size": 9, color: "#8250df", "text-background-color": "#ffffff", "text-background-opacity": 1,
    },
  },
  {
    selector: "edge.via-temporary",
    style: { "line-color": "#bf8700", "target-arrow-color": "#bf8700", label: "via temporary", "font-size": 9, color: "#9a6700" },
  },
  ...timeStyle,
  { selector: "node.root", style: { "underlay-color": "#8250df", "underlay-opacity": 0.25, "underlay-padding": 8 } },
  { selector: "node:selected", style: { "overlay-color": "#0969da", "overlay-opacity": 0.18, "overlay-padding": 6 } },
  { selector: "node.path-end", style: { "underlay-color": "#fb8500", "underlay-opacity": 0.45, "underlay-padding": 10 } },
  { selector: "node.on-path", style: { "border-color": "#fb8500", "border-width": 4 } },
  { selector: "edge.on-path", style: { width: 4, "line-color": "#fb8500", "target-arrow-color": "#fb8500", "z-index": 10 } },
  { selector: ".faded", style: { opacity: 0.25 } },
];
