import { Page } from '../../shared/components/page.js';

/** Any URL of the console that names no page. */
export function NotFoundPage() {
  return (
    <Page title="Not found">
      <p>
        This page does not exist. <a href="/console/">Go to the start page</a>.
      </p>
    </Page>
  );
}
