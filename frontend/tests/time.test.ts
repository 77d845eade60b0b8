import { describe, expect, it } from "vitest";
import type { Change, LineageDiff, LineageDiffNode, LineageNode } from "../src/api/types";
import { changeJoin, collapseApplication, emptyModel, mergeLineage, staleAt, validityJoin } from "../src/graph/model";
import { drawnLabel, edgeTitle } from "../src/graph/view";
import { changeCounts, changeList, changesPanel } from "../src/pages/lineage/panels/changesPanel";
import { TimeControl } from "../src/pages/lineage/panels/timeControl";
import { parseState, stateParams, tableKey } from "../src/pages/lineage/state";
import { placeAfter, type Intent } from "../src/pages/lineage/store";
import { inputInstant, inputValue, instantParse, timeParse, timeText } from "../src/pages/lineage/time";
import { CURRENT } from "./current";

const A = "dataset:db:a", B = "dataset:db:b", C = "dataset:db:c", OUT = "dataset:db:out", ETL = "job:spark:etl";

const state = (query: string) => parseState(new URLSearchParams(query));

describe("time in the explorer's URL", () => {
  it("reads now, an instant (or the older asOf) and a comparison, and writes them back", () => {
    expect(state("nodeId=x").time).toEqual({ kind: "now" });
    expect(state("nodeId=x&at=2026-01-06T08:00:00Z").time).toEqual({ kind: "at", at: "2026-01-06T08:00:00Z" });
    expect(state("nodeId=x&asOf=2026-01-06T08:00:00.000Z").time).toEqual({ kind: "at", at: "2026-01-06T08:00:00Z" });
    const compare = state("nodeId=x&from=2026-01-05T00:00:00Z&to=2026-01-07T12:30:00Z&stale=1");
    expect(compare.time).toEqual({ kind: "compare", from: "2026-01-05T00:00:00Z", to: "2026-01-07T12:30:00Z" });
    expect(compare.stale).toBe(true);
    expect(parseState(stateParams(compare))).toEqual(compare);
    const params = stateParams(state("nodeId=x&at=2026-01-06T08:00:00Z&stale=1"));
    expect([params.get("at"), params.get("stale"), params.get("from")]).toEqual(["2026-01-06T08:00:00Z", "1", null]);
  });

  it("takes a bare date-time as UTC and drops what is no instant", () => {
    expect(instantParse("2026-01-06T08:00")).toBe("2026-01-06T08:00:00Z");
    expect(instantParse("2026-01-06T09:00:00+01:00")).toBe("2026-01-06T08:00:00Z");
    expect(instantParse("yesterday")).toBeNull();
    expect(timeParse(new URLSearchParams("from=2026-01-05T00:00:00Z"))).toEqual({ kind: "now" }); // one end is no comparison
  });

  it("shows an instant in a datetime-local input in UTC, and reads it back", () => {
    expect(inputValue("2026-01-06T08:00:00Z")).toBe("2026-01-06T08:00");
    expect(inputValue("2026-01-06T08:00:30Z")).toBe("2026-01-06T08:00:30");
    expect(inputInstant("2026-01-06T08:00")).toBe("2026-01-06T08:00:00Z");
    expect(inputInstant("")).toBeNull();
  });

  it("keys the table graph by its time and by stale edges, which a comparison leaves out", () => {
    const now = state("nodeId=x");
    expect(tableKey(now)).not.toBe(tableKey({ ...now, stale: true }));
    expect(tableKey(now)).not.toBe(tableKey({ ...now, time: { kind: "at", at: "2026-01-06T08:00:00Z" } }));
    const compare = { ...now, time: { kind: "compare" as const, from: "2026-01-05T00:00:00Z", to: "2026-01-06T00:00:00Z" } };
    expect(tableKey(compare)).toBe(tableKey({ ...compare, stale: true }));
    expect(timeText(compare.time, true)).toBe("changes from 2026-01-05 00:00Z to 2026-01-06 00:00Z");
  });

  it("moves to another time or stale setting, and nowhere when it is the one shown", () => {
    const now = state("nodeId=x");
    expect(placeAfter(now, { kind: "time", time: { kind: "now" } })).toBeNull();
    expect(placeAfter(now, { kind: "stale", stale: true })?.stale).toBe(true);
    expect(placeAfter(now, { kind: "time", time: { kind: "at", at: "2026-01-06T08:00:00Z" } })?.time.kind).toBe("at");
  });
});

