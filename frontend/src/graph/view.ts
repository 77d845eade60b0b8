// A Cytoscape canvas for a `GraphModel`: positions from the layout worker, preset layout, highlights.

import cytoscape from "cytoscape";
import { formatTime, idLabel, stateKey } from "../format";
import { segmentsFor, type Point } from "./bands";
import { layoutOffMainThread, nodeSizes, type Size } from "./layout";
import { fullName, type Change, type GraphEdge, type GraphModel, type GraphNode } from "./model";
import { namespaceChip } from "./names";
import { transformationOf, transformationText, type TransformationEdge } from "./transformations";
import { graphStyle, nodeColors } from "./renderers";
import { qualityMark } from "./renderers/dataset";
import { graphHooksExpose, graphHooksRemove, graphRenderedMark } from "./testHooks";

export interface GraphViewEvents {
  onTap?: (id: string, event: { shift: boolean }) => void;
  onDoubleTap?: (id: string) => void;
  onBackgroundTap?: () => void;
}

export type Positions = Record<string, Point>;
/** Where a graph's nodes stand and how its routed edges bend, as the layout placed them. */
export interface Placement {
  positions: Positions;
  routes: Record<string, Point[]>;
}

/** Before the label of a node a diff says came or went: a sign, so that colour is not the only thing that tells. */
const CHANGE_MARK: Record<Change, string> = { added: "+ ", removed: "− ", unchanged: "" };

/** A node's drawn label: its short name, with its namespace as a second line when the graph spans several. */
export function drawnLabel(node: GraphNode, showNamespace: boolean): string {
  const namespace = node.data.namespace;
  const label = `${node.change ? CHANGE_MARK[node.change] : ""}${qualityMark(node)}${node.label}`;
  return showNamespace && typeof namespace === "string" && namespace ? `${label}\n${namespaceChip(namespace)}` : label;
}

/** A column edge's data: its transformation and the job that derives it. */
type ColumnEdgeData = TransformationEdge & { job?: string | null };

/** Whether an edge is a column edge (field to field), which carries its transformation. */
function isColumnEdge(data: Record<string, unknown> | undefined): data is ColumnEdgeData & Record<string, unknown> {
  return data !== undefined && "indirect" in data;
}

/**
 * What an edge's tooltip says: its ends, a column edge's transformation and job, and when it held (or, in a diff,
 * whether it came or went).
 */
export function edgeTitle(edge: GraphEdge): string {
  const lines = [`${idLabel(edge.source)} → ${idLabel(edge.target)}`];
  if (edge.declared) lines.push("declared dependency: a run declared this job runs after the other (jobDependencies)");
  for (const dataset of edge.via ?? []) lines.push(`through temporary dataset ${idLabel(dataset)}`);
  // Its runs wrote a part of the dataset (a partition), not the whole of it.
  if (edge.lastSubset) lines.push(`partition write: last wrote ${edge.lastSubset.subset} (${formatTime(edge.lastSubset.at)})`);
  if (isColumnEdge(edge.data)) {
    lines.push(transformationText(edge.data));
    if (edge.data.job) lines.push(`by ${idLabel(edge.data.job)}`);
  }
  if (edge.inferred) lines.push("inferred from column lineage: no event listed it as an input");
  if (edge.change === "added") lines.push("added: in the later graph, not in the earlier one");
  if (edge.change === "removed") lines.push("removed: in the earlier graph, not in the later one");
  if (edge.change === "unchanged") lines.push("unchanged: in both graphs");
  const validity = edge.validity;
  if (validity) {
    if (edge.stale) lines.push(`stale since ${formatTime(validity.staleSince)}`);
    // A graph as at an instant: the edge held then and went stale later.
    else if (validity.staleSince) lines.push(`current then; stale since ${formatTime(validity.staleSince)}`);
    lines.push(`last seen ${formatTime(validity.lastSeen)}`, `first seen ${formatTime(validity.firstSeen)}`);
  }
  return lines.join("\n");
}

/** The classes that draw what a diff or the edges' validity say: `added`, `removed`, `unchanged`, `stale`. */
function timeClasses(element: { change?: Change; stale?: boolean }): string[] {
  return [element.change ?? "", element.stale ? "stale" : ""];
}

