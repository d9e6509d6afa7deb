import { readFileSync } from 'node:fs';

// The shared test vectors, copied into test/fixtures (the project reads nothing outside itself).

export interface SignatureVector {
  name: string;
  secret: string;
  body: string;
  bodyUtf8Hex: string;
  xSvcSignature: string;
}

export const signatureVectors = JSON.parse(
  readFileSync(new URL('../fixtures/webhook-signatures.json', import.meta.url), 'utf8'),
) as SignatureVector[];
