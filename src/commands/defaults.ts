// Values that both a command's declaration (index.ts, loaded for every command line) and its
// body need. Kept here, not in the index files, so that a body importing one does not split the
// command tree into many small files that `svc --help` would each have to load.

export const API_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD'] as const;
export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export const DEFAULT_CONCURRENCY = 8;
export const DEFAULT_SECRET_ENV = 'SVC_WEBHOOK_SECRET';
export const DEFAULT_LISTEN_PORT = 4242;
