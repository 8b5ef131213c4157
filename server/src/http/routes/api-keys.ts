import {
  ApiKeysResponse,
  CreateApiKeyBody,
  CreateApiKeyResponse,
  ErrorResponse,
  IdParams,
  SuccessMessage,
} from '@wa/contract';
import { createApiKey, listApiKeys, revokeApiKey } from '../../api-keys/service.ts';
import type { AppContext } from '../../context.ts';
import type { App } from '../types.ts';
import { callerOf } from './caller.ts';

const errors = {
  400: ErrorResponse,
  401: ErrorResponse,
  403: ErrorResponse,
  404: ErrorResponse,
  429: ErrorResponse,
};

/** The signed-in user's API keys. */
export function registerApiKeyRoutes(app: App, { db, config }: AppContext): void {
  app.get(
    '/api/api-keys',
    {
      schema: { tags: ['api-keys'], summary: 'Your API keys', response: { 200: ApiKeysResponse, ...errors } },
    },
    async (request) => ({ success: true as const, keys: await listApiKeys(db, callerOf(request)) }),
  );

  app.post(
    '/api/api-keys',
    {
      // A key cannot make more keys: only a password sign-in can, with the password given again.
      config: { noApiKey: true },
      schema: {
        tags: ['api-keys'],
        summary:
          'Make a key (shown only in this answer) for Authorization: Bearer wak_…; needs the password (and the two-factor code when it is on)',
        body: CreateApiKeyBody,
        response: { 200: CreateApiKeyResponse, ...errors },
      },
    },
    async (request) => ({
      success: true as const,
      ...(await createApiKey(db, config, callerOf(request), request.body)),
    }),
  );

  app.delete(
    '/api/api-keys/:id',
    {
      schema: {
        tags: ['api-keys'],
        summary: 'Revoke a key: it stops working at once',
        params: IdParams,
        response: { 200: SuccessMessage, ...errors },
      },
    },
    async (request) => {
      await revokeApiKey(db, callerOf(request), request.params.id);
      return { success: true, message: 'API key revoked' };
    },
  );
}
