// The explorer's time row: Now · At… (the graph as it was at an instant) · Compare… (what changed between two),
// whether stale edges are drawn, and the legend of how edges and changes are drawn. Instants are typed in UTC,
// as every time in the UI is shown.

import { h, replace } from "../../../dom";
import { INFERRED_COLOR } from "../../../graph/renderers";
import { TIME_COLORS } from "../../../graph/renderers/time";
import type { ExplorerState } from "../state";
import type { Intent } from "../store";
import { edgeSample, legendItem } from "./legend";
import { inputInstant, inputValue, instantText, type TimeKind } from "../time";

const DAY_MS = 24 * 60 * 60 * 1000;

export class TimeControl {
  readonly element: HTMLElement;
  private readonly buttons: Record<TimeKind, HTMLButtonElement>;
  private readonly atForm: HTMLFormElement;
  private readonly compareForm: HTMLFormElement;
  private readonly atInput = h("input", { type: "datetime-local", id: "time-at-input", step: "1", required: true });
  private readonly fromInput = h("input", { type: "datetime-local", id: "time-from", step: "1", required: true });
  private readonly toInput = h("input", { type: "datetime-local", id: "time-to", step: "1", required: true });
  private readonly problem = h("span", { class: "time-problem", id: "time-problem", role: "alert" });
  private readonly stale = h("input", { type: "checkbox", id: "show-stale" });
  private readonly staleLabel: HTMLLabelElement;
  private readonly legend = h("div", { class: "legend edge-legend", id: "edge-legend", "aria-label": "How edges are drawn" });
  /** The form open (a choice not applied yet), else the place's own. */
  private open: TimeKind = "now";
  private place: ExplorerState;

  constructor(place: ExplorerState, private readonly emit: (intent: Intent) => void) {
    this.place = place;
    const button = (kind: TimeKind, text: string, title: string, controls?: string) => h("button", {
      type: "button", id: `time-${kind}`, class: "toggle", title, ...(controls ? { "aria-controls": controls } : {}),
      onclick: () => this.choose(kind),
    }, text);
    this.buttons = {
      now: button("now", "Now", "The lineage as it is now: the edges the jobs' latest completed runs confirmed"),
      at: button("at", "At…", "The lineage as it was at an instant", "time-at-form"),
      compare: button("compare", "Compare…", "What changed between two instants, drawn as one graph", "time-compare-form"),
    };
    this.atForm = h("form", { class: "time-form", id: "time-at-form", "aria-label": "Show the lineage at an instant" },
      h("label", {}, "At ", this.atInput, h("span", { class: "muted" }, " UTC")),
      h("button", { type: "submit" }, "Show"));
    this.compareForm = h("form", { class: "time-form", id: "time-compare-form", "aria-label": "Compare the lineage at two instants" },
      h("label", {}, "From ", this.fromInput),
      h("label", {}, "to ", this.toInput, h("span", { class: "muted" }, " UTC")),
      h("button", { type: "submit" }, "Compare"));
    this.atForm.addEventListener("submit", (event) => { event.preventDefault(); this.submitAt(); });
    this.compareForm.addEventListener("submit", (event) => { event.preventDefault(); this.submitCompare(); });
    for (const input of [this.atInput, this.fromInput, this.toInput]) input.addEventListener("input", () => this.problemShow(""));
    this.stale.addEventListener("change", () => this.emit({ kind: "stale", stale: this.stale.checked }));
    this.staleLabel = h("label", { class: "stale-toggle", title: "Also draw the edges that their job's latest completed run no longer confirmed" },
      this.stale, " Show stale edges");
    this.element = h("div", { class: "toolbar timebar" },
      h("div", { class: "segmented", role: "group", "aria-label": "Time" }, this.buttons.now, this.buttons.at, this.buttons.compare),
      this.atForm, this.compareForm, this.problem, this.staleLabel, this.legend);
    this.render(place);
  }

  /** Show the place's time: its button pressed, its form open with its instants, stale edges on or off. */
  render(place: ExplorerState): void {
    this.place = place;
    this.open = place.time.kind;
    const { time } = place;
    const now = Date.now();
    this.atInput.value = inputValue(time.kind === "at" ? time.at : time.kind === "compare" ? time.to : instantText(new Date(now - DAY_MS)));
    this.fromInput.value = inputValue(time.kind === "compare" ? time.from : time.kind === "at" ? time.at : instantText(new Date(now - 7 * DAY_MS)));
    this.toInput.value = inputValue(time.kind === "compare" ? time.to : instantText(new Date(now)));
    this.stale.checked = place.stale;
    const comparing = time.kind === "compare";
    this.stale.disabled = comparing;
    this.staleLabel.title = comparing
      ? "A comparison shows what changed between its two instants: stale edges have no part in it"
      : "Also draw the edges that their job's latest completed run no longer confirmed";
    this.problemShow("");
    this.formsShow();
    replace(this.legend, ...this.legendItems(place));
  }

  private choose(kind: TimeKind): void {
    if (kind === "now") { this.open = "now"; this.formsShow(); this.emit({ kind: "time", time: { kind: "now" } }); return; }
    this.open = kind;
    this.formsShow();
    (kind === "at" ? this.atInput : this.fromInput).focus();
  }

  private formsShow(): void {
    const applied = this.place.time.kind;
    for (const kind of ["now", "at", "compare"] as const) this.buttons[kind].setAttribute("aria-pressed", String(applied === kind));
    this.buttons.at.setAttribute("aria-expanded", String(this.open === "at"));
    this.buttons.compare.setAttribute("aria-expanded", String(this.open === "compare"));
    this.atForm.hidden = this.open !== "at";
    this.compareForm.hidden = this.open !== "compare";
  }

  private problemShow(text: string): void {
    this.problem.textContent = text;
    this.problem.hidden = !text;
  }

  private submitAt(): void {
    const at = inputInstant(this.atInput.value);
    if (!at) { this.problemShow("Give the instant to look at."); this.atInput.focus(); return; }
    this.emit({ kind: "time", time: { kind: "at", at } });
  }

  private submitCompare(): void {
    const from = inputInstant(this.fromInput.value), to = inputInstant(this.toInput.value);
    if (!from || !to) { this.problemShow("Give both instants to compare."); (from ? this.toInput : this.fromInput).focus(); return; }
    if (Date.parse(from) >= Date.parse(to)) { this.problemShow("The first instant must come before the second."); this.fromInput.focus(); return; }
    this.emit({ kind: "time", time: { kind: "compare", from, to } });
  }

  /** How edges are drawn at this place: current and (when shown) stale ones, or a comparison's changes. */
  private legendItems(place: ExplorerState): HTMLElement[] {
    if (place.time.kind === "compare") {
      return [
        legendItem(edgeSample(TIME_COLORS.added, null), "+ added", "added"),
        legendItem(edgeSample(TIME_COLORS.removed, "2 3"), "− removed", "removed"),
        legendItem(edgeSample(TIME_COLORS.current, null, 0.35), "unchanged", "unchanged"),
      ];
    }
    return [
      legendItem(edgeSample(TIME_COLORS.current, null), "current edge", "current"),
      ...(place.stale ? [legendItem(edgeSample(TIME_COLORS.stale, "6 4"), "stale edge (hover: last seen)", "stale")] : []),
      legendItem(edgeSample(INFERRED_COLOR, "3 3"), "inferred from column lineage", "inferred"),
    ];
  }
}
