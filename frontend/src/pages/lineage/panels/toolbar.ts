// The explorer's toolbar: roots, depth, direction, job level, table / column view, zoom and the state legend; below
// it the time row (now, at an instant, compare two; stale edges; the edge legend).

import type { Direction, Level } from "../../../api/types";
import { h, replace } from "../../../dom";
import { STATE_COLORS, idLabel } from "../../../format";
import type { GraphModel } from "../../../graph/model";
import { idShortName } from "../../../graph/names";
import { LINEAGE_MAX_DEPTH } from "../../../api/limits";
import type { ExplorerState, View } from "../state";
import type { Intent } from "../store";
import { TimeControl } from "./timeControl";

const DIRECTIONS: Direction[] = ["both", "upstream", "downstream"];
const LEVELS: Level[] = ["application", "action"];

export interface Zoom {
  zoomBy(factor: number): void;
  fit(): void;
}

export class Toolbar {
  readonly element: HTMLElement;
  private readonly roots = h("div", { class: "roots" });
  private readonly viewButtons: Record<View, HTMLButtonElement>;
  private readonly levelButtons: Record<Level, HTMLButtonElement>;
  private readonly temporary = h("input", { type: "checkbox", id: "show-temporary" });
  private readonly time: TimeControl;

  constructor(place: ExplorerState, emit: (intent: Intent) => void, zoom: Zoom) {
    const depth = h("select", { id: "depth", "aria-label": "Depth" },
      Array.from({ length: LINEAGE_MAX_DEPTH }, (_, i) => i + 1).map((d) => h("option", { value: String(d), selected: d === place.depth }, String(d))));
    const direction = h("select", { id: "direction", "aria-label": "Direction" },
      DIRECTIONS.map((d) => h("option", { value: d, selected: d === place.direction }, d)));
    depth.addEventListener("change", () => emit({ kind: "depth", depth: Number(depth.value) }));
    direction.addEventListener("change", () => emit({ kind: "direction", direction: direction.value as Direction }));
    this.levelButtons = {
      application: h("button", {
        type: "button", id: "level-application", class: "toggle", title: "Each application job with its actions rolled up into it",
        onclick: () => emit({ kind: "level", level: "application" }),
      }, "Applications"),
      action: h("button", {
        type: "button", id: "level-action", class: "toggle", title: "Every action job on its own",
        onclick: () => emit({ kind: "level", level: "action" }),
      }, "Actions"),
    };
    this.temporary.addEventListener("change", () => emit({ kind: "temporary", temporary: this.temporary.checked }));
    this.viewButtons = {
      table: h("button", { type: "button", id: "view-table", class: "toggle", onclick: () => emit({ kind: "view", view: "table" }) }, "Tables"),
      column: h("button", { type: "button", id: "view-column", class: "toggle", onclick: () => emit({ kind: "view", view: "column" }) }, "Columns"),
    };
    const legend = h("div", { class: "legend" }, Object.entries(STATE_COLORS).map(([s, color]) =>
      h("span", { class: "legend-item" }, h("span", { class: "swatch", style: `background:${color}` }), s.toLowerCase())));
    this.time = new TimeControl(place, emit);
    const main = h("div", { class: "toolbar" },
      this.roots,
      h("label", {}, "Depth ", depth),
      h("label", {}, "Direction ", direction),
      h("div", { class: "segmented", role: "group", "aria-label": "Job level" }, ...LEVELS.map((level) => this.levelButtons[level])),
      h("label", {
        class: "temporary-toggle",
        title: "Draw temporary datasets (a job's intermediate output another job reads); hidden, each is a job → job edge naming it",
      }, this.temporary, " Temporary datasets"),
      h("div", { class: "segmented" }, this.viewButtons.table, this.viewButtons.column),
      h("div", { class: "zoom" },
        h("button", { type: "button", title: "Zoom in", "aria-label": "Zoom in", onclick: () => zoom.zoomBy(1.25) }, "+"),
        h("button", { type: "button", title: "Zoom out", "aria-label": "Zoom out", onclick: () => zoom.zoomBy(0.8) }, "−"),
        h("button", { type: "button", title: "Fit", id: "fit", onclick: () => zoom.fit() }, "Fit")),
      legend);
    this.element = h("div", { class: "toolbars" }, main, this.time.element);
    this.render(place);
  }

  /** Show which job level, view and time the place is at. */
  render(place: ExplorerState): void {
    for (const level of LEVELS) this.levelButtons[level].setAttribute("aria-pressed", String(place.level === level));
    for (const view of ["table", "column"] as const) this.viewButtons[view].setAttribute("aria-pressed", String(place.view === view));
    this.temporary.checked = place.temporary;
    this.time.render(place);
  }

  /** Name the roots, by their labels in `model` where it has them. */
  rootsShow(roots: string[], model: GraphModel): void {
    replace(this.roots, ...(roots.length
      ? roots.flatMap((id, i) => [i ? ", " : "", h("strong", { class: "root-name", title: idLabel(id) }, model.nodes.get(id)?.label ?? idShortName(id))])
      : ["No node chosen"]));
  }
}
