// Client-side routes: the History API, in-app links marked `data-link`, one page module per path.

export type Cleanup = () => void;
export type PageRender = (root: HTMLElement, url: URL) => Cleanup | void;

const routes = new Map<string, PageRender>();
let notFound: PageRender = (root) => { root.textContent = "Page not found."; };
let outlet: HTMLElement | null = null;
let cleanup: Cleanup | void;
const listeners: ((url: URL) => void)[] = [];

export function route(path: string, page: PageRender): void {
  routes.set(path, page);
}

export function setNotFound(page: PageRender): void {
  notFound = page;
}

export function onNavigate(listener: (url: URL) => void): void {
  listeners.push(listener);
}

export function currentUrl(): URL {
  return new URL(window.location.href);
}

/** Go to an in-app URL: a new history entry (or replace the current one) and render its page. */
export function navigate(href: string, options: { replace?: boolean } = {}): void {
  const url = new URL(href, window.location.href);
  if (options.replace) window.history.replaceState(null, "", url);
  else window.history.pushState(null, "", url);
  render();
}

/** Change the query of the current URL without rendering the page again (the page already shows it). */
export function setQuery(params: URLSearchParams, options: { replace?: boolean } = {}): void {
  const url = currentUrl();
  url.search = params.toString();
  if (options.replace) window.history.replaceState(null, "", url);
  else window.history.pushState(null, "", url);
}

export function render(): void {
  if (!outlet) return;
  if (cleanup) cleanup();
  cleanup = undefined;
  const url = currentUrl();
  const path = url.pathname.replace(/\/+$/, "") || "/";
  outlet.replaceChildren();
  window.scrollTo?.(0, 0);
  cleanup = (routes.get(path) ?? notFound)(outlet, url);
  for (const listener of listeners) listener(url);
}

export function startRouter(root: HTMLElement): void {
  outlet = root;
  window.addEventListener("popstate", render);
  document.addEventListener("click", (event) => {
    const anchor = (event.target as Element | null)?.closest?.("a[data-link]") as HTMLAnchorElement | null;
    if (!anchor || event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey || anchor.target) return;
    event.preventDefault();
    navigate(anchor.href);
  });
  render();
}
