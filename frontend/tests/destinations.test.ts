import { describe, expect, it } from "vitest";
import { addressField, destinationBody, outcomeText, takesSecret } from "../src/pages/destinations/model";

const form = { name: " hook ", kind: "webhook" as const, address: " https://hooks.internal/x ", secret: "s3cret", enabled: true };

describe("destination form", () => {
  it("sends the address in the kind's field and the secret on create", () => {
    expect(destinationBody(form, null)).toEqual({ name: "hook", kind: "webhook", enabled: true, url: "https://hooks.internal/x", email: "", secret: "s3cret" });
    expect(destinationBody({ ...form, kind: "email", address: "oncall@example.com", secret: "" }, null))
      .toEqual({ name: "hook", kind: "email", enabled: true, url: "", email: "oncall@example.com", secret: "" });
    expect(addressField("teams")).toBe("url");
    expect(takesSecret("slack")).toBe(false);
  });

  it("keeps the stored secret and a hidden Slack URL when an edit leaves them as they are", () => {
    const edited = destinationBody({ ...form, secret: "" }, { url: "https://hooks.internal/x" });
    expect(edited).not.toHaveProperty("secret");
    const slack = destinationBody({ ...form, kind: "slack", address: "https://hooks.slack.com/…", secret: "" }, { url: "https://hooks.slack.com/…" });
    expect(slack).not.toHaveProperty("url");
    expect(slack).not.toHaveProperty("secret");
    expect(destinationBody({ ...form, secret: "new" }, { url: "https://hooks.internal/x" }).secret).toBe("new");
  });

  it("says how a delivery went", () => {
    expect(outcomeText({ state: "sent", attempts: 1, lastError: "" })).toBe("Sent");
    expect(outcomeText({ state: "pending", attempts: 1, lastError: "HTTP 503: down" })).toBe("Not delivered yet (try 1): HTTP 503: down. It will be retried.");
    expect(outcomeText({ state: "dead", attempts: 8, lastError: "HTTP 500" })).toBe("Dead-lettered after 8 tries: HTTP 500");
  });
});
