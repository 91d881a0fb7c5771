// What the areas of the mock dashboard API (mock-api.ts) share: the run's clock, the request as an area's
// routes read it, and the JSON answers.
import type { Route } from 'playwright-core';
import type { sessionFixture } from './mock-api.ts';

// Relative to the run's own clock, so the pages' ranges (the last 24 h, 30 days) hold the data.
const now = Date.now();
export const iso = (msAgo: number) => new Date(now - msAgo).toISOString();
export const minute = 60_000;
export const hour = 60 * minute;
export const day = 24 * hour;

/** A request to /dashboard/api, signed in and past the CSRF check, as an area's routes read it. */
export interface ApiRequest {
  route: Route;
  method: string;
  /** The path below /dashboard/api. */
  path: string;
  /** `METHOD /path`. */
  key: string;
  query: URLSearchParams;
  // biome-ignore lint/suspicious/noExplicitAny: request bodies are read as the page sent them
  body: any;
  session: ReturnType<typeof sessionFixture>;
}

/** Answers the request if it is one of the area's routes; undefined leaves it to the next area. */
export type AreaRoutes = (request: ApiRequest) => Promise<void> | undefined;

export const json = (route: Route, status: number, body?: unknown) =>
  route.fulfill({ status, contentType: 'application/json', body: body === undefined ? '' : JSON.stringify(body) });
export const error = (route: Route, status: number, code: string, message: string) =>
  json(route, status, { error: { code, message, status } });