function diffNode(id: string, change: Change, ins: [string, Change][] = [], outs: [string, Change][] = []): LineageDiffNode {
  return {
    id, type: id.startsWith("job:") ? "JOB" : "DATASET", change,
    data: { nodeId: id, namespace: id.split(":")[1], name: id.split(":").pop() ?? id, firstSeen: null, lastSeen: null },
    inEdges: ins.map(([origin, c]) => ({ ...CURRENT, origin, destination: id, change: c })),
    outEdges: outs.map(([destination, c]) => ({ ...CURRENT, origin: id, destination, change: c })),
  };
}

/** etl read A and B on day 1, A and C on day 2, writing OUT both days. */
function etlDiff(root = OUT): LineageDiff {
  return {
    nodeId: root, depth: 2, direction: "both", level: "application", from: "2026-01-05T12:00:00Z", to: "2026-01-06T12:00:00Z", truncated: false,
    graph: [
      diffNode(A, "unchanged", [], [[ETL, "unchanged"]]),
      diffNode(B, "removed", [], [[ETL, "removed"]]),
      diffNode(C, "added", [], [[ETL, "added"]]),
      diffNode(ETL, "unchanged", [[A, "unchanged"], [B, "removed"], [C, "added"]], [[OUT, "unchanged"]]),
      diffNode(OUT, "unchanged", [[ETL, "unchanged"]]),
    ],
    changes: { addedNodes: [C], removedNodes: [B], addedEdges: [{ origin: C, destination: ETL }], removedEdges: [{ origin: B, destination: ETL }] },
    schemaChanges: [{ datasetId: OUT, fromVersion: "v1", toVersion: "v2", addedFields: ["c"], removedFields: ["b"], changedFields: [{ name: "id", fromType: "int", toType: "bigint" }], renamedFields: [] }],
  };
}

describe("a comparison's graph", () => {
  it("marks each node and edge with its change, and lists what came and went", () => {
    const model = emptyModel();
    mergeLineage(model, etlDiff());
    expect(model.nodes.get(B)?.change).toBe("removed");
    expect(model.edges.get(`${C}->${ETL}`)?.change).toBe("added");
    const list = changeList(model);
    expect(list.datasets.added.map((n) => n.id)).toEqual([C]);
    expect(list.datasets.removed.map((n) => n.id)).toEqual([B]);
    expect(list.edges.removed).toMatchObject([{ source: B, target: ETL }]);
    expect(changeCounts(list)).toEqual({ added: 2, removed: 2 });
  });

  it("takes a node two roots' diffs disagree on as there at both instants", () => {
    expect(changeJoin("added", "removed")).toBe("unchanged");
    expect(changeJoin("added", "unchanged")).toBe("unchanged");
    expect(changeJoin(undefined, "added")).toBe("added");
    const model = emptyModel();
    mergeLineage(model, etlDiff());
    mergeLineage(model, { ...etlDiff(A), graph: [diffNode(B, "unchanged")] });
    expect(model.nodes.get(B)?.change).toBe("unchanged");
  });

  it("says the change in the label and in words, not only in colour", () => {
    const model = emptyModel();
    mergeLineage(model, etlDiff());
    expect(drawnLabel(model.nodes.get(C)!, false)).toBe("+ c");
    expect(drawnLabel(model.nodes.get(B)!, false)).toBe("− b");
    expect(drawnLabel(model.nodes.get(A)!, false)).toBe("a");
    const selected: string[] = [];
    const panel = changesPanel({ model, schemaChanges: etlDiff().schemaChanges, from: "2026-01-05T12:00:00Z", to: "2026-01-06T12:00:00Z", select: (id) => selected.push(id) });
    const text = panel.textContent ?? "";
    expect(text).toContain("2 added, 2 removed, 1 schema change.");
    expect(panel.querySelector(`#changes-datasets li[data-change='added'][data-id='${C}']`)?.textContent).toContain("+ added");
    expect(panel.querySelector(`#changes-edges li[data-change='removed'][data-edge='${B}->${ETL}']`)?.textContent).toBe("− removed b → etl");
    expect(panel.querySelector("#changes-schemas")?.textContent).toContain("~ changed field id: int → bigint");
    panel.querySelector<HTMLButtonElement>(`li[data-id='${B}'] button`)!.click();
    expect(selected).toEqual([B]);
  });
});

