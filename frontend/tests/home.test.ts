import { describe, expect, it } from "vitest";
import { facetWarningSection } from "../src/pages/home/HomePage";

describe("facetWarningSection", () => {
  it("lists each producer's facets left out with their event counts, as text", () => {
    const [title, , table] = facetWarningSection([
      { producer: "https://github.com/OpenLineage/OpenLineage/tree/1.54.0/integration/flink", facet: "processing_engine", events: 12 },
      { producer: "<b>x</b>", facet: "symlinks", events: 1 },
    ]);
    expect(title.textContent).toBe("Facets left out, by producer");
    const rows = [...table.querySelectorAll("tbody tr")].map((tr) => [...tr.children].map((td) => td.textContent));
    expect(rows).toEqual([
      ["https://github.com/OpenLineage/OpenLineage/tree/1.54.0/integration/flink", "processing_engine", "12"],
      ["<b>x</b>", "symlinks", "1"],
    ]);
    expect(table.querySelector("b")).toBeNull();
  });

  it("shows nothing when no facet was left out", () => {
    expect(facetWarningSection([])).toEqual([]);
  });
});
