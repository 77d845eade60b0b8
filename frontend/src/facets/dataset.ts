// What a dataset's facets say about it: its documentation, tags, how and where it is stored, and which version it is.

import { h } from "../dom";
import { externalLink } from "./markdown";
import { type Facets, documentation, facetOf, facts, present, records, sectionOf, tagChips, text } from "./parts";

/** The dataset's facet sections (only those its facets fill), for the dataset page. */
export function datasetFacetSections(facets: Facets): HTMLElement[] {
  const storage = facetOf(facets, "storage");
  const type = facetOf(facets, "datasetType");
  const catalog = facetOf(facets, "catalog");
  const source = facetOf(facets, "dataSource");
  const sourceUri = text(source?.uri);
  const metadataUri = text(catalog?.metadataUri);
  const warehouseUri = text(catalog?.warehouseUri);
  return present([
    sectionOf("Documentation", "documentation", documentation(facetOf(facets, "documentation"))),
    sectionOf("Tags", "tags", tagChips(facetOf(facets, "tags"))),
    sectionOf("About", "about", facts([
      ["Type", joined(text(type?.datasetType), text(type?.subType))],
      ["Storage", joined(text(storage?.storageLayer), text(storage?.fileFormat))],
      ["Hierarchy", hierarchy(facetOf(facets, "hierarchy"))],
      ["Version", text(facetOf(facets, "version")?.datasetVersion)],
      ["Data source", joined(text(source?.name), null)],
      ["Source URI", sourceUri ? externalLink(sourceUri) : null],
      ["Catalog", joined(text(catalog?.name), joined(text(catalog?.framework), text(catalog?.type)))],
      ["Catalog metadata", metadataUri ? externalLink(metadataUri) : null],
      ["Warehouse", warehouseUri ? externalLink(warehouseUri) : null],
      ["Catalog source", text(catalog?.source)],
    ], { id: "dataset-about" })),
  ]);
}

/** Where the dataset sits, outermost first: `DATABASE sales › TABLE orders`. */
function hierarchy(facet: Record<string, unknown> | null): HTMLElement | null {
  const levels = records(facet?.hierarchy);
  if (!levels.length) return null;
  return h("span", { class: "hierarchy" }, levels.flatMap((level, i) => [
    i ? " › " : "", h("span", { class: "muted" }, `${text(level.type) ?? "?"} `), text(level.name) ?? "?"]));
}

function joined(first: string | null, second: string | null): string | null {
  return [first, second].filter(Boolean).join(" · ") || null;
}
