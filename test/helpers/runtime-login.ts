/**
 * The logins the tests serve requests as, one per service: they own nothing and are members of
 * the service's application role, as in production (created by scripts/run-tests.ts on the test
 * cluster; a test cluster is throwaway or trusted, so their passwords are no secret).
 */
export const runtimeLogins = {
  workflow: { user: 'weft_test_workflow_runtime', password: 'weft-test-runtime', role: 'weft_workflow_app' },
  records: { user: 'weft_test_records_runtime', password: 'weft-test-runtime', role: 'weft_records_app' },
} as const;

/** The records runtime login. */
export const recordsRuntimeLogin = runtimeLogins.records;

/** `url` with a service's runtime login as its user. */
export function asRuntimeLogin(url: string, service: keyof typeof runtimeLogins): string {
  const runtime = new URL(url);
  runtime.username = runtimeLogins[service].user;
  runtime.password = runtimeLogins[service].password;
  return runtime.toString();
}

/** `url` with the records runtime login as its user. */
export function asRecordsRuntimeLogin(url: string): string {
  return asRuntimeLogin(url, 'records');
}
