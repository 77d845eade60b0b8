// The column view's field table (in the drawer under its graph): the fields upstream and downstream of the drawn field,
// with transformation and job; names wrap only at their separators.

import type { Change, ColumnEdge, ColumnLineageDiff, ColumnLineageResponse } from "../../../api/types";
import { changeBadge } from "./changesPanel";
import { h, nameBreaks } from "../../../dom";
import { idLabel } from "../../../format";
import { columnSides } from "../../../graph/model";
import { transformationLabel } from "../../../graph/transformations";
import { datasetShortName, idShortName } from "../../../graph/names";
import { nodeLink } from "../../../shell/widgets";

export function columnTables(answer: ColumnLineageResponse | ColumnLineageDiff, fieldId: string): HTMLElement {
  const names = new Map(answer.graph.map((n) => [n.id, `${datasetShortName(n.data.namespace, n.data.dataset)}.${n.data.name}`]));
  const sides = columnSides({ ...answer, nodeId: fieldId });
  // A comparison's edges each say whether they came or went.
  const comparing = "changes" in answer;
  const changeCell = (edge: ColumnEdge & { change?: Change }) => !comparing ? null
    : h("td", {}, edge.change === "added" || edge.change === "removed" ? changeBadge(edge.change) : h("span", { class: "muted" }, "unchanged"));
  const rows = (title: string, id: string, edges: (ColumnEdge & { change?: Change })[]) => h("section", { class: "column-side", id },
    h("h3", {}, `${title} (${edges.length})`),
    edges.length
      ? h("table", { class: "grid" },
        h("thead", {}, h("tr", {}, comparing ? h("th", {}, "Change") : null,
          h("th", {}, "From field"), h("th", {}, "To field"), h("th", {}, "Transformation"), h("th", {}, "Job"))),
        h("tbody", {}, edges.map((edge) => h("tr", edge.change ? { "data-change": edge.change } : {}, changeCell(edge),
          h("td", { title: idLabel(edge.origin) }, nameBreaks(names.get(edge.origin) ?? idShortName(edge.origin))),
          h("td", { title: idLabel(edge.destination) }, nameBreaks(names.get(edge.destination) ?? idShortName(edge.destination))),
          h("td", { class: "mono" }, nameBreaks(transformationLabel(edge))),
          h("td", {}, edge.job ? nodeLink(edge.job) : "—")))))
      : h("p", { class: "muted" }, "None."));
  return h("div", { class: "column-tables" },
    rows("Upstream fields", "upstream-fields", sides.upstream),
    rows("Downstream fields", "downstream-fields", sides.downstream));
}
