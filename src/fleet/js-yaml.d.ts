// Types for the part of js-yaml 4 the fleet reader uses (the package ships none).
declare module 'js-yaml' {
  export interface Schema {
    readonly __schema: unique symbol;
  }
  export const CORE_SCHEMA: Schema;
  export function load(text: string, options?: { schema?: Schema; filename?: string; json?: boolean }): unknown;
}