/** Whether the datasets of `model`, or its jobs, come from more than one namespace (then each node names its own). */
export function spansNamespaces(model: GraphModel): boolean {
  const seen = { DATASET: new Set<unknown>(), JOB: new Set<unknown>() };
  for (const node of model.nodes.values()) {
    if (node.type === "DATASET" || node.type === "JOB") seen[node.type].add(node.data.namespace);
  }
  return seen.DATASET.size > 1 || seen.JOB.size > 1;
}

/** The label a node is drawn with: none on a card (its head row names it). */
function nodeText(node: GraphNode, showNamespace: boolean): string {
  if (node.type === "DATASET_GROUP") return "";
  return drawnLabel(node, showNamespace && (node.type === "DATASET" || node.type === "JOB"));
}

/** The tooltip of a node: its full name; a card's head also says what a click on it does. */
function nodeTitle(node: GraphNode): string {
  if (node.type === "CARD_HEAD") return `${fullName(node)}\nclick: all fields · name only · fields on the path`;
  if (node.type === "DATASET_FIELD" && node.data.type) return `${fullName(node)}\n${String(node.data.type)}`;
  if (node.type === "DATASET" && node.data.quality && node.data.quality !== "unknown") {
    return `${fullName(node)}\ndata quality: ${String(node.data.quality)}`;
  }
  return fullName(node);
}

function nodeElement(node: GraphNode, position: Point | undefined, label: string, size: Size): cytoscape.ElementDefinition {
  const state = node.type === "JOB" ? node.data.latestRunState : node.data.lastRunState;
  return {
    group: "nodes",
    data: {
      id: node.id, label, title: nodeTitle(node), kind: node.type, state: stateKey(state as string | null),
      ...(node.type === "DATASET" && node.data.quality ? { quality: node.data.quality } : {}),
      ...(nodeColors[node.type]?.(node) ?? {}),
      w: size.width, h: size.height, ...(node.parent ? { parent: node.parent } : {}),
    },
    ...(position ? { position: { ...position } } : {}),
    classes: [...timeClasses(node), node.data.onPath === false ? "off-path" : ""].join(" ").trim(),
  };
}

function edgeElement(edge: GraphEdge, placement: Placement, large: boolean): cytoscape.ElementDefinition {
  const route = placement.routes[edge.id];
  const from = placement.positions[edge.source], to = placement.positions[edge.target];
  const segments = route && from && to ? segmentsFor(from, to, route) : null;
  const transformation = isColumnEdge(edge.data) ? transformationOf(edge.data) : null;
  return {
    group: "edges",
    data: {
      id: edge.id, source: edge.source, target: edge.target,
      title: edgeTitle(edge),
      ...(transformation ? { color: transformation.color } : {}),
      ...(segments ? { sw: segments.weights, sd: segments.distances } : {}),
    },
    classes: [
      transformation ? `field-edge ${transformation.kind.toLowerCase()}` : "", large ? "fast" : "", segments ? "routed" : "",
      edge.inferred ? "inferred" : "", ...timeClasses(edge),
      edge.declared ? "declared" : "", edge.via?.length ? "via-temporary" : "",
    ].join(" ").replace(/\s+/g, " ").trim(),
  };
}

/** The column view's smallest fit zoom: its 12 px field names are 9 px on screen there. */
const READABLE_CARD_ZOOM = 0.75;
/** Below this zoom a 12 px label is under 7 px on screen and is not drawn anyway. */
const LABEL_ZOOM = 0.6;
const NO_LABELS: cytoscape.StylesheetJson = [{ selector: "node[kind = 'DATASET'], node[kind = 'JOB']", style: { label: "" } }];

// Cytoscape adds an inline <style> for its container (`position: relative`) unless an element with this id
// exists; the server's Content-Security-Policy allows no inline style, so styles.css carries that rule and
// this marker tells Cytoscape it is there.
const CYTOSCAPE_STYLESHEET_ID = "__________cytoscape_stylesheet";

