// Failure forensics without the DOM: classification labels, the cause split for its headline,
// filters kept in the URL, and the links a failure offers.

import type { FailureFilters } from "../../api/client";
import type { Failure, FailureClassification, FailureGroup } from "../../api/types";
import { idShortName } from "../../graph/names";
import { lineageHref } from "../../shell/widgets";

/** In the order the server tries its rules (see docs/api.md). */
export const CLASSIFICATIONS: { value: FailureClassification; label: string }[] = [
  { value: "data_quality", label: "Data quality" },
  { value: "out_of_memory", label: "Out of memory" },
  { value: "cancelled", label: "Cancelled" },
  { value: "permission", label: "Permission" },
  { value: "missing_input", label: "Missing input" },
  { value: "schema", label: "Schema" },
  { value: "data_validation", label: "Data validation" },
  { value: "unknown", label: "Unknown" },
];

export function classificationLabel(value: string | null | undefined): string {
  return CLASSIFICATIONS.find((c) => c.value === value)?.label ?? "Not classified";
}

export function isClassification(value: string | null): value is FailureClassification {
  return CLASSIFICATIONS.some((c) => c.value === value);
}

/** `java.lang.RuntimeException: negative amount` as its exception and message (either may be empty). */
export function splitCause(cause: string): { exception: string; message: string } {
  const found = /^([\w.$]+(?:\([\w.$]+\))?)(?::\s?| (?=\())(.*)$/.exec(cause);
  if (!found || !/(Error|Exception|Failure|Throwable|Interrupt|Exit)\)?$/.test(found[1])) return { exception: "", message: cause };
  return { exception: found[1], message: found[2] };
}

/** The failures page's filters, from its URL (an unknown classification is dropped). */
export function failureFilters(params: URLSearchParams): FailureFilters {
  const classification = params.get("classification");
  return {
    namespace: params.get("namespace") || undefined,
    job: params.get("job") || undefined,
    classification: isClassification(classification) ? classification : undefined,
    since: params.get("since") || undefined,
    until: params.get("until") || undefined,
  };
}

export function failuresHref(filters: FailureFilters): string {
  const params = new URLSearchParams();
  for (const key of ["namespace", "job", "classification", "since", "until"] as const) {
    const value = filters[key];
    if (value) params.set(key, value);
  }
  const query = params.toString();
  return query ? `/failures?${query}` : "/failures";
}

/** Where a failure's walks start: the datasets its failing data-quality checks tested, for a data-quality
 * failure (the test job itself often writes nothing); else what it should have written; else its job. */
export function failureStarts(failure: Pick<Failure, "job" | "outputs" | "classification" | "testedDatasets">): string[] {
  if (failure.classification === "data_quality" && failure.testedDatasets.length) return failure.testedDatasets;
  return failure.outputs.length ? failure.outputs : [failure.job];
}

/** The root-cause walk of a failure: upstream of the tested datasets of a data-quality failure, else of its job. */
export function failureRootCauseHref(failure: Pick<Failure, "job" | "classification" | "testedDatasets">, depth = 6): string {
  const tested = failure.classification === "data_quality" ? failure.testedDatasets : [];
  return tested.length ? lineageHref(tested, { depth, direction: "upstream" }) : rootCauseWalkHref(failure.job, depth);
}

/** The explorer upstream of a failed job: where its inputs came from. */
export function rootCauseWalkHref(job: string, depth = 6): string {
  return lineageHref([job], { depth, direction: "upstream" });
}

export function streakText(consecutive: number, capped: boolean): string {
  if (consecutive === 0) return "recovered";
  return `${capped ? "≥ " : ""}${consecutive} in a row`;
}

/** What the last failure read or wrote that the job's last success did not, and the reverse, as one
 * line ("New input since the last success: eur_rates.csv · no longer read: blocked_customers.csv");
 * null when nothing changed or the job never succeeded before. */
export function sinceLastSuccessText(changes: FailureGroup["sinceLastSuccess"]): string | null {
  if (!changes) return null;
  const names = (ids: string[]) => ids.map(idShortName).join(", ");
  const parts = [
    changes.addedReads.length ? `New input since the last success: ${names(changes.addedReads)}` : "",
    changes.removedReads.length ? `no longer read: ${names(changes.removedReads)}` : "",
    changes.addedWrites.length ? `new output: ${names(changes.addedWrites)}` : "",
    changes.removedWrites.length ? `no longer written: ${names(changes.removedWrites)}` : "",
  ].filter(Boolean);
  if (!parts.length) return null;
  const text = parts.join(" · ");
  return text[0].toUpperCase() + text.slice(1);
}
