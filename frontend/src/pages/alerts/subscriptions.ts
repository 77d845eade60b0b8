// The Alerts page's subscriptions: the signed-in user's own (to a dataset, a job or a namespace), added and removed here.

import { h, replace } from "../../dom";
import type { Me } from "../../shell/me";
import { errorMessage, loading } from "../../shell/widgets";
import { alertsApi, type Route, type Subscription, type TargetType } from "./api";
import { TARGET_TYPES, subscriptionBody, targetText } from "./model";

export function subscriptionsSection(me: Me): HTMLElement {
  const list = h("div", { id: "subscriptions" }, loading());
  const reach = h("div", { id: "subscription-reach" });
  const refresh = async () => {
    try {
      const [subscriptions, routes] = await Promise.all([alertsApi.subscriptions(), alertsApi.routes()]);
      replace(list, subscriptionTable(subscriptions.results, refresh));
      replace(reach, unroutedNote(subscriptions.results, routes.results));
    } catch (error) {
      replace(list, errorMessage(error));
    }
  };
  void refresh();
  return h("div", {}, list, reach, subscriptionForm(me, refresh));
}

/** Subscribers with no route hear nothing: say so, since only an admin can add the route. */
function unroutedNote(subscriptions: Subscription[], routes: Route[]): HTMLElement | null {
  const routed = new Set(routes.map((r) => r.owner));
  const unrouted = [...new Set(subscriptions.map((s) => s.subscriber))].filter((s) => !routed.has(s));
  return unrouted.length
    ? h("p", { class: "message warning", role: "status" },
      `No route for ${unrouted.join(", ")}: these subscriptions reach nobody until an admin routes them to a destination.`)
    : null;
}

function subscriptionTable(subscriptions: Subscription[], refresh: () => Promise<void>): HTMLElement {
  if (!subscriptions.length) return h("p", { class: "muted" }, "You follow nothing yet.");
  return h("table", { class: "grid subscriptions-table" },
    h("thead", {}, h("tr", {}, ["Following", "Who hears", ""].map((t) => h("th", {}, t)))),
    h("tbody", {}, subscriptions.map((sub) => {
      const outcome = h("span", {});
      const remove = h("button", { type: "button", class: "link-button subscription-remove" }, "Unsubscribe");
      remove.addEventListener("click", async () => {
        try {
          await alertsApi.subscriptionRemove(sub.id);
          await refresh();
        } catch (error) {
          replace(outcome, errorMessage(error));
        }
      });
      return h("tr", { "data-subscription": targetText(sub) },
        h("td", {}, targetText(sub)), h("td", { class: "mono" }, sub.subscriber), h("td", {}, remove, outcome));
    })));
}

function subscriptionForm(me: Me, refresh: () => Promise<void>): HTMLElement {
  const targetType = h("select", { name: "targetType" }, TARGET_TYPES.map((t) => h("option", { value: t.value }, t.label)));
  const namespace = h("input", { type: "text", name: "namespace", required: true, placeholder: "file:///lake", size: 24 });
  const name = h("input", { type: "text", name: "name", placeholder: "bronze/orders", size: 24 });
  const nameLabel = h("label", {}, "Name ", name);
  const subscriber = h("input", { type: "text", name: "subscriber", placeholder: `you (user:${me.username})`, size: 22 });
  const problem = h("div", { class: "form-problem" });
  targetType.addEventListener("change", () => { nameLabel.hidden = targetType.value === "namespace"; });
  const form = h("form", { class: "filters destination-form", id: "subscription-form" },
    h("h2", {}, "Follow a dataset, job or namespace"),
    h("label", {}, "Type ", targetType), h("label", {}, "Namespace ", namespace), nameLabel,
    h("label", { title: "a team of yours to subscribe instead of you" }, "For ", subscriber),
    h("button", { type: "submit" }, "Subscribe"), problem);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    replace(problem);
    try {
      await alertsApi.subscriptionCreate(subscriptionBody({
        targetType: targetType.value as TargetType, namespace: namespace.value, name: name.value, subscriber: subscriber.value,
      }));
      namespace.value = name.value = subscriber.value = "";
      await refresh();
    } catch (error) {
      replace(problem, errorMessage(error));
    }
  });
  return form;
}
