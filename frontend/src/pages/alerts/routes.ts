// The Alerts page's routes: which destination each owner's messages go to; admins add and remove them.

import { h, replace } from "../../dom";
import { errorMessage, loading } from "../../shell/widgets";
import { destinationsApi } from "../destinations/api";
import { alertsApi, type Route } from "./api";

export function routesSection(admin: boolean): HTMLElement {
  const list = h("div", { id: "routes" }, loading());
  const form = h("div", { id: "route-editor" });
  const refresh = async () => {
    try {
      const page = await alertsApi.routes();
      replace(list, routeTable(page.results, admin ? refresh : null));
    } catch (error) {
      replace(list, errorMessage(error));
    }
  };
  if (admin) {
    destinationsApi.list().then(
      (destinations) => replace(form, destinations.results.length
        ? routeForm(destinations.results.map((d) => ({ id: d.id, name: d.name })), refresh)
        : h("p", { class: "muted" }, "Add a destination first (Destinations), then route owners to it.")),
      (error) => replace(form, errorMessage(error)));
  }
  void refresh();
  return h("div", {}, list, form);
}

function routeTable(routes: Route[], refresh: (() => Promise<void>) | null): HTMLElement {
  if (!routes.length) return h("p", { class: "muted" }, "No routes yet: no owner is told of anything.");
  return h("table", { class: "grid routes-table" },
    h("thead", {}, h("tr", {}, ["Owner", "Destination", ""].map((t) => h("th", {}, t)))),
    h("tbody", {}, routes.map((route) => {
      const outcome = h("span", {});
      const remove = refresh ? h("button", { type: "button", class: "link-button route-remove" }, "Remove") : null;
      remove?.addEventListener("click", async () => {
        try {
          await alertsApi.routeRemove(route.id);
          await refresh?.();
        } catch (error) {
          replace(outcome, errorMessage(error));
        }
      });
      return h("tr", { "data-route": `${route.owner} -> ${route.destinationName}` },
        h("td", { class: "mono" }, route.owner), h("td", {}, route.destinationName), h("td", {}, remove, outcome));
    })));
}

function routeForm(destinations: { id: number; name: string }[], refresh: () => Promise<void>): HTMLElement {
  const owner = h("input", { type: "text", name: "owner", required: true, placeholder: "team:… or user:…", size: 28 });
  const destination = h("select", { name: "destination" }, destinations.map((d) => h("option", { value: String(d.id) }, d.name)));
  const problem = h("div", { class: "form-problem" });
  const form = h("form", { class: "filters destination-form", id: "route-form" },
    h("h2", {}, "Add a route"),
    h("label", {}, "Owner ", owner), h("label", {}, "→ Destination ", destination),
    h("button", { type: "submit" }, "Add route"), problem);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    replace(problem);
    try {
      await alertsApi.routeCreate({ owner: owner.value.trim(), destination: Number(destination.value) });
      owner.value = "";
      await refresh();
    } catch (error) {
      replace(problem, errorMessage(error));
    }
  });
  return form;
}
