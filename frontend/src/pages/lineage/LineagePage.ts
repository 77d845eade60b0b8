// The lineage explorer: dataset / job graph with depth, direction, expansion, paths and a side panel, and the
// column view of one field. Intents from the toolbar, graph and panels change the store (intents.ts), then what is
// drawn follows it (drawing.ts, loading.ts); the views are built and laid out in parts.ts.

import type { Cleanup } from "../../router";
import { pictureRemember } from "./drawing";
import { intentDo } from "./intents";
import { placeLoad } from "./loading";
import { partsCreate, partsShow, type ExplorerParts } from "./parts";
import { parseState } from "./state";
import { ExplorerStore, type Intent } from "./store";

export function LineagePage(root: HTMLElement, url: URL): Cleanup {
  const store = new ExplorerStore(parseState(url.searchParams));
  const abort = new AbortController();
  const emit = (intent: Intent) => void intentDo(parts, intent);
  const parts: ExplorerParts = partsCreate(store, emit, abort.signal);
  partsShow(root, parts);
  void placeLoad(parts);
  return () => {
    pictureRemember(parts);
    abort.abort();
    parts.loads.cancel();
    parts.graph.destroy();
    document.body.removeAttribute("data-graph-ready");
  };
}
