// Renderers for column lineage: a dataset card (a compound node) with its head row and its field rows; edges field to
// field, solid for a direct transformation and dashed for an indirect one, in the colour of their subtype
// (graph/transformations.ts; the column view's legend names them).

import type cytoscape from "cytoscape";
import { CARD_PADDING } from "../cardLayout";

export const fieldStyle: cytoscape.StylesheetJson = [
  {
    selector: 'node[kind = "DATASET_GROUP"]',
    style: {
      shape: "round-rectangle",
      "background-color": "#f6f8fa",
      "border-width": 1,
      "border-color": "#8c959f",
      padding: `${CARD_PADDING}px`,
    },
  },
  {
    selector: 'node[kind = "CARD_HEAD"]',
    style: {
      shape: "round-rectangle",
      width: "data(w)",
      height: "data(h)",
      "background-color": "#ddf4ff",
      "border-width": 0,
      label: "data(label)",
      "text-valign": "center",
      "text-halign": "center",
      "font-size": 12,
      "font-weight": "bold",
      color: "#0a3069",
    },
  },
  {
    selector: 'node[kind = "DATASET_FIELD"]',
    style: {
      shape: "rectangle",
      width: "data(w)",
      height: "data(h)",
      "background-color": "#ffffff",
      "border-width": 1,
      "border-color": "#d0d7de",
      label: "data(label)",
      "text-valign": "center",
      "text-halign": "center",
      "font-size": 12,
      color: "#1f2328",
    },
  },
  // A field on no path of the answer (a card showing all its fields) is there to pick, not to follow.
  { selector: "node.off-path", style: { color: "#57606a", "background-color": "#f6f8fa" } },
  {
    selector: "node.focus",
    style: { "border-width": 2, "border-color": "#8250df", "background-color": "#fbefff", "font-weight": "bold" },
  },
];

/** Column edges: after the general edge rule (renderers/index.ts), which they refine. */
export const fieldEdgeStyle: cytoscape.StylesheetJson = [
  {
    selector: "edge.field-edge",
    style: {
      width: 2,
      "curve-style": "straight",
      "line-color": "data(color)",
      "target-arrow-color": "data(color)",
      // From the right side of the source row to the left side of the target row.
      "source-endpoint": "50% 0%",
      "target-endpoint": "-50% 0%",
    },
  },
  { selector: "edge.field-edge.indirect", style: { width: 1.5, "line-style": "dashed", "line-dash-pattern": [6, 3] } as cytoscape.Css.Edge },
  // A traced path stands out by what is faded around it; its edges are drawn over the others.
  { selector: "edge.field-edge.traced", style: { width: 2.5, "z-index": 10 } },
];