describe("edge validity", () => {
  const node = (id: string, outs: { destination: string; current: boolean; staleSince: string | null }[]): LineageNode => ({
    id, type: id.startsWith("job:") ? "JOB" : "DATASET",
    data: { nodeId: id, namespace: "db", name: id, firstSeen: null, lastSeen: null },
    inEdges: [], outEdges: outs.map((o) => ({ origin: id, firstSeen: "2026-01-05T08:00:00Z", lastSeen: "2026-01-05T08:05:00Z", inferred: false, ...o })),
  });

  it("keeps when each edge held, and says it on hover", () => {
    const model = emptyModel();
    mergeLineage(model, { nodeId: A, depth: 1, direction: "both", level: "application", truncated: false, graph: [
      node(B, [{ destination: ETL, current: false, staleSince: "2026-01-06T08:05:00Z" }]), node(ETL, []),
    ] });
    const edge = model.edges.get(`${B}->${ETL}`)!;
    expect(edge.validity).toEqual({ firstSeen: "2026-01-05T08:00:00Z", lastSeen: "2026-01-05T08:05:00Z", current: false, staleSince: "2026-01-06T08:05:00Z" });
    expect(edgeTitle(edge)).toBe("db:b → spark:etl\nstale since 2026-01-06 08:05Z\nlast seen 2026-01-05 08:05Z\nfirst seen 2026-01-05 08:00Z");
  });

  it("draws an edge stale by the instant looked at: one stale now held then", () => {
    const validity = { firstSeen: "2026-01-05T08:00:00Z", lastSeen: "2026-01-05T08:05:00Z", current: false, staleSince: "2026-01-06T08:05:00Z" };
    expect(staleAt(validity)).toBe(true);
    expect(staleAt(validity, "2026-01-05T12:00:00Z")).toBe(false);
    expect(staleAt(validity, "2026-01-06T12:00:00Z")).toBe(true);
    expect(staleAt({ ...validity, current: true, staleSince: null }, "2026-01-06T12:00:00Z")).toBe(false);
    const then = { id: "e", source: B, target: ETL, validity, stale: false };
    expect(edgeTitle(then)).toContain("current then; stale since 2026-01-06 08:05Z");
  });

  it("folds the edges of an application's actions into one that is current when one of them is", () => {
    const stale = { firstSeen: "2026-01-01T00:00:00Z", lastSeen: "2026-01-02T00:00:00Z", current: false, staleSince: "2026-01-03T00:00:00Z" };
    const current = { firstSeen: "2026-01-02T00:00:00Z", lastSeen: "2026-01-04T00:00:00Z", current: true, staleSince: null };
    expect(validityJoin(stale, current)).toEqual({ firstSeen: "2026-01-01T00:00:00Z", lastSeen: "2026-01-04T00:00:00Z", current: true, staleSince: null });
    expect(validityJoin(stale, { ...stale, staleSince: "2026-01-05T00:00:00Z" })?.staleSince).toBe("2026-01-05T00:00:00Z");
    const model = emptyModel();
    const app = { id: "job:s:app", type: "JOB" as const, label: "app", data: {} };
    model.nodes.set(A, { id: A, type: "DATASET", label: "a", data: {} });
    for (const id of ["job:s:app.x", "job:s:app.y"]) model.nodes.set(id, { id, type: "JOB", label: id, data: { application: app.id } });
    model.edges.set(`${A}->job:s:app.x`, { id: `${A}->job:s:app.x`, source: A, target: "job:s:app.x", validity: stale });
    model.edges.set(`${A}->job:s:app.y`, { id: `${A}->job:s:app.y`, source: A, target: "job:s:app.y", validity: current });
    collapseApplication(model, app);
    expect(model.edges.get(`${A}->${app.id}`)?.validity?.current).toBe(true);
  });
});

