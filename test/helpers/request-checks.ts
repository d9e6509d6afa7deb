import { afterAll, afterEach, beforeEach, expect } from 'vitest';

// Every fake transport (an undici MockAgent from mock-api.ts, a route server from
// http-server.ts) registers its checks here when it is made, and this module runs them, so that
// no test has to remember to: after each test, no request arrived that nothing was set up to
// answer, and every stubbed request was made. A fake made inside a test (or its beforeEach) is
// checked whole after that test; one made in a beforeAll, and shared by a file's tests, has its
// unexpected requests checked after each test and its unused routes after the file.
// vitest.config.ts loads this module as a setup file, so the hooks are registered once for every
// test file, before the file's own hooks (and run after them).

export interface RequestChecks {
  /** Requests that arrived since the last call, which nothing was set up to answer. */
  takeUnexpected(): string[];
  /** Stubs that were never used (or not as many times as set). */
  unused(): string[];
}

let inTest = false;
const perTest: RequestChecks[] = [];
const perFile: RequestChecks[] = [];

export function registerRequestChecks(checks: RequestChecks): void {
  (inTest ? perTest : perFile).push(checks);
}

function complaints(fakes: readonly RequestChecks[], withUnused: boolean): string[] {
  const lines: string[] = [];
  for (const fake of fakes) {
    for (const request of fake.takeUnexpected()) lines.push(`unexpected request: ${request}`);
    if (withUnused) for (const stub of fake.unused()) lines.push(`stubbed but never requested: ${stub}`);
  }
  return lines;
}

beforeEach(() => {
  inTest = true;
});

afterEach((context) => {
  inTest = false;
  const fakes = perTest.splice(0);
  const failed = context.task.result?.state === 'fail';
  // A test that failed already says why; what its fakes saw would mostly repeat it. What they
  // saw is taken all the same, so that it is not blamed on the next test.
  const lines = complaints(fakes, !failed).concat(complaints(perFile, false));
  if (!failed) expect(lines, 'requests of the fake transports').toEqual([]);
});

afterAll(() => {
  const lines = complaints(perFile.splice(0), true);
  expect(lines, 'requests of the fake transports shared by this file').toEqual([]);
});

/**
 * What the fakes made in the running test complain of, taken now instead of after the test: for
 * the tests of this module, which need to see the complaints without failing.
 */
export function takeComplaints(): string[] {
  return complaints(perTest.splice(0), true);
}
