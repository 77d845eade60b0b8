// What the Destinations page decides without the DOM: which address a kind takes, the body a form sends,
// how a delivery's outcome reads.

import type { Delivery, DestinationInput, DestinationKind } from "./api";

export const KINDS: { value: DestinationKind; label: string }[] = [
  { value: "webhook", label: "Webhook (signed JSON)" },
  { value: "slack", label: "Slack" },
  { value: "teams", label: "Microsoft Teams" },
  { value: "email", label: "Email" },
];

/** The field a kind's address goes in: a mailbox for email, a URL for the webhooks. */
export function addressField(kind: DestinationKind): "email" | "url" {
  return kind === "email" ? "email" : "url";
}

/** Only a generic webhook is signed, so only it takes a secret. */
export function takesSecret(kind: DestinationKind): boolean {
  return kind === "webhook";
}

export interface DestinationForm {
  name: string;
  kind: DestinationKind;
  address: string;
  secret: string;
  enabled: boolean;
}

/**
 * The body a form sends. On create every field goes; on edit an empty secret is left out, which keeps the stored
 * one (it is never read back), and a Slack or Teams URL left as shown (`https://host/…`, its key hidden) is kept.
 */
export function destinationBody(form: DestinationForm, editing: { url: string } | null): Partial<DestinationInput> {
  const field = addressField(form.kind);
  const body: Partial<DestinationInput> = { name: form.name.trim(), kind: form.kind, enabled: form.enabled };
  const address = form.address.trim();
  const hiddenUnchanged = editing !== null && field === "url" && address === editing.url && address.endsWith("/…");
  if (!hiddenUnchanged) {
    body.url = field === "url" ? address : "";
    body.email = field === "email" ? address : "";
  }
  if (takesSecret(form.kind) ? form.secret !== "" || editing === null : editing === null) {
    body.secret = takesSecret(form.kind) ? form.secret : "";
  }
  return body;
}

/** A test message's or a delivery's outcome in words. */
export function outcomeText(delivery: Pick<Delivery, "state" | "attempts" | "lastError">): string {
  switch (delivery.state) {
    case "sent":
      return "Sent";
    case "dead":
      return `Dead-lettered after ${delivery.attempts} tries: ${delivery.lastError}`;
    default:
      return delivery.lastError
        ? `Not delivered yet (try ${delivery.attempts}): ${delivery.lastError}. It will be retried.`
        : "Waiting to be sent";
  }
}
