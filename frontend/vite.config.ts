// Build config: Django serves `dist/index.html` for every UI route and WhiteNoise serves
// `dist/` under `/static/`, so asset URLs are rooted there.
import { defineConfig } from "vitest/config";

export default defineConfig({
  base: "/static/",
  build: { outDir: "dist", emptyOutDir: true, sourcemap: true, chunkSizeWarningLimit: 1200 },
  worker: { format: "es" },
  test: { environment: "jsdom", include: ["tests/**/*.test.ts"] },
});
