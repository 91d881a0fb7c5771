import type { FromSchema } from 'json-schema-to-ts';
import { closedObject } from './json-schema-parts.ts';

/** YAML `dashboard:` section: who may sign up, and the URL links in mails point at. */
export const dashboardSettingsSchema = closedObject({
  /** `open` (default in development mode) or `invite_only` (default in production). */
  signup: { type: 'string', enum: ['open', 'invite_only'] },
  /** The dashboard's address as people reach it (default: the service's own URL). */
  public_url: { type: 'string', pattern: '^https?://[^/?#]+/?$' },
});

export interface DashboardConfig {
  readonly signup: 'open' | 'invite_only';
  /** Origin of the dashboard as people reach it, no trailing slash; absent: the service's own URL. */
  readonly publicUrl?: string;
}

export function buildDashboard(
  section: FromSchema<typeof dashboardSettingsSchema> | undefined,
  mode: 'development' | 'production',
): DashboardConfig {
  const dashboard = section ?? {};
  return {
    signup: dashboard.signup ?? (mode === 'production' ? 'invite_only' : 'open'),
    publicUrl: dashboard.public_url?.replace(/\/$/, ''),
  };
}
