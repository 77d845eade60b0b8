// Destinations (admins): where alerts are delivered, a test message to each, and the dead letters to retry.

import { ApiError } from "../../api/client";
import { h, replace } from "../../dom";
import { formatTime } from "../../format";
import { errorMessage, loading } from "../../shell/widgets";
import { destinationsApi, type Delivery, type Destination, type DestinationKind } from "./api";
import { KINDS, addressField, destinationBody, outcomeText, takesSecret } from "./model";

export function DestinationsPage(root: HTMLElement): void {
  const list = h("div", { id: "destinations" }, loading());
  const editor = h("div", { id: "destination-editor" });
  const dead = h("div", { id: "dead-letters" }, loading());
  replace(root, h("div", { class: "page destinations-page" },
    h("h1", {}, "Destinations"),
    h("p", { class: "muted" },
      "Where alerts are delivered: email, Slack, Microsoft Teams or a signed JSON webhook. ",
      "Secrets are write-only: once saved they are never shown again."),
    list, editor,
    h("h2", {}, "Dead letters"),
    h("p", { class: "muted" }, "Deliveries that failed every try. Fix the destination, then retry them."),
    dead));

  const refresh = async () => {
    try {
      const [destinations, letters] = await Promise.all([destinationsApi.list(), destinationsApi.deliveries("dead")]);
      replace(list, destinationTable(destinations.results, { edit: showEditor, refresh }));
      replace(dead, deadLetterTable(letters.results, letters.count, refresh));
    } catch (error) {
      const refused = error instanceof ApiError && error.status === 403;
      replace(list, refused ? h("p", { class: "message error" }, "Managing destinations needs an admin.") : errorMessage(error));
      replace(dead);
    }
  };
  const showEditor = (destination: Destination | null) => {
    replace(editor, destinationEditor(destination, async () => { replace(editor, addButton()); await refresh(); },
      () => replace(editor, addButton())));
    editor.querySelector("input")?.focus();
  };
  const addButton = () => h("button", { type: "button", id: "destination-add", onclick: () => showEditor(null) }, "Add a destination");
  replace(editor, addButton());
  void refresh();
}

interface RowActions {
  edit: (destination: Destination) => void;
  refresh: () => Promise<void>;
}

function destinationTable(destinations: Destination[], actions: RowActions): HTMLElement {
  if (!destinations.length) return h("p", { class: "muted" }, "No destinations yet.");
  return h("table", { class: "grid destinations-table" },
    h("thead", {}, h("tr", {},
      h("th", {}, "Name"), h("th", {}, "Kind"), h("th", {}, "Address"), h("th", {}, "Signed"), h("th", {}, "Enabled"),
      h("th", {}, "Dead letters"), h("th", {}, "Test"), h("th", {}, ""))),
    h("tbody", {}, destinations.map((destination) => destinationRow(destination, actions))));
}

function destinationRow(destination: Destination, actions: RowActions): HTMLElement {
  const outcome = h("span", { class: "test-outcome" });
  const test = h("button", { type: "button", class: "destination-test" }, "Send test message");
  test.addEventListener("click", async () => {
    test.disabled = true;
    replace(outcome, "Sending…");
    try {
      const delivery = await destinationsApi.test(destination.id);
      replace(outcome, h("span", { class: delivery.state === "sent" ? "outcome-sent" : "outcome-failed", "data-state": delivery.state },
        outcomeText(delivery)));
    } catch (error) {
      replace(outcome, errorMessage(error));
    } finally {
      test.disabled = false;
    }
  });
  const remove = h("button", { type: "button", class: "link-button" }, "Delete");
  remove.addEventListener("click", async () => {
    if (!window.confirm(`Delete the destination “${destination.name}” and its deliveries?`)) return;
    await destinationsApi.remove(destination.id);
    await actions.refresh();
  });
  return h("tr", { "data-destination": destination.name },
    h("td", {}, destination.name),
    h("td", {}, KINDS.find((k) => k.value === destination.kind)?.label ?? destination.kind),
    h("td", { class: "mono" }, destination.kind === "email" ? destination.email : destination.url),
    h("td", {}, destination.kind === "webhook" ? (destination.hasSecret ? "✔ secret set" : "no secret") : "—"),
    h("td", {}, destination.enabled ? "yes" : "no"),
    h("td", {}, destination.deadDeliveries ? h("strong", { class: "outcome-failed" }, String(destination.deadDeliveries)) : "0"),
    h("td", { class: "cell-test" }, test, " ", outcome),
    h("td", { class: "nowrap" }, h("button", { type: "button", class: "link-button", onclick: () => actions.edit(destination) }, "Edit"),
      " ", remove));
}

