// The signature code is shared with the sandbox, so it lives in src/domain/signature.ts.
export * from '../domain/signature.js';
