import Type, { type Static } from 'typebox';

const claimPath = Type.String({ minLength: 1, maxLength: 256, pattern: '^[^.]+(\\.[^.]+)*$' });
const identifier = Type.String({ pattern: '^[a-z_][a-z0-9_]{0,62}$' });

/** One claim source with its transform (`{path, transform, ...parameters}`). */
export const claimSourceSchema = Type.Object(
  {
    path: claimPath,
    transform: Type.Optional(
      Type.Enum([
        'identity',
        'prefix_strip',
        'split',
        'uppercase',
        'lowercase',
        'lookup',
        'regex_extract',
        'static_append',
      ]),
    ),
    prefix: Type.Optional(Type.String({ maxLength: 256 })),
    separator: Type.Optional(Type.String({ minLength: 1, maxLength: 16 })),
    table: Type.Optional(Type.String({ pattern: '^([a-z_][a-z0-9_]{0,62}\\.)?[a-z_][a-z0-9_]{0,62}$' })),
    keyColumn: Type.Optional(identifier),
    valueColumn: Type.Optional(identifier),
    pattern: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
    group: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 99 }), identifier])),
    value: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String(), { maxItems: 100 })])),
  },
  { additionalProperties: false },
);

/** `claimMapping` of a jwt or oidc strategy. */
export const claimMappingSchema = Type.Object(
  {
    actorId: claimPath,
    roles: Type.Optional(Type.Array(claimSourceSchema, { maxItems: 50 })),
    attributes: Type.Optional(
      Type.Record(Type.String({ pattern: '^[A-Za-z0-9_.-]{1,100}$' }), claimSourceSchema),
    ),
  },
  { additionalProperties: false },
);

/** One claim source as validated. */
export type ClaimSource = Static<typeof claimSourceSchema>;
/** A claim mapping as validated. */
export type ClaimMappingSpec = Static<typeof claimMappingSchema>;
