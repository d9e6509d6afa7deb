// Replaced by the build with the package's version; the fallback serves in-process tests.
declare const __SVC_VERSION__: string | undefined;
export const VERSION: string = typeof __SVC_VERSION__ === 'string' ? __SVC_VERSION__ : '0.0.0-dev';
