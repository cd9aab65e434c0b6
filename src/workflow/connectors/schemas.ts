import Type from 'typebox';

/** The connector allowlist of an organisation: GET answer and PUT body. */
export const Allowlist = Type.Object(
  {
    hosts: Type.Array(Type.String({ minLength: 1, maxLength: 255 }), {
      maxItems: 500,
      description: 'host names, *.suffix wildcards, IP addresses or CIDR ranges; empty: no allowlist',
    }),
  },
  { additionalProperties: false },
);
