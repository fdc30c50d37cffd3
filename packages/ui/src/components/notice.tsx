/** A page-sized message: nothing to show, or why not. */
import type { ComponentChildren } from 'preact';

export function Notice({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <main class="notice" id="main">
      <h1>{title}</h1>
      <p>{children}</p>
    </main>
  );
}
