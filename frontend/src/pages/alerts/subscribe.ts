// A "Subscribe" button for a dataset's or a job's page: the signed-in user follows it (or stops) in one click.

import { h, replace } from "../../dom";
import { currentUser } from "../../shell/me";
import { errorMessage } from "../../shell/widgets";
import { alertsApi, type TargetType } from "./api";
import { ownSubscriptionTo } from "./model";

export function subscribeButton(target: { targetType: TargetType; namespace: string; name: string }): HTMLElement {
  const box = h("span", { class: "subscribe", id: "subscribe" });
  const show = async () => {
    try {
      const [me, page] = await Promise.all([currentUser(), alertsApi.subscriptions()]);
      const existing = ownSubscriptionTo(page.results, target, me.username);
      const button = h("button", { type: "button", "data-subscribed": existing ? "true" : "false",
        title: existing ? `user:${me.username} hears of incidents touching it` : "hear of incidents touching it" },
      existing ? "✔ Subscribed · Unsubscribe" : "Subscribe");
      button.addEventListener("click", async () => {
        button.disabled = true;
        try {
          if (existing) await alertsApi.subscriptionRemove(existing.id);
          else await alertsApi.subscriptionCreate({ ...target });
          await show();
        } catch (error) {
          replace(box, button, errorMessage(error));
          button.disabled = false;
        }
      });
      replace(box, button);
    } catch (error) {
      replace(box, errorMessage(error));
    }
  };
  void show();
  return box;
}
