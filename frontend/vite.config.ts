// Build config: Django serves `dist/index.html` for every UI route and WhiteNoise serves
// `dist/` under `/static/`, so asset URLs are rooted there.
// `npm run build` is the production build, in `dist/`. `npm run build:test` (`--mode test`) is the same build with the
// test hooks on `window` (src/graph/testHooks.ts) that the browser tests and the render benchmark read, in `dist-test/`;
// Vitest runs in the `test` mode too. The production build has none: `__TEST_HOOKS__` is false there, so they are
// dropped, and scripts/check-test-hooks.mjs fails the build if a hook name is left in it.
import { defineConfig } from "vitest/config";

import { paths } from "./src/api/openapi.json";

interface ParameterSchema {
  maximum?: number;
  enum?: string[];
}

/** A query parameter's schema in the served API schema (src/api/openapi.json), or an error naming what is missing. */
function parameterSchema(path: string, name: string): ParameterSchema {
  const operations = paths as unknown as Record<string, { get?: { parameters?: { name: string; schema: ParameterSchema }[] } }>;
  const found = operations[path]?.get?.parameters?.find((parameter) => parameter.name === name);
  if (!found) throw new Error(`the API schema has no ${name} parameter on GET ${path}`);
  return found.schema;
}

const lineageMaxDepth = parameterSchema("/api/v1/lineage", "depth").maximum;
const impactReportFormats = parameterSchema("/api/v1/impact/report", "format").enum;
if (lineageMaxDepth === undefined || !impactReportFormats?.length) {
  throw new Error("the API schema names no lineage depth maximum or no impact report formats");
}

export default defineConfig(({ mode }) => ({
  base: "/static/",
  build: { outDir: mode === "test" ? "dist-test" : "dist", emptyOutDir: true, sourcemap: true, chunkSizeWarningLimit: 1200 },
  worker: { format: "es" },
  // Limits the UI takes from the server's schema, resolved here so the bundle carries the values, not the schema
  // (src/api/limits.ts).
  define: {
    __API_LINEAGE_MAX_DEPTH__: JSON.stringify(lineageMaxDepth),
    __API_IMPACT_REPORT_FORMATS__: JSON.stringify(impactReportFormats),
    __TEST_HOOKS__: JSON.stringify(mode === "test"),
  },
  test: { environment: "jsdom", include: ["tests/**/*.test.ts"] },
}));
