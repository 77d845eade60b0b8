// What the Alerts page decides without the DOM: a rule's scope as text and back, the body a subscription form
// sends, how a subscription's target reads, and which subscription (if any) is to a given dataset or job.

import type { Subscription, SubscriptionInput, TargetType } from "./api";

export const TARGET_TYPES: { value: TargetType; label: string }[] = [
  { value: "dataset", label: "Dataset" },
  { value: "job", label: "Job" },
  { value: "namespace", label: "Namespace" },
];

/** A scope list as one line of text: `a, b`. */
export function scopeText(items: string[]): string {
  return items.join(", ");
}

/**
 * A scope list from what an admin typed: split at commas and line breaks, trimmed, empties and repeats dropped.
 * Namespaces may hold commas in principle; none of the producers' schemes (`s3://…`, `postgres://…`) does.
 */
export function scopeList(text: string): string[] {
  return [...new Set(text.split(/[,\n]/).map((item) => item.trim()).filter(Boolean))];
}

export interface SubscriptionForm {
  targetType: TargetType;
  namespace: string;
  name: string;
  subscriber: string;
}

/** The body a subscription form sends: a namespace names no dataset or job; no subscriber means the user. */
export function subscriptionBody(form: SubscriptionForm): SubscriptionInput {
  const body: SubscriptionInput = {
    targetType: form.targetType,
    namespace: form.namespace.trim(),
    name: form.targetType === "namespace" ? "" : form.name.trim(),
  };
  const subscriber = form.subscriber.trim();
  if (subscriber) body.subscriber = subscriber;
  return body;
}

/** A subscription's target in words: `dataset bronze/orders in file:///lake`, `namespace shop`. */
export function targetText(target: Pick<Subscription, "targetType" | "namespace" | "name">): string {
  return target.targetType === "namespace" ? `namespace ${target.namespace}` : `${target.targetType} ${target.name} in ${target.namespace}`;
}

/** The user's own subscription (not a team's) to exactly this dataset or job, if there is one. */
export function ownSubscriptionTo(
  subscriptions: Subscription[], target: { targetType: TargetType; namespace: string; name: string }, username: string,
): Subscription | undefined {
  return subscriptions.find((s) => s.subscriber === `user:${username}` && s.targetType === target.targetType
    && s.namespace === target.namespace && s.name === target.name);
}
