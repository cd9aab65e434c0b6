import { ApiClient, type Credentials } from './api.js';
import { Store } from './store.js';

/**
 * The signed-in session of a console, kept in memory only (never in localStorage or cookies): a
 * reload or a 401 returns to the login form, which renders in place of the page, so after logging
 * in the user is where they were.
 */
export class Session<C extends Credentials> {
  readonly credentials = new Store<C | null>(null);
  /** Set when the API answered 401: the login form says why it is back. */
  readonly expired = new Store(false);
  readonly api: ApiClient;

  constructor() {
    this.api = new ApiClient(
      () => this.credentials.get(),
      () => {
        if (this.credentials.get() !== null) this.expired.set(true);
        this.credentials.set(null);
      },
    );
  }

  signIn(credentials: C): void {
    this.expired.set(false);
    this.credentials.set(credentials);
  }

  signOut(): void {
    this.expired.set(false);
    this.credentials.set(null);
  }
}

/** A bearer token (a workflow JWT, or a records API key sent as bearer). */
export class BearerToken implements Credentials {
  constructor(readonly token: string) {}
  header(): Record<string, string> {
    return { authorization: `Bearer ${this.token}` };
  }
}
