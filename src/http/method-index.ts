import type { FastifyInstance, RouteOptions } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { AppError } from '../core/errors.ts';

/**
 * Which methods each registered path answers, so that a request the router did not take because of
 * its method (not its path) gets 405 with `Allow` (RFC 9110, section 15.5.6) instead of 404. Fastify's
 * own router only answers "no route"; this one holds the same routes with the same path rules.
 */
export interface MethodIndex {
  /** The methods the path answers, sorted; empty when no route has this path. */
  allowedMethods(url: string): string[];
}

export function indexRouteMethods(app: FastifyInstance): MethodIndex {
  const router = FindMyWay({ ignoreTrailingSlash: true, maxParamLength: 100 });
  const methods = new Set<HTTPMethod>();
  const taken = new Set<string>();
  app.addHook('onRoute', (route: RouteOptions) => {
    const routeMethods = (Array.isArray(route.method) ? route.method : [route.method]) as HTTPMethod[];
    for (const method of routeMethods) {
      const key = `${method} ${route.url}`;
      if (taken.has(key)) continue;
      taken.add(key);
      methods.add(method);
      router.on(method, route.url, () => {});
    }
  });
  return {
    allowedMethods(url) {
      const allowed: string[] = [];
      for (const method of methods) if (router.find(method, url) !== null) allowed.push(method);
      return allowed.sort();
    },
  };
}

export function methodNotAllowed(method: string, path: string, allowed: readonly string[]): AppError {
  return new AppError('method_not_allowed', `${method} is not served at ${path}; it answers ${allowed.join(', ')}`, {
    headers: { allow: allowed.join(', ') },
  });
}
