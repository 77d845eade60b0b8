// A dataset's other names (docs/identity.md): each with how it came to be known and the job that named it so first.

import type { DatasetDetail } from "../../api/types";
import { h } from "../../dom";
import { nodeLink } from "../../shell/widgets";

type Alias = DatasetDetail["aliases"][number];

// Named as a dataset, given as a symlink, or declared by the hierarchy and catalog facets.
const ALIAS_KINDS: Record<Alias["source"]["kind"], string> = {
  dataset: "named",
  symlink: "symlink",
  catalog: "catalog",
};

export function aliasList(aliases: Alias[]): HTMLElement {
  return aliases.length
    ? h("ul", { class: "aliases" }, aliases.map((alias) =>
      h("li", { "data-alias-kind": alias.source.kind }, h("span", { class: "mono" }, `${alias.namespace}:${alias.name}`),
        h("span", { class: "muted" }, ` · ${ALIAS_KINDS[alias.source.kind]}`, alias.source.job ? " by " : ""),
        alias.source.job ? nodeLink(alias.source.job) : null)))
    : h("p", { class: "muted" }, "No other names.");
}
