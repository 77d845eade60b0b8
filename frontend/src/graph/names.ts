// Short, readable names for graph nodes, derived from the OpenLineage naming scheme of each
// dataset and job: the full name stays in the tooltip, the side panel and search.

/** Path-like namespaces: the name is a path (or object key) below the namespace. */
const PATH_SCHEMES = new Set(["file", "s3", "s3a", "s3n", "gs", "gcs", "hdfs", "abfs", "abfss", "wasb", "wasbs", "dbfs", "adl", "oss", "viewfs"]);

/** Past this many characters a short label is cut in the middle (the start and the end say most). */
export const SHORT_MAX = 32;

/** The scheme of a namespace: `s3://bucket` → `s3`, `file` → `file`, `postgres://h:5432` → `postgres`. */
export function namespaceScheme(namespace: string): string {
  const match = /^([a-z][a-z0-9+.-]*):/i.exec(namespace);
  return (match ? match[1] : namespace).toLowerCase();
}

/** Cut `text` to `max` characters keeping its start and its end: `daily_rev…_2024`. */
export function middleEllipsis(text: string, max = SHORT_MAX): string {
  if (text.length <= max) return text;
  const tail = Math.ceil((max - 1) * 0.6);
  return `${text.slice(0, max - 1 - tail)}…${text.slice(text.length - tail)}`;
}

/**
 * A dataset's short name: the last two path segments for files and object stores
 * (`…/lake/silver/orders_clean` → `silver/orders_clean`), `schema.table` for catalog and JDBC
 * names (`analytics.public.orders` → `public.orders`), else the name itself.
 */
export function datasetShortName(namespace: string, name: string): string {
  const pathLike = PATH_SCHEMES.has(namespaceScheme(namespace)) || name.includes("/");
  if (pathLike) {
    const segments = name.split("/").filter(Boolean);
    // Partition directories (`date=2026-11-01`) say less than the table above them.
    while (segments.length > 1 && segments[segments.length - 1].includes("=")) segments.pop();
    const last = segments.slice(-2).join("/");
    return middleEllipsis(last || name);
  }
  const parts = name.split(".");
  return middleEllipsis(parts.length > 2 ? parts.slice(-2).join(".") : name);
}

/**
 * A job's short name: an action job (`daily_revenue.write_parquet.orders_clean`) of a known
 * application (`daily_revenue`) by its action suffix (`write_parquet.orders_clean`).
 */
export function jobShortName(name: string, application?: string | null): string {
  if (application) {
    const app = application.slice(application.lastIndexOf(":") + 1);
    if (name.startsWith(`${app}.`) && name.length > app.length + 1) return middleEllipsis(name.slice(app.length + 1));
  }
  return middleEllipsis(name);
}

/**
 * A short name from a node id alone (`dataset:file:/lake/silver/orders` → `silver/orders`,
 * `job:spark:daily_revenue` → `daily_revenue`), for places that have no node data: the id's
 * namespace and name cannot be told apart, so the part after its last `:` is taken as the name
 * (a field keeps its dataset's short name before it).
 */
export function idShortName(id: string): string {
  const type = id.slice(0, id.indexOf(":"));
  const rest = id.slice(type.length + 1);
  if (type === "datasetField") {
    const field = rest.slice(rest.lastIndexOf(":") + 1);
    return `${idShortName(`dataset:${rest.slice(0, rest.lastIndexOf(":"))}`)}.${field}`;
  }
  const name = rest.slice(rest.lastIndexOf(":") + 1) || rest;
  return type === "job" ? middleEllipsis(name) : datasetShortName(name.includes("/") ? "file" : "", name);
}

/** A namespace as a chip: scheme and authority, without a long path (`s3://lake-bucket`, `file`). */
export function namespaceChip(namespace: string): string {
  const match = /^([a-z][a-z0-9+.-]*):\/\/([^/]*)/i.exec(namespace);
  return middleEllipsis(match ? `${match[1]}://${match[2]}` : namespace, 30);
}
