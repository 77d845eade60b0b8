// Syntax highlighting for SQL and source code: a small tokenizer whose tokens become text nodes in spans, never markup.

import { h } from "../dom";

export type TokenKind = "keyword" | "string" | "number" | "comment" | "quoted" | "text";
export interface Token { kind: TokenKind; text: string }

interface Language {
  /** What starts a comment that runs to the end of the line. */
  lineComments: string[];
  /** Whether `/* … *\/` is a comment. */
  blockComments: boolean;
  /** Quote characters that delimit string literals (a doubled quote inside stays in the string). */
  strings: string[];
  /** Quote characters that delimit quoted identifiers (SQL's `"name"`, MySQL's and Spark's backticks). */
  quoted: string[];
  /** Words to mark as keywords; SQL's are matched in any case. */
  keywords: Set<string>;
  caseless: boolean;
}

const words = (text: string) => new Set(text.split(/\s+/).filter(Boolean));

const SQL: Language = {
  lineComments: ["--"], blockComments: true, strings: ["'"], quoted: ['"', "`"], caseless: true,
  keywords: words(`
    select from where and or not in is null as on join left right inner outer full cross natural using group by order
    having limit offset union all intersect except distinct case when then else end with recursive insert into values
    update set delete merge matched create replace table view materialized temporary temp if exists drop alter add
    column primary key foreign references partition partitioned over window rows range between asc desc nulls first
    last like ilike rlike similar escape cast try_cast interval true false lateral qualify pivot unpivot returning
    default constraint unique check index cluster clustered sort sorted stored location tblproperties overwrite
    explode struct array map current_date current_timestamp filter within any some exists`),
};

const PYTHON: Language = {
  lineComments: ["#"], blockComments: false, strings: ["'", '"'], quoted: [], caseless: false,
  keywords: words(`
    False None True and as assert async await break class continue def del elif else except finally for from global
    if import in is lambda nonlocal not or pass raise return try while with yield match case self`),
};

const JVM: Language = {
  lineComments: ["//"], blockComments: true, strings: ['"', "'"], quoted: ["`"], caseless: false,
  keywords: words(`
    abstract case catch class def do else extends false final finally for forSome if implicit import lazy match new
    null object override package private protected return sealed super this throw trait try true type val var while
    with yield public static void int long boolean double float char byte short interface enum implements throws
    instanceof switch break continue default fun when`),
};

/** Strings, numbers and comments only, for languages not known here. */
const PLAIN: Language = {
  lineComments: ["#", "//", "--"], blockComments: true, strings: ["'", '"'], quoted: [], caseless: false, keywords: new Set(),
};

const LANGUAGES: Record<string, Language> = { sql: SQL, python: PYTHON, py: PYTHON, scala: JVM, java: JVM, kotlin: JVM };

function languageOf(name: string | null | undefined): Language {
  const key = (name ?? "").toLowerCase();
  return LANGUAGES[key] ?? (/sql|dbt|hive|spark|snowflake|bigquery|postgres|redshift|trino|presto|duckdb|athena/.test(key) ? SQL : PLAIN);
}

/** `code` cut into tokens of `language` (a SQL dialect or a programming language; unknown ones get strings,
 *  numbers and comments). The tokens' texts joined give `code` back exactly. */
export function tokenize(code: string, language: string | null | undefined): Token[] {
  const lang = languageOf(language);
  const tokens: Token[] = [];
  let plain = "";
  const push = (kind: TokenKind, text: string) => {
    if (plain) { tokens.push({ kind: "text", text: plain }); plain = ""; }
    tokens.push({ kind, text });
  };
  let i = 0;
  while (i < code.length) {
    const char = code[i];
    if (lang.lineComments.some((start) => code.startsWith(start, i))) {
      const end = code.indexOf("\n", i);
      const stop = end < 0 ? code.length : end;
      push("comment", code.slice(i, stop));
      i = stop;
    } else if (lang.blockComments && code.startsWith("/*", i)) {
      const end = code.indexOf("*/", i + 2);
      const stop = end < 0 ? code.length : end + 2;
      push("comment", code.slice(i, stop));
      i = stop;
    } else if (lang.strings.includes(char) || lang.quoted.includes(char)) {
      const stop = quotedEnd(code, i);
      push(lang.strings.includes(char) ? "string" : "quoted", code.slice(i, stop));
      i = stop;
    } else if (/[0-9]/.test(char) && !/[\w$]/.test(code[i - 1] ?? "")) {
      const number = matchAt(NUMBER, code, i);
      push("number", number);
      i += number.length;
    } else if (/[A-Za-z_]/.test(char)) {
      const word = matchAt(WORD, code, i);
      if (lang.keywords.has(lang.caseless ? word.toLowerCase() : word)) push("keyword", word);
      else plain += word;
      i += word.length;
    } else {
      plain += char;
      i += 1;
    }
  }
  if (plain) tokens.push({ kind: "text", text: plain });
  return tokens;
}

// Sticky, so each is matched where the tokenizer is, without copying the rest of the code.
const NUMBER = /[0-9][0-9_]*(\.[0-9]+)?([eE][+-]?[0-9]+)?[lLfFdD]?/y;
const WORD = /[A-Za-z_][\w$]*/y;

/** What `pattern` matches at `i` of `code` (the caller has seen it starts there). */
function matchAt(pattern: RegExp, code: string, i: number): string {
  pattern.lastIndex = i;
  return pattern.exec(code)![0];
}

/** Where the literal opened by the quote at `start` ends: after its closing quote (a doubled or backslashed quote
 *  stays inside), or at the end of the text when it is never closed. */
function quotedEnd(code: string, start: number): number {
  const quote = code[start];
  let i = start + 1;
  while (i < code.length) {
    if (code[i] === "\\") { i += 2; continue; }
    if (code[i] === quote) {
      if (code[i + 1] === quote) { i += 2; continue; }
      return i + 1;
    }
    i += 1;
  }
  return code.length;
}

/** `code` highlighted as `language`: a `<code>` of text nodes, each token but plain text in a `span.tok-<kind>`. */
export function highlight(code: string, language: string | null | undefined): HTMLElement {
  return h("code", { class: "highlighted" }, tokenize(code, language).map((token) =>
    token.kind === "text" ? token.text : h("span", { class: `tok-${token.kind}` }, token.text)));
}
