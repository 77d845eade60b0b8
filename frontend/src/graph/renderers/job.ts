// Renderer for job nodes: a solid pill in the colour of the job's latest run state.

import type cytoscape from "cytoscape";
import { STATE_COLORS } from "../../format";

export const jobStyle: cytoscape.StylesheetJson = [
  {
    selector: 'node[kind = "JOB"]',
    style: {
      shape: "round-tag",
      width: "data(w)",
      height: "data(h)",
      "background-color": STATE_COLORS.UNKNOWN,
      label: "data(label)",
      "text-valign": "center",
      "text-halign": "center",
      "font-size": 12,
      "font-weight": "bold",
      "text-max-width": "280px",
      "text-wrap": "ellipsis",
      color: "#ffffff",
      "text-outline-width": 0,
    },
  },
  ...Object.entries(STATE_COLORS).map(([state, color]) => ({
    selector: `node[kind = "JOB"][state = "${state}"]`,
    style: { "background-color": color },
  })),
];
