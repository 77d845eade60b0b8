// The column view's field table as a drawer under the graph: closed it is one line that says what it holds, open it
// takes at most part of the page; it stays as the user left it.

import { h } from "../../../dom";

let open = false;

export function fieldDrawer(summary: string, table: HTMLElement): HTMLElement {
  const body = h("div", { class: "drawer-body" }, table);
  const toggle = h("button", { type: "button", class: "drawer-toggle", id: "field-drawer-toggle", "aria-controls": "field-drawer-body" });
  body.id = "field-drawer-body";
  const show = () => {
    body.hidden = !open;
    toggle.setAttribute("aria-expanded", String(open));
    toggle.textContent = `${open ? "▾" : "▸"} Field table · ${summary}`;
  };
  toggle.addEventListener("click", () => { open = !open; show(); });
  show();
  return h("section", { class: "drawer field-drawer", id: "field-drawer" }, toggle, body);
}
