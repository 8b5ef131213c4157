import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
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
import { consentOfImport } from '../../contacts/consent.ts';
import { importContactList } from '../../contacts/import.ts';
import { IMPORT_LIMITS, IMPORT_MESSAGES } from '../../contacts/import-limits.ts';
import { assertRoomForList } from '../../contacts/list-lock.ts';
import { listOptOuts, removeOptOut } from '../../contacts/opt-out-list.ts';
import {
  CONTACT_MESSAGES,
  contactsOfList,
  deleteContactList,
  exportContactList,
  listContactLists,
  saveGroupMembersAsList,
} from '../../contacts/service.ts';
import { rowsOfFile } from '../../contacts/table-rows.ts';
import type { AppContext } from '../../context.ts';
import { badRequest, conflict } from '../../errors.ts';
import { optOut } from '../../messaging/opt-outs.ts';
import { type App, requireUser } from '../types.ts';

const errors = { 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse };

/**
 * The uploaded file, written to a temporary file as it arrives (never whole in memory, and an
 * .xlsx is then read from its end, where a zip's directory is); removed by `done`.
 */
async function spool(
  file: Readable & { truncated?: boolean },
): Promise<{ path: string; done: () => Promise<void> }> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'wa-import-'));
  const done = () => fs.rm(dir, { recursive: true, force: true });
  try {
    const target = path.join(dir, 'upload');
    await pipeline(file, createWriteStream(target, { flags: 'wx', mode: 0o600 }));
    if (file.truncated) throw badRequest(IMPORT_MESSAGES.tooLarge);
    return { path: target, done };
  } catch (e) {
    await done();
    throw e;
  }
}

/** Contact lists and the opt-out list of the signed-in user. */
export async function registerContactRoutes(app: App, ctx: AppContext): Promise<void> {
  const cc = ctx.config.defaultCountryCode;
  /** Users whose import runs in this process (the database lock covers the other nodes). */
  const importing = new Set<string>();

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
    await scoped.register(multipart, {
      limits: { fileSize: IMPORT_LIMITS.maxUploadBytes, files: 1, fields: 10, fieldSize: 64 * 1024 },
    });
    scoped.withTypeProvider<ZodTypeProvider>().post(
      '/api/contact-lists/import',
      {
        schema: {
          tags: ['contacts'],
          summary:
            'Import a CSV or Excel (.xlsx) file as a contact list (multipart: file, name, phoneColumn; consentConfirmed=true and consentPurpose record that the people agreed, and for what)',
          consumes: ['multipart/form-data'],
          response: { 200: ImportContactsResponse, 409: ErrorResponse, ...errors },
        },
      },
      async (request) => {
        const user = requireUser(request);
        if (!request.isMultipart()) throw badRequest('Send the file as multipart/form-data');
        // One import at a time per user: a second is refused before its file is read.
        if (importing.has(user.id)) throw conflict(IMPORT_MESSAGES.importRunning);
        importing.add(user.id);
        let upload: Awaited<ReturnType<typeof spool>> | null = null;
        try {
          await assertRoomForList(ctx.db, user.id);
          const fields: Record<string, string> = {};
          let fileName: string | null = null;
          for await (const part of request.parts()) {
            if (part.type === 'field') {
              fields[part.fieldname] = String(part.value ?? '');
              // As long as a list made from a group may be named; refused before the file is read.
              if (part.fieldname === 'name' && fields.name!.trim().length > 200)
                throw badRequest(CONTACT_MESSAGES.nameTooLong);
            } else if (part.fieldname === 'file' && !upload) {
              fileName = part.filename || null;
              upload = await spool(part.file);
            } else part.file.resume();
          }
          if (!upload) throw badRequest('File is required');
          const confirmed = consentOfImport(fields);
          const result = await importContactList(
            ctx.db,
            user,
            {
              name: fields.name ?? '',
              phoneColumn: fields.phoneColumn,
              rows: rowsOfFile(upload.path),
              embedded: ctx.database.kind === 'pglite',
              consent: confirmed && {
                purpose: confirmed.purpose,
                fileName,
                by: { id: user.id, username: user.username },
              },
            },
            cc,
          );
          return { success: true as const, ...result };
        } finally {
          importing.delete(user.id);
          await upload?.done();
        }
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
        response: { 200: GroupMembersListResponse, 409: ErrorResponse, ...errors },
      },
    },
    async (request) => {
      const user = requireUser(request);
      return {
        success: true as const,
        ...(await saveGroupMembersAsList(ctx.db, user, request.body, cc, {
          id: user.id,
          username: user.username,
        })),
      };
    },
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
