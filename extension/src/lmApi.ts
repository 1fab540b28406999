// The language-model API parts VS Code 1.90's typings lack (tools: 1.95, MCP server definitions:
// 1.101), typed as far as lmTools.ts and mcpDefinition.ts use them, and found at run time: an
// older VS Code has none of them, and the extension then simply offers neither.
import * as vscode from 'vscode';

export interface LmTextPart {
  readonly value: string;
}
export interface LmToolResult {
  readonly content: unknown[];
}

export interface LmToolInvocationOptions<T> {
  readonly input: T;
  readonly toolInvocationToken?: unknown;
}
export interface LmToolPrepareOptions<T> {
  readonly input: T;
}
export interface LmPreparedInvocation {
  invocationMessage?: string;
  /** Shown before the tool runs; the person confirms or cancels. A string `message` is Markdown too. */
  confirmationMessages?: { title: string; message: string | vscode.MarkdownString };
}
export interface LmTool<T> {
  invoke(options: LmToolInvocationOptions<T>, token: vscode.CancellationToken): Promise<LmToolResult>;
  prepareInvocation?(
    options: LmToolPrepareOptions<T>,
    token: vscode.CancellationToken,
  ): LmPreparedInvocation | undefined;
}

export interface McpStdioDefinition {
  label: string;
  command: string;
  args: string[];
  env: Record<string, string | number | null>;
  version?: string;
}
export interface McpDefinitionProvider<T> {
  onDidChangeMcpServerDefinitions?: vscode.Event<void>;
  provideMcpServerDefinitions(token: vscode.CancellationToken): Promise<T[]>;
  resolveMcpServerDefinition?(server: T, token: vscode.CancellationToken): Promise<T | undefined>;
}

interface LmNamespace {
  registerTool?<T>(name: string, tool: LmTool<T>): vscode.Disposable;
  invokeTool?(
    name: string,
    options: LmToolInvocationOptions<object>,
    token?: vscode.CancellationToken,
  ): Thenable<LmToolResult>;
  registerMcpServerDefinitionProvider?<T>(id: string, provider: McpDefinitionProvider<T>): vscode.Disposable;
}

interface LmModule {
  lm?: LmNamespace;
  LanguageModelTextPart?: new (value: string) => LmTextPart;
  LanguageModelToolResult?: new (content: LmTextPart[]) => LmToolResult;
  McpStdioServerDefinition?: new (
    label: string,
    command: string,
    args?: string[],
    env?: Record<string, string | number | null>,
    version?: string,
  ) => McpStdioDefinition;
}

const api = vscode as unknown as LmModule;

/** registerTool and the result classes, when this VS Code has them. */
export function toolsApi():
  | { register: <T>(name: string, tool: LmTool<T>) => vscode.Disposable; result: (json: string) => LmToolResult }
  | undefined {
  const lm = api.lm;
  const Part = api.LanguageModelTextPart,
    Result = api.LanguageModelToolResult;
  if (!lm?.registerTool || !Part || !Result) return undefined;
  const registerTool = lm.registerTool.bind(lm);
  return { register: (name, tool) => registerTool(name, tool), result: json => new Result([new Part(json)]) };
}

/** registerMcpServerDefinitionProvider and the stdio definition class, when this VS Code has them. */
export function mcpApi():
  | {
      register: <T>(id: string, provider: McpDefinitionProvider<T>) => vscode.Disposable;
      stdio: (
        label: string,
        command: string,
        args: string[],
        env: Record<string, string>,
        version?: string,
      ) => McpStdioDefinition;
    }
  | undefined {
  const lm = api.lm;
  const Def = api.McpStdioServerDefinition;
  if (!lm?.registerMcpServerDefinitionProvider || !Def) return undefined;
  const registerProvider = lm.registerMcpServerDefinitionProvider.bind(lm);
  return {
    register: (id, provider) => registerProvider(id, provider),
    stdio: (label, command, args, env, version) => new Def(label, command, args, env, version),
  };
}
