import { EraseResponse, ErrorResponse, PersonalData, PersonalDataQuery, PhoneParams } from '@wa/contract';
import { recordAudit } from '../../audit/record.ts';
import { personalData, personalDataCsv, phoneOf } from '../../contacts/personal-data.ts';
import type { AppContext } from '../../context.ts';
import { erasePerson } from '../../messaging/erasure.ts';
import { type App, requireUser } from '../types.ts';

const errors = { 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse };

/**
 * A person's data on request, and its erasure (India's DPDP Act): what the signed-in
 * user holds about one number. Both are in the audit log, by the number's last four digits.
 */
export function registerPersonalDataRoutes(app: App, ctx: AppContext): void {
  const cc = ctx.config.defaultCountryCode;

  app.get(
    '/api/contacts/by-phone/:phone',
    {
      schema: {
        tags: ['contacts'],
        summary:
          'Everything held about a number: lists, fields, consent, opt-out, messages (JSON or ?format=csv)',
        params: PhoneParams,
        querystring: PersonalDataQuery,
        response: { 200: PersonalData, ...errors },
      },
    },
    async (request, reply) => {
      const user = requireUser(request);
      const phone = phoneOf(request.params.phone, cc);
      const data = await personalData(ctx.db, ctx.config.secretKey, user.id, phone);
      await recordAudit(ctx.db, {
        actor: { id: user.id, username: user.username },
        action: 'contact.export',
        targetUserId: user.id,
        details: { phoneLast4: phone.slice(-4), format: request.query.format },
        ip: request.ip,
      });
      if (request.query.format === 'json') return data;
      return (
        reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="personal-data-${phone}.csv"`)
          // A string is sent as it is (Fastify serialises only objects by the response schema).
          .send(personalDataCsv(data) as unknown as typeof data)
      );
    },
  );

  app.delete(
    '/api/contacts/by-phone/:phone',
    {
      schema: {
        tags: ['contacts'],
        summary:
          'Erase a number: off your lists, kept out of sends by a keyed token, replaced by that token in past jobs',
        params: PhoneParams,
        response: { 200: EraseResponse, ...errors },
      },
    },
    async (request) => {
      const user = requireUser(request);
      const phone = phoneOf(request.params.phone, cc);
      const done = await erasePerson(ctx, { id: user.id, username: user.username }, user.id, phone);
      return { success: true as const, ...done };
    },
  );
}
