// Elements made in one call: attributes and text are set as values, never parsed as HTML.
const COLORS = new Set(['blue', 'green', 'red', 'yellow', 'purple', 'cyan', 'orange', 'pink']);

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...kids: Array<Node | string>
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else e.setAttribute(k, v);
  }
  for (const k of kids) e.append(k);
  return e;
}

/** A member's color as a class, only from the known set (the name comes from an agent's file). */
export const colorClass = (c: string | null) => (c && COLORS.has(c) ? ` color-${c}` : '');
