// The search box in the header: typed-ahead results from `/api/v1/search`, on every page, each saying what it is
// and why it matched.

import { api } from "../api/client";
import type { SearchResult } from "../api/types";
import { h, replace } from "../dom";
import { datasetIdOf } from "../format";
import { navigate } from "../router";
import { runHref } from "./widgets";

/** Where a search result opens: a run on its page (its job's run history, the run first), a field in the
 * column view of its dataset, datasets and jobs in the explorer. */
export function searchResultHref(result: SearchResult): string {
  const params = new URLSearchParams();
  if (result.type === "RUN") {
    return runHref(result.job ?? "", result.runId ?? result.id.replace(/^run:/, ""));
  }
  if (result.type === "DATASET_FIELD") {
    const dataset = datasetIdOf(result.namespace, result.dataset ?? "");
    params.set("nodeId", dataset);
    params.set("view", "column");
    params.set("field", result.name);
  } else {
    params.set("nodeId", result.id);
  }
  return `/lineage?${params}`;
}

const TYPE_LABEL: Record<string, string> = { DATASET: "dataset", JOB: "job", DATASET_FIELD: "field", RUN: "run" };
const MATCH_LABEL: Record<string, string> = { alias: "also named", runId: "run id", tag: "tag", owner: "owner" };

/** Why a result matched, unless its own name did: "tag pii:true", "owner team:analytics", "run id". */
export function searchMatchText(result: SearchResult): string {
  const { by, text } = result.matched;
  if (by === "name") return "";
  return by === "runId" ? MATCH_LABEL[by] : `${MATCH_LABEL[by] ?? by} ${text}`;
}

/** What the list says below its results when more match than it shows: search does not count every match (it
 * stops at the tier of names that fills the page), so it says "at least" one more than it shows. */
export function searchMoreText(shown: number, more: boolean): string {
  return more ? `The best ${shown} of at least ${shown + 1} matches: type more to narrow` : "";
}

/** What a result is called in the list: a field with its dataset, a run by its job. */
function searchResultName(result: SearchResult): string {
  if (result.type === "DATASET_FIELD") return `${result.dataset}.${result.name}`;
  if (result.type === "RUN") return `${result.name} · ${(result.runId ?? "").slice(0, 8)}`;
  return result.name;
}

export function searchBox(): HTMLElement {
  const input = h("input", {
    type: "search", placeholder: "Search names, run ids, tags, owners  ( / )", "aria-label": "Search",
    id: "search", autocomplete: "off", role: "combobox", "aria-controls": "search-results", "aria-expanded": "false",
  });
  const list = h("ul", { id: "search-results", class: "search-results", role: "listbox", hidden: true });
  let timer: number | undefined;
  let controller: AbortController | null = null;
  let results: SearchResult[] = [];
  let more = false;
  let active = -1;

  const close = () => { list.hidden = true; input.setAttribute("aria-expanded", "false"); active = -1; };
  const open = (result: SearchResult) => { close(); input.value = ""; navigate(searchResultHref(result)); };

  const show = () => {
    replace(list, results.length === 0
      ? h("li", { class: "search-empty" }, "No matches")
      : results.map((result, index) =>
        h("li", { role: "option", class: index === active ? "active" : "", "aria-selected": String(index === active), "data-id": result.id,
          onmousedown: ((event: Event) => { event.preventDefault(); open(result); }) as EventListener },
        h("span", { class: `tag tag-${TYPE_LABEL[result.type]}` }, TYPE_LABEL[result.type] ?? result.type),
        h("span", { class: "search-text" },
          h("span", { class: "search-name" }, searchResultName(result)),
          searchMatchText(result) ? h("span", { class: "search-why" }, searchMatchText(result)) : null,
          result.description ? h("span", { class: "search-description" }, result.description) : null),
        h("span", { class: "search-ns" }, result.namespace,
          result.state ? ` · ${result.state.toLowerCase()}` : "",
          result.actionCount ? ` · application, ${result.actionCount} action${result.actionCount === 1 ? "" : "s"}` : ""))));
    if (more && results.length) list.append(h("li", { class: "search-more", role: "presentation" }, searchMoreText(results.length, more)));
    list.hidden = false;
    input.setAttribute("aria-expanded", "true");
  };

  const run = async (q: string) => {
    controller?.abort();
    controller = new AbortController();
    try {
      ({ results, more } = await api.search(q, ["dataset", "job", "field", "run"], 20, controller.signal));
      active = results.length ? 0 : -1;
      show();
    } catch (error) {
      if ((error as Error).name !== "AbortError") {
        replace(list, h("li", { class: "search-empty error" }, `Search failed: ${(error as Error).message}`));
        list.hidden = false;
      }
    }
  };

  input.addEventListener("input", () => {
    window.clearTimeout(timer);
    const q = input.value.trim();
    if (!q) { close(); return; }
    timer = window.setTimeout(() => void run(q), 150);
  });
  input.addEventListener("keydown", (event) => {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      if (!results.length) return;
      event.preventDefault();
      active = (active + (event.key === "ArrowDown" ? 1 : -1) + results.length) % results.length;
      show();
    } else if (event.key === "Enter" && active >= 0 && results[active] && !list.hidden) {
      event.preventDefault();
      open(results[active]);
    } else if (event.key === "Escape") {
      close();
    }
  });
  input.addEventListener("blur", () => window.setTimeout(close, 100));
  document.addEventListener("keydown", (event) => {
    const target = event.target as HTMLElement;
    if (event.key === "/" && !["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName)) {
      event.preventDefault();
      input.focus();
    }
  });
  return h("div", { class: "search" }, input, list);
}
