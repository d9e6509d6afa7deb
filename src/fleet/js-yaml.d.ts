// Types for the part of js-yaml 4 the fleet reader uses (the package ships none); `dump` is for
// the tests that hold the quick reader (plain-yaml.ts) to js-yaml's values.
declare module 'js-yaml' {
  export interface Schema {
    readonly __schema: unique symbol;
  }
  export const CORE_SCHEMA: Schema;
  export function load(text: string, options?: { schema?: Schema; filename?: string; json?: boolean }): unknown;
  export function dump(value: unknown, options?: { schema?: Schema; flowLevel?: number; lineWidth?: number }): string;
}
