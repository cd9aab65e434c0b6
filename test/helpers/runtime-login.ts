/**
 * The login the records tests serve requests as (created by scripts/run-tests.ts on the test
 * cluster; a test cluster is throwaway or trusted, so its password is no secret).
 */
export const recordsRuntimeLogin = { user: 'weft_test_records_runtime', password: 'weft-test-runtime' };

/** `url` with the records runtime login as its user. */
export function asRecordsRuntimeLogin(url: string): string {
  const runtime = new URL(url);
  runtime.username = recordsRuntimeLogin.user;
  runtime.password = recordsRuntimeLogin.password;
  return runtime.toString();
}