function destinationEditor(editing: Destination | null, saved: () => Promise<void>, cancel: () => void): HTMLElement {
  const name = h("input", { type: "text", name: "name", required: true, value: editing?.name ?? "", size: 28 });
  const kind = h("select", { name: "kind" },
    KINDS.map((k) => h("option", { value: k.value, selected: k.value === (editing?.kind ?? "webhook") }, k.label)));
  const address = h("input", { type: "text", name: "address", size: 48,
    value: editing ? (editing.kind === "email" ? editing.email : editing.url) : "" });
  const addressLabel = h("span", {});
  const secret = h("input", { type: "password", name: "secret", autocomplete: "new-password", size: 28,
    placeholder: editing?.hasSecret ? "unchanged (set: type a new one to replace it)" : "" });
  const secretLabel = h("label", {}, "Signing secret ", secret);
  const enabled = h("input", { type: "checkbox", name: "enabled", checked: editing?.enabled ?? true });
  const problem = h("div", {});
  const showKind = () => {
    const chosen = kind.value as DestinationKind;
    replace(addressLabel, addressField(chosen) === "email" ? "Email " : "URL ");
    address.placeholder = chosen === "email" ? "oncall@example.com" : chosen === "slack"
      ? "https://hooks.slack.com/services/…" : "https://…";
    secretLabel.hidden = !takesSecret(chosen);
  };
  kind.addEventListener("change", showKind);
  showKind();
  const form = h("form", { class: "filters destination-form", id: "destination-form" },
    h("h2", {}, editing ? `Edit “${editing.name}”` : "Add a destination"),
    h("label", {}, "Name ", name), h("label", {}, "Kind ", kind), h("label", {}, addressLabel, address),
    secretLabel, h("label", {}, enabled, " enabled"),
    h("button", { type: "submit" }, editing ? "Save" : "Add"),
    h("button", { type: "button", class: "link-button", onclick: cancel }, "Cancel"),
    problem);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = destinationBody(
      { name: name.value, kind: kind.value as DestinationKind, address: address.value, secret: secret.value, enabled: enabled.checked },
      editing);
    try {
      if (editing) await destinationsApi.update(editing.id, body);
      else await destinationsApi.create(body as Required<typeof body>);
      await saved();
    } catch (error) {
      replace(problem, errorMessage(error));
    }
  });
  return form;
}

function deadLetterTable(deliveries: Delivery[], count: number, refresh: () => Promise<void>): HTMLElement {
  if (!deliveries.length) return h("p", { class: "muted", id: "no-dead-letters" }, "None: every delivery arrived or is still being tried.");
  return h("div", {},
    h("table", { class: "grid dead-letter-table" },
      h("thead", {}, h("tr", {},
        h("th", {}, "Enqueued"), h("th", {}, "Destination"), h("th", {}, "Message"), h("th", {}, "Tries"),
        h("th", {}, "Last error"), h("th", {}, ""))),
      h("tbody", {}, deliveries.map((delivery) => {
        const retry = h("button", { type: "button", class: "delivery-retry" }, "Retry");
        retry.addEventListener("click", async () => {
          retry.disabled = true;
          await destinationsApi.retry(delivery.id);
          await refresh();
        });
        return h("tr", { "data-delivery": delivery.idempotencyKey },
          h("td", { class: "nowrap" }, formatTime(delivery.createdAt)),
          h("td", {}, delivery.destination.name),
          h("td", {}, delivery.title, h("div", { class: "muted mono" }, delivery.idempotencyKey)),
          h("td", {}, String(delivery.attempts)),
          h("td", { class: "error-cell" }, delivery.lastError),
          h("td", {}, retry));
      }))),
    count > deliveries.length ? h("p", { class: "muted" }, `${deliveries.length} of ${count} dead letters`) : null);
}
