import { describe, expect, it } from "vitest";
import type { ImpactAsset } from "../src/pages/impact/api";
import { impactUrl } from "../src/pages/impact/api";
import { NO_OWNER, edgeText, groupByOwner, impactPageHref, ownerText } from "../src/pages/impact/model";

const asset = (id: string, owners: string[], inherited = false): ImpactAsset => ({
  id, type: "DATASET", namespace: "db", name: id, distance: 1, path: [id], transformations: [],
  owners: owners.map((name) => ({ name, kind: "team", contact: "", role: "OWNER", source: "manual", inherited })),
  lastRunState: null, lastRunTime: null,
});

describe("impact page helpers", () => {
  it("repeats nodeId for every field that changes", () => {
    const href = impactPageHref(["datasetField:db:t:a", "datasetField:db:t:b"], 4);
    expect(new URL(href, "http://x").searchParams.getAll("nodeId")).toEqual(["datasetField:db:t:a", "datasetField:db:t:b"]);
    expect(impactUrl("/impact/report", ["dataset:db:t"], 3, "pdf")).toBe("/api/v1/impact/report?nodeId=dataset%3Adb%3At&depth=3&format=pdf");
  });

  it("groups assets under each owner, biggest first, the unowned last", () => {
    const groups = groupByOwner([asset("a", ["team:x"]), asset("b", ["team:x", "team:y"]), asset("c", [])]);
    expect(groups.map((g) => [g.owner, g.assets.map((a) => a.id)])).toEqual([
      ["team:x", ["a", "b"]], ["team:y", ["b"]], [NO_OWNER, ["c"]]]);
  });

  it("marks inherited owners and names each column transformation", () => {
    expect(ownerText(asset("a", ["team:x"], true).owners[0])).toBe("team:x (OWNER, manual, inherited from namespace)");
    expect(groupByOwner([asset("a", ["team:x"], true)])[0].inherited).toBe(true);
    expect(edgeText({ job: "job:s:j", transformation: "DIRECT", subtype: "AGGREGATION", indirect: false })).toBe("DIRECT/AGGREGATION by job:s:j");
  });
});
