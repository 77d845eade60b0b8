// The layout worker: positions come from here so the page stays responsive on large graphs.

import { computeLayout, type LayoutRequest } from "./layoutCompute";

self.onmessage = (event: MessageEvent<LayoutRequest>) => {
  try {
    self.postMessage(computeLayout(event.data));
  } catch (error) {
    self.postMessage({ id: event.data.id, error: String(error) });
  }
};
