// Every error the sandbox answers has the document's 401 shape, {message, title, errorCode},
// with the codes docs/decisions.md#errors picks.

import type { ErrorCode } from '../domain/api/enums.js';

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export interface ErrorBody {
  message: string;
  title: string;
  errorCode: ErrorCode;
}

export class ApiError extends Error {
  readonly status: number;
  readonly errorCode: ErrorCode;
  readonly headers: Record<string, string>;

  constructor(status: number, errorCode: ErrorCode, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.errorCode = errorCode;
    this.headers = headers;
  }

  body(): ErrorBody {
    return { message: this.message, title: TITLES[this.status] ?? 'Error', errorCode: this.errorCode };
  }
}

export function validationError(message: string): ApiError {
  return new ApiError(400, 'VALIDATION_ERROR', message);
}

export function notFound(message: string): ApiError {
  return new ApiError(404, 'NOT_FOUND', message);
}

export function conflict(message: string): ApiError {
  return new ApiError(409, 'CONFLICT', message);
}
