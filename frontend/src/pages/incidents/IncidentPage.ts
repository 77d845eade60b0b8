// One incident: what happened and why, its blast radius, its timeline (who was told), and each delivery's status.

import { api } from "../../api/client";
import type { IncidentDetail } from "../../api/types";
import { h, link, replace } from "../../dom";
import { formatTime } from "../../format";
import { errorMessage, loading, nodeLink, section, verificationBadge } from "../../shell/widgets";
import { impactPageHref } from "../impact/model";
import { incidentStateBadge, radiusText } from "./IncidentsPage";

export function IncidentPage(root: HTMLElement, url: URL): void {
  const id = Number(url.searchParams.get("id"));
  if (!Number.isInteger(id) || id < 1) {
    replace(root, h("div", { class: "page" }, errorMessage(new Error("No incident named: /incident?id=<number>"))));
    return;
  }
  replace(root, h("div", { class: "page" }, loading()));
  api.incident(id).then((incident) => show(root, incident), (error) => replace(root, h("div", { class: "page" }, errorMessage(error))));
}

function show(root: HTMLElement, incident: IncidentDetail): void {
  const problem = h("div", {});
  const act = (action: "acknowledge" | "resolve") => () => {
    api.incidentAct(incident.id, action).then((next) => show(root, next), (error) => replace(problem, errorMessage(error)));
  };
  const actions = h("p", { class: "actions" },
    incident.state === "open" ? h("button", { type: "button", id: "acknowledge", onclick: act("acknowledge") }, "Acknowledge") : null,
    incident.state !== "resolved" ? h("button", { type: "button", id: "resolve", onclick: act("resolve") }, "Resolve") : null);
  const blast = incident.blastRadius;
  const verification = Object.entries(incident.verification);
  replace(root, h("div", { class: "page incident", "data-incident": String(incident.id) },
    h("p", {}, link("/incidents", "← Incidents")),
    h("h1", {}, `#${incident.id} ${incident.title} `, incidentStateBadge(incident.state)),
    h("dl", { class: "facts" },
      h("dt", {}, "Root"), h("dd", {}, nodeLink(incident.rootId), " · ", link(impactPageHref([incident.rootId]), "impact")),
      h("dt", {}, "Cause"), h("dd", {}, incident.cause || "not reported"),
      h("dt", {}, "Classified as"), h("dd", {}, incident.classification || "—"),
      h("dt", {}, "Opened"), h("dd", {}, formatTime(incident.openedAt), ` · last seen ${formatTime(incident.lastSeenAt)} (×${incident.occurrences})`),
      incident.acknowledgedAt ? [h("dt", {}, "Acknowledged"), h("dd", {}, `${formatTime(incident.acknowledgedAt)} by ${incident.acknowledgedBy}`)] : null,
      incident.resolvedAt ? [h("dt", {}, "Resolved"), h("dd", {}, `${formatTime(incident.resolvedAt)} · ${incident.resolvedBy}`)] : null,
      h("dt", {}, "Signatures"), h("dd", {}, verification.length
        ? verification.map(([status, count]) => h("span", {}, verificationBadge(status), ` ${count} `)) : "no events")),
    actions, problem,
    section(`Blast radius: ${radiusText(incident)}${blast.truncated ? " (lists truncated)" : ""}`,
      h("h3", {}, "Owners"), h("p", { id: "incident-owners" }, blast.owners.join(", ") || "nobody"),
      nodeList("Datasets", blast.datasets), nodeList("Jobs", blast.jobs), nodeList("Downstream fields affected", blast.columns)),
    section("Timeline",
      h("ol", { class: "timeline", id: "incident-timeline" }, incident.timeline.map((e) => h("li", { "data-kind": e.kind },
        h("time", {}, formatTime(e.at)), " ", h("strong", {}, e.kind), " ", e.text, e.actor ? ` (${e.actor})` : "")))),
    section("Deliveries",
      incident.deliveries.length
        ? h("table", { class: "data", id: "incident-deliveries" },
          h("thead", {}, h("tr", {}, ["Destination", "Kind", "State", "Attempts", "Sent", "Last error"].map((t) => h("th", {}, t)))),
          h("tbody", {}, incident.deliveries.map((d) => h("tr", { "data-delivery-state": d.state },
            h("td", {}, d.destination), h("td", {}, d.destinationKind), h("td", {}, h("span", { class: `badge delivery-${d.state}` }, d.state)),
            h("td", {}, String(d.attempts)), h("td", {}, formatTime(d.sentAt)), h("td", {}, d.lastError || "—")))))
        : h("p", { class: "muted" }, "No deliveries: no destination is routed for its owners."))));
}

function nodeList(title: string, ids: string[]): HTMLElement | null {
  if (!ids.length) return null;
  return h("div", {}, h("h3", {}, title), h("ul", { class: "nodes" }, ids.map((id) => h("li", {}, nodeLink(id)))));
}
