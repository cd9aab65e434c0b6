import type { Page } from 'playwright-core';
import { createMigratedDatabase, type TestDatabase } from '../helpers/database.js';
import { startTestWorkflow, type TestWorkflow } from '../helpers/workflow.js';

/** A workflow service listening on a port, with one org and one member, for a console test file. */
export interface ConsoleWorkflow {
  database: TestDatabase;
  workflow: TestWorkflow;
  origin: string;
  orgId: string;
  close(): Promise<void>;
}

/** Starts the service on its own database with the org `acme` and `member` in it (Developer, Operator). */
export async function startConsoleWorkflow(member: {
  email: string;
  password: string;
}): Promise<ConsoleWorkflow> {
  const database = await createMigratedDatabase('workflow');
  const workflow = await startTestWorkflow({ database });
  const userId = await workflow.createUser(member.email, member.password);
  const { rows } = await database.pool.query<{ id: string }>(
    `INSERT INTO orgs (name, slug) VALUES ('Acme', 'acme') RETURNING id`,
  );
  const orgId = rows[0]!.id;
  await database.pool.query(
    `INSERT INTO memberships (org_id, user_id, roles) VALUES ($1, $2, '{Developer,Operator}')`,
    [orgId, userId],
  );
  const origin = new URL(await workflow.service.app.listen({ host: '127.0.0.1', port: 0 })).origin;
  return {
    database,
    workflow,
    origin,
    orgId,
    close: async () => {
      await workflow.close();
      await database.drop();
    },
  };
}

/** Opens `url` of the workflow console and logs in with email and password on the login form it shows. */
export async function logInWithPassword(
  page: Page,
  url: string,
  email: string,
  password: string,
): Promise<void> {
  await page.goto(url);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
}
