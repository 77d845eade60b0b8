// DOM building without HTML strings: every piece of data becomes a text node, never markup.

type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>;

/** An element with attributes, `on*` listeners and children; strings are always text nodes. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K, attrs: Attrs = {}, ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      element.addEventListener(key.slice(2).toLowerCase(), value);
    } else if (key === "class") {
      element.className = String(value);
    } else if (key === "style") {
      // Through the CSSOM: the Content-Security-Policy refuses a `style` attribute set as markup.
      element.style.cssText = String(value);
    } else {
      element.setAttribute(key, value === true ? "" : String(value));
    }
  }
  append(element, ...children);
  return element;
}

export function append(parent: Node, ...children: (Child | Child[])[]): void {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
  }
}

/** Replace all children of `parent`. */
export function replace(parent: Element, ...children: (Child | Child[])[]): void {
  parent.replaceChildren();
  append(parent, ...children);
}

const SVG = "http://www.w3.org/2000/svg";

export function svg(tag: string, attrs: Record<string, string | number> = {}, ...children: (Node | string)[]): SVGElement {
  const element = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) element.setAttribute(key, String(value));
  for (const child of children) element.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
  return element;
}

/** An in-app link: the router handles the click, so it navigates without a page load. */
export function link(href: string, ...children: (Child | Child[])[]): HTMLAnchorElement {
  return h("a", { href, "data-link": "" }, ...children);
}

/**
 * A name that may wrap only after its separators (`.`, `/`, `_`): a `<wbr>` after each, and CSS (`.name-breaks`)
 * keeps every other run of it whole.
 */
export function nameBreaks(text: string, attrs: Attrs = {}): HTMLSpanElement {
  const parts = text.split(/(?<=[./_])/);
  return h("span", { ...attrs, class: `name-breaks${attrs.class ? ` ${String(attrs.class)}` : ""}` },
    parts.flatMap((part, i) => (i ? [document.createElement("wbr"), part] : [part])));
}
