import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { contentMismatch, MEDIA_FORMATS } from '../../src/domain/media-formats.js';
import { jsonTooDeepOffset, MAX_JSON_DEPTH } from '../../src/input/json.js';
import { runCli } from '../helpers/cli.js';
import { createMockApi, MOCK_ENV, type MockApi } from '../helpers/mock-api.js';

// Inputs the contract refuses are refused everywhere, before any request (exit 2, naming them):
// JSON nested past the limit, integers past the safe range, media whose content is not its type.

const dir = mkdtempSync(join(tmpdir(), 'svc-input-limits-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, content: string | Buffer): string => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};

let mock: MockApi | undefined;
afterEach(async () => {
  const used = mock;
  mock = undefined;
  if (used === undefined) return;
  used.verify();
  // Refused before anything is sent.
  expect(used.seen).toEqual([]);
  await used.agent.close();
});
const run = (argv: string[], stdin?: string) => {
  const api = createMockApi();
  mock = api;
  return runCli(argv, { env: { ...MOCK_ENV }, dispatcher: api.agent, ...(stdin !== undefined ? { stdin } : {}) });
};

const TENANT = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
const NUMBER = '+15551230000';
const deep = (levels: number): string => `${'['.repeat(levels)}${']'.repeat(levels)}`;
const deepObject = (levels: number): string => `{"settings":${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}}`;

describe('JSON nested deeper than the limit', () => {
  it('finds the first bracket past the limit, and ignores brackets inside strings', () => {
    expect(jsonTooDeepOffset(deep(MAX_JSON_DEPTH))).toBeUndefined();
    expect(jsonTooDeepOffset(deep(MAX_JSON_DEPTH + 1))).toBe(MAX_JSON_DEPTH);
    expect(jsonTooDeepOffset(`["${'['.repeat(1000)}\\"${'{'.repeat(1000)}"]`)).toBeUndefined();
  });

  it.each([
    ['svc api --data @file', (path: string) => ['api', 'POST', '/tenants', '--data', `@${path}`], deep(100_000)],
    ['svc tenant create --file', (path: string) => ['tenant', 'create', '--file', path], deepObject(100_000)],
    ['svc tenant update --file', (path: string) => ['tenant', 'update', TENANT, '--file', path], deepObject(200)],
    ['svc number update --file', (path: string) => ['number', 'update', NUMBER, '--file', path], deepObject(100_000)],
    ['svc number provision --file', (path: string) => ['number', 'provision', '--tenant', TENANT, '--type', 'SMS', '--class', 'P2P', '--file', path], deep(100_000)],
  ])('%s is exit 2 naming the file and the place', async (_name, argv, content) => {
    const path = file(`deep-${Math.random().toString(36).slice(2)}.json`, content);
    const result = await run(argv(path));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${path}:1:`);
    expect(result.stderr).toContain(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
    expect(result.stderr).not.toContain('call stack');
  });

  it('holds for --data given inline and on stdin too', async () => {
    const inline = await run(['api', 'POST', '/tenants', '--data', deep(5000)]);
    expect(inline.code).toBe(2);
    expect(inline.stderr).toContain('--data:1:');
    const stdin = await run(['api', 'POST', '/tenants', '--data', '@-'], deep(5000));
    expect(stdin.code).toBe(2);
    expect(stdin.stderr).toContain('<stdin>:1:');
  });
});

describe('integers past Number.MAX_SAFE_INTEGER', () => {
  it.each([
    [['number', 'list', '--page', '9007199254740993'], '--page'],
    [['number', 'list', '--limit', '9007199254740992'], '--limit'],
    [['number', 'list', '--page', '1e300'], '--page'],
    [['send', '--from', NUMBER, '--to', '+15551230001', '--body', 'hi', '--concurrency', '9007199254740993'], '--concurrency'],
  ])('%j is refused (exit 2), not sent rounded', async (argv, flag) => {
    const result = await run(argv);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(flag);
    expect(result.stderr).toContain(argv[argv.indexOf(flag) + 1]!);
  });

  it('says what the largest whole number is', async () => {
    const result = await run(['number', 'list', '--page', '9007199254740993']);
    expect(result.stderr).toContain(`no larger than ${Number.MAX_SAFE_INTEGER}`);
  });

  it('refuses an unsafe integer in a settings value', async () => {
    const result = await run(['number', 'update', NUMBER, '--set', 'settings.rateLimit=9007199254740993']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('9007199254740993');
  });
});

describe('media whose content is not its declared type', () => {
  const WINDOWS_PROGRAM = Buffer.concat([Buffer.from('MZ\x90\x00\x03\x00\x00\x00', 'latin1'), Buffer.alloc(120, 0)]);
  const ELF = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]), Buffer.alloc(100, 0)]);
  const ZIP = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(100, 1)]);
  const SCRIPT = Buffer.from('#!/bin/sh\nrm -rf ~\n');

  it.each(MEDIA_FORMATS.map((f) => [f.contentType] as const))('%s refuses a Windows program, an ELF binary, a zip and a script', (type) => {
    for (const content of [WINDOWS_PROGRAM, ELF, ZIP, SCRIPT]) expect(contentMismatch(content, type)).toBeDefined();
  });

  it.each([
    ['audio/mpeg', Buffer.concat([Buffer.from('ID3\x04\x00', 'latin1'), Buffer.alloc(64, 0)])],
    ['audio/mpeg', Buffer.concat([Buffer.from([0xff, 0xfb, 0x90, 0x64]), Buffer.alloc(64, 0)])],
    ['audio/aac', Buffer.concat([Buffer.from([0xff, 0xf1, 0x50, 0x80]), Buffer.alloc(64, 0)])],
    ['audio/wav', Buffer.concat([Buffer.from('RIFF\x24\x00\x00\x00WAVEfmt ', 'latin1'), Buffer.alloc(32, 0)])],
    ['image/png', Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 7)])],
    ['video/mp4', Buffer.concat([Buffer.from('\x00\x00\x00\x18ftypisom', 'latin1'), Buffer.alloc(32, 0)])],
    ['text/plain', Buffer.from('hello, world\n')],
    ['text/vcard', Buffer.from('BEGIN:VCARD\r\nVERSION:3.0\r\nFN:A\r\nEND:VCARD\r\n')],
    ['application/pdf', Buffer.from('%PDF-1.7\n%...')],
  ])('takes a real %s', (type, content) => {
    expect(contentMismatch(content, type)).toBeUndefined();
  });

  it.each([
    ['text/plain', Buffer.from([0x68, 0x69, 0xc3, 0x28]), 'not UTF-8 text'],
    ['text/vcard', Buffer.from('hello'), 'not a vCard'],
    ['video/mp4', Buffer.concat([Buffer.from('\x00\x00\x00\x18ftypheic', 'latin1'), Buffer.alloc(32, 0)]), 'image/heic'],
    ['audio/mpeg', Buffer.from('just some words, no frames'), 'not audio/mpeg'],
  ])('refuses a %s that is not one', (type, content, why) => {
    expect(contentMismatch(content, type)).toContain(why);
  });

  it('svc media upload refuses an .mp3 that is really a Windows program (exit 2), before any request', async () => {
    const path = file('song.mp3', WINDOWS_PROGRAM);
    const result = await run(['media', 'upload', path, '--number', NUMBER, '--tenant', TENANT]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${path}: the name says audio/mpeg but the content is application/x-msdownload`);
  });

  it('svc send --media-file refuses it too', async () => {
    const path = file('clip.wav', ELF);
    const result = await run(['send', '--from', NUMBER, '--to', '+15551230001', '--body', 'hi', '--media-file', path, '--tenant', TENANT]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('application/x-executable');
  });
});
