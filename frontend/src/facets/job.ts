// What a job's facets say about it: its type, tags, documentation, where its code lives, its SQL and source code.

import { h } from "../dom";
import { externalLink } from "./markdown";
import { type Facets, codeBlock, documentation, facetOf, facts, otherFacets, present, sectionOf, tagChips, text } from "./parts";

/** The facets the sections below show, and those the job page shows elsewhere (its owners); the rest are "Other facets". */
const SHOWN = ["jobType", "tags", "documentation", "sourceCodeLocation", "sql", "sourceCode", "ownership"];

/** The job's facet sections (only those its facets fill), for the job page and the explorer's job panel. */
export function jobFacetSections(facets: Facets): HTMLElement[] {
  const sql = facetOf(facets, "sql");
  const code = facetOf(facets, "sourceCode");
  const query = text(sql?.query);
  const source = text(code?.sourceCode);
  const dialect = text(sql?.dialect);
  const language = text(code?.language);
  return present([
    sectionOf("Job type", "jobType", jobType(facetOf(facets, "jobType"))),
    sectionOf("Tags", "tags", tagChips(facetOf(facets, "tags"))),
    sectionOf("Documentation", "documentation", documentation(facetOf(facets, "documentation"))),
    sectionOf("Source code location", "sourceCodeLocation", sourceLocation(facetOf(facets, "sourceCodeLocation"))),
    sectionOf(dialect ? `SQL · ${dialect}` : "SQL", "sql", query ? codeBlock(query, dialect ?? "sql", "SQL") : null),
    sectionOf(language ? `Source code · ${language}` : "Source code", "sourceCode",
      source ? codeBlock(source, language, "source code") : null),
    otherFacets(facets, SHOWN),
  ]);
}

/** BATCH / STREAMING / SERVICE, the integration that ran it, and its kind within that integration. */
function jobType(facet: Record<string, unknown> | null): HTMLElement | null {
  const parts = [text(facet?.processingType), text(facet?.integration), text(facet?.jobType)];
  if (!parts.some(Boolean)) return null;
  return h("ul", { class: "job-type" },
    parts.map((part, i) => part ? h("li", { class: "chip", title: ["processing type", "integration", "job type"][i] }, part) : null));
}

/** A link to the code, the repository, the path in it, its commit, tag and branch, and the pull request it came from. */
function sourceLocation(facet: Record<string, unknown> | null): HTMLElement | null {
  const url = text(facet?.url);
  const repo = text(facet?.repoUrl);
  const version = text(facet?.version);
  const pullRequest = text(facet?.pullRequestNumber) ?? pullRequestOf(url);
  return facts([
    ["Code", url ? externalLink(url, text(facet?.path) ?? url) : null],
    ["Repository", repo ? externalLink(repo) : null],
    ["Path", url ? null : text(facet?.path)],
    ["Commit", version ? h("span", { class: "mono", title: version }, version.length > 12 ? version.slice(0, 12) : version) : null],
    ["Tag", text(facet?.tag)],
    ["Branch", text(facet?.branch)],
    ["Pull request", pullRequest ? `#${pullRequest}` : null],
    ["Type", text(facet?.type)],
  ], { class: "source-location" });
}

/** The pull or merge request number a code URL names (GitHub `/pull/7`, GitLab `/merge_requests/7`, Bitbucket `/pull-requests/7`). */
export function pullRequestOf(url: string | null): string | null {
  const match = url ? /\/(?:pull|pulls|merge_requests|pull-requests)\/(\d+)(?:[/?#]|$)/.exec(url) : null;
  return match ? match[1] : null;
}
