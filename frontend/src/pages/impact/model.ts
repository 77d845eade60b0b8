// Pure helpers of the impact page: links to it, grouping by owner, and how a path and an owner read.

import type { ImpactAsset, ImpactEdge, ImpactOwner } from "./api";

export const NO_OWNER = "(no owner)";
export const DEFAULT_DEPTH = 10;

/** The impact page for the things that will change (a dataset, a job, or fields). */
export function impactPageHref(nodeIds: string[], depth?: number): string {
  const params = new URLSearchParams();
  for (const id of nodeIds) params.append("nodeId", id);
  if (depth !== undefined) params.set("depth", String(depth));
  return `/impact?${params}`;
}

export { fieldIdOf as fieldId } from "../../format";

export interface OwnerGroup {
  owner: string;
  inherited: boolean;
  assets: ImpactAsset[];
}

/** Assets under each of their owners (an asset with two owners is in both groups), biggest group first. */
export function groupByOwner(assets: ImpactAsset[]): OwnerGroup[] {
  const groups = new Map<string, OwnerGroup>();
  for (const asset of assets) {
    const owners: (ImpactOwner | null)[] = asset.owners.length ? asset.owners : [null];
    const seen = new Set<string>();
    for (const owner of owners) {
      const name = owner?.name ?? NO_OWNER;
      if (seen.has(name)) continue;
      seen.add(name);
      const group = groups.get(name) ?? { owner: name, inherited: true, assets: [] };
      group.inherited = group.inherited && Boolean(owner?.inherited);
      group.assets.push(asset);
      groups.set(name, group);
    }
  }
  return [...groups.values()].sort((a, b) =>
    Number(a.owner === NO_OWNER) - Number(b.owner === NO_OWNER) || b.assets.length - a.assets.length || a.owner.localeCompare(b.owner));
}

export function edgeText(edge: ImpactEdge): string {
  const kind = [edge.transformation, edge.subtype].filter(Boolean).join("/") || "?";
  return edge.job ? `${kind} by ${edge.job}` : kind;
}

export function ownerText(owner: ImpactOwner): string {
  const notes = [owner.role, owner.source].filter(Boolean) as string[];
  if (owner.inherited) notes.push("inherited from namespace");
  return notes.length ? `${owner.name} (${notes.join(", ")})` : owner.name;
}
