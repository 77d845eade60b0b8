// Incidents: one per root cause, open ones first by default; each links to its page.

import { api } from "../../api/client";
import type { Incident, IncidentState } from "../../api/types";
import { h, link, replace } from "../../dom";
import { formatTime } from "../../format";
import { navigate } from "../../router";
import { errorMessage, loading, nodeLink } from "../../shell/widgets";

const STATES: IncidentState[] = ["open", "acknowledged", "resolved"];

export function incidentHref(id: number): string {
  return `/incident?id=${id}`;
}

export function incidentStateBadge(state: IncidentState): HTMLElement {
  return h("span", { class: `badge incident-${state}`, "data-incident-state": state }, state);
}

export function IncidentsPage(root: HTMLElement, url: URL): void {
  const asked = url.searchParams.get("state") ?? "";
  const state = (STATES as string[]).includes(asked) ? (asked as IncidentState) : undefined;
  const team = url.searchParams.get("team") ?? "";
  const stateSelect = h("select", { name: "state" },
    h("option", { value: "" }, "any"),
    STATES.map((s) => h("option", { value: s, selected: s === state }, s)));
  const teamInput = h("input", { type: "text", name: "team", placeholder: "team:…", value: team });
  const form = h("form", { class: "filters" },
    h("label", {}, "State ", stateSelect), h("label", {}, "Owner ", teamInput), h("button", { type: "submit" }, "Filter"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const query = new URLSearchParams();
    if (stateSelect.value) query.set("state", stateSelect.value);
    if (teamInput.value.trim()) query.set("team", teamInput.value.trim());
    navigate(`/incidents${query.size ? `?${query}` : ""}`);
  });
  const list = h("div", { id: "incidents" }, loading());
  replace(root, h("div", { class: "page" }, h("h1", {}, "Incidents"), form, list));
  api.incidents({ state, team: team || undefined, limit: 100 }).then(
    (page) => replace(list, page.results.length ? table(page.results, page.count) : h("p", { class: "muted" }, "No incidents.")),
    (error) => replace(list, errorMessage(error)));
}

function table(incidents: Incident[], count: number): HTMLElement {
  return h("div", {},
    h("table", { class: "data incidents" },
      h("thead", {}, h("tr", {}, ["Incident", "State", "Root", "Cause", "Blast radius", "Owners", "Last seen"].map((t) => h("th", {}, t)))),
      h("tbody", {}, incidents.map((i) => h("tr", { "data-incident": String(i.id) },
        h("td", {}, link(incidentHref(i.id), `#${i.id} ${i.title}`)),
        h("td", {}, incidentStateBadge(i.state)),
        h("td", {}, nodeLink(i.rootId)),
        h("td", {}, i.cause || "—", i.classification ? h("span", { class: "chip" }, ` ${i.classification}`) : null),
        h("td", {}, radiusText(i)),
        h("td", {}, i.owners.join(", ") || "—"),
        h("td", {}, formatTime(i.lastSeenAt), i.occurrences > 1 ? ` (×${i.occurrences})` : ""))))),
    h("p", { class: "muted" }, `${count} incidents`));
}

export function radiusText(i: Incident): string {
  const c = i.blastRadius.counts;
  return `${c.datasets} datasets, ${c.jobs} jobs, ${c.columns} fields, ${c.owners} owners`;
}
