// The pieces facet views are made of: reading a facet from a node's `facets`, folded code, tags, a list of facts.

import { h } from "../dom";
import { section } from "../shell/widgets";
import { highlight } from "./highlight";
import { markdown } from "./markdown";

/** A node's facets as the read API returns them: each facet whole, by name, as its producer sent it. */
export type Facets = Record<string, unknown>;

/** Facet `name` of `facets`, when it is an object (a facet the producer sent), else null. */
export function facetOf(facets: Facets | null | undefined, name: string): Record<string, unknown> | null {
  const facet = facets?.[name];
  return facet && typeof facet === "object" && !Array.isArray(facet) ? (facet as Record<string, unknown>) : null;
}

/** A facet member that is text (a number or boolean written as text), else null: producers' facets are shown, never trusted. */
export function text(value: unknown): string | null {
  if (typeof value === "string") return value.length ? value : null;
  return typeof value === "number" || typeof value === "boolean" ? String(value) : null;
}

/** A facet member that is a list of objects (others dropped). */
export function records(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter((item): item is Record<string, unknown> => !!item && typeof item === "object") : [];
}

/** Code longer than this many lines is folded to its first lines, with a control to show all of it. */
export const FOLDED_LINES = 12;

/** `code` highlighted as `language` in a `pre`, folded when long; `label` names it for the expand control. */
export function codeBlock(code: string, language: string | null, label: string): HTMLElement {
  const lines = code.replace(/\n$/, "").split("\n").length;
  const pre = h("pre", { class: "code", "data-language": language ?? "" }, highlight(code, language));
  if (lines <= FOLDED_LINES) return h("div", { class: "code-block" }, pre);
  pre.classList.add("folded");
  const toggle = h("button", { type: "button", class: "link-button code-toggle", "aria-expanded": "false" }, `Show all ${lines} lines of ${label}`);
  toggle.addEventListener("click", () => {
    const folded = pre.classList.toggle("folded");
    toggle.setAttribute("aria-expanded", String(!folded));
    toggle.textContent = folded ? `Show all ${lines} lines of ${label}` : "Fold";
  });
  return h("div", { class: "code-block" }, pre, toggle);
}

/** A tags facet's tags as chips (`key: value`, a dataset tag's field first), their source on hover. */
export function tagChips(facet: Record<string, unknown> | null): HTMLElement | null {
  const tags = records(facet?.tags);
  if (!tags.length) return null;
  return h("ul", { class: "tag-chips" }, tags.map((tag) => {
    const key = text(tag.key) ?? "";
    const value = text(tag.value);
    const field = text(tag.field);
    const source = text(tag.source);
    return h("li", { class: "tag-chip", title: source ? `from ${source}` : null, "data-tag": key },
      field ? h("span", { class: "tag-field" }, `${field} · `) : null,
      h("span", { class: "tag-key" }, key),
      value !== null && value !== "true" ? h("span", { class: "tag-value" }, `: ${value}`) : null);
  }));
}

/** A documentation facet's description: Markdown unless its `contentType` says otherwise, then plain text. */
export function documentation(facet: Record<string, unknown> | null): HTMLElement | null {
  const description = text(facet?.description);
  if (!description) return null;
  const type = text(facet?.contentType)?.toLowerCase();
  return h("div", { class: "documentation" },
    !type || type.includes("markdown") ? markdown(description) : h("p", { class: "plain-text" }, description));
}

/** Label and value pairs as a definition list; pairs without a value are left out (null when none is left). */
export function facts(pairs: [string, Node | string | null][], attrs: Record<string, string> = {}): HTMLElement | null {
  const shown = pairs.filter(([, value]) => value !== null && value !== "");
  if (!shown.length) return null;
  return h("dl", { ...attrs, class: `facts${attrs.class ? ` ${attrs.class}` : ""}` },
    shown.flatMap(([label, value]) => [h("dt", {}, label), h("dd", {}, value)]));
}

/** The sections that are there, in order. */
export function present(sections: (HTMLElement | null)[]): HTMLElement[] {
  return sections.filter((element): element is HTMLElement => element !== null);
}

/** A titled section, or nothing when every part of its body is empty. */
export function sectionOf(title: string, id: string, ...body: (Node | null)[]): HTMLElement | null {
  if (!body.some(Boolean)) return null;
  const element = section(title, ...body);
  element.dataset.facets = id;
  return element;
}

/** The facets `facets` has that no section of the view names (`named`), such as an integration's own (Spark's
 *  `spark_properties`, Flink's `checkpoints`): each folded, as the JSON its producer sent, written out when opened
 *  (a logical plan can be large); null when there are none. */
export function otherFacets(facets: Facets | null | undefined, named: readonly string[]): HTMLElement | null {
  const all = facets ?? {};
  const others = Object.keys(all).filter((name) => !named.includes(name)).sort();
  if (!others.length) return null;
  return sectionOf("Other facets", "other", h("div", { class: "other-facets" }, others.map((name) => {
    const body = h("pre", { class: "code facet-json" });
    const fold = h("details", { class: "other-facet", "data-facet": name }, h("summary", {}, name), body);
    fold.addEventListener("toggle", () => {
      if (fold.open && !body.textContent) body.textContent = JSON.stringify(all[name], null, 2);
    });
    return fold;
  })));
}
