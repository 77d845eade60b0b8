// Build config: Django serves `dist/index.html` for every UI route and WhiteNoise serves
// `dist/` under `/static/`, so asset URLs are rooted there.
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

export default defineConfig({
  base: "/static/",
  build: { outDir: "dist", emptyOutDir: true, sourcemap: true, chunkSizeWarningLimit: 1200 },
  worker: { format: "es" },
  // Limits the UI takes from the server's schema, resolved here so the bundle carries the values, not the schema
  // (src/api/limits.ts).
  define: {
    __API_LINEAGE_MAX_DEPTH__: JSON.stringify(lineageMaxDepth),
    __API_IMPACT_REPORT_FORMATS__: JSON.stringify(impactReportFormats),
  },
  test: { environment: "jsdom", include: ["tests/**/*.test.ts"] },
});
