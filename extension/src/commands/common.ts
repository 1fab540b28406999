// What every command group shares: the services it works with and one way to report failures.
import * as vscode from 'vscode';
import type { MarkService } from '../markService';
import type { SidecarCache } from '../sidecarCache';
import type { MessageContentProvider } from '../messageView';
import type { SidecarClient } from '../sidecarClient';
import { errorText } from '../render';
import { plain } from '../plainText';

export interface Services {
  sidecar: SidecarClient;
  cache: SidecarCache;
  marks: MarkService;
  content: MessageContentProvider;
  log: vscode.LogOutputChannel;
}

/** What a failed command returns (to tests and API callers) after showing the error once. */
export interface CommandError {
  error: { code?: string; message: string };
}

/** A group of commands: each is a guarded function, callable directly (API, notifications) or registered. */
export abstract class CommandGroup {
  constructor(protected readonly s: Services) {}

  /** Wraps a command body: a sidecar error becomes one clear message and a returned {error}. */
  protected guard<A extends unknown[], R>(
    name: string,
    fn: (...a: A) => Promise<R>,
  ): (...a: A) => Promise<R | CommandError> {
    return async (...a: A) => {
      try {
        return await fn(...a);
      } catch (e) {
        const { code, text } = errorText(e);
        this.s.log.error(`${name}: ${text}${code ? ` [${code}]` : ''}`);
        void vscode.window.showErrorMessage(`Team Inbox: ${plain(text)}`); // may quote a name or a file
        return { error: { code, message: text } };
      }
    };
  }

  abstract register(): vscode.Disposable[];
}
