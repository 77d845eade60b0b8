// Who is signed in (`GET /api/v1/me`), asked once per page load: the header and the pages that show admins more share it.

import { apiUrl, request } from "../api/client";
import type { components } from "../api/schema";

export type Me = components["schemas"]["Me"];

let asked: Promise<Me> | null = null;

export function currentUser(): Promise<Me> {
  asked ??= request<Me>(apiUrl("/me"));
  return asked;
}

export function isAdmin(me: Pick<Me, "roles">): boolean {
  return me.roles.includes("admin");
}
