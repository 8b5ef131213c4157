import { Readable } from 'node:stream';
import multipart from '@fastify/multipart';
import {
  AddOptOutsBody,
  ContactListsResponse,
  ContactsQuery,
  ContactsResponse,
  ErrorResponse,
  GroupMembersListBody,
  GroupMembersListResponse,
  IdParams,
  ImportContactsResponse,
  OptOutsResponse,
  PhoneNumberParams,
  SuccessMessage,
} from '@wa/contract';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  contactsOfList,
  csvRows,
  deleteContactList,
  exportContactList,
  importContactList,
  listContactLists,
  listOptOuts,
  removeOptOut,
  saveGroupMembersAsList,
  xlsxRows,
} from '../../contacts/service.ts';
import type { AppContext } from '../../context.ts';
import { badRequest } from '../../errors.ts';
import { optOut } from '../../messaging/opt-outs.ts';
import { type App, requireUser } from '../types.ts';

const errors = { 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse };
/** A 1,000,000-row CSV with a few columns is ~60 MB; an .xlsx of it less. */
const MAX_UPLOAD_BYTES = 200 * 1024 * 1024;
const TOO_LARGE = 'The file is larger than 200 MB';

/** The rows of an upload: an .xlsx (a zip: `PK\x03\x04`) is read whole, a CSV streamed. */
async function* rowsOf(stream: AsyncIterable<Buffer>, truncated: () => boolean): AsyncGenerator<string[]> {
  const iterator = stream[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (first.done) return;
  const head: Buffer = first.value;
  const rest = {
    async *[Symbol.asyncIterator]() {
      yield head;
      for (let n = await iterator.next(); !n.done; n = await iterator.next()) yield n.value as Buffer;
    },
  };
  if (head.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x03, 0x04]))) {
    const chunks: Buffer[] = [];
    for await (const c of rest) chunks.push(c);
    if (truncated()) throw badRequest(TOO_LARGE);
    yield* xlsxRows(Buffer.concat(chunks));
  } else {
    yield* csvRows(rest);
  }
  // Thrown inside the import's transaction: a file cut at the size limit leaves no list behind.
  if (truncated()) throw badRequest(TOO_LARGE);
}

/** Contact lists and the opt-out list of the signed-in user (issue 15). */
export async function registerContactRoutes(app: App, ctx: AppContext): Promise<void> {
  const cc = ctx.config.defaultCountryCode;

  app.get(
    '/api/contact-lists',
    {
      schema: {
        tags: ['contacts'],
        summary: 'Your contact lists',
        response: { 200: ContactListsResponse, ...errors },
      },
    },
    async (request) => ({
      success: true as const,
      lists: await listContactLists(ctx.db, requireUser(request)),
    }),
  );

  await app.register(async (scoped) => {
    await scoped.register(multipart, { limits: { fileSize: MAX_UPLOAD_BYTES, files: 1, fields: 10 } });
    scoped.withTypeProvider<ZodTypeProvider>().post(
      '/api/contact-lists/import',
      {
        schema: {
          tags: ['contacts'],
          summary:
            'Import a CSV or Excel (.xlsx) file as a contact list (multipart: file, name, phoneColumn)',
          consumes: ['multipart/form-data'],
          response: { 200: ImportContactsResponse, ...errors },
        },
      },
      async (request) => {
        const user = requireUser(request);
        if (!request.isMultipart()) throw badRequest('Send the file as multipart/form-data');
        const fields: Record<string, string> = {};
        let file: Readable | null = null;
        let truncated = () => false;
        for await (const part of request.parts()) {
          if (part.type === 'field') {
            fields[part.fieldname] = String(part.value ?? '');
          } else if (part.fieldname === 'file' && !file) {
            // Fields sent after the file: keep the file in memory to read them first.
            if (fields.name === undefined) file = Readable.from([await part.toBuffer()]);
            else {
              file = part.file;
              truncated = () => part.file.truncated;
              break;
            }
          } else {
            part.file.resume();
          }
        }
        if (!file) throw badRequest('File is required');
        const result = await importContactList(
          ctx.db,
          user,
          { name: fields.name ?? '', phoneColumn: fields.phoneColumn, rows: rowsOf(file, truncated) },
          cc,
        );
        return { success: true as const, ...result };
      },
    );
  });

  app.post(
    '/api/contact-lists/from-group',
    {
      schema: {
        tags: ['contacts'],
        summary: "Save a group's members as a contact list (field `role`)",
        body: GroupMembersListBody,
        response: { 200: GroupMembersListResponse, ...errors },
      },
    },
    async (request) => ({
      success: true as const,
      ...(await saveGroupMembersAsList(ctx.db, requireUser(request), request.body, cc)),
    }),
  );

  app.get(
    '/api/contact-lists/:id/contacts',
    {
      schema: {
        tags: ['contacts'],
        summary: "A list's contacts, in file order",
        params: IdParams,
        querystring: ContactsQuery,
        response: { 200: ContactsResponse, ...errors },
      },
    },
    async (request) => ({
      success: true as const,
      ...(await contactsOfList(ctx.db, requireUser(request), request.params.id, request.query)),
    }),
  );

  app.get(
    '/api/contact-lists/:id/export.csv',
    { schema: { tags: ['contacts'], summary: 'A list as CSV', params: IdParams } },
    async (request, reply) => {
      const chunks = exportContactList(ctx.db, requireUser(request), request.params.id);
      // The first chunk checks access: a refusal is a 404 before any byte is sent.
      const first = await chunks.next();
      const body = Readable.from(
        (async function* () {
          if (!first.done) yield first.value;
          yield* chunks;
        })(),
      );
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="contacts-${request.params.id}.csv"`)
        .send(body);
    },
  );

  app.delete(
    '/api/contact-lists/:id',
    {
      schema: {
        tags: ['contacts'],
        summary: 'Delete a contact list',
        params: IdParams,
        response: { 200: SuccessMessage, ...errors },
      },
    },
    async (request) => {
      await deleteContactList(ctx.db, requireUser(request), request.params.id);
      return { success: true, message: 'Contact list deleted' };
    },
  );

  app.get(
    '/api/opt-outs',
    {
      schema: {
        tags: ['contacts'],
        summary: 'Numbers you no longer message',
        response: { 200: OptOutsResponse, ...errors },
      },
    },
    async (request) => ({
      success: true as const,
      optOuts: await listOptOuts(ctx.db, requireUser(request).id),
    }),
  );

  app.post(
    '/api/opt-outs',
    {
      schema: {
        tags: ['contacts'],
        summary: 'Add numbers to your opt-out list',
        body: AddOptOutsBody,
        response: { 200: SuccessMessage, ...errors },
      },
    },
    async (request) => {
      const added = await optOut(ctx, requireUser(request).id, request.body.phoneNumbers, 'manual');
      return { success: true, message: `${added.length} number${added.length === 1 ? '' : 's'} opted out` };
    },
  );

  app.delete(
    '/api/opt-outs/:phoneNumber',
    {
      schema: {
        tags: ['contacts'],
        summary: 'Take a number off your opt-out list',
        params: PhoneNumberParams,
        response: { 200: SuccessMessage, ...errors },
      },
    },
    async (request) => {
      await removeOptOut(ctx.db, requireUser(request).id, request.params.phoneNumber, cc);
      return { success: true, message: 'Opt-out removed' };
    },
  );
}
