import type { ComponentChildren } from 'preact';
import { useLocation } from 'preact-iso';

/** One entry of the main navigation. */
export interface NavItem {
  href: string;
  label: string;
}

/** The page frame: a header with the product name, the navigation, the session controls; then the page. */
export function Layout(props: {
  title: string;
  nav: NavItem[];
  session?: ComponentChildren;
  children: ComponentChildren;
}) {
  const { path } = useLocation();
  return (
    <div class="app">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">{props.title}</span>
        <nav aria-label="Main">
          <ul>
            {props.nav.map((item) => (
              <li key={item.href}>
                <a
                  href={item.href}
                  aria-current={path === item.href || path.startsWith(`${item.href}/`) ? 'page' : undefined}
                >
                  {item.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="session">{props.session}</div>
      </header>
      <main id="main" tabIndex={-1}>
        {props.children}
      </main>
    </div>
  );
}
