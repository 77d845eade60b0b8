import { describe, expect, it } from "vitest";
import { datasetFacetSections } from "../src/facets/dataset";
import { tokenize } from "../src/facets/highlight";
import { jobFacetSections, pullRequestOf } from "../src/facets/job";
import { markdown, safeHref } from "../src/facets/markdown";
import { FOLDED_LINES, codeBlock } from "../src/facets/parts";
import { runFacetSections } from "../src/facets/run";
import { amount } from "../src/pages/dataset/writeTrend";

const HOSTILE = `<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">`;

/** Every element in `root` and its attributes, to prove nothing but the renderer's own markup was made. */
function markup(root: Element): { tags: string[]; attributes: string[] } {
  const all = [root, ...root.querySelectorAll("*")];
  return {
    tags: [...new Set(all.map((e) => e.tagName.toLowerCase()))].sort(),
    attributes: [...new Set(all.flatMap((e) => [...e.attributes].map((a) => a.name)))].sort(),
  };
}

describe("markdown", () => {
  it("renders headings below the page's, paragraphs, lists, code, emphasis and links", () => {
    const doc = markdown("# Orders\n\nOne row per **order**, *paid* `only`.\nSecond line.\n\n- a\n- b [docs](https://x.example/d)\n\n1. one\n2. two\n\n> quoted\n\n```sql\nselect 1\n```");
    expect(doc.querySelector("h4")?.textContent).toBe("Orders");
    expect(doc.querySelector("p")?.textContent).toBe("One row per order, paid only. Second line.");
    expect(doc.querySelector("strong")?.textContent).toBe("order");
    expect(doc.querySelector("em")?.textContent).toBe("paid");
    expect(doc.querySelector("p code")?.textContent).toBe("only");
    expect([...doc.querySelectorAll("ul li")].map((li) => li.textContent)).toEqual(["a", "b docs"]);
    expect([...doc.querySelectorAll("ol li")].map((li) => li.textContent)).toEqual(["one", "two"]);
    expect(doc.querySelector("blockquote")?.textContent).toBe("quoted");
    expect(doc.querySelector("pre .tok-keyword")?.textContent).toBe("select");
    const link = doc.querySelector("a")!;
    expect([link.getAttribute("href"), link.getAttribute("target"), link.getAttribute("rel")]).toEqual(["https://x.example/d", "_blank", "noopener noreferrer nofollow"]);
  });

  it("shows HTML in the source as text and makes no element or attribute of it", () => {
    const doc = markdown(`# Hi ${HOSTILE}\n\ntext ${HOSTILE}\n\n- ${HOSTILE}\n\n**${HOSTILE}** \`${HOSTILE}\``);
    expect(doc.textContent).toContain(HOSTILE);
    expect(markup(doc)).toEqual({ tags: ["code", "div", "h4", "li", "p", "strong", "ul"], attributes: ["class"] });
  });

  it("links only http, https and mailto; any other scheme stays text", () => {
    const doc = markdown("[a](javascript:alert(1)) [b](JaVaScRiPt:alert(1)) [c]( javascript:alert(1)) [d](data:text/html,x) [e](vbscript:x) [f](/relative) [g](mailto:a@b.example) [h](http://ok.example)");
    expect([...doc.querySelectorAll("a")].map((a) => a.getAttribute("href"))).toEqual(["mailto:a@b.example", "http://ok.example/"]);
    expect([...doc.querySelectorAll(".unsafe-link")].map((s) => s.textContent)).toEqual(["a", "b", "c", "d", "e", "f"]);
    expect(safeHref("\u0001javascript:alert(1)")).toBeNull();
    expect(safeHref("https://github.com/a/b/pull/3")).toBe("https://github.com/a/b/pull/3");
  });

  it("keeps backslash-escaped markup characters as text", () => {
    expect(markdown("\\*not emphasis\\* snake_case_name").textContent).toBe("*not emphasis* snake_case_name");
    expect(markdown("snake_case_name").querySelector("em")).toBeNull();
    const names = markdown("window.__pwned = 1 and [x](javascript:a.__b) and __strong__ and _em_");
    expect([...names.querySelectorAll("strong, em")].map((e) => `${e.tagName}:${e.textContent}`)).toEqual(["STRONG:strong", "EM:em"]);
    expect(names.querySelector(".unsafe-link")?.textContent).toBe("x");
  });
});

