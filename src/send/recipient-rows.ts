// A recipient as a recipients file gives it, and what the reading finds wrong with a line.

/** Header names that mark the number column, in the order they are looked for. */
export const NUMBER_COLUMN_NAMES = ['phone', 'number', 'to', 'recipient'] as const;

export type RecipientsFormat = 'text' | 'csv';

export interface RecipientRow {
  /** Line of the file where the record starts (1-based; the header is line 1 of a CSV file). */
  line: number;
  /** The E.164 number, trimmed. */
  to: string;
  /** Every column of the row by its header name (empty for a text file). */
  fields: Record<string, string>;
}

export interface RecipientProblem {
  /** The line at fault, or null for a problem with the file as a whole. */
  line: number | null;
  /** Ready to print, prefixed with `file:line: `. */
  message: string;
}

export interface DuplicateRecipient {
  to: string;
  line: number;
  firstLine: number;
  /** Ready to print as a warning, prefixed with `file:line: `. */
  message: string;
}