function markCytoscapeStylesheet(): void {
  if (document.getElementById(CYTOSCAPE_STYLESHEET_ID)) return;
  const marker = document.createElement("meta");
  marker.id = CYTOSCAPE_STYLESHEET_ID;
  document.head.append(marker);
}

export class GraphView {
  readonly cy: cytoscape.Core;
  private placement: Placement = { positions: {}, routes: {} };
  private readonly tooltip: HTMLElement;
  private generation = 0;
  private large = false;
  private labelsHidden = false;
  /** Whether the graph drawn is the column view's cards, which fit no smaller than their fields read. */
  private cards = false;
  private readonly resizes: ResizeObserver;

  constructor(readonly container: HTMLElement, events: GraphViewEvents = {}) {
    markCytoscapeStylesheet();
    this.cy = cytoscape({
      container,
      style: graphStyle,
      minZoom: 0.05,
      maxZoom: 3,
      wheelSensitivity: 0.3,
      boxSelectionEnabled: false,
      selectionType: "single",
    });
    this.cy.on("tap", "node", (event) => {
      const original = event.originalEvent as MouseEvent | undefined;
      events.onTap?.(event.target.id(), { shift: Boolean(original?.shiftKey || original?.ctrlKey || original?.metaKey) });
    });
    // Cytoscape calls any two clicks in quick succession a double tap, even on two different nodes: clicking one field
    // and then another at once would open the second one's lineage. A double tap is two taps on the same node.
    let tapped: [string | null, string | null] = [null, null];
    this.cy.on("tap", (event) => { tapped = [tapped[1], event.target === this.cy ? null : event.target.id()]; });
    this.cy.on("dbltap", "node", (event) => { if (tapped[0] === event.target.id()) events.onDoubleTap?.(event.target.id()); });
    this.cy.on("tap", (event) => { if (event.target === this.cy) events.onBackgroundTap?.(); });
    this.cy.on("zoom", () => this.updateLabels());
    // A node moved by hand no longer fits the bends its edges were routed with.
    this.cy.on("drag", "node", (event) => { event.target.connectedEdges().removeClass("routed"); });
    this.tooltip = document.createElement("div");
    this.tooltip.className = "graph-tooltip";
    this.tooltip.hidden = true;
    container.appendChild(this.tooltip);
    this.cy.on("mouseover", "node", (event) => this.showTooltip(event.target));
    this.cy.on("mouseout", "node", () => { this.tooltip.hidden = true; });
    // An edge says when it held (last seen, stale since) or, in a diff, whether it came or went.
    this.cy.on("mouseover", "edge", (event) => this.showEdgeTooltip(event.target));
    this.cy.on("mouseout", "edge", () => { this.tooltip.hidden = true; });
    this.cy.on("viewport", () => { this.tooltip.hidden = true; });
    // The canvas changes size with the page (the column view's drawer opening and closing): draw it at its new size.
    this.resizes = new ResizeObserver(() => this.cy.resize());
    this.resizes.observe(container);
    graphHooksExpose(this.cy, container);
  }

  /** The full name of a node beside the pointer (the drawn label is its short name). */
  private showTooltip(node: cytoscape.NodeSingular): void {
    const text = String(node.data("title") ?? "");
    if (!text) return;
    const p = node.renderedPosition();
    this.placeTooltip(text, p.x + 12, p.y + node.renderedOuterHeight() / 2 + 6);
  }

  /** When an edge held (first / last seen, stale since) beside its middle. */
  private showEdgeTooltip(edge: cytoscape.EdgeSingular): void {
    const text = String(edge.data("title") ?? "");
    if (!text) return;
    const p = edge.renderedMidpoint();
    this.placeTooltip(text, p.x + 12, p.y + 12);
  }

  private placeTooltip(text: string, x: number, y: number): void {
    this.tooltip.textContent = text;
    this.tooltip.style.left = `${Math.round(x)}px`;
    this.tooltip.style.top = `${Math.round(y)}px`;
    this.tooltip.hidden = false;
  }

