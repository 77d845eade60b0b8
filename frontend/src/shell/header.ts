// The app header: navigation, the search box and the logout form.

import { apiUrl, cookie, request } from "../api/client";
import type { components } from "../api/schema";
import { h, link } from "../dom";
import { onNavigate } from "../router";
import { searchBox } from "./searchBox";

export function header(): HTMLElement {
  const nav = h("nav", { class: "nav" },
    link("/", "Overview"),
    link("/lineage", "Lineage"),
    link("/failures", "Failures"),
    link("/incidents", "Incidents"),
    link("/impact", "Impact"),
    link("/trust", "Trust"));
  // Admins also manage where alerts go; the link appears once `/me` says the user is one.
  request<components["schemas"]["Me"]>(apiUrl("/me")).then(
    (me) => { if (me.roles.includes("admin")) nav.appendChild(link("/destinations", "Destinations")); },
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
