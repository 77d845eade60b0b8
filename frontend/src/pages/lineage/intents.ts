// What each intent does to the explorer: a place intent moves to another place (a history entry and a load), the others
// change the drawn graph where it is (select, expand, show or fold an application's actions, open a cluster, show all).

import { api } from "../../api/client";
import { idLabel } from "../../format";
import { neighbourClusterOf } from "../../graph/neighbourClusters";
import { setQuery } from "../../router";
import type { CardMode } from "../../graph/columnCards";
import { cardFieldsMerge } from "../../graph/model";
import { columnMarksShow, countsShow, pathHighlight, pictureRemember, placeSave, redraw } from "./drawing";
import { placeLoad } from "./loading";
import { columnDatasetLoad, isAbort, neighboursLoad, placeShown, placeWhen } from "./loaders";
import type { ExplorerParts } from "./parts";
import { stateParams } from "./state";
import { isPlaceIntent, placeAfter, type Intent, type PlaceIntent } from "./store";

export async function intentDo(parts: ExplorerParts, intent: Intent): Promise<void> {
  if (isPlaceIntent(intent)) return placeMove(parts, intent);
  const { store } = parts;
  switch (intent.kind) {
    case "select": return select(parts, intent.id);
    case "deselect": return deselect(parts);
    case "path-end": store.pathEndToggle(intent.id); pathHighlight(parts); return;
    case "clear-path": store.pathClear(); pathHighlight(parts); return;
    case "expand": return expand(parts, intent.id);
    case "expand-application": return actionsShow(parts, intent.id);
    case "collapse-application": return actionsFold(parts, intent.id);
    case "open-cluster": return clusterOpen(parts, intent.id);
    case "more-neighbours": return neighboursMore(parts, intent.id);
    case "show-all": return everythingShow(parts, intent.all);
    case "trace": store.traceSet(intent.id); columnMarksShow(parts); return;
    case "card-mode": return cardsShow(parts, intent.mode, [intent.card]);
    case "cards-mode": return cardsShow(parts, intent.mode);
  }
}

/** Go to the place the intent leads to (if any): a new history entry, the toolbar and a fresh load follow. */
async function placeMove(parts: ExplorerParts, intent: PlaceIntent): Promise<void> {
  const { store, toolbar } = parts;
  const next = placeAfter(store.place, intent);
  if (!next) return;
  pictureRemember(parts);
  store.placeSet(next);
  toolbar.render(store.place);
  setQuery(stateParams(store.place));
  return placeLoad(parts);
}

/** Select a node and show its details; the lineage around it is merged in, except in a comparison (drawn as answered). */
async function select(parts: ExplorerParts, id: string): Promise<void> {
  parts.store.focusSet(id);
  placeSave(parts);
  parts.graph.select(id);
  parts.side.node(id);
  if (parts.store.comparing()) { parts.graph.center(id); return; }
  await expand(parts, id);
}

/** Nothing selected; in a comparison the side panel shows what changed again. */
function deselect(parts: ExplorerParts): void {
  parts.graph.select(null);
  if (!parts.store.comparing()) return;
  parts.store.focusSet(null);
  placeSave(parts);
  parts.side.node(null);
}

/** Fetch depth 1 around `id` (at the place's time) and merge it in; lay out again only if new nodes came. */
async function expand(parts: ExplorerParts, id: string): Promise<void> {
  const { store, status, signal } = parts;
  if (store.place.view !== "table") return;
  if (store.comparing()) { countsShow(parts, "A comparison is drawn as the server answered it: change the depth to see more."); return; }
  try {
    const added = store.neighboursMerge(await neighboursLoad({
      id, level: store.place.level, when: placeWhen(store.place), shown: placeShown(store.place), signal,
    }));
    if (added.length) await redraw(parts, id, true);
    countsShow(parts, added.length ? `${added.length} nodes added around ${idLabel(id)}.` : "");
  } catch (error) {
    if (!isAbort(error)) status.error(error);
  }
}

/** Replace an application node by its action jobs (an action-level answer one hop around it). */
async function actionsShow(parts: ExplorerParts, appId: string): Promise<void> {
  const { store, side, status, signal } = parts;
  const app = store.model.nodes.get(appId);
  if (!app || !store.canExpandApplication(appId)) return;
  try {
    const members = store.applicationExpand(appId, await neighboursLoad({
      id: appId, level: "action", when: placeWhen(store.place), shown: placeShown(store.place), signal,
    }));
    placeSave(parts);
    await redraw(parts, store.place.focus ?? appId);
    side.node(store.place.focus);
    countsShow(parts, `${app.label} shown as its ${members.length} action${members.length === 1 ? "" : "s"}.`);
  } catch (error) {
    if (!isAbort(error)) status.error(error);
  }
}

/** Fold the action jobs of an expanded application back into its one node. */
async function actionsFold(parts: ExplorerParts, appId: string): Promise<void> {
  const app = parts.store.applicationCollapse(appId);
  if (!app) return;
  placeSave(parts);
  await redraw(parts, appId);
  parts.side.node(appId);
  countsShow(parts, `${app.label} folded back into one node.`);
}

/** Draw a cluster as its nodes. */
async function clusterOpen(parts: ExplorerParts, id: string): Promise<void> {
  const cluster = parts.store.grouping.openCluster(id);
  if (!cluster) return;
  await redraw(parts, "");
  countsShow(parts, `opened ${cluster.label}`);
}

/** Draw the next page of a server cluster's members beside its hub (the cluster counts the rest, or leaves). */
async function neighboursMore(parts: ExplorerParts, id: string): Promise<void> {
  const { store, status, signal } = parts;
  const cluster = neighbourClusterOf(store.model, id);
  if (!cluster) return;
  try {
    const page = await api.neighbours(cluster.hub, cluster.direction, cluster.namespace, cluster.next, signal, placeWhen(store.place));
    const added = store.neighbourPageMerge(id, page);
    await redraw(parts, page.next ? id : cluster.drawnOn, true); // the cluster stays in view while it has more
    const left = cluster.count - cluster.shown - page.members.length;
    countsShow(parts, `${page.members.length} of ${cluster.count.toLocaleString("en")} shown beside ${idLabel(cluster.drawnOn)}` +
      (page.next ? `; ${left.toLocaleString("en")} more: click the cluster again.` : ".") + (added.length ? "" : " (all drawn already)"));
  } catch (error) {
    if (!isAbort(error)) status.error(error);
  }
}

/** Show every node (or group them again past the collapse threshold). */
async function everythingShow(parts: ExplorerParts, all: boolean): Promise<void> {
  const { store } = parts;
  store.allSet(all);
  placeSave(parts);
  await redraw(parts, store.place.focus ?? store.place.roots[0] ?? "");
  countsShow(parts);
}

/**
 * Show the column view's `cards` (every card with none named) as `mode` says; a card that shows all its fields for the
 * first time brings its dataset's other fields in first.
 */
async function cardsShow(parts: ExplorerParts, mode: CardMode, cards?: string[]): Promise<void> {
  const { store, status } = parts;
  const opened = store.cardModeSet(mode, cards);
  try {
    const missing = opened.filter((card) => store.model.nodes.get(card)?.data.allFields !== true);
    const details = await Promise.all(missing.map((datasetId) => columnDatasetLoad({ datasetId })));
    missing.forEach((card, i) => cardFieldsMerge(store.model, card, details[i].fields));
  } catch (error) {
    if (!isAbort(error)) status.error(error);
  }
  await redraw(parts, "");
}
