// A run's place in its chain of runs (ParentRunFacet `parent` and `root`): links to its root and parent, and the
// runs below it nested by parent (an application's actions; a DAG run's tasks, their applications and actions).

import type { RunDetail } from "../../api/types";
import { h, link } from "../../dom";
import { idLabel } from "../../format";
import { runHref, stateBadge } from "../../shell/widgets";

type Hierarchy = RunDetail["hierarchy"];
type RunRef = Hierarchy["children"][number];

function runLink(run: RunRef): HTMLElement {
  return h("span", { class: "run-ref", "data-run": run.runId },
    link(runHref(run.jobId, run.runId), idLabel(run.jobId)), " ", stateBadge(run.state));
}

/** The runs below `runId`, nested: each under the run its parent facet names, or under `runId` when that run is not
 * listed (a step whose parent between sent nothing and is not known). */
function tree(runId: string, below: RunRef[]): HTMLElement | null {
  const listed = new Set(below.map((run) => run.runId));
  const under = (id: string): RunRef[] => below.filter((run) => id === runId
    ? !run.parentRunId || !listed.has(run.parentRunId)
    : run.parentRunId === id);
  const level = (id: string, depth: number): HTMLElement | null => {
    const runs = under(id);
    return runs.length && depth < 10
      ? h("ul", { class: "run-tree" }, ...runs.map((run) => h("li", {}, runLink(run), level(run.runId, depth + 1))))
      : null;
  };
  return level(runId, 0);
}

/** Root and parent links, then the runs below; nothing for a run in no chain. */
export function runHierarchy(runId: string, hierarchy: Hierarchy): HTMLElement | null {
  const below = [...hierarchy.children, ...hierarchy.descendants];
  if (!hierarchy.root && !hierarchy.parent && !below.length) return null;
  const up = [
    hierarchy.root ? h("span", { class: "run-root" }, "Root: ", runLink(hierarchy.root)) : null,
    hierarchy.parent ? h("span", { class: "run-parent" }, hierarchy.root ? " · " : "", "Parent: ", runLink(hierarchy.parent)) : null,
  ];
  return h("div", { class: "run-hierarchy" },
    hierarchy.root || hierarchy.parent ? h("div", {}, ...up) : null,
    below.length ? h("div", { class: "run-steps" }, `Runs below (${below.length}):`, tree(runId, below)) : null);
}
