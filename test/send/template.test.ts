import { describe, expect, it } from 'vitest';
import { compileTemplate, findPlaceholders, TemplateError } from '../../src/send/template.js';

const columns = ['phone', 'First Name', 'city'];

describe('compileTemplate', () => {
  it('fills placeholders from the row, case-insensitively, with whitespace inside the braces', () => {
    const template = compileTemplate('Hi {{ first name }}, see you in {{CITY}}{{city}}!', columns);
    expect(template.isStatic).toBe(false);
    expect(template.columns).toEqual(['First Name', 'city']);
    expect(template.render({ phone: '+15550100001', 'First Name': 'Ada', city: 'Paris' })).toBe(
      'Hi Ada, see you in ParisParis!',
    );
  });

  it('renders a missing or empty field as empty text', () => {
    const template = compileTemplate('[{{city}}]', columns);
    expect(template.render({ city: '' })).toBe('[]');
    expect(template.render({})).toBe('[]');
  });

  it('does not expand placeholders found in the values', () => {
    const template = compileTemplate('{{city}} {{phone}}', columns);
    expect(template.render({ city: '{{phone}}', phone: '+1' })).toBe('{{phone}} +1');
  });

  it('a body without placeholders is static and returned as it is', () => {
    const template = compileTemplate('Hello { world } {{ not closed', []);
    expect(template.isStatic).toBe(true);
    expect(template.columns).toEqual([]);
    expect(template.render({ anything: 'x' })).toBe('Hello { world } {{ not closed');
  });

  it('keeps braces around a placeholder literal', () => {
    expect(compileTemplate('{{{city}}}', columns).render({ city: 'X' })).toBe('{X}');
    expect(compileTemplate('{{city}}}', columns).render({ city: 'X' })).toBe('X}');
  });

  it('names an unknown placeholder and the columns', () => {
    let caught: unknown;
    try {
      compileTemplate('Hi {{name}} from {{ town }} and {{name}}', columns);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(TemplateError);
    const error = caught as TemplateError;
    expect(error.message).toBe('unknown placeholders {{name}}, {{town}} in the body; the columns are: phone, First Name, city');
    expect(error.placeholders).toEqual(['name', 'town']);
    expect(error.available).toEqual(columns);
  });

  it('explains that a text file or plain --to has no columns', () => {
    expect(() => compileTemplate('Hi {{name}}', [])).toThrow(
      'unknown placeholder {{name}} in the body: placeholders are filled from the columns of a CSV --to-file, and there are none',
    );
  });

  it('refuses an empty placeholder', () => {
    expect(() => compileTemplate('Hi {{ }}', columns)).toThrow('unknown placeholder {{}} (a placeholder needs a column name)');
  });
});

describe('findPlaceholders', () => {
  it('lists every placeholder with its offset and raw text', () => {
    expect(findPlaceholders('a {{ x }} b {{y}}')).toEqual([
      { name: 'x', raw: '{{ x }}', offset: 2 },
      { name: 'y', raw: '{{y}}', offset: 12 },
    ]);
    expect(findPlaceholders('{{a\nb}}')).toEqual([]);
  });
});
