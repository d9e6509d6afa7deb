// Why a file could not be read or written, in plain words. The CLI (src/input/file-errors.ts) and
// the sandbox both word their file errors with this, so that one failure reads the same wherever
// it happens. The system's code follows in parentheses where it helps a search or a bug report.

const REASONS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  ENOTDIR: 'a part of the path is not a directory',
  EISDIR: 'it is a directory, not a file',
  EACCES: 'permission denied',
  EPERM: 'permission denied (the operation is not permitted)',
  ELOOP: 'too many levels of symbolic links',
  ENAMETOOLONG: 'the name is too long',
  EMFILE: 'too many files are open in this process',
  ENFILE: 'too many files are open on this system',
  ENXIO: 'no such device (a FIFO with nobody at the other end?)',
  ETXTBSY: 'the file is busy',
  EBUSY: 'the file is busy',
  EIO: 'input/output error (a failing disk or a lost network share)',
  ENOSPC: 'the disk is full (ENOSPC)',
  EDQUOT: 'the disk quota is used up (EDQUOT)',
  EFBIG: 'the file would grow past the size this process may write (EFBIG: a file size limit, ulimit -f)',
  EROFS: 'the file system is read-only (EROFS)',
  ESTALE: 'a stale network file handle (ESTALE)',
};

/** The error's system code (ENOENT, EACCES, ...), if it has one. */
export function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Plain words for why a file operation failed. An unknown code keeps the system's own message
 * less its "CODE: " prefix and the path, which the caller names itself.
 */
export function fileProblem(error: unknown): string {
  const code = errorCode(error);
  if (code !== undefined && REASONS[code] !== undefined) return REASONS[code];
  if (!(error instanceof Error)) return String(error);
  // Node words a system error as "EXYZ: what happened, syscall 'path'".
  const match = /^([A-Z0-9_]+): ([^,]+)(?:, \w+ '.*')?$/.exec(error.message);
  if (match !== null) return `${match[2]} (${match[1]})`;
  return error.message;
}

/** A size for a limit message: "64 KiB", "1 GiB", "5 MiB", or a count of bytes. */
export function describeLimit(bytes: number): string {
  const units: Array<[number, string]> = [
    [1024 * 1024 * 1024, 'GiB'],
    [1024 * 1024, 'MiB'],
    [1024, 'KiB'],
  ];
  for (const [size, unit] of units) if (bytes >= size && bytes % size === 0) return `${bytes / size} ${unit}`;
  return `${bytes} bytes`;
}
