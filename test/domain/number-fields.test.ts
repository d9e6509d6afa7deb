import { describe, expect, it } from 'vitest';
import { NUMBER_UPDATE_FIELDS, NUMBER_UPDATE_KEYS, numberFieldsOf, PROVISION_ENTRY_KEYS } from '../../src/domain/api/number-fields.js';
import { UPDATABLE_NUMBER_KEYS } from '../../src/fleet/definition.js';
import { openApiDocument } from '../../src/sandbox/openapi.js';

// The updatable number fields are stated once (src/domain/api/number-fields.ts); the OpenAPI
// document, the fleet and the kinds agree with that one list.

describe('the updatable fields of a phone number', () => {
  it('are the properties of the OpenAPI PhoneNumberUpdate schema, in order, each nullable', () => {
    const doc = openApiDocument() as { components: { schemas: Record<string, { properties: Record<string, unknown>; additionalProperties: boolean }> } };
    const schema = doc.components.schemas['PhoneNumberUpdate']!;
    expect(Object.keys(schema.properties)).toEqual(NUMBER_UPDATE_KEYS);
    expect(schema.additionalProperties).toBe(false);
    for (const [key, property] of Object.entries(schema.properties)) expect(JSON.stringify(property), key).toContain('null');
  });

  it('of a provision entry are the properties of the OpenAPI ProvisionEntry schema', () => {
    const doc = openApiDocument() as { components: { schemas: Record<string, { properties: Record<string, unknown> }> } };
    expect(Object.keys(doc.components.schemas['ProvisionEntry']!.properties).sort()).toEqual(['number', 'messagingFeature', ...PROVISION_ENTRY_KEYS].sort());
  });

  it('are what the fleet compares, besides settings', () => {
    expect([...UPDATABLE_NUMBER_KEYS, 'settings'].sort()).toEqual([...NUMBER_UPDATE_KEYS].sort());
  });

  it('split by kind without a field left over', () => {
    const kinds = ['text', 'link', 'boolean', 'platformType', 'billingPlanName', 'settings'] as const;
    expect(kinds.flatMap((kind) => numberFieldsOf(kind)).sort()).toEqual([...NUMBER_UPDATE_KEYS].sort());
    expect(numberFieldsOf('boolean')).toEqual(['isActivated', 'isMMSEnabled']);
    expect(NUMBER_UPDATE_FIELDS.loaUrl).toBe('link');
  });
});
