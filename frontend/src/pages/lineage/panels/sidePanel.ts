// The explorer's side panel: the selected node's details, or in the column view the fields of the dataset to pick from.

import type { DatasetDetail } from "../../../api/types";
import { h, link, nameBreaks, replace } from "../../../dom";
import { fieldIdOf, idLabel, idType } from "../../../format";
import { impactPageHref } from "../../impact/model";
import type { Intent } from "../store";
import { datasetPanel } from "./datasetPanel";
import { jobPanel } from "./jobPanel";
import type { PanelActions } from "./types";

const PANELS: Record<string, (id: string, actions: PanelActions) => HTMLElement> = {
  dataset: datasetPanel,
  job: jobPanel,
};

export class SidePanel {
  readonly element = h("aside", { class: "side-panel", id: "side-panel", "aria-label": "Details" });
  /** In a comparison: what changed, shown when no node is selected and one click away from a node's details. */
  private changes: (() => HTMLElement) | null = null;

  constructor(private readonly actions: PanelActions, private readonly emit: (intent: Intent) => void) {}

  /** What a comparison changed, to show in place of the hint (null: not comparing). */
  changesSet(changes: (() => HTMLElement) | null): void {
    this.changes = changes;
  }

  /** The details of node `id` (a dataset or job panel by its id's type), or a hint (or what changed) when none is selected. */
  node(id: string | null): void {
    if (!id) { replace(this.element, this.changes ? this.changes() : h("p", { class: "muted" }, "Click a node to see its details.")); return; }
    const panel = PANELS[idType(id)];
    const back = this.changes
      ? h("button", { type: "button", class: "link-button back-to-changes", onclick: () => this.emit({ kind: "deselect" }) }, "← What changed")
      : null;
    replace(this.element, back, panel ? panel(id, this.actions) : h("p", {}, idLabel(id)));
  }

  /** The traced field's details (when one is traced), then the fields of the column view's dataset, `field` marked as the one drawn. */
  fieldPicker(detail: DatasetDetail, field: string | null, traced: HTMLElement | null = null): void {
    const own = field ? fieldIdOf(detail.namespace, detail.name, field) : null;
    // The traced field's panel links to its own impact: the drawn field's link once, not twice.
    const ownImpact = own && own !== traced?.dataset.fieldId;
    replace(this.element, traced, h("div", { class: "side-panel-content field-picker" },
      h("div", { class: "panel-head" },
        h("span", { class: "tag tag-dataset" }, "dataset"),
        h("h2", { class: "node-name" }, nameBreaks(detail.name)),
        h("div", { class: "muted" }, detail.namespace)),
      h("h3", {}, "Fields"),
      detail.fields.length
        ? h("ul", { class: "field-list" }, detail.fields.map((each) =>
          h("li", {}, h("button", {
            type: "button", class: `field-button${each.name === field ? " current" : ""}`, "data-field": each.name,
            onclick: () => this.emit({ kind: "show-field", datasetId: detail.id, field: each.name }),
          }, each.name, h("span", { class: "muted mono" }, ` ${each.type ?? ""}`)))))
        : h("p", { class: "muted" }, "No schema recorded."),
      own && ownImpact ? h("p", {}, link(impactPageHref([own]), `Impact of ${field} →`)) : null,
      h("p", {}, link(`/dataset?nodeId=${encodeURIComponent(detail.id)}`, "Schema history →"))));
  }
}
