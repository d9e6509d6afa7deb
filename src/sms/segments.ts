// Segment counting is shared with the sandbox, so it lives in src/domain/segments.ts.
export * from '../domain/segments.js';
