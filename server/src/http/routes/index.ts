import type { AppContext } from '../../context.ts';
import type { App } from '../types.ts';
import { registerAdminRoutes } from './admin.ts';
import { registerApiKeyRoutes } from './api-keys.ts';
import { registerAuthRoutes } from './auth.ts';
import { registerContactRoutes } from './contacts.ts';
import { registerDashboardRoutes } from './dashboard.ts';
import { registerGroupRoutes } from './groups.ts';
import { registerHealthRoutes } from './health.ts';
import { registerJobRoutes } from './jobs.ts';
import { registerMetaRoutes } from './meta.ts';
import { registerSendRoutes } from './send.ts';
import { registerSessionPolicyRoutes } from './session-policy.ts';
import { registerSessionRoutes } from './sessions.ts';
import { registerSimulatorRoutes } from './simulator.ts';
import { registerWebhookRoutes } from './webhooks.ts';

/** Every route of the API, one module a domain. */
export async function registerRoutes(app: App, ctx: AppContext): Promise<void> {
  registerHealthRoutes(app, ctx);
  registerMetaRoutes(app, ctx);
  registerAuthRoutes(app, ctx);
  registerAdminRoutes(app, ctx);
  registerSessionRoutes(app, ctx);
  registerSessionPolicyRoutes(app, ctx);
  registerGroupRoutes(app, ctx);
  registerSendRoutes(app, ctx);
  registerJobRoutes(app, ctx);
  registerDashboardRoutes(app, ctx);
  registerWebhookRoutes(app, ctx);
  registerApiKeyRoutes(app, ctx);
  await registerContactRoutes(app, ctx);
  if (ctx.config.waProvider === 'simulator') registerSimulatorRoutes(app, ctx);
}
