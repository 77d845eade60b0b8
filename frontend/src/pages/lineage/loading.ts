// Loading the explorer's place: the table graph around its roots or the column lineage of one field, drawn as a kept
// picture when the place was seen before; a load overtaken by a newer one draws nothing.

import { replace } from "../../dom";
import { columnModel, columnSides, emptyModel } from "../../graph/model";
import { datasetShortName } from "../../graph/names";
import { columnMarksShow, countsShow, pathHighlight } from "./drawing";
import { columnDatasetLoad, columnLineageLoad, isAbort, tableLineageLoad } from "./loaders";
import { changesPanel } from "./panels/changesPanel";
import { columnTables } from "./panels/columnTables";
import { fieldDrawer } from "./panels/fieldDrawer";
import type { ExplorerParts } from "./parts";
import { columnDataset, placeAt } from "./state";
import { pictureKey, pictureNew, placeHasSubject, type Picture } from "./store";

const TRUNCATED = "truncated: the server's node budget was reached; lower the depth or open a node as the centre";

/** Load and draw the store's place; `data-graph-ready` on the body names the view once it is drawn. */
export async function placeLoad(parts: ExplorerParts): Promise<void> {
  const { store, graph, status, side, columnBar, below, loads } = parts;
  const turn = loads.start();
  replace(below);
  columnBar.hidden = store.place.view !== "column";
  document.body.removeAttribute("data-graph-ready");
  if (!placeHasSubject(store.place)) {
    status.message("");
    graph.message("Search for a dataset or job to explore its lineage.");
    side.node(null);
    return;
  }
  status.loading();
  side.changesSet(null);
  try {
    if (store.place.view === "table") await tableLoad(parts, turn);
    else await columnsLoad(parts, turn);
    if (!loads.stale(turn)) document.body.setAttribute("data-graph-ready", store.place.view);
  } catch (error) {
    if (isAbort(error) || loads.stale(turn)) return;
    status.error(error);
  }
}

/** Draw a picture and keep it; false when a newer load has started meanwhile. */
async function pictureShow({ store, graph, loads }: ExplorerParts, picture: Picture, turn: number): Promise<boolean> {
  const view = store.place.view;
  store.modelShow(picture.model);
  const shown = await graph.pictureShow(picture, store.displayed(), () => loads.stale(turn));
  if (shown) store.pictureKeep(view, picture);
  return shown;
}

/** The table view: the lineage around the roots, with the roots, selection and path marked. */
async function tableLoad(parts: ExplorerParts, turn: number): Promise<void> {
  const { store, graph, side, toolbar, loads, signal } = parts;
  let picture = store.picture();
  if (!picture) {
    const key = pictureKey(store.place);
    const { model, truncated, schemaChanges } = await tableLineageLoad({ place: store.place, signal });
    if (loads.stale(turn)) return;
    picture = pictureNew(key, model, truncated, schemaChanges);
  }
  if (!(await pictureShow(parts, picture, turn))) return;
  const { focus, roots, time } = store.place;
  const shown = picture;
  side.changesSet(time.kind === "compare"
    ? () => changesPanel({
      model: shown.model, schemaChanges: shown.schemaChanges ?? [], from: time.from, to: time.to,
      select: (id) => parts.emit({ kind: "select", id }),
    })
    : null);
  toolbar.rootsShow(roots, store.model);
  graph.mark(roots, focus);
  store.pathEndsKeepDrawn();
  pathHighlight(parts);
  side.node(focus && store.model.nodes.has(focus) ? focus : null);
  countsShow(parts, picture.truncated ? TRUNCATED : "");
}

/** The column view: the fields of its dataset to pick from and, once one is picked, that field's lineage. */
async function columnsLoad(parts: ExplorerParts, turn: number): Promise<void> {
  const { store, graph, status, side, below, loads, signal } = parts;
  const datasetId = columnDataset(store.place);
  if (!datasetId) {
    graph.clear();
    status.message("The column view needs a dataset: click one in the table view, or search for a field.");
    return;
  }
  const detail = await columnDatasetLoad({ datasetId });
  if (loads.stale(turn)) return;
  const field = store.place.field;
  store.columnDetail = detail;
  side.fieldPicker(detail, field);
  if (!field) {
    graph.clear();
    store.modelShow(emptyModel());
    status.message(`Pick a field of ${detail.name} to see where it comes from and where it goes.`);
    return;
  }
  const key = pictureKey(store.place);
  const kept = store.picture();
  const { fieldId, answer } = await columnLineageLoad({ place: store.place, detail, field, signal });
  if (loads.stale(turn)) return;
  const picture = kept ?? pictureNew(key, columnModel(answer, placeAt(store.place)), answer.truncated);
  store.columnsReset(fieldId);
  if (!(await pictureShow(parts, picture, turn))) return;
  columnMarksShow(parts);
  countsShow(parts, `column lineage of ${datasetShortName(detail.namespace, detail.name)}.${field}${answer.truncated ? ` · ${TRUNCATED}` : ""}`);
  const sides = columnSides({ ...answer, nodeId: fieldId });
  replace(below, fieldDrawer(`${sides.upstream.length} upstream, ${sides.downstream.length} downstream`, columnTables(answer, fieldId)));
}
