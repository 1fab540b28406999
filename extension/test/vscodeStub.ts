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
  panels: [] as FakePanel[],
  serializer: undefined as { deserializeWebviewPanel(p: unknown, s: unknown): Promise<void> } | undefined,
};

export const lm = {
  registerTool(name: string, tool: unknown) {
    stub.tools.set(name, tool);
    return { dispose: () => stub.tools.delete(name) };
  },
};

/** A webview panel as the team view's host side touches it: what it posts is kept, and a test
 * hands it what its view posts (`receive`). */
export class FakePanel {
  title: string;
  posted: unknown[] = [];
  private onMessage: ((m: unknown) => void)[] = [];
  readonly webview = {
    options: {},
    cspSource: 'vscode-resource:',
    asWebviewUri: (u: unknown) => u,
    html: '',
    postMessage: async (m: unknown) => {
      this.posted.push(structuredClone(m));
      return true;
    },
    onDidReceiveMessage: (f: (m: unknown) => void) => {
      this.onMessage.push(f);
      return { dispose: () => undefined };
    },
  };
  constructor(title: string) {
    this.title = title;
  }
  receive(m: unknown): void {
    this.onMessage.forEach(f => f(m));
  }
  onDidDispose() {
    return { dispose: () => undefined };
  }
  reveal(): void {}
  dispose(): void {}
}

export const window = {
  async showWarningMessage(message: string) {
    stub.modals.push(message);
    return stub.answer;
  },
  registerWebviewPanelSerializer(_type: string, s: typeof stub.serializer) {
    stub.serializer = s;
    return { dispose: () => undefined };
  },
  createWebviewPanel(_type: string, title: string) {
    const p = new FakePanel(title);
    stub.panels.push(p);
    return p;
  },
};

export const ViewColumn = { Active: -1 };

export const Uri = {
  joinPath: (base: { path: string }, ...parts: string[]) => ({ path: [base.path, ...parts].join('/') }),
};

export const workspace = {
  onDidChangeConfiguration: () => ({ dispose: () => undefined }),
  getConfiguration: () => ({ get: <T>(_k: string, d?: T) => d }),
};

export const commands = {
  executeCommand: async () => undefined,
  registerCommand: () => ({ dispose: () => undefined }),
};

export const env = { openExternal: async () => true };
