/** The two schemas of bench:records-access: the same orders, permissive and with every layer. */
const fields = `
  fields:
    - { name: po_number, type: string, required: true }
    - { name: region, type: string, required: true, filterable: true }
    - { name: status, type: enum, enum: [draft, submitted, approved, received, cancelled], required: true, filterable: true }
    - { name: amount, type: number, required: true, filterable: true, sortable: true }
    - { name: notes, type: string }${
      // A deployment whose row filter is by region declares an index that leads with it, so a guarded
      // list walks its own region in sort order; both schemas get it (BENCH_REGION_INDEX=0: neither).
      process.env.BENCH_REGION_INDEX === '0'
        ? ''
        : `
  indexes:
    - { fields: [region, amount] }`
    }`;

/** Schema paths and tables. */
export const benchSchemas = {
  open: { path: 'acme/bench/access/open-orders/v1', table: 'rec_acme.bench__access__open_orders__v1' },
  guarded: {
    path: 'acme/bench/access/guarded-orders/v1',
    table: 'rec_acme.bench__access__guarded_orders__v1',
  },
} as const;

/** Both definitions as one YAML file. */
export const benchResourcesYaml = `apiVersion: weft.dev/v1
kind: SchemaDefinition
metadata: { name: open-orders }
spec:
  org: acme
  app: bench
  domain: access
  object: open-orders
  version: v1
${fields}
  access:
    roles: { read: [buyer, admin], create: [admin] }
---
apiVersion: weft.dev/v1
kind: SchemaDefinition
metadata: { name: guarded-orders }
spec:
  org: acme
  app: bench
  domain: access
  object: guarded-orders
  version: v1
${fields}
  access:
    roles: { read: [buyer, admin], create: [admin] }
    abac:
      - { operation: read, condition: 'actor.attributes.region != "" && "buyer" in actor.roles', message: Buyers of a region only }
    rowFilter:
      - { role: buyer, condition: "region = (SELECT current_setting('weft.attributes')::jsonb->>'region')" }
    fieldAccess:
      - { field: notes, read: [admin] }
`;
