import type { ComponentChildren } from 'preact';

/**
 * A link into the service's API reference (`/docs`, next to the dashboard, as the Developers page
 * links it), opened at one tag's section: Swagger UI's deep links are `#/{tag}`.
 */
export function DocsLink({ section, children }: { section: string; children: ComponentChildren }) {
  return <a href={`../docs#/${encodeURIComponent(section)}`}>{children}</a>;
}