describe("highlight", () => {
  it("cuts SQL into keywords, strings, numbers, comments and quoted names that join back to the SQL", () => {
    const sql = "-- top\nSELECT \"Order Id\", amount * 1.5 FROM t /* why */ WHERE s = 'it''s' AND n > 10";
    const tokens = tokenize(sql, "postgres");
    expect(tokens.map((t) => t.text).join("")).toBe(sql);
    const of = (kind: string) => tokens.filter((t) => t.kind === kind).map((t) => t.text);
    expect(of("keyword")).toEqual(["SELECT", "FROM", "WHERE", "AND"]);
    expect(of("string")).toEqual(["'it''s'"]);
    expect(of("quoted")).toEqual(['"Order Id"']);
    expect(of("number")).toEqual(["1.5", "10"]);
    expect(of("comment")).toEqual(["-- top", "/* why */"]);
  });

  it("knows Python and Scala keywords, and an unknown language only by its strings, numbers and comments", () => {
    expect(tokenize("def f(x): # c\n  return 'a'", "python").filter((t) => t.kind !== "text").map((t) => `${t.kind}:${t.text}`))
      .toEqual(["keyword:def", "comment:# c", "keyword:return", "string:'a'"]);
    expect(tokenize("val x = \"s\" // c", "scala").filter((t) => t.kind !== "text").map((t) => t.kind)).toEqual(["keyword", "string", "comment"]);
    expect(tokenize("select v2 from t", "cobol").some((t) => t.kind === "keyword" || t.kind === "number")).toBe(false);
  });

  it("ends an unclosed string or comment at the end of the text", () => {
    expect(tokenize("select 'open", "sql").at(-1)).toEqual({ kind: "string", text: "'open" });
    expect(tokenize("select /* open", "sql").at(-1)).toEqual({ kind: "comment", text: "/* open" });
  });

  it("folds long code behind a control and shows short code whole", () => {
    const long = Array.from({ length: FOLDED_LINES + 5 }, (_, i) => `select ${i}`).join("\n");
    const block = codeBlock(long, "sql", "SQL");
    const pre = block.querySelector("pre")!;
    const toggle = block.querySelector("button")!;
    expect(pre.classList.contains("folded")).toBe(true);
    expect(toggle.textContent).toBe(`Show all ${FOLDED_LINES + 5} lines of SQL`);
    toggle.click();
    expect([pre.classList.contains("folded"), toggle.getAttribute("aria-expanded"), toggle.textContent]).toEqual([false, "true", "Fold"]);
    expect(pre.textContent).toBe(long);
    expect(codeBlock("select 1", "sql", "SQL").querySelector("button")).toBeNull();
  });
});

