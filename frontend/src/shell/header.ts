// The app header: navigation, the search box and the logout form.

import { cookie } from "../api/client";
import { h, link } from "../dom";
import { onNavigate } from "../router";
import { currentUser, isAdmin } from "./me";
import { searchBox } from "./searchBox";

export function header(): HTMLElement {
  const nav = h("nav", { class: "nav" },
    link("/", "Overview"),
    link("/lineage", "Lineage"),
    link("/failures", "Failures"),
    link("/incidents", "Incidents"),
    link("/impact", "Impact"),
    link("/alerts", "Alerts"),
    link("/trust", "Trust"));
  // Admins also manage where alerts go; the link appears once `/me` says the user is one.
  currentUser().then(
    (me) => { if (isAdmin(me)) nav.appendChild(link("/destinations", "Destinations")); },
    () => undefined);
  onNavigate((url) => {
    for (const a of nav.querySelectorAll("a")) {
      const path = new URL(a.href).pathname;
      a.classList.toggle("current", path === "/" ? url.pathname === "/" : url.pathname.startsWith(path));
    }
  });
  const logout = h("form", { method: "post", action: "/logout/", class: "logout" },
    h("input", { type: "hidden", name: "csrfmiddlewaretoken", value: cookie("csrftoken") ?? "" }),
    h("button", { type: "submit" }, "Log out"));
  return h("header", { class: "topbar" },
    link("/", h("span", { class: "brand" }, "Tributary")),
    nav, searchBox(), logout);
}