  /**
   * Show `model`: lay it out in the worker (unless every node already has a position), place the
   * nodes with the preset layout and fit. Resolves once the frame with the graph has been drawn.
   */
  async show(model: GraphModel, options: { fit?: boolean; rankdir?: "LR" | "TB"; reuse?: Placement; keepViewport?: boolean } = {}): Promise<void> {
    const generation = ++this.generation;
    const large = model.nodes.size > 500;
    const compound = [...model.nodes.values()].some((n) => n.parent);
    const nodes = [...model.nodes.values()];
    const showNamespace = spansNamespaces(model);
    const labels = new Map(nodes.map((n) => [n.id, nodeText(n, showNamespace)]));
    const sizes = nodeSizes(nodes, labels);
    let placement = options.reuse;
    const positions = placement?.positions;
    // A card is placed by its rows: a graph is laid out again when a node other than a card has no place yet.
    if (!positions || nodes.some((n) => n.type !== "DATASET_GROUP" && !positions[n.id])) {
      performance.mark("tributary:layout-start");
      const result = await layoutOffMainThread({
        nodes: nodes.map((n) => ({ id: n.id, parent: n.parent, head: n.type === "CARD_HEAD", ...sizes.get(n.id)! })),
        edges: [...model.edges.values()].map((e) => ({ source: e.source, target: e.target })),
        rankdir: options.rankdir ?? "LR",
        compound,
        canvas: { width: this.container.clientWidth, height: this.container.clientHeight },
      });
      placement = { positions: result.positions, routes: result.routes };
      performance.mark("tributary:layout-done");
      performance.measure("tributary:layout-worker", { start: "tributary:layout-start", end: "tributary:layout-done", detail: result.millis });
    }
    if (generation !== this.generation) return; // a newer graph replaced this one while it was laid out
    this.placement = placement!;
    const cy = this.cy;
    const viewport = { zoom: cy.zoom(), pan: { ...cy.pan() } };
    // Hide labels before adding a large graph, so the elements are never styled with them first.
    if (large && !this.labelsHidden) { this.labelsHidden = true; cy.style([...graphStyle, ...NO_LABELS]); }
    cy.batch(() => {
      cy.elements().remove();
      cy.add([
        // parents first, so children can name them
        ...nodes.filter((n) => !n.parent).map((n) => nodeElement(n, placement!.positions[n.id], labels.get(n.id)!, sizes.get(n.id)!)),
        ...nodes.filter((n) => n.parent).map((n) => nodeElement(n, placement!.positions[n.id], labels.get(n.id)!, sizes.get(n.id)!)),
        ...[...model.edges.values()].map((e) => edgeElement(e, placement!, large)),
      ]);
    });
    // Large graphs: skip edges and label work while the user pans and zooms, so it stays fluid.
    const renderer = cy as unknown as { renderer(): { hideEdgesOnViewport: boolean; textureOnViewport: boolean } };
    renderer.renderer().hideEdgesOnViewport = large;
    renderer.renderer().textureOnViewport = large;
    this.large = large;
    this.cards = compound;
    if (options.keepViewport) cy.viewport(viewport);
    else if (options.fit !== false) this.fit();
    this.updateLabels();
    performance.mark("tributary:elements-added");
    await this.drawn();
    performance.mark("tributary:drawn");
    if (generation === this.generation) graphRenderedMark();
  }

  /**
   * On large graphs, labels are measured and drawn only once zoomed in far enough to read them:
   * measuring 1,000+ labels is the largest part of the first frame.
   */
  private updateLabels(): void {
    const hide = this.large && this.cy.zoom() < LABEL_ZOOM;
    if (hide === this.labelsHidden) return;
    this.labelsHidden = hide;
    this.cy.style(hide ? [...graphStyle, ...NO_LABELS] : graphStyle);
  }

  /** Where the nodes stand now (moved by hand or not), with the routes of the edges still routed. */
  currentPlacement(): Placement {
    const positions: Positions = {};
    const nodes = this.cy.nodes();
    for (let i = 0; i < nodes.length; i++) {
      if (nodes[i].data("kind") !== "DATASET_GROUP") positions[nodes[i].id()] = { ...nodes[i].position() };
    }
    const routes: Placement["routes"] = {};
    this.cy.edges(".routed").forEach((edge) => {
      const route = this.placement.routes[edge.id()];
      if (route) routes[edge.id()] = route;
    });
    return { positions: { ...this.placement.positions, ...positions }, routes };
  }

