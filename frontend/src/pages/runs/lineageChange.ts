// How each run's reads and writes changed from the job's previous completed run ("+ reads C, − reads B"), from
// `GET /jobs/runs/<runId>/lineage`, asked only for the runs the page shows as they come into view, a few at a time.

import { api } from "../../api/client";
import { h, link, replace } from "../../dom";
import { idLabel } from "../../format";
import { idShortName } from "../../graph/names";
import type { RunLineage } from "../../api/types";

/** One line of a run's change: the sign and word say it without colour; each dataset a link by its short name. */
function changeLine(sign: "+" | "−", verb: "reads" | "writes", ids: string[]): HTMLElement | null {
  if (!ids.length) return null;
  const kind = sign === "+" ? "added" : "removed";
  return h("li", { class: kind, "data-change": `${kind}-${verb}` }, `${sign} ${verb} `,
    ids.flatMap((id, i) => [i ? ", " : "", link(`/dataset?nodeId=${encodeURIComponent(id)}`, h("span", { title: idLabel(id) }, idShortName(id)))]));
}

/** What a run's lineage answer says changed, for its row. */
export function lineageChangeView(answer: RunLineage): HTMLElement {
  const { changes } = answer;
  if (!changes) {
    return h("span", { class: "muted", title: "No earlier completed run of this job to compare with" }, "first completed run");
  }
  const lines = [
    changeLine("+", "reads", changes.addedReads),
    changeLine("−", "reads", changes.removedReads),
    changeLine("+", "writes", changes.addedWrites),
    changeLine("−", "writes", changes.removedWrites),
  ].filter((line): line is HTMLElement => line !== null);
  if (lines.length) return h("ul", { class: "change-list run-lineage-lines" }, lines);
  return h("span", { class: "muted", title: `Same datasets as run ${answer.previousRunId ?? "before"}` }, "same reads and writes");
}

/** Runs at most `limit` loads at once, in the order asked. */
export class LoadQueue {
  private running = 0;
  private readonly waiting: (() => Promise<void>)[] = [];

  constructor(private readonly limit: number) {}

  add(load: () => Promise<void>): void {
    this.waiting.push(load);
    this.next();
  }

  private next(): void {
    while (this.running < this.limit && this.waiting.length) {
      const load = this.waiting.shift()!;
      this.running++;
      void load().finally(() => { this.running--; this.next(); });
    }
  }
}

/** Fill `cell` with how run `runId`'s reads and writes changed, once it is scrolled into view and its answer comes. */
export function lineageChangeLoad(queue: LoadQueue, cell: HTMLElement, runId: string, signal: AbortSignal): void {
  whenVisible(cell, signal, () => queue.add(async () => {
    if (signal.aborted) return;
    try {
      replace(cell, lineageChangeView(await api.runLineage(runId, signal)));
      cell.dataset.loaded = "1";
    } catch (error) {
      if ((error as Error).name === "AbortError") return;
      replace(cell, h("span", { class: "muted", title: (error as Error).message }, "unknown"));
      cell.dataset.loaded = "error";
    }
  }));
}

/** Call `then` once `element` is on screen (at once where the browser cannot tell). */
function whenVisible(element: Element, signal: AbortSignal, then: () => void): void {
  if (typeof IntersectionObserver === "undefined") { then(); return; }
  const observer = new IntersectionObserver((entries) => {
    if (!entries.some((entry) => entry.isIntersecting)) return;
    observer.disconnect();
    then();
  }, { rootMargin: "200px" });
  observer.observe(element);
  signal.addEventListener("abort", () => observer.disconnect());
}
