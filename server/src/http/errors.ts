import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { isUniqueViolation } from '../db/client.ts';
import { AppError } from '../errors.ts';

const FASTIFY_MESSAGES: Record<string, string> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'Request body is too large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Unsupported content type: send JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'Request body is empty: send JSON',
  FST_ERR_CTP_INVALID_JSON_BODY: 'Request body is not valid JSON',
};

function validationMessage(error: FastifyError): string {
  if (!hasZodFastifySchemaValidationErrors(error)) return error.message;
  const first = error.validation[0];
  if (!first) return 'Invalid request';
  const where = (first.instancePath ?? '').replace(/^\//, '').replaceAll('/', '.');
  const message = first.message ?? 'Invalid request';
  // A missing or wrongly typed body or field gets zod's generic text; name the place.
  if (/^Invalid input/.test(message)) {
    return where ? `Invalid value for ${where}` : `Invalid request ${error.validationContext ?? ''}`.trim();
  }
  return message;
}

/**
 * A failed query's error carries its parameters (password hashes, auth state): log the driver's
 * code and the statement only. Other errors are logged whole (the logger scrubs secrets too).
 */
function loggableError(error: Error): unknown {
  const cause = (error as { cause?: { code?: unknown; constraint?: unknown; message?: unknown } }).cause;
  if (!cause || typeof cause.code !== 'string') return error;
  return {
    type: 'DatabaseError',
    code: cause.code,
    constraint: cause.constraint,
    message: String(cause.message ?? ''),
    query: error.message.split('\nparams:')[0],
    stack: error.stack?.split('\n').slice(1).join('\n'),
  };
}

/** The one place errors become answers: always JSON `{ success: false, message }`; 5xx hide details. */
export function errorHandler(error: FastifyError | AppError, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof AppError) {
    return reply.status(error.status).send({ success: false, message: error.message, ...error.details });
  }
  if (hasZodFastifySchemaValidationErrors(error)) {
    return reply.status(400).send({ success: false, message: validationMessage(error) });
  }
  // A race the service's own check did not see (two creations of one name at once).
  if (isUniqueViolation(error))
    return reply.status(409).send({ success: false, message: 'This already exists' });
  const status = error.statusCode ?? 500;
  if (status < 500) {
    const message = (error.code && FASTIFY_MESSAGES[error.code]) || error.message || 'Bad request';
    return reply.status(status).send({ success: false, message });
  }
  request.log.error({ err: loggableError(error), reqId: request.id }, 'request failed');
  return reply.status(status).send({
    success: false,
    message: `Internal server error (request ${request.id}). Please try again later.`,
  });
}
