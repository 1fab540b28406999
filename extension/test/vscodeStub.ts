// What of the vscode module the unit-tested modules that import it touch (esbuild.js --tests puts
// this in its place): l10n's formatting and MarkdownString as plain data. Nothing here draws.
export const l10n = {
  t: (message: string, ...args: unknown[]) => message.replace(/\{(\d+)\}/g, (_, n: string) => String(args[Number(n)])),
};

export class MarkdownString {
  constructor(public value = '') {}
}
