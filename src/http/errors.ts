// One error handler for every failure: application errors, validation errors (400 naming the
// field; every problem listed in `errors`), Fastify's own errors (malformed JSON, 413, 415),
// unknown routes (404) and wrong methods (405). The body is always {status, error, message, code, request_id}; a 500 says
// nothing about internals (the details go to the log).
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, reasonPhrase } from '../lib/errors.ts';
import { validationProblems, type ValidationIssue, type ValidationProblem } from './validation-messages.ts';

export function errorBody(status: number, code: string, message: string, requestId: string, errors?: ValidationProblem[]) {
  return { status, error: reasonPhrase(status), message, code, request_id: requestId, ...(errors ? { errors } : {}) };
}

export function installErrorHandling(app: FastifyInstance, routePatterns: () => Array<{ method: string; regex: RegExp }>): void {
  app.setErrorHandler((err: FastifyError | AppError | Error, request: FastifyRequest, reply: FastifyReply) => {
    let status: number;
    let code: string;
    let message: string;
    let problems: ValidationProblem[] | undefined;
    if (err instanceof AppError) {
      status = err.status;
      code = err.code;
      message = err.message;
      problems = err.problems;
      if (err.headers) reply.headers(err.headers);
    } else if ((err as FastifyError).validation) {
      const fe = err as FastifyError & { validationContext?: string };
      status = 400;
      code = 'validation_error';
      problems = validationProblems(fe.validation as ValidationIssue[], fe.validationContext);
      message = problems[0]?.message ?? 'Invalid request';
    } else if (typeof (err as FastifyError).statusCode === 'number' && (err as FastifyError).statusCode! >= 400 && (err as FastifyError).statusCode! < 500) {
      status = (err as FastifyError).statusCode!;
      code = (err as FastifyError).code?.startsWith('FST_ERR_CTP_') ? fastifyCode(status) : fastifyCode(status);
      message = fastifyMessage(err as FastifyError, status);
    } else {
      status = 500;
      code = 'internal_error';
      message = 'Internal server error';
      request.log.error({ err }, 'unhandled error');
    }
    if (status >= 500 && status !== 500) request.log.warn({ err: { message: err.message } }, 'request failed');
    reply.code(status).type('application/json').send(errorBody(status, code, message, String(request.id), problems));
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!; // /api/v1 already rewritten away: what the routes match
    const allowed = routePatterns().filter((r) => r.regex.test(path)).map((r) => r.method);
    if (allowed.length > 0) {
      reply.header('allow', [...new Set(allowed)].join(', '));
      reply.code(405).send(errorBody(405, 'method_not_allowed', `${request.method} is not allowed on this path; use ${[...new Set(allowed)].join(', ')}`, String(request.id)));
      return;
    }
    const sent = (request.originalUrl ?? request.url).split('?')[0]!;
    reply.code(404).send(errorBody(404, 'not_found', `No route for ${request.method} ${sent}`, String(request.id)));
  });
}

function fastifyCode(status: number): string {
  switch (status) {
    case 413: return 'payload_too_large';
    case 415: return 'unsupported_media_type';
    case 404: return 'not_found';
    default: return 'bad_request';
  }
}

function fastifyMessage(err: FastifyError, status: number): string {
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ? 'The request body is empty but Content-Type is application/json' : 'The request body is not valid JSON';
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'The request body is too large';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'Unsupported Content-Type; send application/json';
    default:
      return status === 400 && err.message ? err.message.replace(/^FST_\w+:\s*/, '') : reasonPhrase(status);
  }
}
