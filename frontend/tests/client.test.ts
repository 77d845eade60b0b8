import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError, api, apiUrl, cookie, request, setUnauthenticatedHandler } from "../src/api/client";
import type { LineageResponse } from "../src/api/types";

function respond(status: number, body: unknown) {
  return vi.fn(async () => new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } }));
}

function firstUrl(mock: ReturnType<typeof respond>): string {
  return (mock.mock.calls[0] as unknown as [string])[0];
}

afterEach(() => {
  vi.unstubAllGlobals();
  document.cookie = "csrftoken=; expires=Thu, 01 Jan 1970 00:00:00 GMT";
});

describe("apiUrl", () => {
  it("url-encodes node ids with colons and slashes as one query parameter", () => {
    expect(apiUrl("/lineage", { nodeId: "dataset:file:///data:raw/orders", depth: 2 }))
      .toBe("/api/v1/lineage?nodeId=dataset%3Afile%3A%2F%2F%2Fdata%3Araw%2Forders&depth=2");
  });

  it("drops empty parameters and joins lists with commas", () => {
    expect(apiUrl("/search", { q: "orders", types: ["dataset", "job"], namespace: "", job: undefined }))
      .toBe("/api/v1/search?q=orders&types=dataset%2Cjob");
  });
});

describe("cookie", () => {
  it("finds one cookie among several", () => {
    expect(cookie("csrftoken", "sessionid=abc; csrftoken=t0k%3Den; other=1")).toBe("t0k=en");
    expect(cookie("missing", "a=1")).toBeNull();
  });
});

describe("request", () => {
  it("sends the session cookie and no CSRF header on GET", async () => {
    const fetchMock = respond(200, { ok: true });
    vi.stubGlobal("fetch", fetchMock);
    await request("/api/v1/namespaces");
    const [, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    expect(init.credentials).toBe("same-origin");
    expect((init.headers as Record<string, string>)["X-CSRFToken"]).toBeUndefined();
  });

  it("sends X-CSRFToken from the csrftoken cookie on writes", async () => {
    document.cookie = "csrftoken=secret-token";
    const fetchMock = respond(200, {});
    vi.stubGlobal("fetch", fetchMock);
    await request("/api/v1/thing", { method: "POST", body: { a: 1 } });
    const [, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    expect((init.headers as Record<string, string>)["X-CSRFToken"]).toBe("secret-token");
    expect(init.body).toBe('{"a":1}');
  });

  it("turns the API's error body into an ApiError naming the parameter", async () => {
    vi.stubGlobal("fetch", respond(400, { error: "invalid", message: "depth must be at most 20", path: "depth" }));
    const failure = await request("/api/v1/lineage").catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ApiError);
    expect((failure as ApiError).status).toBe(400);
    expect((failure as ApiError).body).toEqual({ error: "invalid", message: "depth must be at most 20", path: "depth" });
  });

  it("sends an unauthenticated user to the login page", async () => {
    const handler = vi.fn();
    setUnauthenticatedHandler(handler);
    vi.stubGlobal("fetch", respond(403, { detail: "Authentication credentials were not provided." }));
    await expect(request("/api/v1/namespaces")).rejects.toBeInstanceOf(ApiError);
    expect(handler).toHaveBeenCalledOnce();
  });

  it("shows a permission error to a logged-in user instead of a login loop", async () => {
    const handler = vi.fn();
    setUnauthenticatedHandler(handler);
    vi.stubGlobal("fetch", respond(403, { error: "permission_denied", message: "needs the read scope" }));
    await expect(request("/api/v1/namespaces")).rejects.toThrow("needs the read scope");
    expect(handler).not.toHaveBeenCalled();
  });
});

describe("api", () => {
  it("asks for lineage with node id, depth and direction, and returns the typed body", async () => {
    const body: LineageResponse = { nodeId: "job:spark:etl", depth: 1, direction: "both", level: "application", truncated: false, graph: [], clusters: [] };
    const fetchMock = respond(200, body);
    vi.stubGlobal("fetch", fetchMock);
    expect(await api.lineage("job:spark:etl", 1, "both")).toEqual(body);
    expect(firstUrl(fetchMock)).toBe("/api/v1/lineage?nodeId=job%3Aspark%3Aetl&depth=1&direction=both&level=application");
  });

  it("puts the run id in the path, encoded", async () => {
    const fetchMock = respond(200, {});
    vi.stubGlobal("fetch", fetchMock);
    await api.run("a/b");
    expect(firstUrl(fetchMock)).toBe("/api/v1/jobs/runs/a%2Fb");
  });

  it("pages failures with filters", async () => {
    const fetchMock = respond(200, { count: 0, results: [] });
    vi.stubGlobal("fetch", fetchMock);
    await api.failures({ namespace: "spark", since: "2026-01-05T00:00:00Z", limit: 50, offset: 50 });
    expect(firstUrl(fetchMock)).toBe("/api/v1/failures?namespace=spark&since=2026-01-05T00%3A00%3A00Z&limit=50&offset=50");
  });
});
