// What follows a change of the explorer's store on screen: the URL, the kept picture, the graph drawn again, the path
// between the marked ends (and why there is none) and the counts in the status bar.

import { COLLAPSE_ABOVE } from "../../graph/clusters";
import { setQuery } from "../../router";
import { isAbort, nearMissLoad } from "./loaders";
import type { ExplorerParts } from "./parts";
import { changeCounts, changeList } from "./panels/changesPanel";
import { fieldPanel } from "./panels/fieldPanel";
import { staleShown, stateParams } from "./state";
import { timeText } from "./time";
import { pathState } from "./store";

/** Keep where the current picture stands, to return to it as it was left. */
export function pictureRemember({ graph, store }: ExplorerParts): void {
  graph.pictureRemember(store.picture());
}

/** The place changed within the same picture: the URL follows without a new history entry. */
export function placeSave(parts: ExplorerParts): void {
  setQuery(stateParams(parts.store.place), { replace: true });
  pictureRemember(parts);
}

/** The counts of what is drawn in the status bar, with when it is looked at, then `extra`. */
export function countsShow({ store, status }: ExplorerParts, extra = ""): void {
  const { model, place } = store;
  const stale = [...model.edges.values()].filter((edge) => edge.stale).length;
  const changes = store.comparing() ? changeCounts(changeList(model)) : null;
  const when = [
    timeText(place.time, staleShown(place)),
    ...(staleShown(place) ? [`${stale} stale edge${stale === 1 ? "" : "s"}`] : []),
    ...(changes ? [`${changes.added} added, ${changes.removed} removed`] : []),
  ].join(", ");
  const columns = place.view === "column";
  status.counts({
    nodes: columns ? [...model.nodes.values()].filter((node) => node.type === "DATASET_FIELD").length : model.nodes.size,
    ...(columns ? { unit: "fields" } : {}),
    edges: model.edges.size,
    folded: store.clustered() ? store.grouping.folded() : 0,
    regroupable: place.all && model.nodes.size > COLLAPSE_ABOVE,
    when,
  }, extra);
}

/** Mark the path ends and the path between them; with two datasets and no path, ask why. */
export function pathHighlight(parts: ExplorerParts): void {
  const { graph, store, status } = parts;
  if (!graph.drawn) return;
  const path = pathState(store.model, store.pathEnds);
  graph.markPath(store.pathEnds, path);
  status.path(path);
  if (path.kind === "no-path" && path.from.startsWith("dataset:") && path.to.startsWith("dataset:")) void noPathExplain(parts, path.from, path.to);
}

/** Why two datasets are not connected: the server's nearest near-miss (another namespace, an alias, a similar name one job away). */
async function noPathExplain({ store, status, signal }: ExplorerParts, a: string, b: string): Promise<void> {
  try {
    const answer = await nearMissLoad({ a, b, signal });
    if (store.pathEnds[0] !== a || store.pathEnds[1] !== b) return; // the user picked other nodes meanwhile
    status.nearMiss(answer);
  } catch (error) {
    if (!isAbort(error)) status.nearMissError(error);
  }
}

/**
 * Draw the graph again after it changed shape, keeping selection, roots and path (in the column view, the drawn field
 * and the traced path); fitted afresh, or with the viewport kept and then centred on `centre` (if any).
 */
export async function redraw(parts: ExplorerParts, centre: string, keepViewport = false): Promise<void> {
  const { graph, store } = parts;
  if (!graph.drawn) return;
  await graph.redraw(store.displayed(), store.picture(), keepViewport);
  if (store.place.view === "column") {
    columnMarksShow(parts);
  } else {
    const { focus, roots } = store.place;
    graph.mark(roots, focus && store.model.nodes.has(focus) ? focus : null);
    pathHighlight(parts);
  }
  // A fitted graph is all in view: centring one node would push the ends of a graph that fills the canvas out of it.
  if (centre && keepViewport) graph.center(centre);
}

/** The column view's marks: its own field, the traced field's path (the rest faded), and that field in the side panel. */
export function columnMarksShow({ graph, store, side, emit }: ExplorerParts): void {
  const { columnRoot, traced, columnDetail } = store;
  if (!columnRoot) return;
  graph.markFields(columnRoot, store.traceMarks());
  if (!columnDetail) return;
  const panel = traced && store.model.nodes.has(traced) ? fieldPanel({ model: store.model, fieldId: traced, root: columnRoot, emit }) : null;
  side.fieldPicker(columnDetail, store.place.field, panel);
}
