// Alerts: the signed-in user's subscriptions; the rules that raise incidents and the routes from owners to
// destinations (admins edit them, everyone else reads them).

import { h, replace } from "../../dom";
import { currentUser, isAdmin } from "../../shell/me";
import { errorMessage, loading } from "../../shell/widgets";
import { routesSection } from "./routes";
import { rulesSection } from "./rules";
import { subscriptionsSection } from "./subscriptions";

export function AlertsPage(root: HTMLElement): void {
  replace(root, h("div", { class: "page" }, loading()));
  currentUser().then((me) => {
    const admin = isAdmin(me);
    const editing = admin ? "" : " Only admins change them.";
    replace(root, h("div", { class: "page alerts-page" },
      h("h1", {}, "Alerts"),
      h("h2", {}, "Your subscriptions"),
      h("p", { class: "muted" },
        "Hear of incidents that touch a dataset, a job or a namespace, besides what you own. ",
        "Messages reach a subscriber through a route (below)."),
      subscriptionsSection(me),
      h("h2", {}, "Rules"),
      h("p", { class: "muted" },
        "Each trigger raises incidents when on. A scope limits it to roots in those namespaces, or to incidents ",
        `touching an asset those owners own (comma-separated; empty: everything).${editing}`),
      rulesSection(admin),
      h("h2", {}, "Routes"),
      h("p", { class: "muted" }, `Where each owner's messages go: one owner, one destination per route.${editing}`),
      routesSection(admin)));
  }, (error) => replace(root, h("div", { class: "page" }, errorMessage(error))));
}
