// The explorer's graph: draws the store's model with its roots, selection, path and focused field, and reports clicks as intents.

import { h } from "../../dom";
import type { GraphModel } from "../../graph/model";
import { GraphView, type GraphViewEvents } from "../../graph/view";
import { tapIntent, type ExplorerStore, type Intent, type PathState, type Picture } from "./store";

/** What the explorer draws with: a Cytoscape `GraphView` in the page. */
export type Surface = Pick<GraphView,
  "show" | "select" | "setClass" | "center" | "currentPlacement" | "viewport" | "setViewport" | "zoomBy" | "fit" | "isEmpty" | "clear" | "destroy">;

export type SurfaceCreate = (element: HTMLElement, events: GraphViewEvents) => Surface;

export class ExplorerGraph {
  readonly element = h("div", { class: "graph-canvas", id: "graph" });
  private surface: Surface | null = null;
  private readonly events: GraphViewEvents;

  constructor(
    store: ExplorerStore,
    emit: (intent: Intent) => void,
    private readonly surfaceCreate: SurfaceCreate = (element, events) => new GraphView(element, events),
  ) {
    const send = (intent: Intent | null) => { if (intent) emit(intent); };
    this.events = {
      onTap: (id, event) => send(tapIntent(store.place, store.model, id, event.shift, (card) => store.cardMode(card))),
      // Double-click an application to see its actions, an action to fold them back.
      onDoubleTap: (id) => send(store.doubleTapIntent(id)),
      // A click beside the graph: nothing selected; in the column view, the drawn field's own path traced again.
      onBackgroundTap: () => send(store.place.view === "table" ? { kind: "deselect" } : { kind: "trace", id: null }),
    };
  }

  /** Whether a graph has been drawn on this page: until then there is nothing to redraw or mark. */
  get drawn(): boolean {
    return this.surface !== null;
  }

  private ensure(): Surface {
    this.surface ??= this.surfaceCreate(this.element, this.events);
    return this.surface;
  }

  /** A message in place of the graph. */
  message(text: string): void {
    this.element.replaceChildren(h("div", { class: "graph-empty" }, text));
  }

  clear(): void {
    this.surface?.clear();
  }

  /**
   * Draw a picture as `model`: laid out afresh and fitted the first time, exactly as left on a return.
   * Answers false, keeping nothing, when `stale()` says a newer load started while it was laid out.
   */
  async pictureShow(picture: Picture, model: GraphModel, stale: () => boolean): Promise<boolean> {
    const surface = this.ensure();
    const restoring = picture.placement !== null;
    await surface.show(model, { reuse: picture.placement ?? undefined, fit: !restoring });
    if (stale()) return false;
    if (restoring) surface.setViewport(picture.viewport);
    picture.placement = surface.currentPlacement();
    picture.viewport = surface.viewport();
    return true;
  }

  /** Keep in `picture` where its nodes stand and how it is zoomed now, to return to it as it was left. */
  pictureRemember(picture: Picture | undefined): void {
    if (!this.surface || this.surface.isEmpty() || !picture) return;
    picture.viewport = this.surface.viewport();
    picture.placement = this.surface.currentPlacement();
  }

  /** Draw `model` again after it changed shape; `picture` keeps the new placement. */
  async redraw(model: GraphModel, picture: Picture | undefined, keepViewport: boolean): Promise<void> {
    if (!this.surface) return;
    await this.surface.show(model, { keepViewport });
    if (picture) picture.placement = this.surface.currentPlacement();
  }

  /** Mark the roots and the selected node. */
  mark(roots: string[], selected: string | null): void {
    this.surface?.select(selected);
    this.surface?.setClass("root", roots);
  }

  select(id: string | null): void {
    this.surface?.select(id);
  }

  /** Mark the path ends and, when there is one, the path between them. */
  markPath(ends: string[], path: PathState): void {
    this.surface?.setClass("path-end", ends);
    this.surface?.setClass("on-path", path.kind === "path" ? [...path.nodes, ...path.edges] : []);
  }

  /**
   * Mark the field whose column lineage is drawn (nothing is selected in the column view) and the traced path, fading
   * the rest (`marks` null: nothing traced).
   */
  markFields(fieldId: string, marks: { path: string[]; rest: string[] } | null): void {
    this.surface?.setClass("focus", [fieldId]);
    this.surface?.select(null);
    this.surface?.setClass("traced", marks?.path ?? []);
    this.surface?.setClass("faded", marks?.rest ?? []);
  }

  center(id: string): void {
    this.surface?.center(id);
  }

  zoomBy(factor: number): void {
    this.surface?.zoomBy(factor);
  }

  fit(): void {
    this.surface?.fit();
  }

  destroy(): void {
    this.surface?.destroy();
  }
}
