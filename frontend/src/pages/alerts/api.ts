// The alert rules, routes and subscriptions API's types (generated from the served schema of `/api/v1/alerts/…`)
// and its typed calls.

import { apiUrl, request } from "../../api/client";
import type { components, operations } from "../../api/schema";

type Schemas = components["schemas"];

export type Rule = Schemas["RuleOutput"];
export type RuleKind = Rule["kind"];
export type RulePatch = NonNullable<operations["alert_rule_update"]["requestBody"]>["content"]["application/json"];
export type Route = Schemas["RouteOutput"];
export type RouteInput = Schemas["RouteInput"];
export type Subscription = Schemas["SubscriptionOutput"];
export type SubscriptionInput = Schemas["SubscriptionInput"];
export type TargetType = Subscription["targetType"];

export const alertsApi = {
  rules: () => request<Schemas["RulePage"]>(apiUrl("/alerts/rules")),
  ruleUpdate: (kind: RuleKind, body: RulePatch) =>
    request<Rule>(apiUrl(`/alerts/rules/${encodeURIComponent(kind)}`), { method: "PATCH", body }),
  routes: () => request<Schemas["RoutePage"]>(apiUrl("/alerts/routes")),
  routeCreate: (body: RouteInput) => request<Route>(apiUrl("/alerts/routes"), { method: "POST", body }),
  routeRemove: (id: number) => request<void>(apiUrl(`/alerts/routes/${id}`), { method: "DELETE" }),
  subscriptions: () => request<Schemas["SubscriptionPage"]>(apiUrl("/alerts/subscriptions")),
  subscriptionCreate: (body: SubscriptionInput) =>
    request<Subscription>(apiUrl("/alerts/subscriptions"), { method: "POST", body }),
  subscriptionRemove: (id: number) => request<void>(apiUrl(`/alerts/subscriptions/${id}`), { method: "DELETE" }),
};
