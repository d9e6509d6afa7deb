// The sandbox's defaults, known to both the sandbox and `svc auth login --sandbox`.
export const SANDBOX_DEFAULT_PORT = 4010;
export const SANDBOX_DEFAULT_HOST = '127.0.0.1';
export const SANDBOX_DEFAULT_URL = `http://${SANDBOX_DEFAULT_HOST}:${SANDBOX_DEFAULT_PORT}`;
export const SANDBOX_DEFAULT_USER = { email: 'sandbox@example.com', password: 'sandbox' } as const;
