// Renderers for column lineage: fields as small boxes inside their dataset's compound node.

import type cytoscape from "cytoscape";

export const fieldStyle: cytoscape.StylesheetJson = [
  {
    selector: 'node[kind = "DATASET_GROUP"]',
    style: {
      shape: "round-rectangle",
      "background-color": "#f6f8fa",
      "border-width": 1,
      "border-color": "#8c959f",
      label: "data(label)",
      "text-valign": "top",
      "text-halign": "center",
      "font-size": 12,
      "font-weight": "bold",
      padding: "12px",
      color: "#1f2328",
    },
  },
  {
    selector: 'node[kind = "DATASET_FIELD"]',
    style: {
      shape: "round-rectangle",
      width: "data(w)",
      height: "data(h)",
      "background-color": "#ffffff",
      "border-width": 1,
      "border-color": "#57606a",
      label: "data(label)",
      "text-valign": "center",
      "text-halign": "center",
      "font-size": 11,
      color: "#1f2328",
    },
  },
  {
    selector: "node.focus",
    style: { "border-width": 3, "border-color": "#8250df", "background-color": "#fbefff" },
  },
  {
    selector: "edge[label]",
    style: { label: "data(label)", "font-size": 9, color: "#57606a", "text-rotation": "autorotate", "text-background-color": "#fff", "text-background-opacity": 0.8 },
  },
  { selector: "edge.indirect", style: { "line-style": "dashed" } },
];