describe("inputs inferred from column lineage", () => {
  it("are marked and say so on hover, and one edge folding several is inferred only when all of them are", () => {
    const model = emptyModel();
    const actions = ["job:s:app.x", "job:s:app.y"];
    const edges = actions.map((destination) => ({
      origin: B, destination, firstSeen: null, lastSeen: null, current: true, staleSince: null, inferred: destination.endsWith("x"),
    }));
    mergeLineage(model, { nodeId: B, depth: 1, direction: "both", level: "action", truncated: false, graph: [
      { id: B, type: "DATASET", data: { nodeId: B, namespace: "db", name: "b", firstSeen: null, lastSeen: null }, inEdges: [], outEdges: edges },
      ...actions.map((id) => ({
        id, type: "JOB" as const, data: { nodeId: id, namespace: "s", name: id, firstSeen: null, lastSeen: null, application: "job:s:app" },
        inEdges: edges.filter((e) => e.destination === id), outEdges: [],
      })),
    ] });
    const inferred = model.edges.get(`${B}->job:s:app.x`)!;
    expect(inferred.inferred).toBe(true);
    expect(edgeTitle(inferred)).toContain("inferred from column lineage");
    expect(model.edges.get(`${B}->job:s:app.y`)!.inferred).toBeUndefined();
    collapseApplication(model, { id: "job:s:app", type: "JOB", label: "app", data: {} });
    expect(model.edges.get(`${B}->job:s:app`)!.inferred).toBeFalsy();
  });
});

describe("the time row", () => {
  it("asks for now, an instant or a comparison, and for stale edges, from real buttons and labelled inputs", () => {
    const intents: Intent[] = [];
    const control = new TimeControl(state("nodeId=x"), (intent) => intents.push(intent));
    const el = control.element;
    document.body.append(el);
    expect(el.querySelector("#time-now")?.getAttribute("aria-pressed")).toBe("true");
    expect(el.querySelector<HTMLFormElement>("#time-at-form")!.hidden).toBe(true);
    el.querySelector<HTMLButtonElement>("#time-at")!.click();
    expect(el.querySelector<HTMLFormElement>("#time-at-form")!.hidden).toBe(false);
    expect(el.querySelector("#time-at")?.getAttribute("aria-expanded")).toBe("true");
    el.querySelector<HTMLInputElement>("#time-at-input")!.value = "2026-01-06T08:00";
    el.querySelector<HTMLFormElement>("#time-at-form")!.requestSubmit();
    el.querySelector<HTMLButtonElement>("#time-compare")!.click();
    el.querySelector<HTMLInputElement>("#time-from")!.value = "2026-01-07T00:00";
    el.querySelector<HTMLInputElement>("#time-to")!.value = "2026-01-06T00:00";
    el.querySelector<HTMLFormElement>("#time-compare-form")!.requestSubmit();
    expect(el.querySelector("#time-problem")?.textContent).toBe("The first instant must come before the second.");
    el.querySelector<HTMLInputElement>("#time-from")!.value = "2026-01-05T00:00";
    el.querySelector<HTMLFormElement>("#time-compare-form")!.requestSubmit();
    const stale = el.querySelector<HTMLInputElement>("#show-stale")!;
    expect(stale.labels?.[0]?.textContent).toContain("Show stale edges");
    stale.click();
    expect(intents).toEqual([
      { kind: "time", time: { kind: "at", at: "2026-01-06T08:00:00Z" } },
      { kind: "time", time: { kind: "compare", from: "2026-01-05T00:00:00Z", to: "2026-01-06T00:00:00Z" } },
      { kind: "stale", stale: true },
    ]);
    control.render(state("nodeId=x&from=2026-01-05T00:00:00Z&to=2026-01-06T00:00:00Z"));
    expect(stale.disabled).toBe(true);
    expect(el.querySelector("#time-compare")?.getAttribute("aria-pressed")).toBe("true");
    expect(el.querySelector("#edge-legend")?.textContent).toContain("− removed");
    el.remove();
  });
});