  /** Resolves after the next frame Cytoscape draws. */
  drawn(): Promise<void> {
    return new Promise((resolve) => {
      let done = false;
      const finish = () => { if (!done) { done = true; requestAnimationFrame(() => resolve()); } };
      this.cy.one("render", finish);
      setTimeout(finish, 500); // nothing changed on screen: no render event comes
    });
  }

  setClass(className: string, ids: string[]): void {
    this.cy.batch(() => {
      this.cy.elements(`.${className}`).removeClass(className);
      for (const id of ids) this.cy.getElementById(id).addClass(className);
    });
  }

  select(id: string | null): void {
    this.cy.batch(() => {
      this.cy.$(":selected").unselect();
      if (id) this.cy.getElementById(id).select();
    });
  }

  center(id: string): void {
    const node = this.cy.getElementById(id);
    if (!node.empty()) this.cy.animate({ center: { eles: node } }, { duration: 250 });
  }

  zoomBy(factor: number): void {
    const cy = this.cy;
    cy.zoom({ level: cy.zoom() * factor, renderedPosition: { x: cy.width() / 2, y: cy.height() / 2 } });
  }

  /**
   * Fit the graph in view from node boxes alone (Cytoscape's own fit measures every label first), at most 1:1. The
   * column view's cards are never drawn smaller than their fields read: a graph too large for that is shown from its
   * top left corner (or centred along the axis it fits), to pan from there.
   */
  fit(padding = 30): void {
    const cy = this.cy;
    if (cy.nodes().empty()) return;
    let x1 = Infinity, y1 = Infinity, x2 = -Infinity, y2 = -Infinity;
    const nodes = cy.nodes();
    for (let i = 0; i < nodes.length; i++) {
      const node = nodes[i];
      const p = node.position();
      const group = node.data("kind") === "DATASET_GROUP"; // compound: sized by its children
      const w = group ? node.outerWidth() : Number(node.data("w"));
      const h = group ? node.outerHeight() : Number(node.data("h"));
      x1 = Math.min(x1, p.x - w / 2); x2 = Math.max(x2, p.x + w / 2);
      y1 = Math.min(y1, p.y - h / 2); y2 = Math.max(y2, p.y + h / 2);
    }
    // Routed edges may bend outside the nodes' box (the gutters between bands).
    this.cy.edges(".routed").forEach((edge) => {
      for (const p of this.placement.routes[edge.id()] ?? []) {
        x1 = Math.min(x1, p.x); x2 = Math.max(x2, p.x); y1 = Math.min(y1, p.y); y2 = Math.max(y2, p.y);
      }
    });
    const width = cy.width(), height = cy.height();
    const fitting = Math.min(1, (width - 2 * padding) / (x2 - x1 || 1), (height - 2 * padding) / (y2 - y1 || 1));
    const zoom = Math.max(this.cards ? READABLE_CARD_ZOOM : cy.minZoom(), fitting);
    const pan = (size: number, low: number, high: number) =>
      zoom * (high - low) <= size - 2 * padding ? (size - zoom * (low + high)) / 2 : padding - zoom * low;
    cy.viewport({ zoom, pan: { x: pan(width, x1, x2), y: pan(height, y1, y2) } });
  }

  viewport(): { zoom: number; pan: { x: number; y: number } } {
    return { zoom: this.cy.zoom(), pan: { ...this.cy.pan() } };
  }

  setViewport(viewport: { zoom: number; pan: { x: number; y: number } }): void {
    this.cy.viewport(viewport);
  }

  /** Whether no node is drawn. */
  isEmpty(): boolean {
    return this.cy.nodes().empty();
  }

  /** Draw nothing (the graph stays, ready for the next `show`). */
  clear(): void {
    this.cy.elements().remove();
  }

  destroy(): void {
    this.generation++;
    this.resizes.disconnect();
    this.cy.destroy();
    graphHooksRemove();
  }
}
