// What of the vscode module the unit-tested modules that import it touch (esbuild.js --tests puts
// this in its place): l10n's formatting, MarkdownString as plain data, and the language-model tools
// API as a registry the tests read. The modal's answer is the test's to set. Nothing here draws.
export const l10n = {
  t: (message: string, ...args: unknown[]) => message.replace(/\{(\d+)\}/g, (_, n: string) => String(args[Number(n)])),
};

export class MarkdownString {
  constructor(public value = '') {}
}

export class LanguageModelTextPart {
  constructor(public value: string) {}
}

export class LanguageModelToolResult {
  constructor(public content: unknown[]) {}
}

/** What a test sees of the tools registered, and of the modals asked. */
export const stub = {
  tools: new Map<string, unknown>(),
  modals: [] as string[],
  answer: undefined as string | undefined,
};

export const lm = {
  registerTool(name: string, tool: unknown) {
    stub.tools.set(name, tool);
    return { dispose: () => stub.tools.delete(name) };
  },
};

export const window = {
  async showWarningMessage(message: string) {
    stub.modals.push(message);
    return stub.answer;
  },
};

export const commands = { executeCommand: async () => undefined };
