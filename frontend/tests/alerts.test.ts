import { describe, expect, it } from "vitest";
import { ownSubscriptionTo, scopeList, scopeText, subscriptionBody, targetText } from "../src/pages/alerts/model";

describe("rule scope", () => {
  it("reads a typed list: commas or lines, trimmed, no empties, no repeats", () => {
    expect(scopeList(" shop, file:///lake ,\nshop,, ")).toEqual(["shop", "file:///lake"]);
    expect(scopeList("   ")).toEqual([]);
    expect(scopeText(["team:a", "team:b"])).toBe("team:a, team:b");
    expect(scopeList(scopeText(["postgres://db:5432", "team:x"]))).toEqual(["postgres://db:5432", "team:x"]);
  });
});

describe("subscriptions", () => {
  const sub = { id: 3, subscriber: "user:ann", targetType: "dataset" as const, namespace: "file:///lake", name: "bronze/orders" };

  it("sends a namespace subscription without a name and leaves the subscriber to the server when none is typed", () => {
    expect(subscriptionBody({ targetType: "namespace", namespace: " shop ", name: "left over", subscriber: " " }))
      .toEqual({ targetType: "namespace", namespace: "shop", name: "" });
    expect(subscriptionBody({ targetType: "job", namespace: "shop", name: " revenue ", subscriber: "team:finance" }))
      .toEqual({ targetType: "job", namespace: "shop", name: "revenue", subscriber: "team:finance" });
  });

  it("says what a subscription follows", () => {
    expect(targetText(sub)).toBe("dataset bronze/orders in file:///lake");
    expect(targetText({ targetType: "namespace", namespace: "shop", name: "" })).toBe("namespace shop");
  });

  it("finds the user's own subscription to a dataset, not a team's nor another dataset's", () => {
    const target = { targetType: "dataset" as const, namespace: "file:///lake", name: "bronze/orders" };
    const team = { ...sub, id: 4, subscriber: "team:finance" };
    const other = { ...sub, id: 5, name: "silver/orders" };
    expect(ownSubscriptionTo([team, other, sub], target, "ann")?.id).toBe(3);
    expect(ownSubscriptionTo([team, other], target, "ann")).toBeUndefined();
    expect(ownSubscriptionTo([sub], { ...target, targetType: "job" }, "ann")).toBeUndefined();
  });
});
