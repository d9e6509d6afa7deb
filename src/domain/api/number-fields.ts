// What a phone number's PUT takes, stated once. The API document's PUT takes "any updatable
// fields"; which those are, and what each holds, is read here by the sandbox (which refuses the
// rest), `svc number update` (which checks a --file before sending it), the fleet (which compares
// them) and the OpenAPI document (whose PhoneNumberUpdate schema is built from this list).

/** How each updatable field is held: free text, an https link, a yes/no, one of an enum, or the settings object. */
export type NumberFieldKind = 'text' | 'link' | 'boolean' | 'platformType' | 'billingPlanName' | 'settings';

/** The updatable fields in the order the OpenAPI document lists them. */
export const NUMBER_UPDATE_FIELDS = {
  userId: 'text',
  platformType: 'platformType',
  description: 'text',
  externalId: 'text',
  campaignId: 'text',
  brandId: 'text',
  loaUrl: 'link',
  isActivated: 'boolean',
  isMMSEnabled: 'boolean',
  billingPlanName: 'billingPlanName',
  settings: 'settings',
} as const satisfies Record<string, NumberFieldKind>;

export type NumberUpdateField = keyof typeof NUMBER_UPDATE_FIELDS;

export const NUMBER_UPDATE_KEYS = Object.keys(NUMBER_UPDATE_FIELDS) as NumberUpdateField[];

/** The updatable fields held as one of `K`. */
export type NumberFieldsOf<K extends NumberFieldKind> = {
  [F in NumberUpdateField]: (typeof NUMBER_UPDATE_FIELDS)[F] extends K ? F : never;
}[NumberUpdateField];

/** The updatable fields held as one of these kinds (text and link are both strings on the wire). */
export function numberFieldsOf<K extends NumberFieldKind>(...kinds: K[]): NumberFieldsOf<K>[] {
  return NUMBER_UPDATE_KEYS.filter((key): key is NumberFieldsOf<K> => (kinds as readonly string[]).includes(NUMBER_UPDATE_FIELDS[key]));
}

/**
 * What a provision order's entry may carry about its number besides `number` and
 * `messagingFeature` (type and class); the rest of a number is set by an update once it is live.
 */
export const PROVISION_ENTRY_KEYS = ['email', 'description', 'domain', 'platformType', 'campaignId', 'brandId', 'loaUrl', 'billingPlan', 'settings'] as const;

/** Fields fixed once a number is provisioned: an update naming one is refused as immutable. */
export const IMMUTABLE_NUMBER_FIELDS = ['owner', 'billableOwner', 'provider', 'number', 'phoneNumber'] as const;
