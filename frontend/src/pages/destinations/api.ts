// The destinations and deliveries API's types (generated from the served schema of `/api/v1/alerts/…`) and its typed calls.

import { apiUrl, request } from "../../api/client";
import type { components } from "../../api/schema";

type Schemas = components["schemas"];

export type Destination = Schemas["DestinationOutput"];
export type DestinationKind = Schemas["DestinationKindEnum"];
export type DestinationInput = Schemas["DestinationInput"];
export type DestinationPage = Schemas["DestinationPage"];
export type Delivery = Schemas["DeliveryOutput"];
export type DeliveryState = Schemas["DeliveryStateEnum"];
export type DeliveryPage = Schemas["DeliveryPage"];

export const destinationsApi = {
  list: () => request<DestinationPage>(apiUrl("/alerts/destinations", { limit: 500 })),
  create: (body: DestinationInput) => request<Destination>(apiUrl("/alerts/destinations"), { method: "POST", body }),
  update: (id: number, body: Partial<DestinationInput>) =>
    request<Destination>(apiUrl(`/alerts/destinations/${id}`), { method: "PATCH", body }),
  remove: (id: number) => request<void>(apiUrl(`/alerts/destinations/${id}`), { method: "DELETE" }),
  test: (id: number) => request<Delivery>(apiUrl(`/alerts/destinations/${id}/test`), { method: "POST" }),
  deliveries: (state?: DeliveryState, limit = 100) => request<DeliveryPage>(apiUrl("/alerts/deliveries", { state, limit })),
  retry: (id: number) => request<Delivery>(apiUrl(`/alerts/deliveries/${id}/retry`), { method: "POST" }),
};