describe("facet sections", () => {
  const meta = { _producer: "https://x.example", _schemaURL: "https://x.example/s.json" };

  it("shows a job's type, tags, documentation, location with its pull request, SQL and code, and nothing it lacks", () => {
    const sections = jobFacetSections({
      jobType: { ...meta, processingType: "BATCH", integration: "DBT", jobType: "MODEL" },
      tags: { ...meta, tags: [{ key: "layer", value: "mart", source: "DBT" }, { key: "core", value: "true" }] },
      documentation: { ...meta, description: "plain *text*", contentType: "text/plain" },
      sourceCodeLocation: { ...meta, type: "git", url: "https://github.com/a/b/pull/42/files", version: "0123456789abcdef" },
      sql: { ...meta, query: "select 1", dialect: "snowflake" },
    });
    expect(sections.map((s) => s.dataset.facets)).toEqual(["jobType", "tags", "documentation", "sourceCodeLocation", "sql"]);
    expect(sections[0].textContent).toContain("BATCHDBTMODEL");
    expect([...sections[1].querySelectorAll("li")].map((li) => li.textContent)).toEqual(["layer: mart", "core"]);
    expect(sections[2].querySelector(".plain-text")?.textContent).toBe("plain *text*");
    expect(sections[3].textContent).toContain("Pull request#42");
    expect(sections[3].textContent).toContain("Commit0123456789ab");
    expect(sections[4].querySelector("h3")?.textContent).toBe("SQL · snowflake");
    expect(jobFacetSections({})).toEqual([]);
  });

  it("finds the pull request a code URL names", () => {
    expect(pullRequestOf("https://github.com/a/b/pull/42")).toBe("42");
    expect(pullRequestOf("https://gitlab.com/a/b/-/merge_requests/7/diffs")).toBe("7");
    expect(pullRequestOf("https://github.com/a/b/blob/main/pull/x.sql")).toBeNull();
    expect(pullRequestOf(null)).toBeNull();
  });

  it("makes a source location's javascript: URL text, not a link", () => {
    const [location] = jobFacetSections({ sourceCodeLocation: { ...meta, type: "git", url: "javascript:alert(1)", repoUrl: "javascript:alert(2)" } });
    expect(location.querySelectorAll("a")).toHaveLength(0);
    expect(location.textContent).toContain("javascript:alert(1)");
  });

  it("shows a run's nominal time, engine, external query, parameters and environment, ignoring malformed members", () => {
    const sections = runFacetSections({
      nominalTime: { ...meta, nominalStartTime: "2026-01-05T00:00:00Z", nominalEndTime: "2026-01-06T00:00:00Z" },
      processing_engine: { ...meta, name: "Airflow", version: "2.10.3", openlineageAdapterVersion: "1.54.0" },
      externalQuery: { ...meta, externalQueryId: "q1", source: "bigquery" },
      executionParameters: { ...meta, parameters: [{ key: "ds", value: "2026-01-05" }, "not a parameter", { key: "n", value: { nested: true } }] },
      environmentVariables: { ...meta, environmentVariables: [{ name: "TZ", value: "UTC" }] },
    });
    expect(sections.map((s) => s.dataset.facets)).toEqual(["nominalTime", "processing_engine", "externalQuery", "executionParameters", "environmentVariables"]);
    expect(sections[0].textContent).toContain("2026-01-05 00:00Z → 2026-01-06 00:00Z");
    expect(sections[1].textContent).toContain("EngineAirflow 2.10.3OpenLineage adapter1.54.0");
    const rows = [...sections[3].querySelectorAll("tbody tr")].map((tr) => [...tr.children].map((td) => td.textContent));
    expect(rows).toEqual([["ds", "2026-01-05"], ["n", ""]]);
  });

  it("shows a dataset's storage, type, hierarchy, catalog, source and version as facts", () => {
    const [about] = datasetFacetSections({
      storage: { ...meta, storageLayer: "iceberg", fileFormat: "parquet" },
      datasetType: { ...meta, datasetType: "TABLE" },
      hierarchy: { ...meta, hierarchy: [{ type: "DATABASE", name: "sales" }, { type: "TABLE", name: "orders" }] },
      version: { ...meta, datasetVersion: "42" },
    });
    const facts = [...about.querySelectorAll("dt")].map((dt) => `${dt.textContent}=${dt.nextElementSibling?.textContent}`);
    expect(facts).toEqual(["Type=TABLE", "Storage=iceberg · parquet", "Hierarchy=DATABASE sales › TABLE orders", "Version=42"]);
  });
});

describe("amounts", () => {
  it("writes rows with separators and bytes in binary units", () => {
    expect(amount(1234567, "rowCount")).toBe("1,234,567");
    expect([amount(512, "bytes"), amount(10_700_000, "bytes"), amount(3 * 1024 ** 3, "bytes")]).toEqual(["512 B", "10.2 MiB", "3.0 GiB"]);
  });
});
