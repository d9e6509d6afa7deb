// The LOA upload's multipart/form-data, read by the platform (WHATWG `Response.formData()`), on a
// body the route has already read within its size limit: the reader is never handed an unbounded
// stream, and a broken body is a 400 naming what was expected rather than a parser's TypeError.

import { validationError } from './errors.js';

export interface FormFile {
  /** The part's `filename`, absent when the field was sent as a plain (non-file) value. */
  fileName: string | undefined;
  /**
   * The part's declared type. The platform reports a part sent without a Content-Type as
   * `text/plain` (RFC 7578 4.4's default), so `text/plain` may also mean "not declared".
   */
  contentType: string | undefined;
  data: Buffer;
}

export function isMultipartForm(contentType: string | undefined): contentType is string {
  return contentType !== undefined && /^multipart\/form-data\s*;.*\bboundary=/i.test(contentType);
}

/** The first value of `field` in a multipart body; undefined when the form has no such field. */
export async function readFormFile(body: Buffer, contentType: string, field: string): Promise<FormFile | undefined> {
  let form: FormData;
  try {
    form = await new Response(body, { headers: { 'content-type': contentType } }).formData();
  } catch {
    throw validationError('The body is not a readable multipart/form-data form (check the boundary and that the body ends with it)');
  }
  const value = form.get(field);
  if (value === null) return undefined;
  if (typeof value === 'string') return { fileName: undefined, contentType: undefined, data: Buffer.from(value, 'utf8') };
  return { fileName: value.name || undefined, contentType: value.type || undefined, data: Buffer.from(await value.arrayBuffer()) };
}
