// The Alerts page's rules: every trigger with its scope; admins switch each on or off and edit its scope.

import { h, replace } from "../../dom";
import { errorMessage, loading } from "../../shell/widgets";
import { alertsApi, type Rule, type RulePatch } from "./api";
import { scopeList, scopeText } from "./model";

export function rulesSection(admin: boolean): HTMLElement {
  const box = h("div", { id: "rules" }, loading());
  alertsApi.rules().then(
    (page) => replace(box, h("table", { class: "grid rules-table" },
      h("thead", {}, h("tr", {}, ["Rule", "On", "Namespaces", "Owners", ""].map((t) => h("th", {}, t)))),
      h("tbody", {}, page.results.map((rule) => (admin ? editableRow(rule) : readRow(rule)))))),
    (error) => replace(box, errorMessage(error)));
  return box;
}

function ruleName(rule: Rule): HTMLElement {
  return h("td", {}, h("strong", { class: "mono" }, rule.kind), h("div", { class: "muted" }, rule.description));
}

function readRow(rule: Rule): HTMLElement {
  return h("tr", { "data-rule": rule.kind },
    ruleName(rule),
    h("td", {}, rule.enabled ? "on" : "off"),
    h("td", {}, scopeText(rule.namespaces) || h("span", { class: "muted" }, "all")),
    h("td", {}, scopeText(rule.owners) || h("span", { class: "muted" }, "all")),
    h("td", {}));
}

function editableRow(rule: Rule): HTMLElement {
  const enabled = h("input", { type: "checkbox", name: "enabled", checked: rule.enabled, "aria-label": `${rule.kind} on` });
  const namespaces = h("input", { type: "text", name: "namespaces", value: scopeText(rule.namespaces), placeholder: "all", size: 24 });
  const owners = h("input", { type: "text", name: "owners", value: scopeText(rule.owners), placeholder: "all", size: 24 });
  const save = h("button", { type: "button", class: "rule-save" }, "Save scope");
  const outcome = h("span", { class: "rule-outcome" });
  const send = async (body: RulePatch, what: "enabled" | "scope") => {
    replace(outcome, "Saving…");
    try {
      const saved = await alertsApi.ruleUpdate(rule.kind, body);
      enabled.checked = saved.enabled;
      namespaces.value = scopeText(saved.namespaces);
      owners.value = scopeText(saved.owners);
      replace(outcome, h("span", { class: "outcome-sent", "data-saved": what }, "Saved"));
    } catch (error) {
      if (what === "enabled") enabled.checked = !enabled.checked;
      replace(outcome, errorMessage(error));
    }
  };
  enabled.addEventListener("change", () => void send({ enabled: enabled.checked }, "enabled"));
  save.addEventListener("click", () => void send({ namespaces: scopeList(namespaces.value), owners: scopeList(owners.value) }, "scope"));
  return h("tr", { "data-rule": rule.kind },
    ruleName(rule), h("td", {}, enabled), h("td", {}, namespaces), h("td", {}, owners), h("td", { class: "cell-test" }, save, " ", outcome));
}
