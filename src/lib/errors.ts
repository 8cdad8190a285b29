// Application errors: what a service throws to say "this request fails with this status".
// The HTTP error handler turns them into the seed's body {status, error, message} plus code
// (and `errors`, every problem, for a validation error found by a service: see `invalid`).

/** one problem of a request: the body member it is about, and a sentence that starts with it */
export interface Problem { field: string; message: string }

export class AppError extends Error {
  readonly status: number;
  readonly code: string;
  readonly headers: Record<string, string> | undefined;
  readonly problems: Problem[] | undefined;
  constructor(status: number, code: string, message: string, headers?: Record<string, string>, problems?: Problem[]) {
    super(message);
    this.status = status;
    this.code = code;
    this.headers = headers;
    this.problems = problems;
  }
}

export const badRequest = (message: string, code = 'bad_request') => new AppError(400, code, message);
/** 400 validation_error listing every problem, as schema validation does (the first is `message`) */
export const invalid = (problems: Problem[]) => new AppError(400, 'validation_error', problems[0]?.message ?? 'Invalid request', undefined, problems);
export const unauthorized = (message = 'Access token is missing or invalid') => new AppError(401, 'unauthorized', message);
export const forbidden = (message = 'Access forbidden') => new AppError(403, 'forbidden', message);
export const notFound = (what: string) => new AppError(404, 'not_found', `${what} not found`);
export const conflict = (message: string, code = 'conflict') => new AppError(409, code, message);
export const unavailable = (message: string) => new AppError(503, 'service_unavailable', message);

/** the reason phrase used as `error` in the body */
export function reasonPhrase(status: number): string {
  return REASONS[status] ?? (status >= 500 ? 'Internal Server Error' : 'Bad Request');
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  409: 'Conflict',
  410: 'Gone',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};
