// Ask the layout worker for node positions; one worker per page, replies matched by request id.

import type { LayoutNode, LayoutRequest, LayoutResult } from "./layoutCompute";
import type { GraphNode } from "./model";

let worker: Worker | null = null;
let nextId = 1;
const pending = new Map<number, { resolve: (r: LayoutResult) => void; reject: (e: Error) => void }>();

function layoutWorker(): Worker {
  if (!worker) {
    worker = new Worker(new URL("./layout.worker.ts", import.meta.url), { type: "module" });
    worker.onmessage = (event: MessageEvent<LayoutResult & { error?: string }>) => {
      const waiting = pending.get(event.data.id);
      if (!waiting) return;
      pending.delete(event.data.id);
      if (event.data.error) waiting.reject(new Error(event.data.error));
      else waiting.resolve(event.data);
    };
    worker.onerror = (event) => {
      for (const waiting of pending.values()) waiting.reject(new Error(event.message || "layout worker failed"));
      pending.clear();
      worker = null;
    };
  }
  return worker;
}

export function layoutOffMainThread(request: Omit<LayoutRequest, "id">): Promise<LayoutResult> {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    layoutWorker().postMessage({ ...request, id });
  });
}

export type Size = Pick<LayoutNode, "width" | "height">;

/** Node box size from its label (one or two lines), matching the renderers' font and padding. */
export function nodeSize(label: string, kind: GraphNode["type"]): Size {
  const lines = label.split("\n");
  const chars = Math.min(Math.max(...lines.map((line) => line.length)), 40);
  if (kind === "DATASET_FIELD") return { width: Math.max(90, chars * 7 + 20), height: 22 };
  if (kind === "CARD_HEAD") return { width: Math.max(90, chars * 7.6 + 24), height: 26 };
  // Clusters stand for many nodes and are drawn larger, to read at the small zoom of a wide answer.
  if (kind === "CLUSTER") return { width: Math.max(120, chars * 10 + 36), height: 48 };
  const extra = (lines.length - 1) * 16;
  return { width: Math.max(80, chars * 7.6 + 30), height: (kind === "JOB" ? 34 : 38) + extra };
}

/** Every node's box by its drawn label; the rows of a dataset card all as wide as its widest. */
export function nodeSizes(nodes: GraphNode[], labels: Map<string, string>): Map<string, Size> {
  const sizes = new Map(nodes.map((n) => [n.id, nodeSize(labels.get(n.id) ?? n.label, n.type)]));
  const widest = new Map<string, number>();
  for (const n of nodes) if (n.parent) widest.set(n.parent, Math.max(widest.get(n.parent) ?? 0, sizes.get(n.id)!.width));
  for (const n of nodes) if (n.parent) sizes.get(n.id)!.width = widest.get(n.parent)!;
  return sizes;
}
