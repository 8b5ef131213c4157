import { CreditPricesBody, CreditPricesResponse, ErrorResponse } from '@wa/contract';
import type { AppContext } from '../../context.ts';
import { setCreditPricesAsAdmin } from '../../credits/price-settings.ts';
import { readCreditPrices } from '../../credits/prices.ts';
import { type App, requireAdmin, requireUser } from '../types.ts';

/** Credits per recipient for each kind of account: read by everyone signed in, set by an admin. */
export function registerCreditPriceRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/api/credit-prices',
    {
      schema: {
        tags: ['credits'],
        summary: 'Credits per recipient of a linked phone and of a Cloud API account',
        response: { 200: CreditPricesResponse, 401: ErrorResponse },
      },
    },
    async (request) => {
      requireUser(request);
      return { success: true as const, prices: await readCreditPrices(ctx.db) };
    },
  );

  app.put(
    '/api/admin/credit-prices',
    {
      schema: {
        tags: ['admin'],
        summary: 'Set the credits per recipient of a kind of account (whole numbers, at least 1)',
        body: CreditPricesBody,
        response: { 200: CreditPricesResponse, 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse },
      },
      // A user who is not an admin learns nothing from the body's checks: 403 first.
      preValidation: async (request) => {
        requireAdmin(request);
      },
    },
    async (request) => {
      const admin = requireAdmin(request);
      const prices = await setCreditPricesAsAdmin(ctx.db, admin, request.ip, request.body);
      return { success: true as const, prices };
    },
  );
}
