// Limits the served API schema sets and the UI needs at run time. vite.config.ts reads them from
// src/api/openapi.json when the UI is built, so the bundle carries these values and not the schema.

declare const __API_LINEAGE_MAX_DEPTH__: number;
declare const __API_IMPACT_REPORT_FORMATS__: readonly string[];

/** The deepest lineage the server answers: the `depth` maximum of `GET /api/v1/lineage`. */
export const LINEAGE_MAX_DEPTH: number = __API_LINEAGE_MAX_DEPTH__;
/** The impact report's formats, in the schema's order (`format` of `GET /api/v1/impact/report`). */
export const IMPACT_REPORT_FORMATS: readonly string[] = __API_IMPACT_REPORT_FORMATS__;
