// The Trust page's log section: an alarm for each open witness refusal, then the transparency log's checkpoints,
// newest first, each witnessed (cosigned by a registered witness) or not, a page at a time.

import { api } from "../../api/client";
import type { LogCheckpointList, WitnessAlarm, WitnessedCheckpoint } from "../../api/types";
import { h, replace } from "../../dom";
import { formatTime } from "../../format";
import { errorMessage, loading } from "../../shell/widgets";

const PAGE = 20;

const ALARM_LABELS: Record<WitnessAlarm["kind"], string> = {
  rollback: "rolled back",
  fork: "forked",
  inconsistent: "inconsistent history",
  unverified: "unverified checkpoint",
};

export function checkpointHistory(): HTMLElement {
  const alarms = h("div", { id: "witness-alarms" });
  const summary = h("p", { class: "muted", id: "checkpoint-summary" });
  const rows = h("tbody", {});
  const more = h("div", {}, loading());
  const load = (before?: number) =>
    api.ledgerCheckpoints({ limit: PAGE, before }).then(
      (page) => {
        if (before === undefined) {
          replace(alarms, ...page.alarms.map(alarmBanner));
          replace(summary, summaryText(page));
        }
        rows.append(...page.results.map(checkpointRow));
        replace(more, page.next !== null
          ? h("button", { type: "button", onclick: () => { replace(more, loading()); void load(page.next ?? undefined); } }, "Older checkpoints")
          : h("span", { class: "muted" }, page.count ? `${page.count} checkpoints` : "No checkpoint signed yet."));
      },
      (error) => replace(more, errorMessage(error)));
  void load();
  return h("section", { class: "ledger-checkpoints" },
    alarms,
    h("h2", {}, "Checkpoints"),
    summary,
    h("div", { class: "table-scroll" },
      h("table", { class: "grid checkpoint-history", id: "checkpoint-history" },
        h("thead", {}, h("tr", {},
          h("th", {}, "Tree size"), h("th", {}, "Signed"), h("th", {}, "Root hash"), h("th", {}, "Witnessed"), h("th", {}, "Cosigned by"))),
        rows)),
    more);
}

function summaryText(page: LogCheckpointList): string {
  const witnesses = page.witnesses === 1 ? "1 witness registered" : `${page.witnesses} witnesses registered`;
  const waiting = page.unwitnessed ? `; ${page.unwitnessed} newest checkpoint${page.unwitnessed === 1 ? "" : "s"} not witnessed yet` : "";
  return `A witness cosigns a checkpoint only after checking that it extends the last one it cosigned: ${witnesses}${waiting}.`;
}

function alarmBanner(alarm: WitnessAlarm): HTMLElement {
  const offered = alarm.offeredSize === null ? "a checkpoint" : `tree size ${alarm.offeredSize}`;
  return h("div", { class: "witness-alarm", role: "alert", "data-kind": alarm.kind, "data-witness": alarm.witness },
    h("strong", {}, `Witness ${alarm.witness} refused the log: ${ALARM_LABELS[alarm.kind]}. `),
    `It had cosigned tree size ${alarm.cosignedSize} and was offered ${offered}. `,
    h("span", { class: "witness-alarm-reason" }, `${alarm.reason.charAt(0).toUpperCase()}${alarm.reason.slice(1)}.`),
    h("div", { class: "muted" },
      `First reported ${formatTime(alarm.firstReportedAt)}`,
      alarm.reports > 1 ? `, ${alarm.reports} times, last ${formatTime(alarm.lastReportedAt)}` : "",
      ". The witness's signed report and the checkpoint it refused are kept (Django admin, Witness alarms)."));
}

function checkpointRow(checkpoint: WitnessedCheckpoint): HTMLElement {
  return h("tr", { "data-tree-size": String(checkpoint.treeSize), "data-witnessed": String(checkpoint.witnessed) },
    h("td", { class: "num" }, String(checkpoint.treeSize)),
    h("td", { class: "nowrap" }, formatTime(checkpoint.signedAt)),
    h("td", { class: "mono", title: checkpoint.note }, `${checkpoint.rootHash.slice(0, 16)}…`),
    h("td", {}, checkpoint.witnessed
      ? h("span", { class: "badge witness-yes" }, "witnessed")
      : h("span", { class: "badge witness-no" }, "not witnessed")),
    h("td", {}, checkpoint.cosignatures.length
      ? checkpoint.cosignatures.map((c) => h("span", { class: "chip", title: `cosigned ${formatTime(c.cosignedAt)}, key ${c.keyHash}` }, c.witness))
      : "—"));
}
