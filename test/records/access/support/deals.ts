import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { SignJWT } from 'jose';
import type { LightMyRequestResponse } from 'fastify';
import type { AccessControl } from '../../../../src/records/access/access-control.js';
import { startRecordsApp, testJwtSecret, type RecordsTestApp } from '../../support/records-app.js';

/** Schema paths of the access fixtures. */
export const dealsPath = 'acme/sales/crm/deals/v1';
export const accountsPath = 'acme/sales/crm/accounts/v1';
export const dealsTable = 'rec_acme.sales__crm__deals__v1';

/**
 * Deals: every access layer is in use. Reps see their region's deals (row filter over the
 * `weft.attributes` setting), trainees their own; margin is readable and writable by managers and
 * admins only, discount writable by them only; CEL rules cap a rep's deal size, close won deals,
 * keep lost deals for managers and shut out blocked actors; `account_id` refers to accounts,
 * which auditors may not read and whose credit limit only admins see.
 */
export const dealsYaml = `
apiVersion: weft.dev/v1
kind: SchemaDefinition
metadata: { name: deals-v1 }
spec:
  org: acme
  app: sales
  domain: crm
  object: deals
  version: v1
  fields:
    - { name: title, type: string, required: true }
    - { name: region, type: string, required: true, filterable: true }
    - { name: owner, type: string, filterable: true }
    - { name: status, type: enum, enum: [open, won, lost], default: open, filterable: true }
    - { name: amount, type: number, required: true, filterable: true, sortable: true }
    - { name: margin, type: number, filterable: true, sortable: true }
    - { name: discount, type: number }
    - { name: account_id, type: uuid, references: ${accountsPath} }
  access:
    roles:
      create: [rep, manager, admin]
      read: [rep, trainee, manager, admin, auditor]
      update: [rep, manager, admin]
      delete: [manager, admin]
    abac:
      - operation: create
        condition: 'request.amount <= 100000 || "manager" in actor.roles'
        message: Deals above 100000 need a manager
      - operation: update
        condition: 'record.status != "won"'
        message: Won deals are closed
      - operation: read
        condition: 'record.status != "lost" || "manager" in actor.roles || "admin" in actor.roles'
        message: Lost deals are for managers
      - operation: read
        condition: '!has(actor.attributes.blocked) || actor.attributes.blocked != true'
        message: Blocked actors may not read deals
    rowFilter:
      - role: rep
        condition: "region = current_setting('weft.attributes')::jsonb->>'region'"
        message: Reps see the deals of their region
      - role: trainee
        condition: "owner = current_setting('weft.actor_id')"
        message: Trainees see their own deals
    fieldAccess:
      - { field: margin, read: [manager, admin], write: [manager, admin] }
      - { field: discount, write: [manager, admin] }
---
apiVersion: weft.dev/v1
kind: SchemaDefinition
metadata: { name: accounts-v1 }
spec:
  org: acme
  app: sales
  domain: crm
  object: accounts
  version: v1
  fields:
    - { name: name, type: string, required: true }
    - { name: credit_limit, type: number }
  access:
    roles:
      create: [admin]
      read: [rep, trainee, manager, admin]
    fieldAccess:
      - { field: credit_limit, read: [admin] }
`;

/** Who calls in the scenarios: roles and JWT `attributes`. */
export const actors = {
  admin: { roles: ['admin'], attributes: {} },
  mgr: { roles: ['manager'], attributes: { region: 'north' } },
  rita: { roles: ['rep'], attributes: { region: 'north' } },
  sam: { roles: ['rep'], attributes: { region: 'south' } },
  tom: { roles: ['trainee'], attributes: {} },
  aud: { roles: ['auditor'], attributes: {} },
  nobody: { roles: [], attributes: {} },
  bob: { roles: ['rep'], attributes: { region: 'north', blocked: true } },
} as const;

/** One of the scenario actors. */
export type ActorName = keyof typeof actors;

/** A records app serving the deals fixtures, and a client that calls as a named actor. */
export interface DealsApp {
  app: RecordsTestApp;
  as(
    actor: ActorName,
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

/** Starts a records app with the deals fixtures applied. */
export async function startDealsApp(access?: AccessControl): Promise<DealsApp> {
  const app = await startRecordsApp({}, access ? { access } : {});
  await writeFile(path.join(app.resourcesDir, 'deals.yaml'), dealsYaml);
  const report = await app.service.sync.syncFolder();
  if (report && report.rejected.length > 0) {
    await app.close();
    throw new Error(JSON.stringify(report.rejected));
  }
  const tokens = new Map<ActorName, string>();
  const token = async (actor: ActorName) => {
    const known = tokens.get(actor);
    if (known) return known;
    const signed = await new SignJWT({
      roles: [...actors[actor].roles],
      attributes: actors[actor].attributes,
    })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(actor)
      .setIssuer('https://issuer.test')
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(testJwtSecret));
    tokens.set(actor, signed);
    return signed;
  };
  return {
    app,
    as: async (actor, method, url, body, headers = {}) =>
      app.service.app.inject({
        method,
        url: `/api/${url}`,
        headers: { authorization: `Bearer ${await token(actor)}`, ...headers },
        ...(body !== undefined ? { payload: body as object } : {}),
      }),
    close: () => app.close(),
  };
}
