import { MetaResponse } from '@wa/contract';
import type { AppContext } from '../../context.ts';
import type { App } from '../types.ts';

/** Public facts the web app needs before sign-in: the demo banner, the sign-up link, the CSV country code. */
export function registerMetaRoutes(app: App, { config }: AppContext): void {
  app.get(
    '/api/meta',
    { schema: { tags: ['meta'], response: { 200: MetaResponse } }, config: { public: true } },
    async () => ({
      success: true as const,
      waProvider: config.waProvider,
      signupEnabled: config.signupEnabled,
      defaultCountryCode: config.defaultCountryCode,
    }),
  );
}
