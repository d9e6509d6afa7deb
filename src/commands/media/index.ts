import { defineCommands, type GroupSpec } from '../spec.js';
import { UPLOAD_SHAPES } from '../../domain/media-formats.js';

export const mediaGroup: GroupSpec = { name: 'media', summary: 'upload media for MMS, and the supported formats' };

export const mediaCommands = defineCommands([
  {
    path: ['media', 'upload'],
    summary: 'upload a file and print its public link, to send with --media',
    description:
      'The file is checked first (format by extension and content, at most 5 MB). --shape chooses the\n' +
      'request shape: a (phoneNumber, contentType, data, tenantId), b (phoneNumberId, mimeType, content),\n' +
      'or auto (a, then b when the service refuses a with 400, 404 or 415).',
    args: [{ name: 'FILE', description: 'the file to upload', required: true }],
    options: [
      { flags: '--number <number>', description: 'your provisioned number the media is for (E.164)' },
      { flags: '--tenant <guid>', description: 'tenant of the number (shape a needs it)' },
      { flags: '--shape <shape>', description: 'request shape', choices: UPLOAD_SHAPES, defaultValue: 'auto' },
    ],
    examples: ['svc media upload photo.jpg --number +15551230000 --tenant 3f2504e0-4f89-11d3-9a0c-0305e82c3301', 'svc media upload card.vcf --number +15551230000 --shape b --json'],
    exitCodes: [1, 3, 4],
    load: () => import('./upload.js'),
  },
  {
    path: ['media', 'types'],
    summary: 'list the supported media formats and the size limits',
    examples: ['svc media types', 'svc media types --json | jq -r ".[].contentType"'],
    exitCodes: [],
    load: () => import('./types.js'),
  },
]);
