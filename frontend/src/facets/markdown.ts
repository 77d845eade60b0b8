// Markdown (the common part: headings, paragraphs, lists, quotes, code, emphasis, links) built as DOM nodes.
// Safe by construction: every piece of the source becomes a text node or one of a fixed set of elements, no
// attribute but a link's checked `href` is ever set from it, and HTML in the source is shown as the text it is.

import { h } from "../dom";
import { highlight } from "./highlight";

type Inline = Node | string;

/** A link target a producer sent, when it is an absolute http, https or mailto URL; anything else is null. */
export function safeHref(url: string | null | undefined): string | null {
  if (!url) return null;
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    return null;
  }
  return ["http:", "https:", "mailto:"].includes(parsed.protocol) ? parsed.href : null;
}

/** A link out of the app (a new tab, no referrer), or its text alone when `url` is not a safe target. */
export function externalLink(url: string | null | undefined, ...text: Inline[]): HTMLElement {
  const href = safeHref(url);
  const children = text.length ? text : [url ?? ""];
  return href
    ? h("a", { href, target: "_blank", rel: "noopener noreferrer nofollow", class: "external" }, ...children)
    : h("span", { class: "unsafe-link", title: "not an http(s) or mailto link, so not a link" }, ...children);
}

/** `source` rendered as Markdown into a `div.markdown`. */
export function markdown(source: string): HTMLElement {
  return h("div", { class: "markdown" }, blocks(source.replace(/\r\n?/g, "\n").split("\n")));
}

function blocks(lines: string[]): HTMLElement[] {
  const out: HTMLElement[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    const fence = /^\s*(```|~~~)\s*([\w+-]*)/.exec(line);
    const heading = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (!line.trim()) {
      i += 1;
    } else if (fence) {
      const body: string[] = [];
      i += 1;
      while (i < lines.length && !lines[i].trim().startsWith(fence[1])) body.push(lines[i++]);
      i += 1;
      out.push(h("pre", { class: "code" }, highlight(body.join("\n"), fence[2] || null)));
    } else if (heading) {
      // Headings in a description sit under the page's own: `#` is the smallest heading the page does not use.
      const level = Math.min(6, heading[1].length + 3) as 4 | 5 | 6;
      out.push(h(`h${level}`, {}, inline(heading[2])));
      i += 1;
    } else if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) {
      out.push(h("hr"));
      i += 1;
    } else if (/^\s{0,3}>/.test(line)) {
      const quoted: string[] = [];
      while (i < lines.length && /^\s{0,3}>/.test(lines[i])) quoted.push(lines[i++].replace(/^\s{0,3}>\s?/, ""));
      out.push(h("blockquote", {}, blocks(quoted)));
    } else if (listItem(line)) {
      const ordered = listItem(line)!.ordered;
      const items: string[][] = [];
      while (i < lines.length && (listItem(lines[i])?.ordered === ordered || (items.length && /^\s{2,}\S/.test(lines[i])))) {
        const item = listItem(lines[i]);
        if (item && item.ordered === ordered) items.push([item.text]);
        else items[items.length - 1].push(lines[i].trim());
        i += 1;
      }
      out.push(h(ordered ? "ol" : "ul", {}, items.map((item) => h("li", {}, inline(item.join(" "))))));
    } else {
      const paragraph: string[] = [];
      while (i < lines.length && lines[i].trim() && !startsBlock(lines[i])) paragraph.push(lines[i++].trim());
      out.push(h("p", {}, inline(paragraph.join("\n"))));
    }
  }
  return out;
}

function listItem(line: string): { ordered: boolean; text: string } | null {
  const match = /^\s{0,3}([-*+]|\d{1,9}[.)])\s+(.*)$/.exec(line);
  return match ? { ordered: /\d/.test(match[1]), text: match[2] } : null;
}

function startsBlock(line: string): boolean {
  return /^\s*(```|~~~)/.test(line) || /^\s{0,3}(#{1,6}\s|>)/.test(line) || listItem(line) !== null;
}

// Inline constructs, each tried only where its first character is (sticky: matched at `lastIndex`, so a long text
// is read once). The text between delimiters holds no delimiter of the same kind: a closer pairs with the nearest
// opener, and an unmatched one costs a look as far as the next delimiter, never to the end of the text.
const CODE = /(`+)((?:(?!\1)[\s\S])+?)\1(?!`)/y;
const LINK = /\[([^\]]*)\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/y;
const AUTOLINK = /<((?:https?|mailto):[^\s>]+)>/y;
const STRONG = /(\*\*|__)(?=\S)((?:(?!\1)[\s\S])+?\S)\1(?!\w)/y;
const EMPHASIS = /([*_])(?=\S)((?:(?!\1)[\s\S])+?\S)\1(?![*_\w])/y;
const ESCAPABLE = /[\\`*_[\]()#+\-.!<>]/;

function at(pattern: RegExp, text: string, i: number): RegExpExecArray | null {
  pattern.lastIndex = i;
  return pattern.exec(text);
}

/** Inline Markdown: code spans, links, strong and emphasis; a line break inside a paragraph stays a space. */
function inline(text: string): Inline[] {
  const out: Inline[] = [];
  let plain = "";
  const flush = () => { if (plain) { out.push(plain); plain = ""; } };
  let i = 0;
  while (i < text.length) {
    const char = text[i];
    // Underscores emphasise only at word edges, so `snake_case` and `__dunder__`-like names inside words stay text.
    const wordBefore = /\w/.test(text[i - 1] ?? "");
    let match: RegExpExecArray | null = null;
    let element: Inline | null = null;
    if (char === "`" && (match = at(CODE, text, i))) {
      element = h("code", {}, match[2].trim() || match[2]);
    } else if (char === "[" && (match = at(LINK, text, i))) {
      element = externalLink(match[2], ...inline(match[1] || match[2]));
    } else if (char === "<" && (match = at(AUTOLINK, text, i))) {
      element = externalLink(match[1]);
    } else if ((char === "*" || char === "_") && (match = at(STRONG, text, i)) && (char === "*" || !wordBefore)) {
      element = h("strong", {}, inline(match[2]));
    } else if ((char === "*" || char === "_") && (match = at(EMPHASIS, text, i)) && (char === "*" || !wordBefore)) {
      element = h("em", {}, inline(match[2]));
    }
    if (match && element) {
      flush();
      out.push(element);
      i += match[0].length;
    } else if (char === "\\" && ESCAPABLE.test(text[i + 1] ?? "")) {
      plain += text[i + 1];
      i += 2;
    } else {
      plain += char === "\n" ? " " : char;
      i += 1;
    }
  }
  flush();
  return out;
}
