// The lines under the explorer's graph: what is drawn (counts, clusters, messages) and the path between two nodes.

import type { NearMissResponse } from "../../../api/types";
import { h, replace } from "../../../dom";
import { idLabel } from "../../../format";
import { idShortName } from "../../../graph/names";
import { errorMessage, loading } from "../../../shell/widgets";
import type { Intent, PathState } from "../store";

const PATH_HINT = "Shift-click two nodes to highlight the path between them.";

/** What the graph's status line counts: nodes and edges, clusters drawn folded, whether it could be grouped again. */
export interface Counts {
  /** What is counted: nodes (`unit`: the column view counts fields). */
  nodes: number;
  unit?: string;
  edges: number;
  folded: number;
  regroupable: boolean;
  /** When the graph is looked at (now, at an instant, a comparison), with its stale edges or changes counted. */
  when?: string;
}

/** What the server says about two datasets with no path between them here. */
export function nearMissText(answer: NearMissResponse): string {
  if (answer.connected) return `They are connected beyond this view (${answer.pathLength} hops, ${answer.direction}): raise the depth.`;
  const nearest = answer.nearMisses[0];
  return nearest ? `Why not: ${nearest.message}` : "No near-miss found: nothing links them.";
}

export class StatusBar {
  readonly status = h("div", { class: "graph-status", "aria-live": "polite" });
  readonly pathInfo = h("div", { class: "path-info" }, PATH_HINT);

  constructor(private readonly emit: (intent: Intent) => void) {}

  loading(): void {
    replace(this.status, loading());
  }

  message(text: string): void {
    replace(this.status, text);
  }

  error(error: unknown): void {
    replace(this.status, errorMessage(error));
  }

  /** Counts of what is drawn, how to open or regroup clusters, and `extra` news. */
  counts(counts: Counts, extra = ""): void {
    const groups = counts.folded
      ? [" · ", h("span", { id: "cluster-info" }, `grouped into ${counts.folded} clusters: click one to open it`), " ",
        h("button", { type: "button", class: "link-button", id: "show-all", onclick: () => this.emit({ kind: "show-all", all: true }) }, "show every node")]
      : counts.regroupable
        ? [" · ", h("button", { type: "button", class: "link-button", id: "group-again", onclick: () => this.emit({ kind: "show-all", all: false }) }, "group into clusters")]
        : [];
    replace(this.status, h("span", { id: "graph-count" }, `${counts.nodes} ${counts.unit ?? "nodes"}, ${counts.edges} edges`),
      counts.when ? [" · ", h("span", { id: "graph-when" }, counts.when)] : "", ...groups, extra ? ` · ${extra}` : "");
  }

  path(path: PathState): void {
    const clear = () => h("button", { type: "button", class: "link-button", onclick: () => this.emit({ kind: "clear-path" }) }, "clear");
    switch (path.kind) {
      case "none": replace(this.pathInfo, PATH_HINT); return;
      case "start": replace(this.pathInfo, `Path from ${idLabel(path.from)}: shift-click a second node.`); return;
      case "no-path":
        replace(this.pathInfo, h("span", { id: "path-result" }, `No path between ${idShortName(path.from)} and ${idShortName(path.to)} here.`), " ", clear());
        return;
      case "path":
        replace(this.pathInfo, h("span", { id: "path-result" }, `Path (${path.nodes.length - 1} hops): ${path.nodes.map(idLabel).join(" → ")}`), " ", clear());
    }
  }

  /** Add why two datasets are not connected (every near-miss on hover). */
  nearMiss(answer: NearMissResponse): void {
    this.pathInfo.append(" ", h("span", { id: "near-miss", title: answer.nearMisses.map((m) => m.message).join("\n") }, nearMissText(answer)));
  }

  nearMissError(error: unknown): void {
    this.pathInfo.append(" ", errorMessage(error));
  }
}
