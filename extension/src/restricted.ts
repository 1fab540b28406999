// Which settings a workspace may not set while it is untrusted, and which of them a settings file
// sets (no vscode import; unit-tested). VS Code itself drops a restricted setting's workspace value
// in Restricted Mode, so inspect() cannot tell the person what was ignored: the files can.

/**
 * Settings that name a program to run (python), a file or folders written to (historyPath, roots),
 * whose inbox files get written as read and who the person sends as (the identities), or how long
 * the person's own history is kept (historyDays). package.json lists the same keys as the
 * workspace trust capability's restrictedConfigurations.
 */
export const RESTRICTED_KEYS = [
  'python',
  'roots',
  'historyPath',
  'historyDays',
  'identity',
  'pseudoClaudeIdentity',
  'pseudoclaudeIdentity',
] as const;

/** settings.json text without comments and trailing commas (VS Code's JSONC), strings untouched. */
export function stripJsonc(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 1;
      out += ' ';
    } else {
      out += c;
    }
  }
  // a comma before } or ] (only outside strings: a string's "," never sits right before either)
  return out.replace(/("(?:[^"\\]|\\.)*")|,(\s*[}\]])/g, (m, str, close) => str ?? close);
}

/**
 * The restricted keys (`section.key`) a settings object sets: `"section.key"` or nested
 * `"section": {"key": …}`. `settings` is a settings.json's text, or a .code-workspace file's
 * (its `settings` object) when `workspaceFile`. Unreadable text: every restricted key whose name
 * appears in it, so nothing is left unsaid.
 */
export function restrictedKeysSet(text: string, section: string, workspaceFile = false): string[] {
  let obj: unknown;
  try {
    obj = JSON.parse(stripJsonc(text));
  } catch {
    obj = undefined;
  }
  if (obj === undefined) {
    return RESTRICTED_KEYS.filter(k => text.includes(`"${section}.${k}"`)).map(k => `${section}.${k}`);
  }
  const root = (workspaceFile ? (obj as { settings?: unknown })?.settings : obj) as Record<string, unknown> | undefined;
  if (!root || typeof root !== 'object') return [];
  const nested = root[section] && typeof root[section] === 'object' ? (root[section] as Record<string, unknown>) : {};
  return RESTRICTED_KEYS.filter(k => root[`${section}.${k}`] !== undefined || nested[k] !== undefined).map(
    k => `${section}.${k}`,
  );
}
