// What a run's facets say about it: when it was scheduled for, what ran it, its tags, parameters, environment and
// the query it started elsewhere.

import { h } from "../dom";
import { formatTime } from "../format";
import { type Facets, facetOf, facts, otherFacets, present, records, sectionOf, tagChips, text } from "./parts";

/** The facets the sections below show, and those the run page shows elsewhere (its error, its place in its chain, its
 *  checks, the job's declared dependencies); the rest are "Other facets". */
const SHOWN = ["nominalTime", "tags", "processing_engine", "externalQuery", "executionParameters", "environmentVariables",
  "errorMessage", "parent", "test", "jobDependencies"];

/** The run's facet sections (only those its facets fill), for the runs on a job's page. */
export function runFacetSections(facets: Facets): HTMLElement[] {
  const nominal = facetOf(facets, "nominalTime");
  const engine = facetOf(facets, "processing_engine");
  const external = facetOf(facets, "externalQuery");
  const start = text(nominal?.nominalStartTime);
  const end = text(nominal?.nominalEndTime);
  return present([
    sectionOf("Scheduled for", "nominalTime",
      start ? h("div", { class: "nominal-time" }, formatTime(start), end ? ` → ${formatTime(end)}` : null) : null),
    sectionOf("Tags", "tags", tagChips(facetOf(facets, "tags"))),
    sectionOf("Processing engine", "processing_engine", facts([
      ["Engine", [text(engine?.name), text(engine?.version)].filter(Boolean).join(" ") || null],
      ["OpenLineage adapter", text(engine?.openlineageAdapterVersion)],
    ])),
    sectionOf("External query", "externalQuery", facts([
      ["Source", text(external?.source)],
      ["Query id", text(external?.externalQueryId)],
    ])),
    sectionOf("Parameters", "executionParameters", table(records(facetOf(facets, "executionParameters")?.parameters),
      [["Key", "key"], ["Name", "name"], ["Value", "value"], ["Description", "description"]], "parameters", "key")),
    sectionOf("Environment variables", "environmentVariables",
      table(records(facetOf(facets, "environmentVariables")?.environmentVariables), [["Name", "name"], ["Value", "value"]], "environment", "name")),
    otherFacets(facets, SHOWN),
  ]);
}

/** Rows as a table of the given columns (a column no row fills is left out), the `code` column in monospace; null
 *  when there are no rows. */
function table(rows: Record<string, unknown>[], columns: [string, string][], id: string, code: string): HTMLElement | null {
  if (!rows.length) return null;
  const shown = columns.filter(([, key]) => rows.some((row) => text(row[key]) !== null));
  return h("table", { class: "grid facet-table", "data-table": id },
    h("thead", {}, h("tr", {}, shown.map(([title]) => h("th", {}, title)))),
    h("tbody", {}, rows.map((row) => h("tr", {}, shown.map(([, key]) => h("td", { class: key === code ? "mono" : null }, text(row[key]) ?? ""))))));
}
