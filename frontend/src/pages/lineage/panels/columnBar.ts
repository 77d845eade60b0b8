// Above the column view's graph: how its edges are drawn (direct solid, indirect dashed, a colour per subtype) and
// what the dataset cards show (the fields on the path, all fields, names only).

import { h } from "../../../dom";
import type { CardMode } from "../../../graph/columnCards";
import { TRANSFORMATIONS, type Transformation } from "../../../graph/transformations";
import type { Intent } from "../store";
import { edgeSample, legendItem } from "./legend";

/** A transformation's line in the legend, as its edges are drawn. */
export function transformationSample(transformation: Pick<Transformation, "kind" | "color">): SVGElement {
  return edgeSample(transformation.color, transformation.kind === "INDIRECT" ? "6 3" : null);
}

const CARD_MODES: { mode: CardMode; text: string; title: string }[] = [
  { mode: "path", text: "On the path", title: "Each dataset shows only its fields on a path (click a dataset's name for more)" },
  { mode: "all", text: "All fields", title: "Each dataset shows all its fields; those on no path are drawn grey" },
  { mode: "name", text: "Names only", title: "Each dataset is drawn by its name alone; its edges end there" },
];

export function columnBar(emit: (intent: Intent) => void): HTMLElement {
  const group = (kind: Transformation["kind"]) => h("span", { class: "legend-group" },
    h("strong", {}, kind === "DIRECT" ? "Direct" : "Indirect"),
    TRANSFORMATIONS.filter((each) => each.kind === kind).map((each) =>
      h("span", { title: each.meaning }, legendItem(transformationSample(each), each.subtype.toLowerCase().replace(/_/g, " "), each.subtype))));
  return h("div", { class: "toolbar column-bar", id: "column-bar" },
    h("div", { class: "segmented", role: "group", "aria-label": "Fields shown in each dataset" },
      CARD_MODES.map(({ mode, text, title }) =>
        h("button", { type: "button", id: `cards-${mode}`, title, onclick: () => emit({ kind: "cards-mode", mode }) }, text))),
    h("div", { class: "legend transformation-legend", id: "transformation-legend", "aria-label": "How column edges are drawn" },
      group("DIRECT"), group("INDIRECT"),
      h("span", { class: "muted" }, "hover an edge or click a field for its text")));
}
